import Foundation
import XCTest
@testable import LightWork

/// DCP reading (against exiftool on rawtherapee-data's profiles) and each profile table type against values
/// worked by hand from the DNG 1.6 specification's definitions (HSV hexcone, linear interpolation, hue wrapping).
final class CameraProfileTests: XCTestCase {
    static let rawTherapeeProfiles = URL(fileURLWithPath: CameraProfileSearch.rawTherapeeFolder)

    /// A DCP Debian ships (rawtherapee-data, installed by scripts/ensure-deps.sh --test); missing is a failure.
    static func shippedDCP(_ name: String) throws -> URL {
        let url = rawTherapeeProfiles.appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: url.path) else {
            XCTFail("\(url.path) is missing: run scripts/ensure-deps.sh --test (rawtherapee-data)")
            throw LightWorkError.missingInput(url.path)
        }
        return url
    }

    static func exiftoolNumbers(_ tag: String, _ url: URL) throws -> [Double] {
        try CodecTools.run("exiftool", ["-m", "-b", "-" + tag, url.path]).split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { Double($0) }
    }

    func testReadsShippedDCPsAsExiftoolDoes() throws {
        for name in ["NIKON D300.dcp", "Canon EOS 450D.dcp", "Canon EOS 5D Mark II.dcp"] {
            let url = try Self.shippedDCP(name)
            let p = try CameraProfile.read([UInt8](try Data(contentsOf: url)), file: name)
            XCTAssertEqual(p.uniqueCameraModel, try CodecTools.run("exiftool", ["-s3", "-UniqueCameraModel", url.path]).trimmingCharacters(in: .whitespacesAndNewlines), name)
            for (i, tag) in ["ColorMatrix1", "ColorMatrix2"].enumerated() where i < p.colorMatrices.count {
                let expected = try Self.exiftoolNumbers(tag, url)
                XCTAssertEqual(expected.count, 9, name)
                for k in 0..<9 { XCTAssertEqual(p.colorMatrices[i].m[k], expected[k], accuracy: 1e-9, "\(name) \(tag)[\(k)]") }
            }
            let dims = try Self.exiftoolNumbers("ProfileHueSatMapDims", url).map(Int.init)
            XCTAssertEqual([p.hueSatMaps[0].dims.hues, p.hueSatMaps[0].dims.saturations, p.hueSatMaps[0].dims.values], dims, name)
            let data1 = try Self.exiftoolNumbers("ProfileHueSatMapData1", url)
            XCTAssertEqual(p.hueSatMaps[0].data.count, data1.count, name)
            for k in stride(from: 0, to: data1.count, by: 97) { XCTAssertEqual(Double(p.hueSatMaps[0].data[k]), data1[k], accuracy: 1e-5 * max(1, abs(data1[k])), "\(name) HSM1[\(k)]") }
            if let tone = p.toneCurve {
                let values = try Self.exiftoolNumbers("ProfileToneCurve", url)
                XCTAssertEqual(tone.points.count * 2, values.count, name)
                XCTAssertEqual(tone.points[tone.points.count / 3].y, values[2 * (tone.points.count / 3) + 1], accuracy: 1e-6, name)
            }
            print("DCP \(name): \(p.summary)")
        }
        let d300 = try CameraProfile.read([UInt8](try Data(contentsOf: try Self.shippedDCP("NIKON D300.dcp"))), file: "d300")
        XCTAssertEqual(d300.lookTable?.dims, ProfileTable.Dimensions(hues: 90, saturations: 30, values: 30))
        XCTAssertEqual(d300.lookTable?.encoding, .sRGB)
        XCTAssertEqual(d300.illuminants, [17, 21])
        XCTAssertEqual(d300.forwardMatrices.count, 2)
        XCTAssertEqual(d300.toneCurve?.points.count, 8192)
        let c450 = try CameraProfile.read([UInt8](try Data(contentsOf: try Self.shippedDCP("Canon EOS 450D.dcp"))), file: "450d")
        XCTAssertTrue(c450.hueSatMaps[0].isThreeDimensional)
    }

    /// The committed fuzz seed: every tag of the reader, in a file made by hand (Fuzz/corpus/camera-profile).
    func testReadsEveryTagOfTheSeed() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fuzz/corpus/camera-profile/valid-small.dcp")
        let bytes = [UInt8](try Data(contentsOf: url))
        let p = try CameraProfile.read(bytes, file: "seed")
        XCTAssertEqual(p.uniqueCameraModel, "Fuzz Camera")
        XCTAssertEqual(p.name, "fuzz seed")
        XCTAssertEqual(p.illuminants, [17, 21])
        XCTAssertEqual(p.hueSatMaps.count, 2)
        XCTAssertEqual(p.hueSatMaps[0].dims, ProfileTable.Dimensions(hues: 4, saturations: 3, values: 2))
        XCTAssertEqual(p.lookTable?.encoding, .sRGB)
        XCTAssertEqual(p.toneCurve?.points.count, 3)
        XCTAssertEqual(p.baselineExposureOffset, -0.5)
        XCTAssertEqual(p.defaultBlackRender, 1)
        XCTAssertEqual(p.colorMatrices[0].m[1], -0.3401, accuracy: 1e-12)
        // Damaged copies are refused with the tag named, never read in part.
        for cut in [8, 200, 700, bytes.count - 10] {
            XCTAssertThrowsError(try CameraProfile.read(Array(bytes.prefix(cut)), file: "cut"), "cut at \(cut)")
        }
        var wrongDims = bytes
        // ProfileHueSatMapDims is the 7th entry: its inline value (4, 3, 2 LONGs) lies out of line; make hues 5.
        let dimsOffset = try XCTUnwrap(Self.valueOffset(of: 50937, in: bytes))
        wrongDims[dimsOffset] = 5
        XCTAssertThrowsError(try CameraProfile.read(wrongDims, file: "dims")) { error in
            XCTAssertTrue("\(error)".contains("ProfileHueSatMapData"), "\(error)")
        }
        XCTAssertThrowsError(try CameraProfile.read(Array("not a profile at all".utf8), file: "text"))
    }

    /// Where the value of `tag` lies in a little-endian DCP with its directory at 8.
    static func valueOffset(of tag: UInt16, in b: [UInt8]) -> Int? {
        let n = Int(b[8]) | Int(b[9]) << 8
        for i in 0..<n {
            let p = 10 + 12 * i
            if UInt16(b[p]) | UInt16(b[p + 1]) << 8 == tag {
                return Int(b[p + 8]) | Int(b[p + 9]) << 8 | Int(b[p + 10]) << 16 | Int(b[p + 11]) << 24
            }
        }
        return nil
    }

    static func assertClose(_ a: SIMD3<Double>, _ b: SIMD3<Double>, _ tolerance: Double = 1e-6, _ message: String = "",
                            file: StaticString = #filePath, line: UInt = #line) {
        for i in 0..<3 { XCTAssertEqual(a[i], b[i], accuracy: tolerance, "\(message) channel \(i): \(a) vs \(b)", file: file, line: line) }
    }

    /// 2.5-D HueSatMap, 6 hues × 2 saturations × 1 value, linear. Entry (hue i, sat 0) = (0°, 1, 1) and
    /// (hue i, sat 1) = (10·i°, 0.5 + 0.1·i, 1 + 0.1·i).
    /// RGB (1, 0.75, 0.5): V 1, S 0.5, H (G − B)/gap = 0.5 → hue index 0.5 (between hue 0 and 1), sat index 0.5.
    /// hue 0: ½(0, 1, 1) + ½(0, 0.5, 1) = (0, 0.75, 1); hue 1: ½(0, 1, 1) + ½(10, 0.6, 1.1) = (5, 0.8, 1.05);
    /// mean (2.5°, 0.775, 1.025). H = 0.5 + 2.5·6/360 = 0.541667, S = 0.3875, V = 1.025.
    /// HSV → RGB (sector 0, f = 0.541667): (V, V(1 − S(1 − f)), V(1 − S)) = (1.025, 0.842956, 0.627813).
    func testHueSatMap25DAgainstHandComputed() throws {
        var data: [Float] = []
        for i in 0..<6 { data += [0, 1, 1, Float(10 * i), Float(0.5 + 0.1 * Double(i)), Float(1 + 0.1 * Double(i))] }
        let table = try ProfileTable(ProfileTable.Dimensions(hues: 6, saturations: 2, values: 1), data: data)
        XCTAssertFalse(table.isThreeDimensional)
        Self.assertClose(table.apply(SIMD3(1, 0.75, 0.5)), SIMD3(1.025, 0.8429557292, 0.6278125), 1e-6, "2.5-D")
        // A grey has no hue or saturation: its entry is sat 0's, (0°, 1, 1): unchanged.
        Self.assertClose(table.apply(SIMD3(0.4, 0.4, 0.4)), SIMD3(0.4, 0.4, 0.4), 1e-12, "grey")
        // Hue wraps: H = 5.5 sits between hue 5 and hue 0 (index 5.5 → 5 and 0).
        // RGB (1, 0.5, 0.75): V 1, S 0.5, H = 6 + (G − B)/gap = 5.5; sat index 0.5.
        // hue 5: ½(0,1,1) + ½(50, 1.0, 1.5) = (25, 1, 1.25); hue 0: (0, 0.75, 1); mean (12.5°, 0.875, 1.125).
        // H = 5.5 + 0.208333 = 5.708333, S = 0.4375, V = 1.125; sector 5, f = 0.708333:
        // (V, V(1 − S), V(1 − S·f)) = (1.125, 0.6328125, 0.7763672).
        Self.assertClose(table.apply(SIMD3(1, 0.5, 0.75)), SIMD3(1.125, 0.6328125, 0.776367188), 1e-6, "hue wrap")
    }

    /// 3-D HueSatMap, 1 hue × 2 saturations × 2 values, linear: every entry (0°, 1, 1) but (value 1, sat 1) =
    /// (30°, 1, 0.8). RGB (0.5, 0.25, 0.25): V 0.5, S 0.5, H 0; value index 0.5, sat index 0.5.
    /// value 0 plane (0, 1, 1); value 1 plane ½(0, 1, 1) + ½(30, 1, 0.8) = (15, 1, 0.9); mean (7.5°, 1, 0.95).
    /// H = 0.125, S = 0.5, V = 0.475: (V, V(1 − S(1 − f)), V(1 − S)) = (0.475, 0.2671875, 0.2375).
    func testHueSatMap3DAgainstHandComputed() throws {
        let data: [Float] = [0, 1, 1, 0, 1, 1, /* value 1 */ 0, 1, 1, 30, 1, 0.8]
        let table = try ProfileTable(ProfileTable.Dimensions(hues: 1, saturations: 2, values: 2), data: data)
        XCTAssertTrue(table.isThreeDimensional)
        Self.assertClose(table.apply(SIMD3(0.5, 0.25, 0.25)), SIMD3(0.475, 0.2671875, 0.2375), 1e-6, "3-D")
        // Above the top value division the last planes hold (clamped index), and V is scaled linearly, not clipped:
        // RGB (2, 1, 1): value index 1 → plane (15, 1, 0.9) at sat 0.5; H 0.25, S 0.5, V 1.8 → (1.8, 1.125, 0.9).
        Self.assertClose(table.apply(SIMD3(2, 1, 1)), SIMD3(1.8, 1.125, 0.9), 1e-6, "above 1")
    }

    /// LookTable, 2 hues × 2 saturations × 2 values, sRGB-encoded value axis: value 0 entries (0°, 1, 1); value 1:
    /// (hue 0, sat 1) = (20°, 1.2, 0.9), (hue 1, sat 1) = (−20°, 0.8, 1.0), sat 0 (0°, 1, 1).
    /// RGB (0.2, 0.15, 0.1): V 0.2, S 0.5, H 0.5 → hue index 0.5·2/6 = 1/6, sat index 0.5, value index sRGB(0.2) = 0.484529.
    /// value 1 plane: hue 0 ½(0,1,1)+½(20,1.2,0.9) = (10, 1.1, 0.95); hue 1 (−10, 0.9, 1.0); at 1/6: (6.666667, 1.066667, 0.958333);
    /// with value 0 plane (0, 1, 1) at weight 0.515471: (3.230195, 1.032302, 0.979811).
    /// H = 0.5 + 3.230195/60 = 0.553837, S = 0.516151, V = sRGB⁻¹(0.484529 × 0.979811) = 0.191407;
    /// sector 0: (V, V(1 − S(1 − f)), V(1 − S)) = (0.191407, 0.147329, 0.092612).
    func testLookTableSRGBEncodedAgainstHandComputed() throws {
        let data: [Float] = [0, 1, 1, 0, 1, 1, 0, 1, 1, 0, 1, 1, /* value 1: hue 0 */ 0, 1, 1, 20, 1.2, 0.9, /* hue 1 */ 0, 1, 1, -20, 0.8, 1.0]
        let table = try ProfileTable(ProfileTable.Dimensions(hues: 2, saturations: 2, values: 2), data: data, encoding: .sRGB)
        Self.assertClose(table.apply(SIMD3(0.2, 0.15, 0.1)), SIMD3(0.1914074636, 0.1473286820, 0.0926123149), 2e-6, "sRGB look")
    }

    /// ProfileToneCurve (0, 0), (0.5, 0.6), (1, 1). Slopes: inner (1.2·0.5 + 0.8·0.5)/1 = 1.0, ends 2·1.2 − 1 = 1.4 and
    /// 2·0.8 − 1 = 0.6. At 0.25 (t ½, width ½): ½·0 + ⅛·½·1.4 + ½·0.6 − ⅛·½·1.0 = 0.325; at 0.75: 0.3 + 0.0625 + 0.5 − 0.0375 = 0.825.
    /// RGB (0.25, 0.5, 0.75): min → 0.325, max → 0.825, the middle keeps its place: 0.325 + 0.5·½ = 0.575.
    func testToneCurveAgainstHandComputed() throws {
        let curve = try ProfileToneCurve(values: [0, 0, 0.5, 0.6, 1, 1])
        XCTAssertEqual(curve.evaluate(0.25), 0.325, accuracy: 1e-7)
        XCTAssertEqual(curve.evaluate(0.75), 0.825, accuracy: 1e-7)
        XCTAssertEqual(curve.evaluate(0.5), 0.6, accuracy: 1e-7)
        Self.assertClose(curve.apply(SIMD3(0.25, 0.5, 0.75)), SIMD3(0.325, 0.575, 0.825), 1e-7, "hue-preserving")
        // Hue is kept: the HSV hue of the result equals the input's.
        let before = ProfileTable.hsv(SIMD3(0.25, 0.5, 0.75)).0, after = ProfileTable.hsv(curve.apply(SIMD3(0.25, 0.5, 0.75))).0
        XCTAssertEqual(before, after, accuracy: 1e-9)
        // Clipped to 0…1 on the way in (the curve's domain): (1, 0, 0.5); max 1 → 1, min 0 → 0, and the middle keeps
        // its place between them, 0 + (1 − 0)·0.5 = 0.5 (not the curve's 0.6: hue, not the channel, is preserved).
        Self.assertClose(curve.apply(SIMD3(2, -1, 0.5)), SIMD3(1, 0, 0.5), 1e-7, "clamped")
        // The segment holding x, on uneven inputs (the index guess misses: the binary search decides) and at the ends.
        let uneven = try ProfileToneCurve(values: [0, 0, 0.75, 0.5, 0.8125, 0.6, 0.875, 0.7, 1, 1])
        XCTAssertEqual([0, 0.5, 0.75, 0.78125, 0.8125, 0.9, 1].map(uneven.segment), [0, 0, 1, 1, 2, 3, 3])
        XCTAssertEqual([0, 0.49, 0.5, 0.51, 1].map(curve.segment), [0, 0, 1, 1, 1])
        XCTAssertThrowsError(try ProfileToneCurve(values: [0, 0, 0.6, 0.5, 0.5, 0.7, 1, 1]))   // x not rising
        XCTAssertThrowsError(try ProfileToneCurve(values: [0, 0, 1]))
    }

    /// The two HueSatMaps are blended by the same inverse-temperature weight as the matrices: all map 1 at or below
    /// illuminant A's 2850 K, all map 2 at or above D65's 6500 K, half at the inverse-temperature midpoint (3962.6 K).
    func testHueSatMapsInterpolatedByTemperature() throws {
        let dims = ProfileTable.Dimensions(hues: 1, saturations: 2, values: 1)
        let map1 = try ProfileTable(dims, data: [0, 1, 1, 40, 1, 1]), map2 = try ProfileTable(dims, data: [0, 1, 1, 0, 1, 1])
        let profile = CameraProfile(uniqueCameraModel: "x", name: nil, illuminants: [17, 21], colorMatrices: [.identity, .identity],
                                    forwardMatrices: [], hueSatMaps: [map1, map2], lookTable: nil, toneCurve: nil,
                                    baselineExposureOffset: 0, defaultBlackRender: 0, sha256: "")
        let midpoint = 1 / ((1 / 2850.0 + 1 / 6500.0) / 2)
        for (kelvin, weight) in [(2500.0, 1.0), (2850, 1), (midpoint, 0.5), (6500, 0), (9000, 0)] {
            let xy = ColorTemperature(kelvin: kelvin).xy
            XCTAssertEqual(profile.weightOfFirst(at: xy), weight, accuracy: 2e-3, "\(kelvin) K")
            XCTAssertEqual(Double(profile.hueSatMap(at: xy)!.data[3]), 40 * weight, accuracy: 0.08, "\(kelvin) K")
            // Listed the other way round (ColorMatrix1 the warmer), table 1 takes the complement.
            var reversed = profile
            reversed.illuminants = [21, 17]
            XCTAssertEqual(reversed.weightOfFirst(at: xy), 1 - weight, accuracy: 2e-3, "\(kelvin) K, reversed")
        }
    }
}

