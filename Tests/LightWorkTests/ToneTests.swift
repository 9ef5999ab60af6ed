import CShims
import Foundation
import XCTest
@testable import LightWork

/// `--tone`: the curves' shape, hue kept by the max-RGB ratio, verify kept colorimetric, and the mean grey of real
/// photographs beside darktable-cli's default render.
final class ToneTests: XCTestCase {
    static let curves: [(String, Tone.Curve)] = [("standard", .standard), ("filmic", .filmic)]

    /// Each curve: 0 at black, rising everywhere, below 1 everywhere, on its grey and white anchors, smooth over RAW
    /// headroom (no kink where a clip would be), and the sampled table the kernel uses close to the formula.
    func testCurvesRiseFromBlackToWhiteWithoutKinks() {
        for (name, curve) in Self.curves {
            XCTAssertEqual(curve(0), 0, name)
            XCTAssertEqual(curve(-1), 0, name)
            var previous = 0.0
            var worstKink = 0.0
            // Log-spaced from −16 EV to +12 EV around grey, 64 steps a stop.
            for i in 1...(28 * 64) {
                let x = 0.18 * exp2(Double(i) / 64 - 16)
                let y = curve(x)
                // Rising (in Double precision the curve meets 1 − 1e-16 about 9 stops past white).
                if y < 1 - 1e-12 { XCTAssertGreaterThan(y, previous, "\(name) rises at \(x)") } else { XCTAssertGreaterThanOrEqual(y, previous, name) }
                XCTAssertLessThan(y, 1, "\(name) stays below white at \(x)")
                // Slope continuity in log-log terms: neighbouring slopes differ by little (a clip would jump by ~1).
                let h = 1.0 / 64
                let s0 = log(curve(x) / curve(x * exp2(-h))), s1 = log(curve(x * exp2(h)) / curve(x))
                if x > 0.01 && x < 64 { worstKink = max(worstKink, abs(s1 - s0) / (h * M_LN2)) }
                previous = y
            }
            XCTAssertEqual(curve(0.18), curve.greyOut, accuracy: 1e-9, name)
            XCTAssertEqual(curve(curve.whiteIn), 1 - Tone.Curve.whiteTolerance, accuracy: 1e-9, name)
            XCTAssertEqual(curve(.infinity), 1, name)
            let greyCode = 255 * TransferFunction.sRGB.encode(curve(0.18))
            let rawWhiteCode = 255 * TransferFunction.sRGB.encode(curve(1))
            let whiteCode = 255 * TransferFunction.sRGB.encode(curve(curve.whiteIn))
            let deepShadowCode = 255 * TransferFunction.sRGB.encode(curve(0.18 * exp2(-8)))
            print(String(format: "tone %@: c %.4f s %.4f gamma %.4f; grey 0.18 -> %.4f (8-bit %.1f), RAW white 1.0 -> 8-bit %.1f, "
                         + "white anchor %.2f -> 8-bit %.2f, -8 EV -> 8-bit %.1f; largest change of log-log slope %.4f per stop",
                         name, curve.c, curve.s, curve.gamma, curve(0.18), greyCode, rawWhiteCode, curve.whiteIn, whiteCode, deepShadowCode, worstKink))
            XCTAssertGreaterThanOrEqual(whiteCode, 254.5, "\(name) reaches white at its anchor")
            XCTAssertLessThan(worstKink, 2, "\(name) has no kink")

            // The kernel's table against the formula, over 0…32 (past the table's end too), on grey pixels: the
            // kernel scales by f(n)/n, so a grey pixel's channels come out as f(n) (to one more rounding).
            let table = name == "standard" ? ToneTable.standard : ToneTable.filmic
            let n = (0...32000).map { Float($0) / 1000 }
            var r = n, g = n, b = n
            table.apply(&r, &g, &b, count: n.count)
            var worst = 0.0
            for i in n.indices { worst = max(worst, abs(Double(g[i]) - curve(Double(n[i])))) }
            print(String(format: "tone %@: table vs formula, largest error %.2e over 0…32", name, worst))
            XCTAssertLessThan(worst, 3e-6, "\(name) table")
        }
        XCTAssertGreaterThan(Tone.Curve.standard(0.18), 0.18 * exp2(0.4), "standard lifts grey")
        XCTAssertLessThan(Tone.Curve.standard(0.18 * exp2(-6)), 0.18 * exp2(-6), "standard has a toe")
        XCTAssertGreaterThan(Tone.Curve.filmic(0.18 * exp2(-8)), 0.18 * exp2(-8) * 2, "filmic lifts the deep shadows")
        XCTAssertGreaterThan(255 * TransferFunction.sRGB.encode(Tone.Curve.filmic(0.18 * exp2(-8))), 5, "filmic keeps −8 EV visible")
    }

