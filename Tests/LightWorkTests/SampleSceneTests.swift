import CLibRaw
import CPNG
import Foundation
import XCTest
@testable import LightWork

/// The committed synthetic samples (Samples/scene*.dng, their truth files and the sRGB PNG) are self-consistent:
/// LibRaw reads the tags as written, and its own development lands on the published ColorChecker colours.
final class SampleSceneTests: XCTestCase {
    // MARK: - The truth file, decoded independently of the generator

    struct Rect: Decodable { let x, y, w, h: Int }
    struct Patch: Decodable { let index: Int; let name: String; let labD50: [Double]; let rect: Rect; let centre: Rect }
    struct RampStep: Decodable { let labD50: [Double]; let rect: Rect; let centre: Rect }
    struct Camera: Decodable {
        let make, model, uniqueCameraModel, cfaPattern: String
        let blackLevel, whiteLevel, calibrationIlluminant1: Int
        let colorMatrix1, asShotNeutral: [Double]
        let whitePatchFraction: Double
        let baselineExposure: Double?
    }
    struct Truth: Decodable {
        let version, width, height: Int
        let sceneIlluminant, referenceSource: String
        let keys: [String: String]
        let camera: Camera
        let patches: [Patch]
        let greyRamp: [RampStep]
        let detailArea: Rect
    }

    static let samples = TestPaths.repoRoot.appendingPathComponent("Samples")

    func truth(_ name: String) throws -> Truth { try Self.loadTruth(name) }

    static func loadTruth(_ name: String) throws -> Truth {
        let url = SampleSceneTests.samples.appendingPathComponent(name)
        return try JSONDecoder().decode(Truth.self, from: Data(contentsOf: url))
    }

    // MARK: - Colour helpers (the project's ColorMath)

    /// Linear sRGB → XYZ D65 → Bradford to D50 → CIELAB D50.
    static func lab(linearSRGB rgb: SIMD3<Double>) -> SIMD3<Double> {
        let xyzD65 = RGBPrimaries.sRGB.toXYZNative * rgb
        return CIE.xyzToLab(CIE.bradfordAdaptation(from: CIE.d65, to: CIE.d50) * xyzD65)
    }

    /// CIELAB D50 → linear sRGB (the inverse path), for the reference colours.
    static func linearSRGB(lab: SIMD3<Double>) -> SIMD3<Double> {
        let xyzD65 = CIE.bradfordAdaptation(from: CIE.d50, to: CIE.d65) * CIE.labToXYZ(lab)
        return RGBPrimaries.sRGB.toXYZNative.inverse * xyzD65
    }

    static func vector(_ a: [Double]) -> SIMD3<Double> { SIMD3(a[0], a[1], a[2]) }

    // MARK: - LibRaw

    /// A LibRaw handle on one file, closed at the end of the test.
    func openLibRaw(_ name: String) throws -> UnsafeMutablePointer<libraw_data_t> {
        let path = SampleSceneTests.samples.appendingPathComponent(name).path
        XCTAssertTrue(FileManager.default.fileExists(atPath: path), "missing committed sample \(path)")
        let lr = try XCTUnwrap(libraw_init(0))
        addTeardownBlock { libraw_close(lr) }
        let opened = libraw_open_file(lr, path)
        XCTAssertEqual(opened, 0, "libraw_open_file: \(String(cString: libraw_strerror(opened)))")
        let unpacked = libraw_unpack(lr)
        XCTAssertEqual(unpacked, 0, "libraw_unpack: \(String(cString: libraw_strerror(unpacked)))")
        return lr
    }

    /// LibRaw's own development: camera white balance, embedded matrix, linear 16-bit sRGB, no auto-brightening.
    func developLinearSRGB(_ lr: UnsafeMutablePointer<libraw_data_t>) throws {
        lr.pointee.params.use_camera_wb = 1
        lr.pointee.params.no_auto_bright = 1
        lr.pointee.params.gamm.0 = 1
        lr.pointee.params.gamm.1 = 1
        lr.pointee.params.output_bps = 16
        lr.pointee.params.output_color = 1
        lr.pointee.params.adjust_maximum_thr = 0
        let processed = libraw_dcraw_process(lr)
        XCTAssertEqual(processed, 0, "libraw_dcraw_process: \(String(cString: libraw_strerror(processed)))")
    }

