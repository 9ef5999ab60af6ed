import CLCMS2
import CShims
import Foundation
import XCTest
@testable import LightWork

/// End-to-end colour: the Samples DNG (a ColorChecker of known Lab) through the whole pipeline into a
/// 16-bit sRGB TIFF, read back and measured through the TIFF's own embedded profile with LittleCMS.
final class ColourAccuracyTests: XCTestCase {
    /// Per-patch ΔE00 (LittleCMS `cmsCIE2000DeltaE`) of the output's patch centres against the truth file.
    static func patchErrors(output: URL, truth: SampleSceneTests.Truth) throws -> [(name: String, deltaE: Double, inGamut: Bool)] {
        let file = try ImageFileReader.read(output)
        let reader = try LabReader(file)
        return truth.patches.map { patch in
            var sum = SIMD3<Double>(0, 0, 0)
            let c = patch.centre
            for y in c.y..<(c.y + c.h) { for x in c.x..<(c.x + c.w) {
                sum += SIMD3(Double(file.sample(x: x, y: y, channel: 0)), Double(file.sample(x: x, y: y, channel: 1)), Double(file.sample(x: x, y: y, channel: 2)))
            } }
            var measured = reader.lab(sum / Double(c.w * c.h))
            var reference = cmsCIELab(L: patch.labD50[0], a: patch.labD50[1], b: patch.labD50[2])
            let linear = SampleSceneTests.linearSRGB(lab: SampleSceneTests.vector(patch.labD50))
            let inGamut = [linear.x, linear.y, linear.z].allSatisfy { $0 >= -0.001 && $0 <= 1.001 }
            return (patch.name, cmsCIE2000DeltaE(&measured, &reference, 1, 1, 1), inGamut)
        }
    }

    func testSceneDNGPatchesLandOnTheirReferenceLabInSRGB() throws {
        let truth = try SampleSceneTests.loadTruth("scene.truth.json")
        let errors = try Self.patchErrors(output: try convertSample("scene.dng"), truth: truth)
        let inGamut = errors.filter { $0.inGamut }
        XCTAssertGreaterThanOrEqual(inGamut.count, 22, "nearly all ColorChecker patches are inside sRGB")
        let mean = inGamut.map { $0.deltaE }.reduce(0, +) / Double(inGamut.count)
        let worst = inGamut.max { $0.deltaE < $1.deltaE }!
        print(String(format: "scene.dng → sRGB TIFF: ΔE00 mean %.4f, max %.4f (%@) over %d in-gamut patches", mean, worst.deltaE, worst.name, inGamut.count))
        // Measured mean 0.0035, max 0.0107 (black 2): limits about 3×.
        XCTAssertLessThanOrEqual(mean, 0.012, "mean ΔE00 \(mean)")
        XCTAssertLessThan(worst.deltaE, 0.035, "worst patch \(worst.name): ΔE00 \(worst.deltaE)")
    }

    /// ProPhoto output holds every patch, cyan included.
    func testSceneDNGInProPhotoKeepsEveryPatch() throws {
        let truth = try SampleSceneTests.loadTruth("scene.truth.json")
        let errors = try Self.patchErrors(output: try convertSample("scene.dng") { $0.export.colorSpace = .prophoto }, truth: truth)
        let mean = errors.map { $0.deltaE }.reduce(0, +) / Double(errors.count), worst = errors.map(\.deltaE).max()!
        print(String(format: "scene.dng → ProPhoto TIFF: ΔE00 mean %.4f, max %.4f over 24 patches", mean, worst))
        // Measured mean 0.0036, max 0.0101: limits about 3×.
        XCTAssertLessThanOrEqual(mean, 0.012, "mean ΔE00 \(mean) over all 24 patches")
        XCTAssertLessThan(worst, 0.035, "max ΔE00 \(worst)")
    }

    /// The sRGB PNG rendering of the same scene through the RGB path lands on the same colours.
    func testSceneSRGBPNGThroughTheRGBPathMatchesTheTruth() throws {
        let truth = try SampleSceneTests.loadTruth("scene.truth.json")
        let errors = try Self.patchErrors(output: try convertSample("scene-srgb.png"), truth: truth).filter { $0.inGamut }
        let mean = errors.map { $0.deltaE }.reduce(0, +) / Double(errors.count), worst = errors.map(\.deltaE).max()!
        print(String(format: "scene-srgb.png → sRGB TIFF: ΔE00 mean %.4f, max %.4f over %d in-gamut patches", mean, worst, errors.count))
        // The 8-bit source's rounding: measured mean 0.1685, max 0.4779; limits about 3×.
        XCTAssertLessThanOrEqual(mean, 0.5, "mean ΔE00 \(mean) (8-bit source)")
        XCTAssertLessThan(worst, 1.5, "max ΔE00 \(worst) (8-bit source)")
    }
}
