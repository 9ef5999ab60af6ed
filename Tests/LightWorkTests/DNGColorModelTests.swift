import CLibRaw
import CShims
import Foundation
import XCTest
@testable import LightWork

/// The DNG specification's colour model: Robertson temperatures, matrix interpolation, the white-point iteration,
/// the ForwardMatrix and ColorMatrix routes, and the RAW decoder developing the synthetic samples to their truth.
final class DNGColorModelTests: XCTestCase {
    // MARK: - Temperature (Robertson, the DNG SDK's isotherm table)

    func testTemperatureOfD65AndIlluminantA() {
        let d65 = ColorTemperature(xy: SIMD2(0.3127, 0.3290))
        XCTAssertEqual(d65.kelvin, 6504, accuracy: 3, "D65's correlated colour temperature")
        XCTAssertEqual(d65.tint, 0, accuracy: 15, "D65 lies a little off the Planckian locus, on the magenta side")
        XCTAssertGreaterThan(d65.tint, 0)
        let a = ColorTemperature(xy: SIMD2(0.44757, 0.40745))
        XCTAssertEqual(a.kelvin, 2856, accuracy: 3, "illuminant A is a 2856 K black body")
        XCTAssertEqual(a.tint, 0, accuracy: 1, "and lies on the locus")
    }

    func testPlanckianLocusPoints() {
        // Black-body chromaticities (CIE 1931 2°), as tabulated e.g. by Wyszecki & Stiles.
        let known: [(Double, SIMD2<Double>)] = [(2856, SIMD2(0.4476, 0.4074)), (5000, SIMD2(0.3451, 0.3516)), (6500, SIMD2(0.3135, 0.3237))]
        for (kelvin, xy) in known {
            let computed = ColorTemperature(kelvin: kelvin).xy
            XCTAssertEqual(computed.x, xy.x, accuracy: 6e-4, "\(kelvin) K x")
            XCTAssertEqual(computed.y, xy.y, accuracy: 6e-4, "\(kelvin) K y")
        }
    }

    func testTemperatureRoundTrips() {
        for kelvin in [2000.0, 2850, 3077, 3500, 4500, 5000, 6500, 7500, 10000, 20000] {
            for tint in [-20.0, 0, 15] {
                let back = ColorTemperature(xy: ColorTemperature(kelvin: kelvin, tint: tint).xy)
                XCTAssertEqual(back.kelvin, kelvin, accuracy: kelvin * 1e-4, "\(kelvin) K tint \(tint)")
                XCTAssertEqual(back.tint, tint, accuracy: 0.05, "\(kelvin) K tint \(tint)")
            }
        }
        // Warmer light is redder: temperature falls as x rises along the locus.
        XCTAssertGreaterThan(ColorTemperature(xy: SIMD2(0.40, 0.39)).kelvin, ColorTemperature(xy: SIMD2(0.45, 0.41)).kelvin)
    }

    func testLightSourceTemperaturesFollowTheSDK() {
        XCTAssertEqual(DNGColorModel.temperature(ofLightSource: 17), 2850)
        XCTAssertEqual(DNGColorModel.temperature(ofLightSource: 21), 6500)
        XCTAssertEqual(DNGColorModel.temperature(ofLightSource: 23), 5000)
        XCTAssertEqual(DNGColorModel.temperature(ofLightSource: 14), 4150)
        XCTAssertNil(DNGColorModel.temperature(ofLightSource: 0), "unknown")
        XCTAssertNil(DNGColorModel.temperature(ofLightSource: 255), "other")
    }

    // MARK: - Matrices

    /// The committed sample camera's ColorMatrix1 (D65) and an invented tungsten matrix of the same kind.
    static let cmD65 = Matrix3([[0.7034, -0.1282, -0.0763], [-0.4127, 1.1958, 0.2431], [-0.0689, 0.1742, 0.6218]])
    static let cmA = Matrix3([[0.8760, -0.2570, -0.0960], [-0.3840, 1.1490, 0.2610], [-0.0310, 0.1130, 0.7490]])