    /// Mean linear RGB (0…1) of the developed image over `r`.
    func mean(_ lr: UnsafeMutablePointer<libraw_data_t>, _ r: Rect) -> SIMD3<Double> {
        let width = Int(lr.pointee.sizes.iwidth)
        let image = lr.pointee.image!
        var sum = SIMD3<Double>(0, 0, 0)
        for y in r.y..<r.y + r.h {
            for x in r.x..<r.x + r.w {
                let p = image[y * width + x]
                sum += SIMD3(Double(p.0), Double(p.1), Double(p.2))
            }
        }
        return sum / Double(r.w * r.h) / 65535
    }

    /// Mean raw value above black of each CFA colour over `r`, in units of (white − black).
    func rawMean(_ lr: UnsafeMutablePointer<libraw_data_t>, _ r: Rect, black: Double, white: Double) -> SIMD3<Double> {
        let raw = lr.pointee.rawdata.raw_image!
        let pitch = Int(lr.pointee.sizes.raw_pitch) / 2
        var sum = SIMD3<Double>(0, 0, 0), count = SIMD3<Double>(0, 0, 0)
        for y in r.y..<r.y + r.h {
            for x in r.x..<r.x + r.w {
                var c = Int(libraw_COLOR(lr, Int32(y), Int32(x)))
                if c == 3 { c = 1 }
                sum[c] += Double(raw[y * pitch + x])
                count[c] += 1
            }
        }
        return (sum / count - black) / (white - black)
    }

    static func string<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    // MARK: - Tests

    func testTruthFileListsTwentyFourPatchesInsideTheImage() throws {
        for name in ["scene.truth.json", "scene-tungsten.truth.json"] {
            let t = try truth(name)
            XCTAssertEqual(t.version, 1, name)
            XCTAssertFalse(t.keys.isEmpty, "\(name) documents its keys")
            XCTAssertTrue(t.referenceSource.contains("November 2014"), name)
            XCTAssertEqual(t.patches.count, 24, name)
            XCTAssertEqual(t.patches.map(\.index), Array(1...24), name)
            XCTAssertEqual(Set(t.patches.map(\.name)).count, 24, "\(name): patch names are distinct")
            XCTAssertEqual(t.patches[18].name, "white 9.5")
            XCTAssertEqual(t.patches[18].labD50, [95.19, -1.03, 2.93], "X-Rite post-2014 white patch")
            XCTAssertEqual(t.patches[0].labD50, [37.54, 14.37, 14.92], "X-Rite post-2014 dark skin")
            for p in t.patches {
                assertInside(p.rect, width: t.width, height: t.height, "\(name) \(p.name)")
                assertInside(p.centre, within: p.rect, "\(name) \(p.name) centre")
                XCTAssertGreaterThanOrEqual(min(p.centre.w, p.centre.h), 16, "\(name) \(p.name): centre large enough to sample")
            }
            XCTAssertGreaterThanOrEqual(t.greyRamp.count, 8, name)
            for step in t.greyRamp {
                assertInside(step.rect, width: t.width, height: t.height, "\(name) ramp")
                assertInside(step.centre, within: step.rect, "\(name) ramp centre")
                XCTAssertEqual(step.labD50[1], 0, "\(name) ramp is neutral")
                XCTAssertEqual(step.labD50[2], 0, "\(name) ramp is neutral")
            }
            XCTAssertEqual(t.greyRamp.map(\.labD50[0]), t.greyRamp.map(\.labD50[0]).sorted(), "\(name): ramp runs dark to light")
            assertInside(t.detailArea, width: t.width, height: t.height, "\(name) detail area")
        }
        XCTAssertEqual(try truth("scene.truth.json").sceneIlluminant, "D65")
        XCTAssertEqual(try truth("scene-tungsten.truth.json").sceneIlluminant, "A")
    }

