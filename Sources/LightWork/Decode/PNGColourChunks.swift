import CLCMS2
import CPNG
import CShims
import Foundation

/// A PNG's colour chunks resolved in the specification's order of precedence: iCCP, then sRGB, then
/// gAMA/cHRM (a profile is built for them), then nothing (sRGB assumed).
enum PNGColourChunks {
    static func resolve(_ png: png_structp, _ info: png_infop, model: ICCInput.Model, intent: DecodeOptions.RenderingIntent) -> ICCInput {
        if png_get_valid(png, info, PNG_INFO_iCCP) != 0 {
            var name: png_charp? = nil
            var compression: Int32 = 0
            var profile: png_bytep? = nil
            var length: png_uint_32 = 0
            if png_get_iCCP(png, info, &name, &compression, &profile, &length) != 0, let profile, length > 0 {
                return ICCInput.embedded(Data(bytes: profile, count: Int(length)), model: model, intent: intent)
            }
            return ICCInput.corrupt(model)
        }
        if png_get_valid(png, info, PNG_INFO_sRGB) != 0 {
            return ICCInput.declaredSRGB("sRGB (PNG sRGB chunk)")
        }
        var gamma: Double = 0
        let hasGamma = png_get_valid(png, info, PNG_INFO_gAMA) != 0 && png_get_gAMA(png, info, &gamma) != 0
            && gamma >= 0.01 && gamma <= 10
        var wx = 0.0, wy = 0.0, rx = 0.0, ry = 0.0, gx = 0.0, gy = 0.0, bx = 0.0, by = 0.0
        let hasChromaticities = png_get_valid(png, info, PNG_INFO_cHRM) != 0
            && png_get_cHRM(png, info, &wx, &wy, &rx, &ry, &gx, &gy, &bx, &by) != 0
        guard hasGamma || hasChromaticities else { return ICCInput.unspecified(model) }

        var notes: [String] = []
        var primaries = RGBPrimaries.sRGB
        var label = ""
        if hasChromaticities {
            let p = RGBPrimaries(name: "png-chrm", red: [rx, ry], green: [gx, gy], blue: [bx, by], white: [wx, wy])
            if plausible(p) { primaries = p; label = "cHRM" } else { notes.append("PNG cHRM chromaticities are invalid: sRGB primaries used") }
        }
        // gAMA stores the encoding exponent; the decoding curve is its reciprocal. Without gAMA, the sRGB curve.
        let transfer: TransferFunction = hasGamma ? .gamma(1 / gamma) : .sRGB
        if hasGamma { label = label.isEmpty ? "gAMA \(gamma)" : "gAMA \(gamma) + cHRM" } else { label = "cHRM with sRGB curve" }
        let description = "PNG \(label)"
        let built: ICCProfile?
        if model == .gray {
            built = ICCProfile.gray(white: primaries.white, gamma: hasGamma ? 1 / gamma : 2.2, description: description)
        } else {
            built = rgbProfile(primaries, transfer, description)
        }
        guard let built else {
            var r = ICCInput.unspecified(model)
            r.notes.insert("PNG gAMA/cHRM cannot form a profile: ignored", at: 0)
            return r
        }
        var r = ICCInput.profile(built, model: model, description: description, intent: intent)
        r.notes = notes + r.notes
        return r
    }

    /// Chromaticities inside the xy triangle of real colours, with primaries that span a plane (invertible).
    private static func plausible(_ p: RGBPrimaries) -> Bool {
        for v in [p.red, p.green, p.blue, p.white] {
            guard v.x.isFinite, v.y.isFinite, v.x >= 0, v.y > 1e-4, v.x + v.y <= 1 else { return false }
        }
        let a = p.green - p.red, b = p.blue - p.red
        return abs(a.x * b.y - a.y * b.x) > 1e-4
    }

    /// Like `ICCProfile.rgb`, but returns nil instead of trapping when LittleCMS refuses the primaries.
    private static func rgbProfile(_ p: RGBPrimaries, _ transfer: TransferFunction, _ description: String) -> ICCProfile? {
        lw_lcms_quiet()
        var white = cmsCIExyY(x: p.white.x, y: p.white.y, Y: 1)
        var prim = cmsCIExyYTRIPLE(Red: cmsCIExyY(x: p.red.x, y: p.red.y, Y: 1),
                                   Green: cmsCIExyY(x: p.green.x, y: p.green.y, Y: 1),
                                   Blue: cmsCIExyY(x: p.blue.x, y: p.blue.y, Y: 1))
        let curve: OpaquePointer?
        switch transfer {
        case .gamma(let g): curve = cmsBuildGamma(nil, g)
        default:
            var params: [cmsFloat64Number] = [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045]
            curve = cmsBuildParametricToneCurve(nil, 4, &params)
        }
        guard let curve else { return nil }
        defer { cmsFreeToneCurve(curve) }
        var curves: [OpaquePointer?] = [curve, curve, curve]
        guard let h = cmsCreateRGBProfile(&white, &prim, &curves) else { return nil }
        if let mlu = cmsMLUalloc(nil, 1) {
            cmsMLUsetASCII(mlu, "en", "US", description)
            cmsWriteTag(h, cmsSigProfileDescriptionTag, UnsafeRawPointer(mlu))
            cmsMLUfree(mlu)
        }
        return ICCProfile(handle: h)
    }
}
