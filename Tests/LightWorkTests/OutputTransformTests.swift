import CLCMS2
import CShims
import XCTest
@testable import LightWork

/// The working → output conversion (matrix + tabulated curve) against LittleCMS computing the same
/// conversion from real ICC profiles, for every output colour space.
final class OutputTransformTests: XCTestCase {
    /// Linear ProPhoto values (the RAW working space), including blacks, near-blacks, whites and saturated colours.
    private func probeValues() -> [SIMD3<Float>] {
        var out: [SIMD3<Float>] = []
        var seed: UInt64 = 0x9E3779B97F4A7C15
        func next() -> Float {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Float(seed >> 40) / Float(1 << 24)
        }
        for _ in 0..<4000 {
            let k = next()
            // Cubing spreads samples towards black, where curves are steepest.
            out.append(SIMD3(next() * next() * next(), next() * next(), next()) * (k < 0.5 ? 1 : 0.05))
        }
        for v: Float in [0, 1e-6, 1e-4, 0.001, 0.0031, 0.01, 0.18, 0.5, 1] { out.append(SIMD3(v, v, v)) }
        return out
    }

    func testWorkingToOutputMatchesLittleCMSWithinOne16BitCode() throws {
        let values = probeValues()
        // The working space as an ICC profile (serialised, so its colorants are stored as any profile's are).
        let working = try XCTUnwrap(ICCProfile(data: ICCProfile.rgb(primaries: .proPhoto, transfer: .linear, description: "linear ProPhoto (test)").data()))
        for space in OutputColorSpace.allCases {
            guard let out = ICCProfile(data: ICCProfile.embedded(for: space)) else { return XCTFail("profile for \(space)") }
            let xf = try XCTUnwrap(cmsCreateTransform(working.handle, LW_TYPE_RGB_FLT, out.handle, LW_TYPE_RGB_DBL, UInt32(INTENT_RELATIVE_COLORIMETRIC), UInt32(cmsFLAGS_NOOPTIMIZE)))
            defer { cmsDeleteTransform(xf) }
            let image = WorkingImage(width: values.count, height: 1, space: .rawLinear)
            for (i, v) in values.enumerated() { image.setPixel(x: i, y: 0, SIMD4(v.x, v.y, v.z, 1)) }
            let pixels = Renderer(chain: []).render(image, context: RenderContext(width: values.count, height: 1, seed: 0),
                                                     output: OutputSpec(space: space, depth: .sixteen, keepAlpha: false))
            var worst = 0
            for i in 0..<values.count {
                // LittleCMS gets exactly the half-float value the engine stored.
                let p = image.pixel(x: i, y: 0)
                var input: [Float] = [p.x, p.y, p.z]
                // Double output, quantised here: LittleCMS's own 16-bit output stage tabulates the inverse
                // curve and rounds near-black values of pure power curves to 0.
                var exact = [Double](repeating: 0, count: 3)
                cmsDoTransform(xf, &input, &exact, 1)
                let expected = exact.map { UInt16((min(max($0, 0), 1) * 65535).rounded()) }
                for c in 0..<3 { worst = max(worst, abs(Int(pixels.samples16[3 * i + c]) - Int(expected[c]))) }
            }
            XCTAssertLessThanOrEqual(worst, 1, "\(space): max difference \(worst) code values")
        }
    }

    func testEmbeddedProfilesAreDeterministicAndDescribeTheirSpace() {
        for space in OutputColorSpace.allCases {
            let a = ICCProfile.embedded(for: space)
            let b = ICCProfile.deterministicBytes(ICCProfile.rgb(primaries: space.primaries, transfer: space.transfer, description: space.profileDescription).data())
            XCTAssertEqual(a, b, "\(space) profile bytes differ between builds")
            XCTAssertEqual(ICCProfile(data: a)?.profileDescription, space.profileDescription)
        }
    }

    /// Our sRGB profile and colord's sRGB profile (shared samples) agree on colours to well under 1 ΔE00.
    func testSRGBProfileAgreesWithColordSRGB() throws {
        let colord = try TestPaths.sharedSamples("icc").appendingPathComponent("srgb-colord.icc")
        let theirs = try XCTUnwrap(ICCProfile(data: try Data(contentsOf: colord)))
        let ours = try XCTUnwrap(ICCProfile(data: ICCProfile.embedded(for: .srgb)))
        let lab = cmsCreateLab4Profile(nil)!
        defer { cmsCloseProfile(lab) }
        func toLab(_ p: ICCProfile) -> cmsHTRANSFORM { cmsCreateTransform(p.handle, LW_TYPE_RGB_16, lab, LW_TYPE_Lab_DBL, UInt32(INTENT_RELATIVE_COLORIMETRIC), 0)! }
        let (a, b) = (toLab(ours), toLab(theirs))
        defer { cmsDeleteTransform(a); cmsDeleteTransform(b) }
        var worst = 0.0
        for r in stride(from: 0, through: 65535, by: 8191) { for g in stride(from: 0, through: 65535, by: 8191) { for bl in stride(from: 0, through: 65535, by: 8191) {
            var rgb: [UInt16] = [UInt16(r), UInt16(g), UInt16(bl)]
            var l1 = cmsCIELab(), l2 = cmsCIELab()
            cmsDoTransform(a, &rgb, &l1, 1)
            cmsDoTransform(b, &rgb, &l2, 1)
            worst = max(worst, CIE.deltaE2000(SIMD3(l1.L, l1.a, l1.b), SIMD3(l2.L, l2.a, l2.b)))
        } } }
        XCTAssertLessThan(worst, 0.5)
    }
}