    func testSceneDNGOpensInLibRawWithTheTagsWritten() throws {
        let t = try truth("scene.truth.json")
        let lr = try openLibRaw("scene.dng")
        XCTAssertEqual(SampleSceneTests.string(lr.pointee.idata.make), t.camera.make)
        XCTAssertEqual(SampleSceneTests.string(lr.pointee.idata.model), t.camera.model)
        XCTAssertEqual(lr.pointee.idata.dng_version, 0x0104_0000, "DNG 1.4.0.0")
        XCTAssertEqual(Int(lr.pointee.sizes.raw_width), t.width)
        XCTAssertEqual(Int(lr.pointee.sizes.raw_height), t.height)
        XCTAssertEqual(Int(lr.pointee.sizes.width), t.width)
        XCTAssertEqual(Int(lr.pointee.sizes.height), t.height)
        XCTAssertEqual(lr.pointee.idata.colors, 3)
        XCTAssertEqual(t.camera.cfaPattern, "RGGB")
        // RGGB: libraw_COLOR gives 0 = red, 1/3 = green, 2 = blue.
        XCTAssertEqual(libraw_COLOR(lr, 0, 0), 0)
        XCTAssertEqual(libraw_COLOR(lr, 0, 1) % 2, 1)
        XCTAssertEqual(libraw_COLOR(lr, 1, 0) % 2, 1)
        XCTAssertEqual(libraw_COLOR(lr, 1, 1), 2)
        XCTAssertEqual(Int(lr.pointee.color.black), t.camera.blackLevel)
        XCTAssertEqual(Int(lr.pointee.color.maximum), t.camera.whiteLevel)

        let dng = lr.pointee.color.dng_color.0
        XCTAssertEqual(Int(dng.illuminant), t.camera.calibrationIlluminant1)
        let matrix = withUnsafeBytes(of: dng.colormatrix) { Array($0.bindMemory(to: Float.self).prefix(9)) }
        for (read, written) in zip(matrix, t.camera.colorMatrix1) {
            XCTAssertEqual(Double(read), written, accuracy: 1e-4, "ColorMatrix1")
        }
        let neutral = lr.pointee.color.dng_levels.asshotneutral
        XCTAssertEqual(Double(neutral.0), t.camera.asShotNeutral[0], accuracy: 1e-4)
        XCTAssertEqual(Double(neutral.1), t.camera.asShotNeutral[1], accuracy: 1e-4)
        XCTAssertEqual(Double(neutral.2), t.camera.asShotNeutral[2], accuracy: 1e-4)

        // Headroom: the white patch's brightest raw channel sits where the truth says, well below clipping.
        let white = rawMean(lr, t.patches[18].centre, black: Double(t.camera.blackLevel), white: Double(t.camera.whiteLevel))
        XCTAssertEqual(white.max(), t.camera.whitePatchFraction, accuracy: 0.01)
        // And the raw white patch is coloured like the camera's response to the scene light (AsShotNeutral),
        // up to the patch's own slight tint.
        for c in 0..<3 {
            XCTAssertEqual(white[c] / white.max(), t.camera.asShotNeutral[c], accuracy: 0.03, "channel \(c)")
        }
    }

