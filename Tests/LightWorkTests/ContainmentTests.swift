import Foundation
import XCTest
@testable import LightWork

/// SECURITY.md's limits through the real binary: documents (recipes, catalogs) cannot name files outside their
/// folder, outputs never go through a symbolic link out of the output folder, created files and folders follow
/// the umask, and decompression bombs are refused from their header before any pixel is allocated.
final class ContainmentTests: XCTestCase {
    private let cube = "LUT_3D_SIZE 2\n0 0 0\n1 0 0\n0 1 0\n1 1 0\n0 0 1\n1 0 1\n0 1 1\n1 1 1\n"

    /// A 64×48 PNG to convert.
    private func smallPNG(_ url: URL) throws {
        let rows: [[UInt8]] = (0..<48).map { y -> [UInt8] in (0..<64).flatMap { x -> [UInt8] in [UInt8(x * 4), UInt8(y * 5), 128] } }
        try PNGBuilder(width: 64, height: 48, colourType: 2).build(rows: rows).write(to: url)
    }

    func testRecipeNamingAFileOutsideItsFolderFailsBeforeAnyFile() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let recipes = dir.appendingPathComponent("recipes")
        try FileManager.default.createDirectory(at: recipes, withIntermediateDirectories: true)
        try Data(cube.utf8).write(to: dir.appendingPathComponent("outside.cube"))
        try FileManager.default.createSymbolicLink(at: recipes.appendingPathComponent("link.cube"),
                                                   withDestinationURL: dir.appendingPathComponent("outside.cube"))
        let input = dir.appendingPathComponent("a.png")
        try smallPNG(input)
        for bad in ["../../etc/passwd", "/etc/passwd", "../outside.cube", "link.cube"] {
            let recipe = recipes.appendingPathComponent("bad.json")
            try Data("{\"version\": 1, \"lut\": \"\(bad)\"}".utf8).write(to: recipe)
            let out = dir.appendingPathComponent("out")
            let r = try CLIRunner.run(["convert", input.path, "-o", out.path, "--recipe", recipe.path])
            XCTAssertEqual(r.status, 2, "\(bad): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("$.lut") && r.stderr.contains("LUT refused"), "\(bad): \(r.stderr)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: out.path), "\(bad): nothing is written")
        }
    }

    /// A Profiles folder whose catalog points a film's lookup image out of it: `--film` is refused (exit 2).
    func testCatalogNamingAFileOutsideItsFolderIsRefused() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let profiles = dir.appendingPathComponent("Profiles")
        let films = profiles.appendingPathComponent("films")
        try FileManager.default.createDirectory(at: films, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: TestPaths.repoRoot.appendingPathComponent("Profiles/filters.json"),
                                         to: profiles.appendingPathComponent("filters.json"))
        let real = TestPaths.repoRoot.appendingPathComponent("Profiles/films")
        let image = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: real.path).first { $0.hasSuffix(".png") })
        try FileManager.default.copyItem(at: real.appendingPathComponent(image), to: dir.appendingPathComponent("outside.png"))
        try FileManager.default.createSymbolicLink(at: films.appendingPathComponent("link.png"), withDestinationURL: dir.appendingPathComponent("outside.png"))
        let input = dir.appendingPathComponent("a.png")
        try smallPNG(input)
        for bad in ["../../etc/passwd", "/etc/passwd", "../outside.png", "link.png"] {
            let catalog = """
                {"rniFilmCategories": [{"filterCategory": 0, "rniFilmPacks": [{"packId": "0001", "availabilityType": 1,
                  "name": "Pack", "rniFilms": [{"filterName": "Escape", "lookupImageName": "\(bad)", "lookupId": "0001001"}]}]}]}
                """
            try Data(catalog.utf8).write(to: films.appendingPathComponent("catalog.json"))
            let out = dir.appendingPathComponent("out")
            let r = try CLIRunner.run(["convert", input.path, "-o", out.path, "--film", "0001001"],
                                      environment: ["LIGHTWORK_PROFILES": profiles.path, "XDG_CONFIG_HOME": dir.appendingPathComponent("config").path])
            XCTAssertEqual(r.status, 2, "\(bad): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("lookupImageName"), "\(bad): \(r.stderr)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: out.path), "\(bad): nothing is written")
        }
    }

    /// `out/sub` is a link to a folder elsewhere: the file that would be written through it fails, nothing
    /// appears outside, the other file converts. A link that stays inside the output folder is followed.
    func testOutputsNeverGoThroughASymlinkOutOfTheOutputFolder() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let input = dir.appendingPathComponent("in")
        for sub in ["sub", "inner", "top"] {
            try FileManager.default.createDirectory(at: input.appendingPathComponent(sub), withIntermediateDirectories: true)
        }
        try smallPNG(input.appendingPathComponent("sub/a.png"))
        try smallPNG(input.appendingPathComponent("inner/b.png"))
        try smallPNG(input.appendingPathComponent("top/c.png"))
        let outside = dir.appendingPathComponent("elsewhere")
        let out = dir.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: out.appendingPathComponent("real"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: out.appendingPathComponent("sub"), withDestinationURL: outside)
        try FileManager.default.createSymbolicLink(at: out.appendingPathComponent("inner"), withDestinationURL: out.appendingPathComponent("real"))

        let r = try CLIRunner.run(["convert", input.path, "-o", out.path, "--format", "png"])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: outside.path), [], "nothing written outside")
        let m = try Manifest.decode(Data(contentsOf: out.appendingPathComponent("manifest.json")))
        let failed = try XCTUnwrap(m.entries.first { $0.input.relativePath == "sub/a.png" })
        XCTAssertEqual(failed.status, .failed)
        XCTAssertTrue(failed.reason?.contains("symbolic link leading out of the output folder") == true, failed.reason ?? "")
        XCTAssertEqual(m.entries.first { $0.input.relativePath == "inner/b.png" }?.status, .converted)
        XCTAssertEqual(m.entries.first { $0.input.relativePath == "top/c.png" }?.status, .converted)
        XCTAssertNoThrow(try ImageFileReader.read(out.appendingPathComponent("real/b.png")))
    }

    func testOutputFileRefusesClimbingNames() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        for bad in ["../x.tif", "/etc/x.tif", "a/../../x.tif", "", "a/./b.tif"] {
            XCTAssertThrowsError(try ContainedPath.outputFile(bad, inside: dir), bad)
        }
        let ok = try ContainedPath.outputFile("a/b/c.tif", inside: dir)
        XCTAssertEqual(ok.path, try XCTUnwrap(realpath(dir.path, nil).map { p in defer { free(p) }; return String(cString: p) }) + "/a/b/c.tif")
        var isDir: ObjCBool = false
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir.appendingPathComponent("a/b").path, isDirectory: &isDir) && isDir.boolValue)
    }

    /// Under umask 027 the output folders are 0750 and the outputs and manifest 0640.
    func testCreatedFilesAndFoldersRespectTheUmask() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let input = dir.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input.appendingPathComponent("day1"), withIntermediateDirectories: true)
        try smallPNG(input.appendingPathComponent("day1/a.png"))
        let out = dir.appendingPathComponent("new/out")
        let script = "umask 027; exec \"$0\" convert \"$1\" -o \"$2\" --format jpeg"
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", script, CLIRunner.binary.path, input.path, out.path]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0)
        func mode(_ url: URL) throws -> Int {
            try XCTUnwrap(FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int)
        }
        XCTAssertEqual(try mode(dir.appendingPathComponent("new")), 0o750)
        XCTAssertEqual(try mode(out), 0o750)
        XCTAssertEqual(try mode(out.appendingPathComponent("day1")), 0o750)
        XCTAssertEqual(try mode(out.appendingPathComponent("day1/a.jpg")), 0o640)
        XCTAssertEqual(try mode(out.appendingPathComponent("manifest.json")), 0o640)
    }

    /// Headers declaring huge images (a PNG of 20000×20000, a JPEG of 65000×65000) are refused from the header
    /// at the documented limit; one under the pixel limit but over `--worker-memory` is refused for memory.
    func testDecompressionBombsAreRefusedBeforeAllocation() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let input = dir.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        func png(_ side: UInt32, _ name: String) throws {
            // One row of data: the header alone declares the size.
            try PNGBuilder(width: side, height: side, colourType: 2).build(rows: [[UInt8](repeating: 0, count: 30)])
                .write(to: input.appendingPathComponent(name))
        }
        try png(20_000, "bomb-400mp.png")
        try png(9_000, "bomb-81mp.png")
        var jpeg = [UInt8](JPEGBuilder.encode(width: 16, height: 16, components: 3, samples: [UInt8](repeating: 90, count: 16 * 16 * 3)))
        let sof = try XCTUnwrap(JPEGBuilder.sofDimensionOffset(Data(jpeg)))
        for o in [sof, sof + 2] { jpeg[o] = 0xFD; jpeg[o + 1] = 0xE8 }   // 65000 × 65000
        try Data(jpeg).write(to: input.appendingPathComponent("bomb.jpg"))
        try smallPNG(input.appendingPathComponent("fine.png"))

        let out = dir.appendingPathComponent("out")
        let r = try CLIRunner.run(["convert", input.path, "-o", out.path, "--worker-memory", "1G", "--jobs", "1"])
        XCTAssertEqual(r.status, 1, r.stderr)
        let m = try Manifest.decode(Data(contentsOf: out.appendingPathComponent("manifest.json")))
        func reason(_ name: String) -> String { m.entries.first { $0.input.relativePath == name }?.reason ?? "" }
        XCTAssertTrue(reason("bomb-400mp.png").contains("20000×20000 = 400000000 pixels, above the limit of 200000000"), reason("bomb-400mp.png"))
        XCTAssertTrue(reason("bomb.jpg").contains("65000×65000"), reason("bomb.jpg"))
        XCTAssertTrue(reason("bomb-81mp.png").contains("above the worker memory limit of 1.0 GiB"), reason("bomb-81mp.png"))
        XCTAssertEqual(m.entries.first { $0.input.relativePath == "fine.png" }?.status, .converted)
    }
}