    /// The calibration whites: D65 (6504 K, above the 6500 K the SDK assigns it) and the 2850 K black body the SDK
    /// takes illuminant A to be, so each calibration is used alone at its own white.
    static let whiteD65 = SIMD2<Double>(0.3127, 0.3290)
    static let whiteA = ColorTemperature(kelvin: 2850).xy

    static func twoIlluminantModel(forward: Bool = false) -> DNGColorModel {
        // ForwardMatrices consistent with the ColorMatrices at their own light (what a profile maker would measure).
        func fm(_ cm: Matrix3, _ xy: SIMD2<Double>) -> Matrix3 {
            let white = CIE.xyToXYZ(x: xy.x, y: xy.y)
            return CIE.bradfordAdaptation(from: white, to: CIE.d50) * cm.inverse * Matrix3.diagonal(cm * white)
        }
        // Listed D65 first, as many DNGs do: the model orders by temperature.
        return DNGColorModel([
            .init(illuminant: 21, colorMatrix: cmD65, forwardMatrix: forward ? fm(cmD65, whiteD65) : nil),
            .init(illuminant: 17, colorMatrix: cmA, forwardMatrix: forward ? fm(cmA, whiteA) : nil),
        ])
    }

    static func xy(kelvin: Double) -> SIMD2<Double> { ColorTemperature(kelvin: kelvin).xy }

    func assertEqual(_ a: Matrix3, _ b: Matrix3, accuracy: Double, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        for i in 0..<9 { XCTAssertEqual(a.m[i], b.m[i], accuracy: accuracy, "\(what) [\(i)]", file: file, line: line) }
    }

    func testInterpolationWeightIsInverseTemperatureClampedToTheCalibrations() {
        let model = Self.twoIlluminantModel()
        XCTAssertEqual(model.temperatures, [2850, 6500])
        XCTAssertEqual(model.calibrations.map(\.illuminant), [17, 21], "ordered by temperature")
        XCTAssertEqual(model.weight(at: Self.xy(kelvin: 2000)), 1, "below A: A alone")
        XCTAssertEqual(model.weight(at: Self.xy(kelvin: 2850)), 1, accuracy: 1e-3)
        XCTAssertEqual(model.weight(at: Self.xy(kelvin: 6500)), 0, accuracy: 1e-3)
        XCTAssertEqual(model.weight(at: Self.xy(kelvin: 9000)), 0, "above D65: D65 alone")
        let expected = (1 / 4000.0 - 1 / 6500.0) / (1 / 2850.0 - 1 / 6500.0)
        XCTAssertEqual(model.weight(at: Self.xy(kelvin: 4000)), expected, accuracy: 1e-3)

        // The blended XYZ → camera matrix is that mix of the two (normalised) ColorMatrices.
        let g = model.weight(at: Self.xy(kelvin: 4000))
        let blended = model.matrices(at: Self.xy(kelvin: 4000)).xyzToCamera
        let a = model.calibrations[0].colorMatrix, d = model.calibrations[1].colorMatrix
        assertEqual(blended, Matrix3(flat: zip(a.m, d.m).map { g * $0 + (1 - g) * $1 }), accuracy: 1e-12, "blend")
        // Normalised as the SDK does: D50 reaches 1 in the largest camera channel, unless already within 1 %.
        XCTAssertEqual(model.calibrations[1].colorMatrix, Self.cmD65, "already within 1 %: left alone")
        let doubled = DNGColorModel([.init(illuminant: 21, colorMatrix: Matrix3(flat: Self.cmD65.m.map { 2 * $0 }))])
        XCTAssertEqual((doubled.calibrations[0].colorMatrix * CIE.d50).max(), 1, accuracy: 1e-12)

        // One matrix, or an illuminant without a temperature: no interpolation.
        XCTAssertEqual(DNGColorModel([.init(illuminant: 21, colorMatrix: Self.cmD65)]).weight(at: Self.xy(kelvin: 3000)), 1)
        XCTAssertEqual(DNGColorModel([.init(illuminant: 21, colorMatrix: Self.cmD65), .init(illuminant: 255, colorMatrix: Self.cmA)]).calibrations.count, 1)
    }