    func testLibRawDevelopmentOfSceneLandsOnTheReferenceColours() throws {
        let t = try truth("scene.truth.json")
        let lr = try openLibRaw("scene.dng")
        try developLinearSRGB(lr)
        XCTAssertEqual(Int(lr.pointee.sizes.iwidth), t.width)
        XCTAssertEqual(Int(lr.pointee.sizes.iheight), t.height)

        // Truly neutral ramp steps come out R = G = B within 1 %.
        for step in t.greyRamp where step.labD50[0] >= 16 {
            let rgb = mean(lr, step.centre)
            XCTAssertEqual(rgb.x / rgb.y, 1, accuracy: 0.01, "ramp L*\(step.labD50[0]) R/G")
            XCTAssertEqual(rgb.z / rgb.y, 1, accuracy: 0.01, "ramp L*\(step.labD50[0]) B/G")
        }
        // Exposure from the brightest ramp step (neutral, so it fixes only the scale, not the colour).
        let top = try XCTUnwrap(t.greyRamp.last)
        let scale = CIE.labToXYZ(SampleSceneTests.vector(top.labD50)).y / (RGBPrimaries.sRGB.toXYZNative * mean(lr, top.centre)).y

        // The chart's white and mid grey keep their reference balance (they are near, not exactly, neutral).
        for i in [18, 21] {
            let measured = mean(lr, t.patches[i].centre) * scale
            let expected = SampleSceneTests.linearSRGB(lab: SampleSceneTests.vector(t.patches[i].labD50))
            XCTAssertEqual(measured.x / measured.y, expected.x / expected.y, accuracy: 0.01, "\(t.patches[i].name) R/G")
            XCTAssertEqual(measured.z / measured.y, expected.z / expected.y, accuracy: 0.01, "\(t.patches[i].name) B/G")
            XCTAssertEqual(measured.x / measured.y, 1, accuracy: 0.1, "\(t.patches[i].name) looks neutral")
            XCTAssertEqual(measured.z / measured.y, 1, accuracy: 0.1, "\(t.patches[i].name) looks neutral")
        }

        // Every patch within ΔE00 1 of its reference. A reference outside sRGB (cyan) cannot survive LibRaw's clip to
        // the sRGB output, so it is compared with its own clipped value, and its raw distance is only reported.
        var report: [String] = []
        var worstClipped = 0.0, worstInGamut = 0.0
        for p in t.patches {
            let reference = SampleSceneTests.vector(p.labD50)
            let measured = SampleSceneTests.lab(linearSRGB: mean(lr, p.centre) * scale)
            let inGamut = SampleSceneTests.linearSRGB(lab: reference)
            let clipped = SampleSceneTests.lab(linearSRGB: inGamut.clamped(lowerBound: .zero, upperBound: .one))
            let toReference = CIE.deltaE2000(measured, reference), toClipped = CIE.deltaE2000(measured, clipped)
            worstClipped = max(worstClipped, toClipped)
            if inGamut.min() >= 0 && inGamut.max() <= 1 { worstInGamut = max(worstInGamut, toReference) }
            // Measured max 0.0090 (LibRaw develops the generated file's colours exactly): limit about 3×.
            XCTAssertLessThan(toClipped, 0.03, "\(p.name): measured \(measured), reference \(reference)")
            if inGamut.min() >= 0 && inGamut.max() <= 1 {
                XCTAssertLessThan(toReference, 0.03, "\(p.name)")
            }
            report.append(String(format: "%@ %.2f", p.name, toReference))
        }
        print("scene.dng ΔE00 per patch (LibRaw AHD, linear sRGB): " + report.joined(separator: ", "))
        print(String(format: "scene.dng through LibRaw: max ΔE00 %.4f to the clipped reference, %.4f to the in-gamut references", worstClipped, worstInGamut))
    }