/// How a profile is chosen and recorded: the `auto` search, a recipe's pin, the manifest.
final class CameraProfileChoiceTests: XCTestCase {
    static var seed: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fuzz/corpus/camera-profile/valid-small.dcp")
    }

    func testAutoSearchMatchesUniqueCameraModelInFolderOrder() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("lw-dcp-search-\(UUID().uuidString)")
        let first = dir.appendingPathComponent("first"), second = dir.appendingPathComponent("second")
        for d in [first, second] { try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true) }
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.copyItem(at: Self.seed, to: second.appendingPathComponent("any name.dcp"))
        try Data("not a profile".utf8).write(to: first.appendingPathComponent("broken.dcp"))
        // Case, spaces, '-' and '_' aside; a broken file in an earlier folder is passed over, not fatal.
        for name in ["Fuzz Camera", "FUZZ-CAMERA", "fuzz_camera"] {
            let found = try XCTUnwrap(try CameraProfileSearch.find(cameraModel: name, in: [first, second]), name)
            XCTAssertEqual(found.url.lastPathComponent, "any name.dcp")
            XCTAssertEqual(found.profile.name, "fuzz seed")
        }
        XCTAssertNil(try CameraProfileSearch.find(cameraModel: "Fuzz Camera II", in: [first, second]))
        // rawtherapee-data's folder is searched last; its D300 profile is found by the camera's name.
        let d300 = try XCTUnwrap(try CameraProfileSearch.find(cameraModel: "Nikon D300", in: [first, CameraProfileTests.rawTherapeeProfiles]))
        XCTAssertEqual(d300.url.lastPathComponent, "NIKON D300.dcp")
        XCTAssertEqual(CameraProfileSearch.folders(environment: ["XDG_DATA_HOME": "/x", "HOME": "/h"]).map(\.path),
                       ["/x/lightwork/profiles", CameraProfileSearch.rawTherapeeFolder])
        XCTAssertEqual(CameraProfileSearch.folders(environment: ["HOME": "/h"]).first?.path, "/h/.local/share/lightwork/profiles")
    }

    /// A recipe pins a DCP by path and hash; the manifest records it (settings and the entry's decisions), and a
    /// pinned hash the file does not have refuses the recipe before any file is converted.
    func testRecipePinsADCPAndTheManifestNamesIt() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("lw-dcp-pin-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let dcp = dir.appendingPathComponent("d300.dcp")
        try FileManager.default.copyItem(at: try CameraProfileTests.shippedDCP("NIKON D300.dcp"), to: dcp)
        let sha = try SHA256.hex(fileAt: dcp)
        let tools = CLIRunner.binary.deletingLastPathComponent().appendingPathComponent("lightwork-tools")
        let dng = dir.appendingPathComponent("chart.dng")
        let made = try CLIRunner.capture(tools, ["make-sample-dng", "-o", dng.path, "--width", "480", "--height", "320", "--camera", "NIKON CORPORATION:NIKON D300:Nikon D300"])
        XCTAssertEqual(made.status, 0)
        let recipe = dir.appendingPathComponent("look.json")
        try Data(#"{"version": 1, "cameraProfile": {"profile": "d300.dcp", "sha256": "\#(sha)", "tone": false}}"#.utf8).write(to: recipe)
        let out = dir.appendingPathComponent("out")
        let run = try CLIRunner.run(["convert", dng.path, "-o", out.path, "--recipe", recipe.path, "--tone", "linear", "--jobs", "1"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("manifest.json"))) as! [String: Any]
        let settings = manifest["settings"] as! [String: Any]
        XCTAssertEqual(settings["cameraProfile"] as? String, "d300.dcp sha256 \(sha), look on, tone off")
        let entry = (manifest["entries"] as! [[String: Any]])[0]
        let decision = ((entry["input"] as! [String: Any])["decisions"] as! [String: String])["cameraProfile"] ?? ""
        XCTAssertTrue(decision.hasPrefix("DCP \(dcp.path) sha256 \(sha): NIKON D300 for Nikon D300"), decision)
        // The same conversion with the matrices keeps the earlier releases' settings record (no cameraProfile key).
        let plain = try CLIRunner.run(["convert", dng.path, "-o", dir.appendingPathComponent("plain").path, "--tone", "linear", "--jobs", "1"])
        XCTAssertEqual(plain.status, 0, plain.stderr)
        let plainManifest = try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("plain/manifest.json"))) as! [String: Any]
        XCTAssertNil((plainManifest["settings"] as! [String: Any])["cameraProfile"])
        // A pinned hash the file does not have: refused, naming the file, before converting anything.
        try Data(#"{"version": 1, "cameraProfile": {"profile": "d300.dcp", "sha256": "\#(String(repeating: "0", count: 64))"}}"#.utf8).write(to: recipe)
        let refused = try CLIRunner.run(["convert", dng.path, "-o", dir.appendingPathComponent("refused").path, "--recipe", recipe.path])
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.stderr.contains("d300.dcp"), refused.stderr)
        // --camera-profile embedded on a generated DNG: its own matrices-only profile, the same pixels as matrix.
        let embedded = try CLIRunner.run(["convert", dng.path, "-o", dir.appendingPathComponent("embedded").path, "--tone", "linear",
                                          "--camera-profile", "embedded", "--jobs", "1"])
        XCTAssertEqual(embedded.status, 0, embedded.stderr)
        XCTAssertEqual(try ImageFileReader.read(dir.appendingPathComponent("embedded/chart.tif")).samples,
                       try ImageFileReader.read(dir.appendingPathComponent("plain/chart.tif")).samples)
    }
}
