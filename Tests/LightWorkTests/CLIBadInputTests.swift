import Foundation
import XCTest
@testable import LightWork

/// Issue 2's bad inputs through the real binary: each gets one line naming the file and the reason, a
/// `failed` manifest entry and exit code 1, while the good input beside it still converts.
final class CLIBadInputTests: XCTestCase {
    struct Case {
        let name: String
        let make: (URL) throws -> URL
        let reason: String   // a fragment the one-line reason must contain
    }

    func testEveryBadInputFailsAloneWithOneLineAndAManifestEntry() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let inputs = dir.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: inputs, withIntermediateDirectories: true)
        let raw = try TestPaths.sharedSamples("raw")
        let cases: [Case] = [
            Case(name: "truncated RAW", make: { d in
                let data = try Data(contentsOf: raw.appendingPathComponent("kodak-dc50.kdc"))
                let u = d.appendingPathComponent("truncated.kdc"); try data.prefix(data.count / 2).write(to: u); return u
            }, reason: "cannot decode"),
            Case(name: "DNG without image data", make: { try BadInputs.strippedDNG(in: $0) }, reason: "no picture data"),
            Case(name: "GoPro GPR", make: { try BadInputs.gprLikeDNG(in: $0) }, reason: "GPR"),
            Case(name: "non-image file", make: { d in
                let u = d.appendingPathComponent("notes.txt"); try Data("shot list\n".utf8).write(to: u); return u
            }, reason: "nor a RAW format"),   // the list of RGB codecs before it grows with the registry
            Case(name: "empty file", make: { d in
                let u = d.appendingPathComponent("empty.nef"); try Data().write(to: u); return u
            }, reason: "the file is empty"),
            Case(name: "missing path", make: { $0.appendingPathComponent("does-not-exist.cr2") }, reason: "no such file"),
        ]
        let good = SampleSceneTests.samples.appendingPathComponent("scene.dng")
        var args = [good.path]
        var expected: [(String, String)] = []
        for c in cases {
            let u = try c.make(inputs)
            args.append(u.path)
            expected.append((u.path, c.reason))
        }
        let out = dir.appendingPathComponent("out")
        let result = try CLIRunner.run(["convert"] + args + ["-o", out.path, "--demosaic", "linear"])
        XCTAssertEqual(result.status, 1, result.stderr)
        let manifest = try Manifest.decode(Data(contentsOf: out.appendingPathComponent("manifest.json")))
        XCTAssertEqual(manifest.summary.converted, 1)
        XCTAssertEqual(manifest.summary.failed, cases.count)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        for (c, (path, fragment)) in zip(cases, expected) {
            let entry = try XCTUnwrap(manifest.entries.first { $0.input.path == path }, c.name)
            XCTAssertEqual(entry.status, .failed, c.name)
            XCTAssertEqual(entry.reason?.contains(fragment), true, "\(c.name): \(entry.reason ?? "nil")")
            let matching = lines.filter { $0.contains(path) }
            XCTAssertEqual(matching.count, 1, "\(c.name): one line naming the file, got \(matching)")
            XCTAssertEqual(matching.first?.contains(fragment), true, "\(c.name): \(matching)")
        }
        // The good file converted and nothing half-written is left.
        XCTAssertNoThrow(try ImageFileReader.read(out.appendingPathComponent("scene.tif")))
        let names = try FileManager.default.contentsOfDirectory(atPath: out.path)
        XCTAssertEqual(names.filter { $0.contains("lwtmp") }, [])
    }

    /// `-o` is checked once, before any input is touched: a file, a folder beneath a file, or a folder this user
    /// cannot write into is one line naming the folder and exit 2, not one failure per input (convert and watch).
    func testUnusableOutputFolderIsOneLineUpFront() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let blocker = dir.appendingPathComponent("a-file")
        try Data("x".utf8).write(to: blocker)
        let locked = dir.appendingPathComponent("locked")
        try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: locked.path)
        let inputs = ["scene-srgb.png", "scene.dng"].map { SampleSceneTests.samples.appendingPathComponent($0).path }
        // Root may write anywhere: the unwritable case then runs as nobody (setpriv, util-linux), else as this user.
        func run(_ args: [String]) throws -> CLIRunner.Result {
            guard getuid() == 0 else { return try CLIRunner.run(args) }
            let setpriv = URL(fileURLWithPath: "/usr/bin/setpriv")
            let (status, out, err) = try CLIRunner.capture(setpriv, ["--reuid=65534", "--regid=65534", "--clear-groups", CLIRunner.binary.path] + args,
                                                           environment: ["HOME": dir.path])
            return CLIRunner.Result(status: status, stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self))
        }
        let cases: [(URL, String)] = [(blocker, "is a file, not a folder"), (blocker.appendingPathComponent("out"), "a-file is a file, not a folder"),
                                      (locked.appendingPathComponent("out"), "cannot create"), (locked, "not writable")]
        for (out, reason) in cases {
            for command in [["convert"] + inputs, ["watch", SampleSceneTests.samples.path, "--once"]] {
                let r = try run(command + ["-o", out.path])
                XCTAssertEqual(r.status, 2, "\(command[0]) -o \(out.path): \(r.stderr)")
                let lines = r.stderr.split(separator: "\n").filter { !$0.hasPrefix("Run 'lightwork") }
                XCTAssertEqual(lines.count, 1, r.stderr)
                XCTAssertTrue(lines.first?.contains("-o \(out.path): ") == true && r.stderr.contains(reason), r.stderr)
                XCTAssertFalse(r.stderr.contains("scene") || r.stderr.contains("NSCocoaErrorDomain"), r.stderr)
            }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: locked.appendingPathComponent("out").path))
    }

    /// `lightwork` alone is a usage error: the usage on stderr, exit 2.
    func testNoArgumentsPrintsUsageAndExitsTwo() throws {
        let r = try CLIRunner.run([])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("Usage: lightwork COMMAND"), r.stderr)
        XCTAssertEqual(r.stdout, "")
    }

    /// `info` on a missing file or a folder: one line in words; `--json`: an array of objects whatever the number of
    /// files, camelCase keys, numbers as JSON numbers (checked against LibRaw's and the file's own values).
    func testInfoErrorsAreOneLineAndJSONIsTyped() throws {
        let missing = try CLIRunner.run(["info", "/nonexistent/IMG_1.CR2"])
        XCTAssertEqual(missing.status, 1)
        XCTAssertEqual(missing.stderr, "lightwork: no such file: /nonexistent/IMG_1.CR2\n")
        let folder = try CLIRunner.run(["info", SampleSceneTests.samples.path])
        XCTAssertEqual(folder.status, 1)
        XCTAssertEqual(folder.stderr.split(separator: "\n").count, 1, folder.stderr)
        XCTAssertFalse(folder.stderr.contains("NSCocoaErrorDomain"), folder.stderr)

        let crw = try TestPaths.sharedSamples("raw").appendingPathComponent("canon-eos-d30.crw")
        let jpeg = try TestPaths.sharedSamples("rgb").appendingPathComponent("large-exif-olympus-pen-e-p3.jpg")
        func documents(_ files: [URL]) throws -> [[String: Any]] {
            let r = try CLIRunner.run(["info", "--json"] + files.map(\.path))
            XCTAssertEqual(r.status, 0, r.stderr)
            return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]], r.stdout)
        }
        let one = try documents([crw])
        XCTAssertEqual(one.count, 1, "one file is an array of one")
        let both = try documents([crw, jpeg])
        XCTAssertEqual(both.count, 2)
        for doc in both {
            for key in doc.keys { XCTAssertFalse(key.contains(" "), "key '\(key)'") }
        }
        let raw = both[0], rgb = both[1]
        XCTAssertEqual(raw["size"] as? Int, try Data(contentsOf: crw).count)
        XCTAssertEqual(raw["whiteLevel"] as? Int, 4095, "LibRaw's maximum for the D30")
        XCTAssertEqual(raw["blackLevel"] as? Int, 0)
        XCTAssertEqual(raw["colors"] as? Int, 3)
        XCTAssertEqual(raw["imageSize"] as? [Int], [2176, 1448])
        XCTAssertEqual((raw["asShotWB"] as? [Double])?.count, 4)
        XCTAssertEqual((raw["rgbCam"] as? [[Double]])?.map(\.count), [3, 3, 3])
        XCTAssertEqual(raw["iso"] as? Int, 100)
        XCTAssertEqual(raw["cfa"] as? String, "RGGB")
        XCTAssertEqual(raw["make"] as? String, "Canon")
        XCTAssertEqual(rgb["width"] as? Int, 1280)
        XCTAssertEqual(rgb["storedSize"] as? [Int], [1280, 960])
        XCTAssertEqual(rgb["components"] as? Int, 3)
        XCTAssertEqual(rgb["colourModel"] as? String, "rgb")
    }

    func testUsageErrorsExitTwoAndHelpTeaches() throws {
        let noOutput = try CLIRunner.run(["convert", "x.dng"])
        XCTAssertEqual(noOutput.status, 2)
        XCTAssertTrue(noOutput.stderr.contains("-o OUTDIR"), noOutput.stderr)
        let badFormat = try CLIRunner.run(["convert", "x.dng", "-o", "/tmp/x", "--format", "gif"])
        XCTAssertEqual(badFormat.status, 2)
        XCTAssertTrue(badFormat.stderr.contains("tiff16"), badFormat.stderr)
        let help = try CLIRunner.run(["convert", "--help"])
        XCTAssertEqual(help.status, 0)
        for word in ["--format", "--colorspace", "--recipe", "Exit status", "Examples"] {
            XCTAssertTrue(help.stdout.contains(word), "help mentions \(word)")
        }
        let version = try CLIRunner.run(["--version"])
        XCTAssertEqual(version.status, 0)
        for lib in ["libraw", "lcms2", "libtiff", "libjpeg", "libpng"] { XCTAssertTrue(version.stdout.contains(lib), version.stdout) }
    }

    /// A bad recipe fails before any file is touched, naming the JSON path of the mistake.
    func testBadRecipeFailsBeforeAnyFileWithItsJSONPath() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let recipe = dir.appendingPathComponent("bad.json")
        try Data(#"{"version": 1, "name": "x", "filters": {"contrast": {"ui": 140}}}"#.utf8).write(to: recipe)
        let out = dir.appendingPathComponent("out")
        let result = try CLIRunner.run(["convert", SampleSceneTests.samples.appendingPathComponent("scene.dng").path, "-o", out.path, "--recipe", recipe.path])
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains("$.filters.contrast.ui"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path), "nothing touched")
    }
}