    func testWhitePointIterationFindsTheLightOfANeutral() {
        let model = Self.twoIlluminantModel()
        for kelvin in [2400.0, 3300, 4000, 5200, 7000] {
            let white = Self.xy(kelvin: kelvin)
            // The camera's response to that light through the matrix blended for it: the fixed point to find.
            let neutral = model.neutral(at: white)
            XCTAssertEqual(neutral.max(), 1, accuracy: 1e-12)
            let found = model.whitePoint(neutral: neutral)
            XCTAssertEqual(found.x, white.x, accuracy: 1e-6, "\(kelvin) K")
            XCTAssertEqual(found.y, white.y, accuracy: 1e-6, "\(kelvin) K")
            XCTAssertEqual(ColorTemperature(xy: found).kelvin, kelvin, accuracy: kelvin * 1e-3)
        }
    }

    func testNeutralMapsToD50AndSurfacesAreAdaptedByBradford() {
        // One D65 matrix, a scene under A (the committed tungsten sample's situation).
        let model = DNGColorModel([.init(illuminant: 21, colorMatrix: Self.cmD65)])
        let neutral = Self.cmD65 * CIE.illuminantA / (Self.cmD65 * CIE.illuminantA).max()
        let white = model.whitePoint(neutral: neutral)
        XCTAssertEqual(white.x, 0.44757, accuracy: 1e-6)
        XCTAssertEqual(white.y, 0.40745, accuracy: 1e-6)
        let toXYZ = model.cameraToXYZD50(neutral: neutral)
        let mapped = toXYZ * neutral
        XCTAssertEqual(mapped.x, CIE.d50.x, accuracy: 1e-9)
        XCTAssertEqual(mapped.y, 1, accuracy: 1e-9)
        XCTAssertEqual(mapped.z, CIE.d50.z, accuracy: 1e-9)
        // A red surface lit by A, seen by the camera, comes back as the D50 colour a viewer adapted to A sees.
        let labD50 = SIMD3<Double>(39.0, 57.0, 28.0)
        let underA = CIE.bradfordAdaptation(from: CIE.d50, to: CIE.illuminantA) * CIE.labToXYZ(labD50)
        let camera = Self.cmD65 * underA / (Self.cmD65 * CIE.illuminantA).max()
        let back = CIE.xyzToLab(toXYZ * camera)
        XCTAssertLessThan(CIE.deltaE2000(back, labD50), 1e-6)
        // And into ProPhoto: the neutral lands on (1, 1, 1).
        let pro = model.cameraToRGB(neutral: neutral) * neutral
        for c in 0..<3 { XCTAssertEqual(pro[c], 1, accuracy: 1e-4) }
    }

    func testForwardMatrixRouteAgreesWithColorMatrixRouteAtTheCalibrationLights() throws {
        let withForward = Self.twoIlluminantModel(forward: true), without = Self.twoIlluminantModel()
        for white in [Self.whiteA, Self.whiteD65] {
            let neutral = without.neutral(at: white)
            assertEqual(withForward.cameraToXYZD50(neutral: neutral), without.cameraToXYZD50(neutral: neutral),
                        accuracy: 1e-6, "white \(white)")
        }
        // Between the lights the routes differ (that is why profiles carry ForwardMatrices), but both keep the neutral at D50.
        let neutral = without.neutral(at: Self.xy(kelvin: 4000))
        for model in [withForward, without] {
            let mapped = model.cameraToXYZD50(neutral: neutral) * neutral
            XCTAssertEqual(mapped.x, CIE.d50.x, accuracy: 1e-6)
            XCTAssertEqual(mapped.y, 1, accuracy: 1e-6)
            XCTAssertEqual(mapped.z, CIE.d50.z, accuracy: 1e-6)
        }
        // ForwardMatrices are normalised so camera (1, 1, 1) is exactly D50.
        let fm = try XCTUnwrap(withForward.calibrations[0].forwardMatrix)
        let one = fm * SIMD3(1, 1, 1)
        for c in 0..<3 { XCTAssertEqual(one[c], CIE.d50[c], accuracy: 1e-12) }
    }

