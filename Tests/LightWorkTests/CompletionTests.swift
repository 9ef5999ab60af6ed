import Foundation
import XCTest

/// The shell completions are made from the commands' declared options, and the shells accept them.
final class CompletionTests: XCTestCase {
    /// bash: the script parses, and completing `lightwork convert --long` offers `--long-edge`; `lightwork w`
    /// offers `watch`; an option taking a folder completes file names.
    func testBashCompletionCompletesCommandsAndOptions() throws {
        let script = try CLIRunner.run(["completion", "bash"])
        XCTAssertEqual(script.status, 0, script.stderr)
        let dir = try TestPaths.temporaryDirectory(self)
        let file = dir.appendingPathComponent("lightwork.bash")
        try Data(script.stdout.utf8).write(to: file)
        func complete(_ words: [String]) throws -> [String] {
            let quoted = words.map { "'\($0)'" }.joined(separator: " ")
            let program = "source '\(file.path)'; COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); _lightwork; printf '%s\\n' \"${COMPREPLY[@]}\""
            let r = try CLIRunner.capture(URL(fileURLWithPath: "/bin/bash"), ["-c", program])
            XCTAssertEqual(r.status, 0, String(decoding: r.stderr, as: UTF8.self))
            return String(decoding: r.stdout, as: UTF8.self).split(separator: "\n").map(String.init)
        }
        XCTAssertEqual(try complete(["lightwork", "w"]), ["watch"])
        XCTAssertTrue(try complete(["lightwork", "convert", "--long"]).contains("--long-edge"))
        XCTAssertTrue(try complete(["lightwork", "watch", "--re"]).contains("--recipe"))
        XCTAssertEqual(try complete(["lightwork", "manifest", "me"]), ["merge"])
        XCTAssertEqual(try complete(["lightwork", "convert", "--quality", ""]), [], "a number is not completed with file names")
    }

    /// zsh: the script parses (`zsh -n`), names every visible command, and lists convert's options.
    func testZshCompletionParses() throws {
        let script = try CLIRunner.run(["completion", "zsh"])
        XCTAssertEqual(script.status, 0, script.stderr)
        XCTAssertTrue(script.stdout.hasPrefix("#compdef lightwork"))
        for command in ["convert", "watch", "serve", "verify", "chart", "info", "films", "filters", "manifest"] {
            XCTAssertTrue(script.stdout.contains("'\(command):"), "zsh completion lacks \(command)")
        }
        XCTAssertTrue(script.stdout.contains("'--long-edge=["))
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/zsh") || FileManager.default.isExecutableFile(atPath: "/bin/zsh") else {
            XCTFail("zsh is not installed ('make test' installs it through scripts/ensure-deps.sh --test)")
            return
        }
        let file = try TestPaths.temporaryDirectory(self).appendingPathComponent("_lightwork")
        try Data(script.stdout.utf8).write(to: file)
        let r = try CLIRunner.capture(URL(fileURLWithPath: "/usr/bin/env"), ["zsh", "-n", file.path])
        XCTAssertEqual(r.status, 0, String(decoding: r.stderr, as: UTF8.self))
    }

    /// An unknown shell is a usage error.
    func testUnknownShellIsRefused() throws {
        let r = try CLIRunner.run(["completion", "fish"])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("bash or zsh"), r.stderr)
    }
}