    /// ColorChecker's saturated patches (published Lab D50), at their exposure and two stops over (past RAW white):
    /// the hue angle and chromaticity stay, and no channel passes white. A per-channel curve, printed beside, does not.
    func testHueIsKeptOnSaturatedColours() throws {
        let patches: [(String, SIMD3<Double>)] = [
            ("orange", [62.661, 36.067, 57.096]), ("purplish blue", [40.020, 10.410, -45.964]),
            ("blue", [28.778, 14.179, -50.297]), ("green", [55.261, -38.342, 31.370]), ("red", [42.101, 53.378, 28.190]),
            ("yellow", [81.733, 4.039, 79.819]), ("magenta", [51.935, 49.986, -14.574]), ("cyan", [51.038, -28.631, -28.638]),
        ]
        let fromXYZ = RGBPrimaries.proPhoto.toXYZD50.inverse, toXYZ = RGBPrimaries.proPhoto.toXYZD50
        let gains = [1.0, 4.0]
        let image = PlanarImage(width: patches.count, height: gains.count, primaries: .proPhoto)
        for (row, gain) in gains.enumerated() {
            for (i, patch) in patches.enumerated() {
                let rgb = fromXYZ * (CIE.labToXYZ(patch.1) * gain)
                image.r[row * patches.count + i] = Float(rgb.x); image.g[row * patches.count + i] = Float(rgb.y); image.b[row * patches.count + i] = Float(rgb.z)
            }
        }
        func hue(_ lab: SIMD3<Double>) -> Double { atan2(lab.z, lab.y) * 180 / .pi }
        func hueDifference(_ a: Double, _ b: Double) -> Double { abs(remainder(a - b, 360)) }
        for (name, curve) in Self.curves {
            let setting = try Tone.Setting(parsing: name)
            let copy = PlanarImage(width: image.width, height: image.height, primaries: .proPhoto)
            copy.r.update(from: image.r, count: image.pixelCount); copy.g.update(from: image.g, count: image.pixelCount); copy.b.update(from: image.b, count: image.pixelCount)
            var context = DevelopContext(kind: .raw, metadata: ImageMetadata(), engine: EngineConfiguration(threads: 2))
            let out = try Tone.apply(setting, to: copy, context: &context)
            XCTAssertEqual(context.decisions["tone"], name)
            var worstHue = 0.0, worstChromaticity = 0.0, worstPerChannel = 0.0, brightest: Float = 0
            for (row, gain) in gains.enumerated() {
                for (i, patch) in patches.enumerated() {
                    let p = out.pixel(x: i, y: row)
                    brightest = max(brightest, p.max())
                    let lab = CIE.xyzToLab(toXYZ * SIMD3<Double>(Double(p.x), Double(p.y), Double(p.z)))
                    let sourceXYZ = CIE.labToXYZ(patch.1) * gain, outXYZ = toXYZ * SIMD3<Double>(Double(p.x), Double(p.y), Double(p.z))
                    let xy0 = SIMD2(sourceXYZ.x, sourceXYZ.y) / sourceXYZ.sum(), xy1 = SIMD2(outXYZ.x, outXYZ.y) / outXYZ.sum()
                    worstChromaticity = max(worstChromaticity, ((xy1 - xy0) * (xy1 - xy0)).sum().squareRoot())
                    worstHue = max(worstHue, hueDifference(hue(lab), hue(patch.1)))
                    // The same curve on each channel, for comparison.
                    let rgb = fromXYZ * sourceXYZ
                    let perChannel = SIMD3(curve(rgb.x), curve(rgb.y), curve(rgb.z))
                    worstPerChannel = max(worstPerChannel, hueDifference(hue(CIE.xyzToLab(toXYZ * perChannel)), hue(patch.1)))
                }
            }
            print(String(format: "tone %@ on 8 saturated ColorChecker patches at 1x and 4x: largest hue change %.4f deg, chromaticity %.2e, "
                         + "brightest channel %.4f; the same curve per channel would move hue by up to %.1f deg",
                         name, worstHue, worstChromaticity, brightest, worstPerChannel))
            XCTAssertLessThan(worstHue, 0.05, name)
            XCTAssertLessThan(worstChromaticity, 1e-5, name)
            XCTAssertLessThan(brightest, 1, name)
        }
    }

