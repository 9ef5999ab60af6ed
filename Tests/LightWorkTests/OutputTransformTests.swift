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

    /// Profiles made by others for each output space: colord-data's (Debian 12, shared samples) for sRGB, Adobe RGB
    /// (1998) and ProPhoto; colord ships no Display P3, so Apple's Display P3 profile, as embedded in a shared sample
    /// photo (its bytes are Apple's, LightWork only finds them in the JPEG).
    static func referenceProfiles() throws -> [(space: OutputColorSpace, name: String, profile: ICCProfile)] {
        let icc = try TestPaths.sharedSamples("icc")
        func open(_ file: String) throws -> ICCProfile {
            try XCTUnwrap(ICCProfile(data: try Data(contentsOf: icc.appendingPathComponent(file))), file)
        }
        let p3Photo = try ImageFileReader.read(try TestPaths.sharedSamples("rgb").appendingPathComponent("display-p3-iceland.jpg"))
        let apple = try XCTUnwrap(ICCProfile(data: try XCTUnwrap(p3Photo.iccProfile, "display-p3-iceland.jpg embeds a profile")))
        XCTAssertEqual(apple.profileDescription, "Display P3")
        return [(.srgb, "colord sRGB", try open("srgb-colord.icc")),
                (.displayP3, "Apple Display P3", apple),
                (.adobeRGB, "colord AdobeRGB1998", try open("adobergb1998-colord.icc")),
                (.prophoto, "colord ProPhotoRGB", try open("prophoto-rgb-colord.icc"))]
    }

    private static func labTransform(_ p: ICCProfile, _ format: cmsUInt32Number, toLab: Bool) -> cmsHTRANSFORM {
        let lab = cmsCreateLab4Profile(nil)!
        defer { cmsCloseProfile(lab) }
        return toLab
            ? cmsCreateTransform(p.handle, format, lab, LW_TYPE_Lab_DBL, UInt32(INTENT_RELATIVE_COLORIMETRIC), UInt32(cmsFLAGS_NOOPTIMIZE))!
            : cmsCreateTransform(lab, LW_TYPE_Lab_DBL, p.handle, format, UInt32(INTENT_RELATIVE_COLORIMETRIC), UInt32(cmsFLAGS_NOOPTIMIZE))!
    }

    /// Each embedded profile means the same colours as the reference profile of its space: a 17³ grid of 16-bit
    /// codes read through both (LittleCMS, to Lab D50, ΔE00 by LittleCMS), and in-gamut Lab colours written through
    /// ours and read through theirs. Measured (Debian 12, LittleCMS 2.14): mean ≤ 0.0056, max ≤ 0.023 (Display P3),
    /// written-and-read max ≤ 0.015; the limits (0.02, 0.06, 0.06) are 2.5–4× that. A red primary moved by 0.002
    /// in x measures max 0.37–1.1 (mean 0.04–0.09), a swapped curve max 4.6–9.2.
    func testEmbeddedProfilesMatchColordAndAppleProfiles() throws {
        var figures: [String] = []
        for ref in try Self.referenceProfiles() {
            let ours = try XCTUnwrap(ICCProfile(data: ICCProfile.embedded(for: ref.space)))
            let (a, b) = (Self.labTransform(ours, LW_TYPE_RGB_16, toLab: true), Self.labTransform(ref.profile, LW_TYPE_RGB_16, toLab: true))
            defer { cmsDeleteTransform(a); cmsDeleteTransform(b) }
            var worst = 0.0, sum = 0.0, n = 0
            let steps = (0...16).map { UInt16(min(65535, $0 * 4096)) }
            for r in steps { for g in steps { for bl in steps {
                var rgb: [UInt16] = [r, g, bl]
                var l1 = cmsCIELab(), l2 = cmsCIELab()
                cmsDoTransform(a, &rgb, &l1, 1)
                cmsDoTransform(b, &rgb, &l2, 1)
                let d = cmsCIE2000DeltaE(&l1, &l2, 1, 1, 1)
                worst = max(worst, d); sum += d; n += 1
            } } }
            // The other way: in-gamut colours written through our profile (LittleCMS, Lab → 16-bit codes) and read
            // back through theirs.
            let write = Self.labTransform(ours, LW_TYPE_RGB_16, toLab: false)
            defer { cmsDeleteTransform(write) }
            var worstBack = 0.0, inGamut = 0
            for L in stride(from: 5.0, through: 95, by: 10) { for aa in stride(from: -60.0, through: 60, by: 10) { for bb in stride(from: -60.0, through: 60, by: 10) {
                var lab = cmsCIELab(L: L, a: aa, b: bb), back = cmsCIELab()
                var codes = [UInt16](repeating: 0, count: 3)
                cmsDoTransform(write, &lab, &codes, 1)
                guard codes.allSatisfy({ $0 > 0 && $0 < 65535 }) else { continue }   // clipped: outside this space
                cmsDoTransform(b, &codes, &back, 1)
                worstBack = max(worstBack, cmsCIE2000DeltaE(&lab, &back, 1, 1, 1)); inGamut += 1
            } } }
            figures.append(String(format: "%@ vs %@: ΔE00 mean %.4f max %.4f over %d codes, written by ours and read by theirs max %.4f over %d Lab colours",
                                  ref.space.rawValue, ref.name, sum / Double(n), worst, n, worstBack, inGamut))
            XCTAssertLessThan(sum / Double(n), 0.02, "\(ref.space) vs \(ref.name)")
            XCTAssertLessThan(worst, 0.06, "\(ref.space) vs \(ref.name)")
            XCTAssertLessThan(worstBack, 0.06, "\(ref.space) vs \(ref.name)")
        }
        print("output profiles against others' profiles: " + figures.joined(separator: "; "))
    }

    /// LightWork's written pixels, read through the reference profile of their space, show the colours the
    /// working values stand for. The truth: an RGB grid in the reference profile, taken by LittleCMS into linear
    /// ProPhoto as colord defines it (colord's ProPhoto colorants with linear curves); LightWork renders those
    /// working values to 16-bit output, and LittleCMS reads them back through the reference profile.
    func testRenderedOutputReadThroughReferenceProfilesShowsTheIntendedColours() throws {
        let colordProPhoto = try Data(contentsOf: try TestPaths.sharedSamples("icc").appendingPathComponent("prophoto-rgb-colord.icc"))
        let linearProPhoto = try XCTUnwrap(ICCProfile(data: colordProPhoto))
        let one = cmsBuildGamma(nil, 1.0)!
        defer { cmsFreeToneCurve(one) }
        for tag in [cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag] { XCTAssertNotEqual(cmsWriteTag(linearProPhoto.handle, tag, UnsafeRawPointer(one)), 0) }
        var figures: [String] = []
        for ref in try Self.referenceProfiles() {
            let toWorking = try XCTUnwrap(cmsCreateTransform(ref.profile.handle, LW_TYPE_RGB_DBL, linearProPhoto.handle, LW_TYPE_RGB_DBL, UInt32(INTENT_RELATIVE_COLORIMETRIC), UInt32(cmsFLAGS_NOOPTIMIZE)))
            defer { cmsDeleteTransform(toWorking) }
            let (truthLab, outLab) = (Self.labTransform(ref.profile, LW_TYPE_RGB_DBL, toLab: true), Self.labTransform(ref.profile, LW_TYPE_RGB_16, toLab: true))
            defer { cmsDeleteTransform(truthLab); cmsDeleteTransform(outLab) }
            let steps = (0...10).map { Double($0) / 10 }
            var grid: [[Double]] = []
            for r in steps { for g in steps { for b in steps { grid.append([r, g, b]) } } }
            let image = WorkingImage(width: grid.count, height: 1, space: .rawLinear)
            for (i, rgb) in grid.enumerated() {
                var input = rgb, working = [Double](repeating: 0, count: 3)
                cmsDoTransform(toWorking, &input, &working, 1)
                image.setPixel(x: i, y: 0, SIMD4(Float(working[0]), Float(working[1]), Float(working[2]), 1))
            }
            let pixels = Renderer(chain: []).render(image, context: RenderContext(width: grid.count, height: 1, seed: 0),
                                                     output: OutputSpec(space: ref.space, depth: .sixteen, keepAlpha: false))
            var worst = 0.0, sum = 0.0
            for (i, rgb) in grid.enumerated() {
                var input = rgb, written = Array(pixels.samples16[(3 * i)..<(3 * i + 3)])
                var expected = cmsCIELab(), got = cmsCIELab()
                cmsDoTransform(truthLab, &input, &expected, 1)
                cmsDoTransform(outLab, &written, &got, 1)
                let d = cmsCIE2000DeltaE(&expected, &got, 1, 1, 1)
                worst = max(worst, d); sum += d
            }
            figures.append(String(format: "%@ through %@: ΔE00 mean %.4f max %.4f over %d colours", ref.space.rawValue, ref.name, sum / Double(grid.count), worst, grid.count))
            // Measured: mean ≤ 0.0101, max ≤ 0.048 (half-float working values and 16-bit codes); limits about 3×.
            XCTAssertLessThan(sum / Double(grid.count), 0.03, "\(ref.space) output read through \(ref.name)")
            XCTAssertLessThan(worst, 0.15, "\(ref.space) output read through \(ref.name)")
        }
        print("rendered output read through others' profiles: " + figures.joined(separator: "; "))
    }
}
