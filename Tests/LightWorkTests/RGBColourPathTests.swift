import CLCMS2
import Foundation
import XCTest
@testable import LightWork

/// Colours of every ICC-tagged sample against a LittleCMS transform computed here from the file's own
/// profile bytes (taken from the file independently of the decoder) and libjpeg/libpng's own samples.
final class RGBColourPathTests: XCTestCase {
    private func sample(_ name: String) throws -> Data {
        try Data(contentsOf: TestPaths.sharedSamples("rgb").appendingPathComponent(name))
    }

    /// A grid of pixel indices spread over the image.
    private func probes(width: Int, height: Int) -> [Int] {
        var out: [Int] = []
        for gy in 0..<6 { for gx in 0..<6 { out.append((gy * (height - 1) / 5) * width + gx * (width - 1) / 5) } }
        return out
    }

    /// Decodes a JPEG sample and compares probe pixels with the reference; returns the largest difference.
    @discardableResult
    private func checkJPEG(_ name: String, intent: DecodeOptions.RenderingIntent = .relative, tolerance: Double = 1.0 / 255) throws -> Double {
        let data = try sample(name)
        var options = DecodeOptions()
        options.intent = intent
        let decoded = try JPEGDecoder.decode(data: data, options: options)
        let ref = ReferenceReaders.jpegSamples(data)
        XCTAssertEqual(decoded.image.width, ref.width, "\(name) is stored upright")
        XCTAssertEqual(decoded.image.height, ref.height)
        let icc = try XCTUnwrap(ReferenceReaders.jpegICC(data), name)
        let profile = try XCTUnwrap(ICCProfile(data: icc), name)
        XCTAssertEqual(decoded.sourceProfile, profile.profileDescription)
        let idx = probes(width: ref.width, height: ref.height)
        let n = ref.components
        let colours: [[Double]] = idx.map { i in
            (0..<n).map { c in
                let v = Double(ref.samples[n * i + c]) / 255
                // LittleCMS takes CMYK doubles as ink percentages; Adobe files store 1 − ink.
                return n == 4 ? 100 * (ref.adobeInverted ? 1 - v : v) : v
            }
        }
        let format = n == 1 ? ReferenceReaders.grayDouble : n == 3 ? ReferenceReaders.rgbDouble : ReferenceReaders.cmykDouble
        let expected = ReferenceReaders.toSRGB(colours, profile: profile.handle, format: format, intent: intent.lcms)
        let f = decoded.image.floats()
        var worst = 0.0
        for (k, i) in idx.enumerated() { for c in 0..<3 {
            let d = abs(Double(f[4 * i + c]) - expected[k][c])
            worst = max(worst, d)
            XCTAssertLessThanOrEqual(d, tolerance, "\(name) pixel \(i) channel \(c)")
        } }
        return worst
    }

    func testDisplayP3JPEG() throws { try checkJPEG("display-p3-iceland.jpg") }
    func testAdobeRGBJPEG() throws { try checkJPEG("adobe-rgb-canon-eos-7d.jpg") }
    func testProgressiveJPEGWithBigProfile() throws { try checkJPEG("progressive-big-icc.jpg") }
    func testGreyJPEGWithGrayGamma22() throws { try checkJPEG("gray-gamma22-concert.jpg") }

    func testCMYKJPEGWithSWOPProfileBothIntents() throws {
        XCTAssertTrue(ReferenceReaders.jpegSamples(try sample("cmyk-swop-profile.jpg")).adobeInverted, "the sample is Adobe CMYK")
        try checkJPEG("cmyk-swop-profile.jpg")
        try checkJPEG("cmyk-swop-profile.jpg", intent: .perceptual)
    }