    /// Per-pixel: the bits do not depend on the thread count; `linear` is off and changes nothing.
    func testThreadCountDoesNotChangeBitsAndLinearIsOff() throws {
        XCTAssertTrue(Tone.Setting.linear.isOff)
        XCTAssertEqual(try Tone.Setting(parsing: " Filmic ").text, "filmic")
        XCTAssertThrowsError(try Tone.Setting(parsing: "punchy"))
        let w = 301, h = 97
        func render(threads: Int) throws -> [Float] {
            let image = PlanarImage(width: w, height: h, primaries: .proPhoto)
            for i in 0..<(w * h) {
                let v = Float(i) / Float(w * h)
                image.r[i] = 3 * v * v; image.g[i] = v * 0.5 + 0.01 * Float(i % 7); image.b[i] = Float((i * 37) % 101) / 40
            }
            var context = DevelopContext(kind: .raw, metadata: ImageMetadata(), engine: EngineConfiguration(threads: threads))
            let out = try Tone.apply(.standard, to: image, context: &context)
            return Array(UnsafeBufferPointer(start: out.r, count: w * h)) + Array(UnsafeBufferPointer(start: out.b, count: w * h))
        }
        let one = try render(threads: 1)
        XCTAssertEqual(one.map(\.bitPattern), try render(threads: 3).map(\.bitPattern))
        XCTAssertLessThan(one.max()!, 1)
    }

    /// The kernel's AVX2 path gives the baseline's bits, on ordinary values and on the edge cases each lane of a
    /// group of eight may hold: black, negative, −0, NaN, the table's end (16) and beyond it, infinity.
    func testKernelPathsGiveTheSameBitsOnEveryKindOfValue() {
        let special: [Float] = [0, -0.0, -1, 1e-30, 1e-8, 0.18, 1, 15.999999, 16, 17, 300, .infinity, .nan, -.infinity, 2, 0.5]
        var r: [Float] = [], g: [Float] = [], b: [Float] = []
        for i in 0..<4003 {
            r.append(special[i % special.count]); g.append(special[(i * 7 + 3) % special.count])
            b.append(i % 5 == 0 ? special[(i * 3) % special.count] : Float(i) / 1000)
        }
        for table in [ToneTable.standard, ToneTable.filmic] {
            var outs: [[UInt32]] = []
            for baseline in [false, true] {
                var rr = r, gg = g, bb = b
                lw_cpu_force_baseline(baseline ? 1 : 0)
                table.apply(&rr, &gg, &bb, count: rr.count)
                lw_cpu_force_baseline(0)
                outs.append((rr + gg + bb).map(\.bitPattern))
                // Black in, +0 out; a NaN norm leaves its pixel alone.
                for i in rr.indices where max(r[i], max(g[i], b[i])) <= 0 {
                    XCTAssertEqual([rr[i], gg[i], bb[i]].map(\.bitPattern), [0, 0, 0], "pixel \(i) black")
                }
            }
            XCTAssertTrue(outs[0] == outs[1], "AVX2 \(lw_cpu_avx2() == 1 ? "on" : "not available"): the paths differ")
        }
    }

    /// On an encoded image the module is skipped with a note (the image is display-referred already).
    func testSkippedWithANoteOnEncodedImages() throws {
        var settings = DevelopSettings()
        try settings.set("tone", text: "standard")
        XCTAssertEqual(settings.record, ["tone": "standard"])
        var context = DevelopContext(kind: .rgb, metadata: ImageMetadata(), engine: EngineConfiguration(threads: 2))
        XCTAssertNil(try DevelopStage.run(.scene, settings: settings, image: WorkingImage(width: 2, height: 2, space: .deviceRGB), context: &context))
        XCTAssertEqual(context.notes.count, 1)
        XCTAssertTrue(context.notes[0].hasPrefix("tone: skipped"), context.notes[0])
    }