    func testCameraCalibrationAndAnalogBalanceDescribeTheIndividualCamera() {
        // This camera reads 8 % more red and 6 % less blue than the reference, and its analog gains are applied.
        let cc = Matrix3.diagonal(SIMD3(1.08, 1.0, 0.94)), ab = SIMD3(1.1, 1.0, 1.3)
        for forward in [false, true] {
            let reference = Self.twoIlluminantModel(forward: forward)
            let individual = DNGColorModel(reference.calibrations.map { var c = $0; c.cameraCalibration = cc; return c }, analogBalance: ab)
            let light = CIE.xyToXYZ(x: Self.xy(kelvin: 3600).x, y: Self.xy(kelvin: 3600).y)
            let referenceNeutral = reference.neutral(at: Self.xy(kelvin: 3600))
            let individualNeutral = Matrix3.diagonal(ab) * cc * referenceNeutral
            // Same light found from either camera's neutral.
            let w1 = reference.whitePoint(neutral: referenceNeutral), w2 = individual.whitePoint(neutral: individualNeutral)
            XCTAssertEqual(w1.x, w2.x, accuracy: 1e-6)
            XCTAssertEqual(w1.y, w2.y, accuracy: 1e-6)
            // And the same XYZ for a surface, from either camera's raw values.
            let surface = SIMD3<Double>(0.2, 0.15, 0.05) * light / light.y
            let referenceRaw = reference.matrices(at: w1).xyzToCamera * surface
            let individualRaw = Matrix3.diagonal(ab) * cc * referenceRaw
            let x1 = reference.cameraToXYZD50(neutral: referenceNeutral) * referenceRaw
            let x2 = individual.cameraToXYZD50(neutral: individualNeutral / individualNeutral.max()) * individualRaw / individualNeutral.max()
            for c in 0..<3 { XCTAssertEqual(x1[c], x2[c], accuracy: 1e-6, "forward \(forward) channel \(c)") }
        }
    }

    // MARK: - LibRaw gives camera RGB

    static let samples = TestPaths.repoRoot.appendingPathComponent("Samples")

    func testLibRawOutputIsCameraRGBTimesTheMultipliersItReports() throws {
        let truth = try SceneTruth.load("scene-tungsten.truth.json")
        var options = DecodeOptions()
        options.demosaic = .linear
        options.colorModel = .dng
        let session = try RawDecoder.Session(url: Self.samples.appendingPathComponent("scene-tungsten.dng"), data: nil, options: options)
        let decoded = try session.decode()
        XCTAssertEqual(decoded.details["colorModel"], "dng (DNG colour tags)")
        XCTAssertEqual(session.lr.pointee.params.output_color, 0, "raw colour from LibRaw")
        let lr = session.lr
        let pre = DNGColorModel.floats(lr.pointee.color.pre_mul)
        XCTAssertEqual(Double(pre.prefix(3).min()!), 1, accuracy: 1e-6, "LibRaw normalises the applied multipliers to a smallest of 1")
        // The multipliers are the DNG's AsShotNeutral, inverted.
        for c in 0..<3 {
            XCTAssertEqual(Double(pre[c]) * truth.camera.asShotNeutral[c], truth.camera.asShotNeutral.max()!, accuracy: 1e-4, "channel \(c)")
        }
        let width = Int(lr.pointee.sizes.iwidth)
        let raw = try XCTUnwrap(lr.pointee.rawdata.raw_image), image = try XCTUnwrap(lr.pointee.image)
        let pitch = Int(lr.pointee.sizes.raw_pitch) / 2
        let black = Double(truth.camera.blackLevel), white = Double(truth.camera.whiteLevel)
        // On flat patches, LibRaw's output over its multiplier equals the raw CFA mean of that colour, in (white − black) units.
        for index in [1, 5, 13, 18, 21] {
            let r = truth.patches[index].centre
            var out = SIMD3<Double>(0, 0, 0), cfa = SIMD3<Double>(0, 0, 0), count = SIMD3<Double>(0, 0, 0)
            for y in r.y..<r.y + r.h {
                for x in r.x..<r.x + r.w {
                    let p = image[y * width + x]
                    out += SIMD3(Double(p.0), Double(p.1), Double(p.2))
                    var c = Int(libraw_COLOR(lr, Int32(y), Int32(x)))
                    if c == 3 { c = 1 }
                    cfa[c] += Double(raw[y * pitch + x])
                    count[c] += 1
                }
            }
            let camera = out / Double(r.w * r.h) / 65535 / SIMD3(Double(pre[0]), Double(pre[1]), Double(pre[2]))
            let expected = (cfa / count - black) / (white - black)
            for c in 0..<3 {
                XCTAssertEqual(camera[c] / expected[c], 1, accuracy: 0.005, "\(truth.patches[index].name) channel \(c)")
            }
        }
    }