    /// Every pixel of the LUT-based samples against the exact evaluation: LittleCMS's precalculated grid is
    /// allowed rare larger errors at gamut edges, but 99.5% of values must be within 1/255 and the mean tiny.
    func testLUTProfilesWholeImageAgainstExactEvaluation() throws {
        for name in ["cmyk-swop-profile.jpg", "progressive-big-icc.jpg"] {
            let data = try sample(name)
            let ref = ReferenceReaders.jpegSamples(data)
            let profile = try XCTUnwrap(ICCProfile(data: XCTUnwrap(ReferenceReaders.jpegICC(data))))
            let n = ref.components, count = ref.width * ref.height
            let colours: [[Double]] = (0..<count).map { i in
                (0..<n).map { c in
                    let v = Double(ref.samples[n * i + c]) / 255
                    return n == 4 ? 100 * (ref.adobeInverted ? 1 - v : v) : v
                }
            }
            let expected = ReferenceReaders.toSRGB(colours, profile: profile.handle, format: n == 4 ? ReferenceReaders.cmykDouble : ReferenceReaders.rgbDouble)
            let f = try JPEGDecoder.decode(data: data, options: DecodeOptions()).image.floats()
            var sum = 0.0, over = 0
            for i in 0..<count { for c in 0..<3 {
                let d = abs(Double(f[4 * i + c]) - expected[i][c])
                sum += d
                if d > 1.0 / 255 { over += 1 }
            } }
            XCTAssertLessThan(sum / Double(3 * count), 0.15 / 255, name)
            XCTAssertLessThan(Double(over) / Double(3 * count), 0.005, name)
        }
    }

    /// The reference can tell whether black-point compensation was used: without it, SWOP's full ink is not black.
    func testReferenceDistinguishesIntentAndBlackPointCompensation() throws {
        let data = try sample("cmyk-swop-profile.jpg")
        let ref = ReferenceReaders.jpegSamples(data)
        let profile = try XCTUnwrap(ICCProfile(data: XCTUnwrap(ReferenceReaders.jpegICC(data))))
        let colours = [[0.0, 0.0, 0.0, 100.0], [100.0, 100.0, 100.0, 100.0], [20.0, 60.0, 80.0, 10.0]]
        let withBPC = ReferenceReaders.toSRGB(colours, profile: profile.handle, format: ReferenceReaders.cmykDouble)
        let without = ReferenceReaders.toSRGB(colours, profile: profile.handle, format: ReferenceReaders.cmykDouble, blackPointCompensation: false)
        XCTAssertEqual(withBPC[1], [0, 0, 0], "with compensation, full ink is sRGB black")
        XCTAssertGreaterThan(without[1][0], 20.0 / 255, "without it, full ink is a dark grey")
        XCTAssertEqual(ref.components, 4)
    }

    /// PNG samples: reference samples from libpng, profile from its iCCP or from its gAMA/cHRM values.
    private func checkPNG(_ name: String, tolerance: Double) throws {
        let data = try sample(name)
        let decoded = try PNGDecoder.decode(data: data, options: DecodeOptions())
        let ref = try XCTUnwrap(ReferenceReaders.pngRows(data))
        XCTAssertEqual(decoded.image.width, ref.width)
        XCTAssertEqual(decoded.image.height, ref.height)
        let profile: cmsHPROFILE
        if let icc = ref.icc {
            profile = cmsOpenProfileFromMem([UInt8](icc), UInt32(icc.count))!
        } else {
            // gAMA/cHRM as the PNG specification defines them: decoding exponent 1/gAMA, the cHRM primaries and white.
            let g = try XCTUnwrap(ref.gamma), c = try XCTUnwrap(ref.chromaticities)
            var white = cmsCIExyY(x: c[0], y: c[1], Y: 1)
            var prim = cmsCIExyYTRIPLE(Red: cmsCIExyY(x: c[2], y: c[3], Y: 1), Green: cmsCIExyY(x: c[4], y: c[5], Y: 1),
                                       Blue: cmsCIExyY(x: c[6], y: c[7], Y: 1))
            let curve = cmsBuildGamma(nil, 1 / g)
            var curves: [OpaquePointer?] = [curve, curve, curve]
            profile = cmsCreateRGBProfile(&white, &prim, &curves)!
            cmsFreeToneCurve(curve)
            XCTAssertTrue(decoded.sourceProfile.hasPrefix("PNG gAMA"), decoded.sourceProfile)
        }
        defer { cmsCloseProfile(profile) }
        let idx = probes(width: ref.width, height: ref.height)
        let colours = idx.map { i in (0..<3).map { ref.sample(x: i % ref.width, y: i / ref.width, c: $0) } }
        let expected = ReferenceReaders.toSRGB(colours, profile: profile, format: ReferenceReaders.rgbDouble)
        let f = decoded.image.floats()
        for (k, i) in idx.enumerated() {
            for c in 0..<3 {
                XCTAssertEqual(Double(f[4 * i + c]), expected[k][c], accuracy: tolerance, "\(name) pixel \(i) channel \(c)")
            }
            let alpha = ref.channels == 4 ? ref.sample(x: i % ref.width, y: i / ref.width, c: 3) : 1
            XCTAssertEqual(Double(f[4 * i + 3]), alpha, accuracy: 0.0005, "alpha kept as stored")
        }
    }

