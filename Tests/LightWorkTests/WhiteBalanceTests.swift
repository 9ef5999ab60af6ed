import CLCMS2
import Foundation
import XCTest
@testable import LightWork

/// `--wb` and `--exposure auto` on generated scenes of known colour (`lightwork-tools make-sample-dng`): the chart
/// and a photo-like landscape under several lights, whose as-shot neutral the generator writes into the DNG.
final class WhiteBalanceTests: XCTestCase {
    // MARK: - Helpers

    /// A generated DNG (768 × 512) and its truth file, made once per argument list.
    nonisolated(unsafe) static var made: [String: URL] = [:]
    func generate(_ name: String, _ args: [String]) throws -> (dng: URL, truth: URL) {
        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("lw-wb-tests-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let dng = dir.appendingPathComponent("\(name).dng"), truth = dir.appendingPathComponent("\(name).json")
        if Self.made[name] == nil {
            let tools = CLIRunner.binary.deletingLastPathComponent().appendingPathComponent("lightwork-tools")
            let (status, _, err) = try CLIRunner.capture(tools, ["make-sample-dng", "-o", dng.path, "--truth", truth.path,
                                                                 "--width", "768", "--height", "512"] + args)
            XCTAssertEqual(status, 0, String(decoding: err, as: UTF8.self))
            Self.made[name] = dng
        }
        return (dng, truth)
    }

    func decode(_ url: URL, wb: String = "camera", colorModel: DecodeOptions.ColorModel = .dng) throws -> DecodedImage {
        var options = DecodeOptions()
        options.colorModel = colorModel
        try options.develop.set("whiteBalance", text: wb)
        return try RawDecoder.decode(url: url, options: options, engine: EngineConfiguration(threads: 2))
    }

    /// CIELAB D50 of the mean linear ProPhoto (D50) of `rect`.
    static func lab(_ image: WorkingImage, _ rect: SampleSceneTests.Rect) -> SIMD3<Double> {
        var sum = SIMD3<Double>(0, 0, 0)
        for y in rect.y..<(rect.y + rect.h) { for x in rect.x..<(rect.x + rect.w) {
            let p = image.pixel(x: x, y: y)
            sum += SIMD3(Double(p.x), Double(p.y), Double(p.z))
        } }
        return CIE.xyzToLab(RGBPrimaries.proPhoto.toXYZD50 * (sum / Double(rect.w * rect.h)))
    }

    /// ΔE00 by LittleCMS.
    static func deltaE(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double {
        var x = cmsCIELab(L: a.x, a: a.y, b: a.z), y = cmsCIELab(L: b.x, a: b.y, b: b.z)
        return cmsCIE2000DeltaE(&x, &y, 1, 1, 1)
    }

    /// Mean and worst ΔE00 between two renders over the chart's 24 patches.
    func patchDifference(_ a: WorkingImage, _ b: WorkingImage, truth: SampleSceneTests.Truth) -> (mean: Double, max: Double) {
        let e = truth.patches.map { Self.deltaE(Self.lab(a, $0.centre), Self.lab(b, $0.centre)) }
        return (e.reduce(0, +) / Double(e.count), e.max()!)
    }

    /// The photo scene's truth file.
    struct PhotoTruth: Decodable {
        struct Area: Decodable { let name: String; let labD50: [Double]; let centre: SampleSceneTests.Rect }
        let areas: [Area]
        let specularShare: Double
    }

    // MARK: - Presets and temperatures

    /// The preset of each light, and its K:tint, land on the as-shot render (the generator's AsShotNeutral is the
    /// camera's exact response to the light); a wrong temperature visibly does not.
    func testPresetsAndTemperaturesMatchTheAsShotRender() throws {
        let cases: [(String, String)] = [("A", "tungsten"), ("D65", "cloudy"), ("D55", "daylight"), ("D75", "shade"), ("F2", "fluorescent")]
        for (light, preset) in cases {
            let (dng, truthURL) = try generate("chart-\(light)", ["--illuminant", light])
            let truth = try JSONDecoder().decode(SampleSceneTests.Truth.self, from: Data(contentsOf: truthURL))
            let asShot = try decode(dng).image
            let p = patchDifference(try decode(dng, wb: preset).image, asShot, truth: truth)
            let t = ColorTemperature(xy: WhiteBalance.Preset(rawValue: preset)!.white)
            let kText = String(format: "%.0f:%+.1f", t.kelvin, t.tint)
            let k = patchDifference(try decode(dng, wb: kText).image, asShot, truth: truth)
            print(String(format: "wb %@ under %@: ΔE00 to as-shot mean %.4f max %.4f; %@: mean %.4f max %.4f", preset, light, p.mean, p.max, kText, k.mean, k.max))
            // Measured max 0.011 (preset) and 0.022 (K:tint, rounded to 1 K and 0.1 tint); the issue asks 0.5.
            XCTAssertLessThan(p.max, 0.04, "\(preset) under \(light)")
            XCTAssertLessThan(k.max, 0.08, "\(kText) under \(light)")
        }
        // LibRaw's colour path takes the same multipliers.
        let (dng, truthURL) = try generate("chart-A", ["--illuminant", "A"])
        let truth = try JSONDecoder().decode(SampleSceneTests.Truth.self, from: Data(contentsOf: truthURL))
        let libraw = patchDifference(try decode(dng, wb: "2856", colorModel: .libraw).image, try decode(dng, colorModel: .libraw).image, truth: truth)
        print(String(format: "wb 2856 under A, --color-model libraw: ΔE00 to as-shot mean %.4f max %.4f", libraw.mean, libraw.max))
        XCTAssertLessThan(libraw.max, 0.05, "measured 0.013")
        // Sanity: daylight white on a tungsten scene leaves it orange.
        let wrong = patchDifference(try decode(dng, wb: "6500").image, try decode(dng).image, truth: truth)
        print(String(format: "wb 6500 under A (wrong): ΔE00 to as-shot mean %.2f", wrong.mean))
        XCTAssertGreaterThan(wrong.mean, 10)
    }

    /// The DNG colour model's neutral for a white point is the inverse of its white point for a neutral, with two
    /// calibrations (the matrices interpolated at that white), so a chosen white re-interpolates them.
    func testNeutralOfAWhitePointInvertsTheWhitePointOfANeutral() throws {
        let a = Matrix3([[0.75, -0.2, -0.05], [-0.35, 1.2, 0.15], [-0.05, 0.25, 0.55]])
        let model = DNGColorModel([.init(illuminant: 17, colorMatrix: a), .init(illuminant: 21, colorMatrix: SyntheticCameraMatrix.d65)])
        var worst = 0.0
        for kelvin in [2500.0, 2850, 3500, 4500, 5500, 6500, 8000] {
            for tint in [-20.0, 0, 20] {
                let xy = ColorTemperature(kelvin: kelvin, tint: tint).xy
                let back = model.whitePoint(neutral: model.neutral(at: xy))
                worst = max(worst, abs(back.x - xy.x) + abs(back.y - xy.y))
            }
        }
        print("neutral(at:) → whitePoint(neutral:) round trip: worst |Δxy| \(worst)")
        XCTAssertLessThan(worst, 1e-6)
    }

    enum SyntheticCameraMatrix {
        static let d65 = Matrix3([[0.7034, -0.1282, -0.0763], [-0.4127, 1.1958, 0.2431], [-0.0689, 0.1742, 0.6218]])
    }

    // MARK: - Spot and auto

    /// A spot on the chart's neutral 5 patch lands on the as-shot render, also on a DNG stored turned (the spot
    /// is in the upright frame; the decoder maps it to the sensor).
    func testSpotOnTheGreyPatchMatchesTheAsShotRender() throws {
        for (name, args) in [("chart-A", ["--illuminant", "A"]), ("chart-F2-turned", ["--illuminant", "F2", "--orientation", "6"])] {
            let (dng, truthURL) = try generate(name, args)
            let truth = try JSONDecoder().decode(SampleSceneTests.Truth.self, from: Data(contentsOf: truthURL))
            let grey = truth.patches[21].centre
            let spot = String(format: "spot:%.4f,%.4f,%.4f,%.4f", Double(grey.x) / Double(truth.width), Double(grey.y) / Double(truth.height),
                              Double(grey.w) / Double(truth.width), Double(grey.h) / Double(truth.height))
            let decoded = try decode(dng, wb: spot)
            let d = patchDifference(decoded.image, try decode(dng).image, truth: truth)
            print(String(format: "wb %@ on %@ (neutral 5): ΔE00 to as-shot mean %.4f max %.4f — %@", spot, name, d.mean, d.max, decoded.details["whiteBalance"] ?? ""))
            XCTAssertLessThan(d.max, 0.5, "\(name): measured 0.35 (sensor noise in a 256-cell spot), the issue's limit")
            // The wrong corner (the dark skin patch) does not.
            let skin = truth.patches[0].centre
            let off = try decode(dng, wb: String(format: "spot:%.4f,%.4f,0.01,0.01", Double(skin.x) / Double(truth.width), Double(skin.y) / Double(truth.height))).image
            XCTAssertGreaterThan(patchDifference(off, try decode(dng).image, truth: truth).mean, 3, name)
        }
    }

    /// `auto` lands within ΔE00 2 of the truth on the chart and on the photo-like scene under several lights.
    func testAutoLandsNearTheTruthOnChartsAndPhotos() throws {
        for light in ["A", "D65", "F2", "D75"] {
            let (dng, truthURL) = try generate("chart-\(light)", ["--illuminant", light])
            let truth = try JSONDecoder().decode(SampleSceneTests.Truth.self, from: Data(contentsOf: truthURL))
            let decoded = try decode(dng, wb: "auto")
            let e = truth.patches.map { Self.deltaE(Self.lab(decoded.image, $0.centre), SampleSceneTests.vector($0.labD50)) }
            let mean = e.reduce(0, +) / Double(e.count)
            let asShot = try decode(dng).image
            let toAsShot = patchDifference(decoded.image, asShot, truth: truth)
            print(String(format: "wb auto, chart under %@: ΔE00 to truth mean %.3f max %.3f; to as-shot mean %.3f — %@", light, mean, e.max()!, toAsShot.mean, decoded.details["whiteBalance"] ?? ""))
            XCTAssertLessThan(mean, 0.3, "chart under \(light): measured 0.10 (the issue asks 2)")
        }
        for light in ["A", "D65", "F2", "D55"] {
            let (dng, truthURL) = try generate("photo-\(light)", ["--illuminant", light, "--scene", "photo"])
            let truth = try JSONDecoder().decode(PhotoTruth.self, from: Data(contentsOf: truthURL))
            let decoded = try decode(dng, wb: "auto")
            let asShot = try decode(dng).image
            let e = truth.areas.map { Self.deltaE(Self.lab(decoded.image, $0.centre), SampleSceneTests.vector($0.labD50)) }
            let shot = truth.areas.map { Self.deltaE(Self.lab(asShot, $0.centre), SampleSceneTests.vector($0.labD50)) }
            let mean = e.reduce(0, +) / Double(e.count)
            print(String(format: "wb auto, photo under %@: ΔE00 to truth mean %.3f max %.3f (as-shot mean %.3f) — %@", light, mean, e.max()!,
                         shot.reduce(0, +) / Double(shot.count), decoded.details["whiteBalance"] ?? ""))
            XCTAssertLessThan(mean, 2, "photo under \(light): measured 0.95, the issue's limit")
        }
    }

    // MARK: - Through the converter and the CLI

    /// The manifest names what was used, and `camera` leaves the output's bytes as they were.
    func testConverterRecordsTheWhiteAndCameraChangesNothing() throws {
        let url = SampleSceneTests.samples.appendingPathComponent("scene-tungsten.dng")
        let item = InputItem(url: url, displayPath: "scene-tungsten.dng", relativePath: "scene-tungsten.dng")
        var outputs: [Data] = []
        for wb in [nil, "camera", "tungsten"] {
            let dir = try TestPaths.temporaryDirectory(self)
            var spec = ConvertSpec(outputDirectory: dir)
            if let wb { try spec.develop.set("whiteBalance", text: wb) }
            let entry = try FileConverter(spec: spec).convert(item)
            XCTAssertEqual(entry.status, .converted, entry.reason ?? "")
            let decision = try XCTUnwrap(entry.input.decisions?["whiteBalance"])
            if wb == "tungsten" {
                print("manifest whiteBalance: \(decision)")
                XCTAssertTrue(decision.hasPrefix("tungsten (CIE A, 2856 K"), decision)
                XCTAssertTrue(decision.contains("multipliers"), decision)
                XCTAssertEqual(spec.develop.record, ["whiteBalance": "tungsten"])
            } else {
                XCTAssertTrue(decision.hasPrefix("as-shot"), decision)
                XCTAssertNil(spec.develop.record)
            }
            outputs.append(try Data(contentsOf: dir.appendingPathComponent(try XCTUnwrap(entry.output?.path))))
        }
        XCTAssertEqual(outputs[0], outputs[1])
    }

    /// Bad values stop the CLI before any file: exit 2, one line.
    func testCLIRefusesBadWhiteBalances() throws {
        let input = SampleSceneTests.samples.appendingPathComponent("scene.dng").path
        for (value, reason) in [("99999", "between 2000 and 25000 K"), ("spot:0.9,0.9,0.5,0.5", "inside the frame"),
                                ("5200:+400", "tint"), ("candle", "not a white balance")] {
            let out = try TestPaths.temporaryDirectory(self)
            let r = try CLIRunner.run(["convert", input, "-o", out.path, "--wb", value])
            let lines = r.stderr.split(separator: "\n").filter { !$0.hasPrefix("Run 'lightwork") }
            print("--wb \(value): exit \(r.status): \(lines.first ?? "")")
            XCTAssertEqual(r.status, 2, r.stderr)
            XCTAssertEqual(lines.count, 1, r.stderr)
            XCTAssertTrue(r.stderr.contains(reason), r.stderr)
        }
    }

    // MARK: - RGB path

    /// On an encoded image: the chart painted in linear sRGB as lit by A and not adapted; `tungsten` (Bradford
    /// A → D65) gives back the adapted truth, `spot` on the grey patch and `auto` come close.
    func testRGBPathAdaptsFromTheChosenWhite() throws {
        let truth = try SampleSceneTests.loadTruth("scene.truth.json")
        let srgb = RGBPrimaries.sRGB.toXYZNative.inverse
        func paint(_ toXYZ: Matrix3) -> PlanarImage {
            let image = PlanarImage(width: truth.width, height: truth.height, primaries: .sRGB)
            func fill(_ rect: SampleSceneTests.Rect, _ lab: SIMD3<Double>) {
                let v = srgb * toXYZ * CIE.labToXYZ(lab)
                for y in rect.y..<(rect.y + rect.h) { for x in rect.x..<(rect.x + rect.w) {
                    let i = y * image.width + x
                    (image.r[i], image.g[i], image.b[i]) = (Float(v.x), Float(v.y), Float(v.z))
                } }
            }
            fill(.init(x: 0, y: 0, w: truth.width, h: truth.height), SIMD3(45, 0, 0))
            for p in truth.patches { fill(p.rect, SampleSceneTests.vector(p.labD50)) }
            for s in truth.greyRamp { fill(s.rect, SampleSceneTests.vector(s.labD50)) }
            return image
        }
        let adapted = paint(CIE.bradfordAdaptation(from: CIE.d50, to: CIE.d65))
        func lab(_ image: PlanarImage, _ r: SampleSceneTests.Rect) -> SIMD3<Double> {
            let p = image.pixel(x: r.x + r.w / 2, y: r.y + r.h / 2)
            return CIE.xyzToLab(CIE.bradfordAdaptation(from: CIE.d65, to: CIE.d50) * RGBPrimaries.sRGB.toXYZNative * SIMD3(Double(p.x), Double(p.y), Double(p.z)))
        }
        let grey = truth.patches[21].rect
        let spot = String(format: "spot:%.4f,%.4f,%.4f,%.4f", Double(grey.x + grey.w / 4) / Double(truth.width), Double(grey.y + grey.h / 4) / Double(truth.height),
                          Double(grey.w / 2) / Double(truth.width), Double(grey.h / 2) / Double(truth.height))
        // Measured means 0.0000, 0.13, 0.021.
        for (wb, limit) in [("tungsten", 0.001), (spot, 0.4), ("auto", 0.08)] {
            let cast = paint(CIE.bradfordAdaptation(from: CIE.d50, to: CIE.illuminantA))
            var context = DevelopContext(kind: .rgb, metadata: ImageMetadata(), engine: EngineConfiguration(threads: 2))
            let out = try WhiteBalance.apply(try WhiteBalance.Setting(parsing: wb), to: cast, context: &context)
            let e = truth.patches.map { Self.deltaE(lab(out, $0.rect), lab(adapted, $0.rect)) }
            print(String(format: "RGB path wb %@ on an A-lit chart: ΔE00 to the D65-adapted truth mean %.4f max %.4f — %@", wb,
                         e.reduce(0, +) / Double(e.count), e.max()!, context.decisions["whiteBalance"] ?? ""))
            XCTAssertLessThan(e.reduce(0, +) / Double(e.count), limit, wb)
        }
    }

    // MARK: - Exposure auto

    /// `--exposure auto` puts the median at 18 % grey: an underexposed frame gets the missing stops back, and
    /// glints under 1 % of the frame do not move it.
    func testExposureAutoRecoversUnderexposureAndIgnoresSpeculars() throws {
        let engine = EngineConfiguration(threads: 2)
        for scene in ["chart", "photo"] {
            var evs: [Double] = []
            for under in ["0", "2.5"] {
                let (dng, _) = try generate("\(scene)-D65-under\(under)", ["--scene", scene, "--underexpose", under])
                let decoded = try decode(dng)
                evs.append(try XCTUnwrap(Exposure.autoEV(PlanarImage(decoded.image, engine: engine), engine: engine)))
            }
            print(String(format: "exposure auto, %@: %+.3f EV normal, %+.3f EV underexposed by 2.5 (difference %.3f)", scene, evs[0], evs[1], evs[1] - evs[0]))
            XCTAssertEqual(evs[1] - evs[0], 2.5, accuracy: 0.05, scene)
        }
        // Known truth: luminance spread over 4 stops around a median of 0.05; then 0.5 % glints at 50.
        let image = PlanarImage(width: 400, height: 300, primaries: .proPhoto)
        var rng = SeededRandom(seed: 5)
        for i in 0..<image.pixelCount {
            let v = Float(0.05 * exp2(4 * (rng.unit() - 0.5)))
            (image.r[i], image.g[i], image.b[i]) = (v, v, v)
        }
        let plain = try XCTUnwrap(Exposure.autoEV(image, engine: engine))
        for i in Swift.stride(from: 0, to: image.pixelCount, by: 200) { (image.r[i], image.g[i], image.b[i]) = (50, 50, 50) }
        let glints = try XCTUnwrap(Exposure.autoEV(image, engine: engine))
        let single = try XCTUnwrap(Exposure.autoEV(image, engine: EngineConfiguration(threads: 1)))
        print(String(format: "exposure auto on a known spread (median 0.05): %+.3f EV (expected %+.3f), with 0.5 %% glints %+.3f EV", plain, log2(0.18 / 0.05), glints))
        XCTAssertEqual(plain, log2(0.18 / 0.05), accuracy: 1.0 / 64)
        XCTAssertEqual(glints, plain, accuracy: 1.0 / 32)
        XCTAssertEqual(single, glints)
    }
}
