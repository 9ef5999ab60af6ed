import Foundation
import XCTest
@testable import LightWork

/// `lightwork chart` on generated photographs of a ColorChecker with known truth (`lightwork-tools
/// make-chart-photo`): the chart anywhere in a cluttered frame, 0.18–0.6 of its width, turned (also by 90° and
/// 180°), under keystone and tilt, with sensor noise or grain and vignetting, as a RAW DNG and as a JPEG. The
/// detected corners must lie within a few pixels of the truth, and every patch must read as the painted reference
/// dimmed by the vignetting at its centre relative to the white patch's (what exposure matching by white leaves).
final class ChartPhotoTests: XCTestCase {
    struct Truth: Decodable {
        struct Patch: Decodable { let index: Int; let labD50: [Double]; let centre: [Double]; let vignette: Double; let srgbLabD50: [Double] }
        let width, height: Int
        let corners: [[Double]]
        let patches: [Patch]
    }

    static let tools = CLIRunner.binary.deletingLastPathComponent().appendingPathComponent("lightwork-tools")
    var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("chart-photo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: directory) }

    /// Generates a scene; returns the DNG, the sRGB PNG and the truth.
    func scene(_ name: String, _ options: [String]) throws -> (dng: URL, png: URL, truth: Truth) {
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: Self.tools.path), "lightwork-tools must be built at \(Self.tools.path)")
        let dng = directory.appendingPathComponent("\(name).dng"), png = directory.appendingPathComponent("\(name).png")
        let truthURL = directory.appendingPathComponent("\(name).truth.json")
        let r = try CLIRunner.capture(Self.tools, ["make-chart-photo", "-o", dng.path, "--truth", truthURL.path, "--srgb-png", png.path] + options)
        XCTAssertEqual(r.status, 0, String(decoding: r.stderr, as: UTF8.self))
        return (dng, png, try JSONDecoder().decode(Truth.self, from: Data(contentsOf: truthURL)))
    }

    func measure(_ file: URL, _ extra: [String] = []) throws -> ChartMeasurement {
        let r = try CLIRunner.run(["chart", file.path, "--json"] + extra)
        XCTAssertEqual(r.status, 0, r.stderr)
        return try JSONDecoder().decode(ChartMeasurement.self, from: Data(r.stdout.utf8))
    }

    /// Largest corner distance in pixels and the largest ΔE00 of a patch from its truth.
    /// `srgb`: the picture came through the sRGB PNG, which holds each patch clipped to the sRGB gamut.
    func check(_ name: String, _ m: ChartMeasurement, _ truth: Truth, cornerLimit: Double, patchLimit: Double, srgb: Bool = false,
               file: StaticString = #filePath, line: UInt = #line) {
        let corner = zip(m.placement.corners.points, truth.corners).map { a, b in hypot(a[0] - b[0], a[1] - b[1]) }.max()!
        let white = truth.patches[ChartReference.whiteIndex].vignette
        let errors = zip(m.patches, truth.patches).map { p, t -> Double in
            let lab = srgb ? t.srgbLabD50 : t.labD50
            let ref = CIE.labToXYZ(SIMD3(lab[0], lab[1], lab[2])) * (t.vignette / white)
            return CIE.deltaE2000(SIMD3(p.measured[0], p.measured[1], p.measured[2]), CIE.xyzToLab(ref))
        }
        let worst = errors.indices.max { errors[$0] < errors[$1] }!
        print(String(format: "chart %@ (%@): corners within %.2f px of the truth; patches against the truth ΔE00 mean %.2f max %.2f (patch %d); against the reference mean %.2f max %.2f; %@ cells %@",
                     name, m.placement.method, corner, errors.reduce(0, +) / 24, errors[worst], worst + 1, m.mean, m.max,
                     m.placement.method, m.placement.cellsMatched.map(String.init) ?? "-"))
        XCTAssertLessThanOrEqual(corner, cornerLimit, "\(name): corners", file: file, line: line)
        XCTAssertLessThanOrEqual(errors[worst], patchLimit, "\(name): patch \(worst + 1)", file: file, line: line)
        XCTAssertEqual(m.patches.map(\.index), Array(1...24), file: file, line: line)
    }

    func testRAWChartsAnywhereTurnedAndTilted() throws {
        let cases: [(String, [String])] = [
            ("tilted", ["--seed", "3", "--centre", "0.45,0.55", "--size", "0.35", "--rotate", "12", "--keystone", "0.1", "--tilt", "0.05", "--vignette", "0.5", "--iso", "400"]),
            ("small", ["--seed", "5", "--centre", "0.24,0.3", "--size", "0.18", "--rotate", "-18", "--tilt", "-0.08", "--vignette", "0.4", "--iso", "400"]),
            ("large", ["--seed", "7", "--centre", "0.5,0.5", "--size", "0.6", "--rotate", "4", "--keystone", "-0.12", "--vignette", "0.6", "--iso", "800"]),
            ("upside-down", ["--seed", "9", "--centre", "0.6,0.45", "--size", "0.3", "--rotate", "192", "--keystone", "0.08", "--vignette", "0.4", "--iso", "400"]),
            ("quarter-turn", ["--seed", "11", "--centre", "0.5,0.5", "--size", "0.3", "--rotate", "97", "--tilt", "0.06", "--vignette", "0.3", "--iso", "400"]),
        ]
        for (name, options) in cases {
            let s = try scene(name, options)
            // The small chart samples 12 × 12 pixels a patch at ISO 400: its dark patches are the noisiest (max 0.9 measured).
            check("\(name) DNG", try measure(s.dng), s.truth, cornerLimit: 2, patchLimit: name == "small" ? 2 : 1)
        }
    }

    func testJPEGWithGrain() throws {
        let s = try scene("jpeg", ["--seed", "4", "--centre", "0.62,0.4", "--size", "0.3", "--rotate", "-9", "--keystone", "0.06", "--vignette", "0.4", "--grain", "0.03"])
        let out = directory.appendingPathComponent("jpeg-out")
        let r = try CLIRunner.run(["convert", s.png.path, "-o", out.path, "--format", "jpeg", "--quality", "92"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let jpeg = out.appendingPathComponent("jpeg.jpg")
        check("JPEG", try measure(jpeg), s.truth, cornerLimit: 2, patchLimit: 1.5, srgb: true)
        // The same corners by hand, in pixels and as fractions of the frame.
        let given = s.truth.corners.flatMap { $0 }.map { String($0) }.joined(separator: ",")
        check("JPEG --corners px", try measure(jpeg, ["--corners", given]), s.truth, cornerLimit: 0.01, patchLimit: 1.5, srgb: true)
        let fractions = s.truth.corners.flatMap { [$0[0] / Double(s.truth.width), $0[1] / Double(s.truth.height)] }.map { String($0) }.joined(separator: ",")
        check("JPEG --corners fractions", try measure(jpeg, ["--corners", fractions]), s.truth, cornerLimit: 0.01, patchLimit: 1.5, srgb: true)
    }

    func testNoChartFailsWithOneClearLine() throws {
        let s = try scene("empty", ["--seed", "6", "--no-chart", "--vignette", "0.4", "--iso", "400"])
        for file in [s.dng, s.png] {
            let r = try CLIRunner.run(["chart", file.path])
            print("chart no-chart \(file.lastPathComponent): exit \(r.status): \(r.stderr)", terminator: "")
            XCTAssertEqual(r.status, 1)
            XCTAssertEqual(r.stdout, "")
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
            XCTAssertTrue(r.stderr.hasPrefix("lightwork chart: \(file.path): no ColorChecker found with confidence"), r.stderr)
            XCTAssertTrue(r.stderr.contains("--corners"), r.stderr)
        }
    }

    func testCornersGivenByHandOnRAWAndReferenceChoice() throws {
        let s = try scene("hand", ["--seed", "8", "--centre", "0.5,0.5", "--size", "0.4", "--rotate", "-6", "--iso", "400"])
        let given = s.truth.corners.flatMap { $0 }.map { String($0) }.joined(separator: ",")
        let m = try measure(s.dng, ["--corners", given])
        XCTAssertEqual(m.placement.method, "given")
        check("hand DNG --corners", m, s.truth, cornerLimit: 0.01, patchLimit: 1)
        // The BabelColor average is another reference: the same photo is further from it, by what the tables differ.
        let classic = try measure(s.dng, ["--corners", given, "--reference", "colorchecker-classic"])
        XCTAssertEqual(classic.reference, "colorchecker-classic")
        print(String(format: "chart hand DNG against colorchecker-classic: mean %.2f max %.2f (against colorchecker-24-2014: mean %.2f)", classic.mean, classic.max, m.mean))
        XCTAssertGreaterThan(classic.mean, m.mean)
        // Overexposed by 3 EV, the white patch clips: exposure cannot be matched by it, so nothing is reported.
        let over = try CLIRunner.run(["chart", s.dng.path, "--corners", given, "--exposure", "3"])
        XCTAssertEqual(over.status, 1, over.stderr)
        XCTAssertTrue(over.stderr.contains("patch 19 (white 9.5), which the exposure is matched by, is clipped in"), over.stderr)
        // Wrong corner counts and unknown references are usage errors.
        XCTAssertEqual(try CLIRunner.run(["chart", s.dng.path, "--corners", "1,2,3"]).status, 2)
        XCTAssertEqual(try CLIRunner.run(["chart", s.dng.path, "--reference", "nonesuch"]).status, 2)
    }

    func testOverlayIsWritten() throws {
        let s = try scene("overlay", ["--seed", "3", "--centre", "0.45,0.55", "--size", "0.35", "--rotate", "12", "--iso", "400"])
        let png = directory.appendingPathComponent("overlay.png")
        let r = try CLIRunner.run(["chart", s.dng.path, "--overlay", png.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        let file = try ImageFileReader.read(png)
        XCTAssertEqual(file.width, s.truth.width)
        XCTAssertEqual(file.channels, 3)
        XCTAssertTrue(r.stdout.contains("ΔE00 mean"))
    }

    /// A verify case measures a photographed chart as `lightwork chart` does, judged by its chart limits; a photo
    /// without a chart fails its case with the reason.
    func testVerifyCaseOnAPhotographedChart() throws {
        let s = try scene("suite", ["--seed", "12", "--centre", "0.4,0.45", "--size", "0.4", "--rotate", "-14", "--keystone", "0.08", "--vignette", "0.3", "--iso", "400"])
        let empty = try scene("suite-empty", ["--seed", "13", "--no-chart", "--iso", "400"])
        let suite = directory.appendingPathComponent("photo.suite.json")
        let json = """
        {"version": 1, "name": "photographed charts", "cases": [
          {"name": "photo-chart", "input": "suite.dng", "format": "tiff16", "colorspace": "prophoto",
           "chart": {"reference": "colorchecker-24-2014", "thresholds": {"mean": 1.5, "max": 3}}},
          {"name": "photo-chart-tight", "input": "suite.dng", "format": "tiff16", "colorspace": "prophoto",
           "chart": {"reference": "colorchecker-24-2014", "thresholds": {"mean": 0.05, "max": 0.1}}},
          {"name": "no-chart", "input": "suite-empty.dng", "format": "tiff16", "colorspace": "prophoto",
           "chart": {"reference": "colorchecker-classic"}}]}
        """
        try Data(json.utf8).write(to: suite)
        let r = try CLIRunner.run(["verify", suite.path])
        print(r.stdout)
        XCTAssertEqual(r.status, 1, r.stderr)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines.contains { $0.hasPrefix("PASS   photo-chart ") && $0.contains("chart: mean") }, r.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix("FAIL   photo-chart-tight ") }, r.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix("FAIL   no-chart ") }, r.stdout)
        XCTAssertTrue(r.stdout.contains("chart: no ColorChecker found with confidence"), r.stdout)
        XCTAssertTrue(r.stdout.contains("1 passed, 2 failed"), r.stdout)
    }
}
