import Foundation
import XCTest
@testable import LightWork

/// A hot folder for watch tests: an inbox, an output folder, small generated inputs, the real `lightwork
/// watch` in the background, and waits that poll for a condition with a generous deadline (never a bare sleep).
final class WatchFixture {
    let dir: URL
    let inbox: URL
    let out: URL
    /// Pre-made inputs, copied into the inbox by the tests.
    let sources: URL
    var manifestURL: URL { out.appendingPathComponent("manifest.json") }
    var journalURL: URL { out.appendingPathComponent("watch-journal.jsonl") }
    var statusURL: URL { out.appendingPathComponent("watch-status.json") }

    init(_ test: XCTestCase) throws {
        dir = try TestPaths.temporaryDirectory(test)
        inbox = dir.appendingPathComponent("inbox")
        out = dir.appendingPathComponent("out")
        sources = dir.appendingPathComponent("sources")
        for d in [inbox, sources] { try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true) }
    }

    /// `count` different DNGs (by default 240×160, the generator's smallest) named `prefix1.dng`…, in `sources`.
    func makeDNGs(_ count: Int, prefix: String = "f", seed: Int = 500, width: Int = 240, height: Int = 160) throws -> [URL] {
        try (1...count).map { i in
            let url = sources.appendingPathComponent("\(prefix)\(i).dng")
            try BatchFixture.makeDNG(url, seed: seed + i, width: width, height: height)
            return url
        }
    }

    /// Starts `lightwork watch inbox -o out` with a short settle time and no heartbeat unless given.
    func start(_ extra: [String] = [], environment: [String: String] = [:]) throws -> CLIRunner.Background {
        try CLIRunner.Background(["watch", inbox.path, "-o", out.path, "--settle", "0.4", "--heartbeat", "0"] + extra,
                                 environment: environment, logs: dir)
    }

    /// Copies `source` into the inbox as `name`, in one go.
    func drop(_ source: URL, as name: String? = nil) throws {
        let target = inbox.appendingPathComponent(name ?? source.lastPathComponent)
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: source, to: target)
    }

    /// Polls `condition` every 20 ms until it holds or `seconds` pass; returns whether it held.
    @discardableResult
    static func wait(seconds: Double = 60, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            usleep(20_000)
        }
        return condition()
    }

    /// The manifest as on disk now (nil while absent or being replaced).
    func manifest() -> Manifest? { try? BatchFixture.manifest(manifestURL) }

    /// Entries of the manifest for `relativePath`.
    func entries(for relativePath: String) -> [Manifest.Entry] {
        manifest()?.entries.filter { $0.input.relativePath == relativePath } ?? []
    }

    /// Waits until the manifest has an entry for each of `paths`.
    @discardableResult
    func waitForEntries(_ paths: [String], seconds: Double = 60) -> Bool {
        WatchFixture.wait(seconds: seconds) {
            guard let m = manifest() else { return false }
            let recorded = Set(m.entries.map(\.input.relativePath))
            return paths.allSatisfy(recorded.contains)
        }
    }

    /// The journal's records (complete lines only).
    func journal() -> [WatchRecord] {
        guard let data = try? Data(contentsOf: journalURL) else { return [] }
        return data.split(separator: 0x0A).compactMap { try? JSONDecoder().decode(WatchRecord.self, from: Data($0)) }
    }

    /// How many `done` records the journal holds for each path.
    func doneCounts() -> [String: Int] {
        var counts: [String: Int] = [:]
        for r in journal() where r.op == .done { counts[r.path ?? "", default: 0] += 1 }
        return counts
    }

    /// Output image files under final names in `out` (manifest, journal, status and hidden temporaries
    /// excluded), relative paths.
    func outputs() throws -> [String] {
        try BatchFixture.outputDigests(under: out).keys
            .filter { !$0.hasPrefix("watch-") && !($0 as NSString).lastPathComponent.hasPrefix(".") }.sorted()
    }

    /// Every output under a final name reads back as a whole image.
    func assertOutputsComplete(file: StaticString = #filePath, line: UInt = #line) throws {
        for path in try outputs() {
            XCTAssertNoThrow(try ImageFileReader.read(out.appendingPathComponent(path)), "\(path) is complete", file: file, line: line)
        }
    }

    func stderr(_ run: CLIRunner.Background) -> String { (try? String(contentsOf: run.stderrURL, encoding: .utf8)) ?? "" }
    func stdout(_ run: CLIRunner.Background) -> String { (try? String(contentsOf: run.stdoutURL, encoding: .utf8)) ?? "" }
}