    func testClippedHighlightsStayNeutralWhite() throws {
        // Lower LibRaw's saturation point below the white patch (its green sits at 65 % of the range, blue at 25 %)
        // so the patch clips in green and red but not blue, as a blown tungsten highlight does.
        let truth = try SceneTruth.load("scene-tungsten.truth.json")
        var options = DecodeOptions()
        options.demosaic = .linear
        let session = try RawDecoder.Session(url: Self.samples.appendingPathComponent("scene-tungsten.dng"), data: nil, options: options)
        let black = truth.camera.blackLevel, range = truth.camera.whiteLevel - truth.camera.blackLevel
        session.lr.pointee.params.user_sat = Int32(black + range * 3 / 10)
        let image = try session.decode().image
        let r = truth.patches[18].centre
        var sum = SIMD3<Double>(0, 0, 0)
        for y in r.y..<r.y + r.h { for x in r.x..<r.x + r.w {
            let p = image.pixel(x: x, y: y)
            sum += SIMD3(Double(p.x), Double(p.y), Double(p.z))
        } }
        let mean = sum / Double(r.w * r.h)
        // Balanced channels are clipped at LibRaw's white before the matrix: the patch is the working space's white,
        // raised by the file's BaselineExposure like every other value.
        let white = pow(2, try XCTUnwrap(truth.camera.baselineExposure))
        for c in 0..<3 { XCTAssertEqual(mean[c], white, accuracy: 2e-3 * white, "channel \(c) of \(mean)") }
    }

    // MARK: - The synthetic samples against their truth

    /// ΔE00 of every ColorChecker patch of a decoded sample, exposure matched on the brightest (neutral) ramp step.
    func patchErrors(_ file: String, truth truthFile: String, model: DecodeOptions.ColorModel) throws -> [Double] {
        let truth = try SceneTruth.load(truthFile)
        var options = DecodeOptions()
        options.demosaic = .linear
        options.colorModel = model
        let decoded = try RawDecoder.decode(url: Self.samples.appendingPathComponent(file), options: options)
        let image = decoded.image
        XCTAssertEqual(image.space, .rawLinear)
        XCTAssertEqual(image.width, truth.width)
        func xyz(_ r: SampleSceneTests.Rect) -> SIMD3<Double> {
            var sum = SIMD3<Double>(0, 0, 0)
            var row = [Float](repeating: 0, count: 4 * r.w)
            for y in r.y..<r.y + r.h {
                lw_half_to_float(image.row(y) + 4 * r.x, &row, 4 * r.w)
                for x in 0..<r.w { sum += SIMD3(Double(row[4 * x]), Double(row[4 * x + 1]), Double(row[4 * x + 2])) }
            }
            return RGBPrimaries.proPhoto.toXYZD50 * (sum / Double(r.w * r.h))
        }
        let top = try XCTUnwrap(truth.greyRamp.last)
        let exposure = CIE.labToXYZ(SIMD3(top.labD50[0], top.labD50[1], top.labD50[2])).y / xyz(top.centre).y
        return truth.patches.map { p in
            CIE.deltaE2000(CIE.xyzToLab(xyz(p.centre) * exposure), SIMD3(p.labD50[0], p.labD50[1], p.labD50[2]))
        }
    }

