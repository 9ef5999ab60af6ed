import Foundation
import XCTest
@testable import LightWork

/// The export options through the real `lightwork convert` binary: resize, names, collisions, pairs, JSON events.
final class ExportCLITests: XCTestCase {
    /// A shoot folder: two small PNGs in a subfolder and a RAW+JPEG pair (the synthetic DNG and a real JPEG).
    func makeShoot() throws -> (root: URL, input: URL) {
        let root = try TestPaths.temporaryDirectory(self)
        let input = root.appendingPathComponent("shoot")
        try FileManager.default.createDirectory(at: input.appendingPathComponent("sub"), withIntermediateDirectories: true)
        let png = try TestPaths.sharedSamples("rgb").appendingPathComponent("iccp-srgb.png")
        try FileManager.default.copyItem(at: png, to: input.appendingPathComponent("sub/a.png"))
        try FileManager.default.copyItem(at: png, to: input.appendingPathComponent("sub/b.png"))
        try FileManager.default.copyItem(at: TestPaths.repoRoot.appendingPathComponent("Samples/scene.dng"),
                                         to: input.appendingPathComponent("IMG_1.dng"))
        try FileManager.default.copyItem(at: try TestPaths.sharedSamples("rgb").appendingPathComponent("orientation-1.jpg"),
                                         to: input.appendingPathComponent("IMG_1.jpg"))
        return (root, input)
    }