    /// `convert` exports with the measured default, `standard`, when nothing chooses: recorded in the settings and in
    /// the RAW file's decisions; a JPEG/PNG input skips it without a note (nobody asked for it there); `--tone linear`
    /// and a recipe's setting still win.
    func testExportsDefaultToStandardAndSayIt() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let samples = SampleSceneTests.samples
        let inputs = [samples.appendingPathComponent("scene.dng").path, samples.appendingPathComponent("scene-srgb.png").path]
        let out = dir.appendingPathComponent("default")
        let r = try CLIRunner.run(["convert"] + inputs + ["-o", out.path, "--format", "png", "-q"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let m = try Manifest.decode(Data(contentsOf: out.appendingPathComponent("manifest.json")))
        XCTAssertEqual(m.settings.develop?["tone"], Tone.exportDefault?.text)
        XCTAssertEqual(Tone.exportDefault, .standard)
        let raw = try XCTUnwrap(m.entries.first { $0.input.relativePath == "scene.dng" })
        XCTAssertEqual(raw.input.decisions?["tone"], "standard")
        let png = try XCTUnwrap(m.entries.first { $0.input.relativePath == "scene-srgb.png" })
        XCTAssertFalse(png.notes.contains { $0.hasPrefix("tone:") }, "\(png.notes)")
        let linear = dir.appendingPathComponent("linear")
        XCTAssertEqual(try CLIRunner.run(["convert"] + inputs + ["-o", linear.path, "--format", "png", "--tone", "linear", "-q"]).status, 0)
        let l = try Manifest.decode(Data(contentsOf: linear.appendingPathComponent("manifest.json")))
        XCTAssertNil(l.settings.develop?["tone"])
        XCTAssertNotEqual(l.entries.first { $0.input.relativePath == "scene.dng" }?.output?.sha256, raw.output?.sha256, "the default changes the RAW render")
        XCTAssertEqual(l.entries.first { $0.input.relativePath == "scene-srgb.png" }?.output?.sha256, png.output?.sha256, "and not the PNG's")
    }

    /// Verify's cases set `tone` to `linear` themselves, so its suites stay colorimetric whatever
    /// `Tone.defaultSetting` exports use; and the exposure/tone order is the stage's.
    func testVerifyRendersLinearWhateverTheExportDefault() throws {
        let suite = SampleSceneTests.samples.deletingLastPathComponent().appendingPathComponent("Suites")
        let renderer = try CaseRenderer(suiteDirectory: suite)
        let c = try JSONDecoder().decode(VerifyCase.self, from: Data(#"{"name": "t", "input": "../Samples/scene.dng", "golden": "g.png", "format": "png16"}"#.utf8))
        let spec = try renderer.spec(for: c, outputDirectory: URL(fileURLWithPath: "/tmp/lw-tone-verify"))
        let explicit = try JSONSerialization.jsonObject(with: JSONEncoder().encode(spec.develop)) as? [String: String]
        XCTAssertEqual(explicit?["tone"], "linear", "verify sets linear explicitly, not through the default")
        XCTAssertEqual(spec.develop[Tone.self], .linear)
        let names = DevelopStage.names
        XCTAssertLessThan(try XCTUnwrap(names.firstIndex(of: "exposure")), try XCTUnwrap(names.firstIndex(of: "tone")))
    }

    /// The shared photographs through the converter at each tone, beside darktable-cli 4.2's default render (mean
    /// grey of its PNG measured by scripts/tone-compare.sh: 134.4 and 89.3; the issue quotes 134 and 94, and 119 and
    /// 77 for LightWork's render, measured otherwise). `linear` is today's render: 119.9 and 74.9 measured.
    func testMeanGreyOfRealPhotographsAgainstDarktable() throws {
        let raw = try TestPaths.sharedSamples("raw")
        let cases: [(file: String, linear: Double, darktable: Double)] = [("canon-powershot-g2.crw", 119.9, 134.4), ("canon-eos-d30.crw", 74.9, 89.3)]
        for sample in cases {
            var grey: [String: Double] = [:]
            for tone in Tone.Setting.allCases {
                let dir = try TestPaths.temporaryDirectory(self)
                var spec = ConvertSpec(outputDirectory: dir)
                spec.export = ConvertSpec.Export(format: .png)
                try spec.develop.set("tone", text: tone.text)
                let url = raw.appendingPathComponent(sample.file)
                let entry = try FileConverter(spec: spec).convert(InputItem(url: url, displayPath: sample.file, relativePath: sample.file))
                XCTAssertEqual(entry.status, .converted, entry.reason ?? "")
                XCTAssertEqual(entry.input.decisions?["tone"], tone.isOff ? nil : tone.text)
                let file = try ImageFileReader.read(dir.appendingPathComponent(try XCTUnwrap(entry.output?.path)))
                grey[tone.text] = file.samples.reduce(0.0) { $0 + Double($1) } / Double(file.samples.count)
            }
            print(String(format: "tone mean grey %@: linear %.1f, standard %.1f, filmic %.1f; darktable-cli default %.1f",
                         sample.file, grey["linear"]!, grey["standard"]!, grey["filmic"]!, sample.darktable))
            XCTAssertEqual(grey["linear"]!, sample.linear, accuracy: 0.2, "linear is the colorimetric render")
            // Measured 138.2 and 84.1 (3.8 above and 5.2 below darktable): the darker photograph keeps more shadow than darktable's.
            XCTAssertEqual(grey["standard"]!, sample.darktable, accuracy: 8, "standard is about as bright as darktable's default")
            XCTAssertGreaterThan(grey["filmic"]!, grey["linear"]!, "filmic lifts the shadows")
        }
    }
}