    func testLibRawDevelopmentOfTungstenSceneIsNeutralOnGreys() throws {
        let t = try truth("scene-tungsten.truth.json")
        let d65 = try truth("scene.truth.json")
        // Lit by A, the camera's neutral is redder and far less blue than under D65.
        XCTAssertGreaterThan(t.camera.asShotNeutral[0], d65.camera.asShotNeutral[0] * 1.3)
        XCTAssertLessThan(t.camera.asShotNeutral[2], d65.camera.asShotNeutral[2] * 0.7)
        XCTAssertEqual(t.camera.calibrationIlluminant1, 21, "still only the D65 matrix")

        let lr = try openLibRaw("scene-tungsten.dng")
        try developLinearSRGB(lr)
        for step in t.greyRamp where step.labD50[0] >= 16 {
            let rgb = mean(lr, step.centre)
            XCTAssertEqual(rgb.x / rgb.y, 1, accuracy: 0.01, "ramp L*\(step.labD50[0]) R/G")
            XCTAssertEqual(rgb.z / rgb.y, 1, accuracy: 0.01, "ramp L*\(step.labD50[0]) B/G")
        }
        let grey = mean(lr, t.patches[21].centre)
        XCTAssertEqual(grey.x / grey.y, 1, accuracy: 0.02, "neutral 5 R/G")
        XCTAssertEqual(grey.z / grey.y, 1, accuracy: 0.02, "neutral 5 B/G")
    }

    func testSRGBReferencePNGShowsTheReferenceColours() throws {
        let t = try truth("scene.truth.json")
        let path = SampleSceneTests.samples.appendingPathComponent("scene-srgb.png").path
        var image = png_image()
        image.version = png_uint_32(PNG_IMAGE_VERSION)
        XCTAssertNotEqual(png_image_begin_read_from_file(&image, path), 0, "libpng cannot open \(path)")
        defer { png_image_free(&image) }
        XCTAssertEqual(Int(image.width), t.width)
        XCTAssertEqual(Int(image.height), t.height)
        XCTAssertEqual(image.flags & png_uint_32(PNG_IMAGE_FLAG_COLORSPACE_NOT_sRGB), 0, "no colour tag other than sRGB")
        XCTAssertTrue(try pngChunkTypes(path).contains("sRGB"), "an sRGB chunk tags the colour space")
        image.format = png_uint_32(PNG_FORMAT_RGB)
        var pixels = [UInt8](repeating: 0, count: Int(image.width * image.height) * 3)
        XCTAssertNotEqual(png_image_finish_read(&image, nil, &pixels, 0, nil), 0)

        var worst = 0.0
        for p in t.patches {
            let i = ((p.centre.y + p.centre.h / 2) * t.width + p.centre.x + p.centre.w / 2) * 3
            let rgb = SIMD3((0..<3).map { TransferFunction.sRGB.decode(Double(pixels[i + $0]) / 255) })
            let measured = SampleSceneTests.lab(linearSRGB: SIMD3(rgb[0], rgb[1], rgb[2]))
            let reference = SampleSceneTests.vector(p.labD50)
            let clipped = SampleSceneTests.lab(linearSRGB: SampleSceneTests.linearSRGB(lab: reference).clamped(lowerBound: .zero, upperBound: .one))
            worst = max(worst, CIE.deltaE2000(measured, clipped))
            XCTAssertLessThan(CIE.deltaE2000(measured, clipped), 1.0, "\(p.name)")
        }
        print(String(format: "scene-srgb.png patch centres: max ΔE00 %.4f to the clipped reference", worst))
    }

    // MARK: -

    /// The chunk types of a PNG file, in order (walks the length/type/data/CRC layout after the signature).
    func pngChunkTypes(_ path: String) throws -> [String] {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var types: [String] = []
        var at = 8
        while at + 8 <= bytes.count {
            let length = bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
            types.append(String(decoding: bytes[at + 4..<at + 8], as: UTF8.self))
            at += 12 + length
        }
        return types
    }

    func assertInside(_ r: Rect, width: Int, height: Int, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertTrue(r.x >= 0 && r.y >= 0 && r.w > 0 && r.h > 0 && r.x + r.w <= width && r.y + r.h <= height,
                      "\(what): \(r) outside \(width)×\(height)", file: file, line: line)
    }

    func assertInside(_ inner: Rect, within outer: Rect, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertTrue(inner.x >= outer.x && inner.y >= outer.y && inner.w > 0 && inner.h > 0
                      && inner.x + inner.w <= outer.x + outer.w && inner.y + inner.h <= outer.y + outer.h,
                      "\(what): \(inner) outside \(outer)", file: file, line: line)
    }
}