    func testProPhotoPNG() throws { try checkPNG("prophoto-1x1.png", tolerance: 1.0 / 255) }
    func testICCPSRGBPNGWithAlpha() throws { try checkPNG("iccp-srgb.png", tolerance: 1.0 / 255) }
    func testGammaAndChromaticitiesPNG() throws { try checkPNG("gama-chrm-only-hopper.png", tolerance: 1.0 / 255) }
    /// 16-bit input: held to half-float precision plus the 16-bit transform's rounding.
    func testSixteenBitGammaAndChromaticitiesPNG() throws { try checkPNG("rgb16-flag-gama-chrm.png", tolerance: 1.0 / 1024) }

    /// Equivalence is decided on colours, never names: LittleCMS's own sRGB is used as it is; profiles that
    /// are called sRGB but move colours by more than 1/65535 (HP's, colord's) are converted.
    func testSRGBEquivalenceIsDecidedByTransformingColours() throws {
        // As files carry them: serialised (colorants rounded to s15.16).
        let lcmsSRGB = try XCTUnwrap(ICCProfile(data: ICCProfile(handle: cmsCreate_sRGBProfile()).data()))
        XCTAssertTrue(lcmsSRGB.isEquivalentToSRGB(intent: .relative))
        let named = ICCProfile.rgb(primaries: .sRGB, transfer: .sRGB, description: "Not sRGB by name")
        XCTAssertTrue(try XCTUnwrap(ICCProfile(data: named.data())).isEquivalentToSRGB(intent: .perceptual))
        let hp = try XCTUnwrap(ReferenceReaders.pngRows(Data(contentsOf: TestPaths.sharedSamples("rgb").appendingPathComponent("iccp-srgb.png")))?.icc)
        XCTAssertFalse(try XCTUnwrap(ICCProfile(data: hp)).isEquivalentToSRGB(intent: .relative), "HP's sRGB moves colours by 116/65535")
        let icc = try TestPaths.sharedSamples("icc")
        for name in ["srgb-colord.icc", "rec709-colord.icc", "adobergb1998-colord.icc", "gray-icc-profiles-free.icc"] {
            let p = try XCTUnwrap(ICCProfile(data: Data(contentsOf: icc.appendingPathComponent(name))))
            XCTAssertFalse(p.isEquivalentToSRGB(intent: .relative), name)
        }
        XCTAssertFalse(ICCProfile.rgb(primaries: .sRGB, transfer: .gamma(2.2), description: "sRGB").isEquivalentToSRGB(intent: .relative))
        XCTAssertTrue(ICCProfile.gray(white: RGBPrimaries.sRGB.white, gamma: 1, description: "linear grey")?.isEquivalentToSRGB(intent: .relative) == false)
    }

    /// An embedded profile equivalent to sRGB means no transform: values are exactly the stored ones.
    func testEmbeddedSRGBEquivalentProfileIsNotConverted() throws {
        let profile = ICCProfile(handle: cmsCreate_sRGBProfile()).data()
        let w = 16, h = 16
        let samples = (0..<(w * h * 3)).map { UInt8(($0 * 29) % 256) }
        let jpeg = JPEGBuilder.encode(width: w, height: h, components: 3, samples: samples, quality: 100, icc: profile)
        let d = try JPEGDecoder.decode(data: jpeg, options: DecodeOptions())
        XCTAssertTrue(d.sourceProfile.hasSuffix("(equivalent to sRGB: not converted)"), d.sourceProfile)
        XCTAssertTrue(d.notes.isEmpty)
        let ref = ReferenceReaders.jpegSamples(jpeg)
        let f = d.image.floats()
        for i in 0..<(w * h) { for c in 0..<3 {
            XCTAssertEqual(f[4 * i + c], Float(Float16(Float(ref.samples[3 * i + c]) / 255)))
        } }
        var png = PNGBuilder(width: 2, height: 1, colourType: 6)
        png.before = [("iCCP", PNGBuilder.iCCP(profile))]
        let p = try PNGDecoder.decode(data: png.build(rows: [[1, 2, 3, 4, 250, 251, 252, 253]]), options: DecodeOptions())
        XCTAssertTrue(p.sourceProfile.hasSuffix("(equivalent to sRGB: not converted)"))
        XCTAssertEqual(p.image.pixel(x: 1, y: 0), SIMD4([250, 251, 252, 253].map { Float(Float16(Float($0) / 255)) }))
    }
}