    func report(_ name: String, _ errors: [Double]) -> (mean: Double, max: Double) {
        let mean = errors.reduce(0, +) / Double(errors.count), maximum = errors.max() ?? 0
        print(String(format: "%@: ΔE00 mean %.4f, max %.4f over %d patches", name, mean, maximum, errors.count))
        return (mean, maximum)
    }

    func testDNGModelDevelopsTungstenSceneToItsTruth() throws {
        let dng = report("scene-tungsten.dng, colour model dng", try patchErrors("scene-tungsten.dng", truth: "scene-tungsten.truth.json", model: .dng))
        // Measured mean 0.0045, max 0.0169: limits about 3×.
        XCTAssertLessThanOrEqual(dng.mean, 0.015)
        XCTAssertLessThan(dng.max, 0.05)
        // LibRaw balances in camera space and applies the D65 matrix: the peers' error under tungsten.
        let libraw = report("scene-tungsten.dng, colour model libraw", try patchErrors("scene-tungsten.dng", truth: "scene-tungsten.truth.json", model: .libraw))
        XCTAssertGreaterThan(libraw.mean, 2)
        XCTAssertGreaterThan(libraw.max, 4)
    }

    func testDNGModelDevelopsDaylightSceneToItsTruth() throws {
        let dng = report("scene.dng, colour model dng", try patchErrors("scene.dng", truth: "scene.truth.json", model: .dng))
        // Measured mean 0.0034, max 0.0117: limits about 3×.
        XCTAssertLessThanOrEqual(dng.mean, 0.012)
        XCTAssertLessThan(dng.max, 0.035)
        // Under the calibration light the two approaches coincide.
        let libraw = report("scene.dng, colour model libraw", try patchErrors("scene.dng", truth: "scene.truth.json", model: .libraw))
        // Measured mean 0.0040, max 0.0107.
        XCTAssertLessThanOrEqual(libraw.mean, 0.012)
        XCTAssertLessThan(libraw.max, 0.035)
    }

    // MARK: - Real cameras

    func testSharedRawFilesDevelopWithTheDNGModel() throws {
        let files = try TestPaths.sharedFiles("raw")
        XCTAssertFalse(files.isEmpty)
        var options = DecodeOptions()
        options.demosaic = .linear
        options.colorModel = .dng
        for url in files {
            let name = url.lastPathComponent
            let decoded = try RawDecoder.decode(url: url, options: options)
            XCTAssertTrue(decoded.details["colorModel"]?.hasPrefix("dng") ?? false, "\(name): \(decoded.details["colorModel"] ?? "-")")
            XCTAssertTrue(decoded.sourceProfile.contains("DNG colour model"), name)
            XCTAssertNotNil(decoded.details["whitePoint"], name)
            let image = decoded.image
            var sum = SIMD3<Double>(0, 0, 0)
            var row = [Float](repeating: 0, count: 4 * image.width)
            for y in stride(from: 0, to: image.height, by: 4) {
                lw_half_to_float(image.row(y), &row, 4 * image.width)
                for x in stride(from: 0, to: image.width, by: 4) {
                    let p = SIMD3(Double(row[4 * x]), Double(row[4 * x + 1]), Double(row[4 * x + 2]))
                    XCTAssertFalse(p.x.isNaN || p.y.isNaN || p.z.isNaN, name)
                    sum += p
                }
            }
            XCTAssertGreaterThan(sum.y, 0, "\(name) is black")
            let rg = sum.x / sum.y, bg = sum.z / sum.y
            print(String(format: "%@ (dng model, %@): mean R/G %.3f, B/G %.3f, white %@", name, decoded.details["colorModel"] ?? "", rg, bg, decoded.details["whitePoint"] ?? ""))
            XCTAssertTrue((0.5...2).contains(rg), "\(name): mean R/G \(rg)")
            XCTAssertTrue((0.5...2).contains(bg), "\(name): mean B/G \(bg)")
        }
    }
}

/// The samples' truth files, decoded once for all tests (see SampleSceneTests.Truth).
typealias SceneTruth = SampleSceneTests.Truth

extension SampleSceneTests.Truth {
    static func load(_ name: String) throws -> SceneTruth { try SampleSceneTests.loadTruth(name) }
}