    static func events(_ stdout: String) throws -> [[String: Any]] {
        try stdout.split(separator: "\n").map { line in
            try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], String(line))
        }
    }

    func testResizeNamesPairsAndJSONEvents() throws {
        let (root, input) = try makeShoot()
        let out = root.appendingPathComponent("out")
        let r = try CLIRunner.run(["convert", input.path, "-o", out.path, "--format", "png", "--long-edge", "40",
                                   "--name", "{index}_{stem}_{camera}", "--json"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let events = try Self.events(r.stdout)
        XCTAssertEqual(events.first?["event"] as? String, "started")
        XCTAssertEqual(events.first?["total"] as? Int, 4)
        // Files finish in any order with several workers; the plan's skip is reported at once.
        let names = events.compactMap { $0["event"] as? String }
        XCTAssertEqual(names.first, "started")
        XCTAssertEqual(names.last, "finished")
        XCTAssertEqual(names.dropFirst().dropLast().sorted(), ["converted", "converted", "converted", "skipped"])
        let skipped = try XCTUnwrap(events.first { $0["event"] as? String == "skipped" })
        XCTAssertEqual((skipped["input"] as? String).map { URL(fileURLWithPath: $0).lastPathComponent }, "IMG_1.jpg")
        XCTAssertTrue((skipped["reason"] as? String)?.hasPrefix("RAW+JPEG pair: RAW preferred") ?? false)
        let finished = try XCTUnwrap(events.last)
        XCTAssertEqual(finished["converted"] as? Int, 3)
        XCTAssertEqual(finished["skipped"] as? Int, 1)
        XCTAssertEqual(finished["failed"] as? Int, 0)

        // Names: index over the three converted files, camera from the DNG's header, folders mirrored.
        let manifest = try Manifest.decode(Data(contentsOf: out.appendingPathComponent("manifest.json")))
        XCTAssertEqual(manifest.entries.compactMap { $0.output?.path }, ["1_IMG_1_lightwork-synthetic.png", "sub/2_a_nocamera.png", "sub/3_b_nocamera.png"])
        XCTAssertEqual(manifest.settings.resize, "long-edge 40, lanczos3 linear")

        // Sizes: the 1536×1024 DNG shrinks to 40×27; the 57×57 PNGs shrink to 40×40.
        let dng = try ImageFileReader.read(out.appendingPathComponent("1_IMG_1_lightwork-synthetic.png"))
        XCTAssertEqual([dng.width, dng.height], [40, 27])
        let small = try ImageFileReader.read(out.appendingPathComponent("sub/2_a_nocamera.png"))
        XCTAssertEqual([small.width, small.height], [40, 40])
        XCTAssertEqual(manifest.entries[0].input.width, 1536, "the manifest's input size is the decoded size")
        XCTAssertNotNil(manifest.entries[0].timings["resize"])
    }

    func testExistingFilesAreSkippedThenSuffixedNeverSilently() throws {
        let (root, input) = try makeShoot()
        let sub = input.appendingPathComponent("sub")
        let out = root.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let foreign = out.appendingPathComponent("a.png")
        try Data("not ours".utf8).write(to: foreign)

        let skip = try CLIRunner.run(["convert", sub.path, "-o", out.path, "--format", "png"])
        XCTAssertEqual(skip.status, 1, "a skip for a file LightWork did not write is never a silent success: \(skip.stderr)")
        XCTAssertTrue(skip.stderr.contains("warning: 1 input(s) not converted"), skip.stderr)
        XCTAssertEqual(try Data(contentsOf: foreign), Data("not ours".utf8), "the default policy leaves a foreign file alone")
        var manifest = try Manifest.decode(Data(contentsOf: out.appendingPathComponent("manifest.json")))
        XCTAssertEqual(manifest.entries.map(\.status), [.skipped, .converted])
        XCTAssertTrue(manifest.entries[0].reason?.contains("a.png already exists") ?? false)

        // A re-run: b.png is this export's own output now (the manifest says so), a.png still is not.
        let suffix = try CLIRunner.run(["convert", sub.path, "-o", out.path, "--format", "png", "--on-exist", "suffix"])
        XCTAssertEqual(suffix.status, 0, suffix.stderr)
        manifest = try Manifest.decode(Data(contentsOf: out.appendingPathComponent("manifest.json")))
        XCTAssertEqual(manifest.entries.compactMap { $0.output?.path }, ["a-2.png", "b.png"])
        XCTAssertTrue(manifest.entries[0].notes.contains { $0.contains("written as a-2.png") }, "the manifest says it was renamed")
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.appendingPathComponent("b-2.png").path), "own outputs are not suffixed")

        let overwrite = try CLIRunner.run(["convert", sub.path, "-o", out.path, "--format", "png", "--on-exist", "overwrite"])
        XCTAssertEqual(overwrite.status, 0, overwrite.stderr)
        XCTAssertNotEqual(try Data(contentsOf: foreign), Data("not ours".utf8))
        XCTAssertNoThrow(try ImageFileReader.read(foreign))
    }

    /// `--format jpg`, `tif` and `tif8` are the codecs' aliases: accepted, and the manifest records the format's own name.
    func testFormatAliasesAreAcceptedAndRecordedByTheirOwnName() throws {
        let root = try TestPaths.temporaryDirectory(self)
        let png = SampleSceneTests.samples.appendingPathComponent("scene-srgb.png")
        for (alias, recorded, ext) in [("jpg", "jpeg", "jpg"), ("tif", "tiff16", "tif"), ("TIF8", "tiff8", "tif")] {
            let out = root.appendingPathComponent(alias)
            let r = try CLIRunner.run(["convert", png.path, "-o", out.path, "--format", alias])
            XCTAssertEqual(r.status, 0, "\(alias): \(r.stderr)")
            let m = try BatchFixture.manifest(out.appendingPathComponent("manifest.json"))
            XCTAssertEqual(m.settings.format, recorded, alias)
            XCTAssertEqual(m.entries.first?.output.map { ($0.path as NSString).lastPathComponent }, "scene-srgb.\(ext)", alias)
        }
        let bad = try CLIRunner.run(["convert", png.path, "-o", root.appendingPathComponent("bad").path, "--format", "jpg16"])
        XCTAssertEqual(bad.status, 2, bad.stderr)
    }

    func testUsageErrorsTouchNothing() throws {
        let (root, input) = try makeShoot()
        let out = root.appendingPathComponent("out")
        for args in [["--name", "../{stem}"], ["--name", "{nope}"], ["--on-exist", "rename"], ["--prefer", "tiff"],
                     ["--scale", "2"], ["--long-edge", "100", "--scale", "0.5"], ["--long-edge", "0"]] {
            let r = try CLIRunner.run(["convert", input.path, "-o", out.path] + args)
            XCTAssertEqual(r.status, 2, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("lightwork convert:"), r.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: out.path), "\(args) created the output folder")
        }
    }

    func testIncludeExcludeAndPlainLogLines() throws {
        let (root, input) = try makeShoot()
        let out = root.appendingPathComponent("out")
        let r = try CLIRunner.run(["convert", input.path, "-o", out.path, "--format", "png", "--include", "*.png", "--exclude", "b.*"])
        XCTAssertEqual(r.status, 0, r.stderr)
        // Not a terminal: one plain line per file, no live-line escape codes.
        XCTAssertTrue(r.stderr.contains("[1/1] \(input.path)/sub/a.png -> sub/a.png"), r.stderr)
        XCTAssertFalse(r.stderr.contains("\u{1B}["), "no terminal codes when stderr is not a terminal")
        let manifest = try Manifest.decode(Data(contentsOf: out.appendingPathComponent("manifest.json")))
        XCTAssertEqual(manifest.entries.map(\.input.relativePath), ["sub/a.png"])

        let none = try CLIRunner.run(["convert", input.path, "-o", out.path, "--include", "*.nef"])
        XCTAssertEqual(none.status, 1)
        XCTAssertTrue(none.stderr.contains("--include/--exclude"), none.stderr)
    }

    /// The output folder is never an input: `convert shoot -o shoot/day1/exports` run again converts nothing, and never
    /// takes the first run's exports (one folder deeper, the look applied twice); nor when the output folder is named
    /// through a symlink or another spelling of the same path. A file named inside it fails with one line; an input
    /// folder inside it is refused up front.
    func testOutputFolderInsideTheInputIsNeverAnInput() throws {
        let (root, input) = try makeShoot()
        let exports = input.appendingPathComponent("day1/exports")
        let options = ["--format", "png", "--long-edge", "40"]
        let first = try CLIRunner.run(["convert", input.path, "-o", exports.path] + options)
        XCTAssertEqual(first.status, 0, first.stderr)
        let written = try FileManager.default.subpathsOfDirectory(atPath: exports.path).sorted()
        XCTAssertEqual(written.filter { $0.hasSuffix(".png") }, ["IMG_1.png", "sub/a.png", "sub/b.png"])

        let link = root.appendingPathComponent("day1-link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: input.appendingPathComponent("day1"))
        let spellings = [exports.path, link.appendingPathComponent("exports").path, input.path + "/./day1/../day1/exports/"]
        for out in spellings {
            let again = try CLIRunner.run(["convert", input.path, "-o", out] + options)
            XCTAssertEqual(again.status, 0, again.stderr)
            let m = try Manifest.decode(Data(contentsOf: exports.appendingPathComponent("manifest.json")))
            XCTAssertEqual(m.entries.map(\.input.relativePath), ["IMG_1.dng", "IMG_1.jpg", "sub/a.png", "sub/b.png"],
                           "-o \(out): the exports are not inputs")
            XCTAssertEqual(m.summary.converted, 0, "-o \(out): nothing to redo")
            XCTAssertEqual(try FileManager.default.subpathsOfDirectory(atPath: exports.path).sorted(), written, "-o \(out): nothing new written")
        }

        // Named on purpose: refused with one line naming the file, a failed entry (kind usage), exit 1.
        let elsewhere = root.appendingPathComponent("manifest-elsewhere.json")
        let named = try CLIRunner.run(["convert", exports.appendingPathComponent("sub/a.png").path, "-o", link.appendingPathComponent("exports").path,
                                       "--manifest", elsewhere.path, "--manifest-scope", "run"] + options)
        XCTAssertEqual(named.status, 1, named.stderr)
        let lines = named.stderr.split(separator: "\n").filter { $0.contains("inside the output folder") }
        XCTAssertEqual(lines.count, 1, named.stderr)
        XCTAssertTrue(lines.first?.contains("sub/a.png") == true, named.stderr)
        let refused = try Manifest.decode(Data(contentsOf: elsewhere))
        XCTAssertEqual(refused.entries.map(\.status), [.failed])
        XCTAssertEqual(refused.entries.first?.failureKind, .usage)
        XCTAssertEqual(try FileManager.default.subpathsOfDirectory(atPath: exports.path).sorted(), written)

        // An input folder inside the output folder (or the output folder itself) is a usage error before anything starts.
        for (folder, out) in [(exports, input.appendingPathComponent("day1")), (input, input)] {
            let r = try CLIRunner.run(["convert", folder.path, "-o", out.path, "--manifest", elsewhere.path, "--manifest-scope", "run"] + options)
            XCTAssertEqual(r.status, 2, r.stderr)
            XCTAssertTrue(r.stderr.contains("is the output folder or lies inside it"), r.stderr)
        }
        XCTAssertEqual(try FileManager.default.subpathsOfDirectory(atPath: exports.path).sorted(), written)
    }
}
