import CLCMS2
import CShims
import Foundation

/// Coding-independent code points (ITU-T H.273: colour primaries, transfer characteristics, matrix coefficients),
/// as AVIF's and HEIF's nclx boxes carry them: turned into an ICC profile for the device-RGB path on input, and chosen for an
/// output colour space on output. Only standard-dynamic-range transfers are decoded; PQ and HLG are refused, since
/// a display-referred SDR render of them needs tone mapping LightWork does not do.
public struct CICP: Sendable, Equatable {
    public var primaries: UInt16
    public var transfer: UInt16
    public var matrix: UInt16
    public var fullRange: Bool

    public init(primaries: UInt16, transfer: UInt16, matrix: UInt16, fullRange: Bool = true) {
        self.primaries = primaries
        self.transfer = transfer
        self.matrix = matrix
        self.fullRange = fullRange
    }

    /// H.273's "unspecified" code (2), for primaries, transfer and matrix alike.
    public static let unspecified: UInt16 = 2

    /// "1/13/6": how manifests and `lightwork info` show it.
    public var description: String { "\(primaries)/\(transfer)/\(matrix)\(fullRange ? "" : " limited range")" }
    /// "nclx 1/13/6 full range": HEIF's box, as the HEIF decoder's details name it.
    public var nclxDescription: String { "nclx \(primaries)/\(transfer)/\(matrix) \(fullRange ? "full" : "limited") range" }

    // MARK: Input

    /// Primaries H.273 defines that an RGB file in practice uses (the codes: 1 BT.709/sRGB, 4 BT.470M, 5 BT.601 625,
    /// 6/7 BT.601 525 and SMPTE 240M, 9 BT.2020, 11 DCI-P3, 12 Display P3, 22 EBU Tech 3213).
    static func primaries(_ code: UInt16) -> RGBPrimaries? {
        switch code {
        case 1: return .sRGB
        case 4: return RGBPrimaries(name: "bt470m", red: [0.67, 0.33], green: [0.21, 0.71], blue: [0.14, 0.08], white: [0.310, 0.316])
        case 5: return RGBPrimaries(name: "bt601-625", red: [0.64, 0.33], green: [0.29, 0.60], blue: [0.15, 0.06], white: [0.3127, 0.3290])
        case 6, 7: return RGBPrimaries(name: "bt601-525", red: [0.630, 0.340], green: [0.310, 0.595], blue: [0.155, 0.070], white: [0.3127, 0.3290])
        case 9: return RGBPrimaries(name: "bt2020", red: [0.708, 0.292], green: [0.170, 0.797], blue: [0.131, 0.046], white: [0.3127, 0.3290])
        case 11: return RGBPrimaries(name: "dci-p3", red: [0.680, 0.320], green: [0.265, 0.690], blue: [0.150, 0.060], white: [0.314, 0.351])
        case 12: return .displayP3
        case 22: return RGBPrimaries(name: "ebu3213", red: [0.630, 0.340], green: [0.295, 0.605], blue: [0.155, 0.077], white: [0.3127, 0.3290])
        default: return nil
        }
    }

    /// The decoding curve (stored value → linear) of a transfer code, as LittleCMS parametric-curve parameters
    /// (type 1: Y = X^g; type 4: Y = (aX + b)^g for X ≥ d, else cX). BT.709's and BT.601's curve is the inverse of
    /// their camera OETF, as browsers decode it; nil for a transfer that is not decoded.
    static func curve(_ code: UInt16) -> (type: Int32, params: [Double], name: String)? {
        switch code {
        case 1, 6, 14, 15: return (4, [1 / 0.45, 1 / 1.099, 0.099 / 1.099, 1 / 4.5, 0.081], "BT.709")
        case 4: return (1, [2.2], "gamma 2.2")
        case 5: return (1, [2.8], "gamma 2.8")
        // SMPTE 240M: V = 1.1115 L^0.45 − 0.1115 above L = 0.0228, else 4 L.
        case 7: return (4, [1 / 0.45, 1 / 1.1115, 0.1115 / 1.1115, 1 / 4.0, 0.0913], "SMPTE 240M")
        case 8: return (1, [1.0], "linear")
        case 13: return (4, [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045], "sRGB")
        default: return nil
        }
    }

    /// Why these code points cannot be decoded right; nil when `inputProfile` can describe them. Matrix
    /// coefficients are the YUV decoder's (libavif applies them); unspecified primaries or transfer are taken as sRGB's.
    public var refusal: String? {
        if transfer == 16 { return "PQ (SMPTE ST 2084) HDR transfer: HDR is not rendered (no tone mapping), refused" }
        if transfer == 18 { return "HLG (ARIB STD-B67) HDR transfer: HDR is not rendered (no tone mapping), refused" }
        if primaries != CICP.unspecified, primaries != 0, CICP.primaries(primaries) == nil {
            return "colour primaries \(primaries) (H.273) are not supported"
        }
        if transfer != CICP.unspecified, transfer != 0, CICP.curve(transfer) == nil {
            return "transfer characteristics \(transfer) (H.273) are not supported"
        }
        return nil
    }

    /// The device-RGB path's source for pixels these code points describe (throws `colour` for `refusal`);
    /// sRGB itself (1/13) and "unspecified" need no conversion.
    public func input(model: ICCInput.Model, intent: DecodeOptions.RenderingIntent) throws -> ICCInput {
        if let refusal { throw LightWorkError.colour("CICP \(description): \(refusal)") }
        if primaries == 1 && transfer == 13 { return ICCInput.declaredSRGB("sRGB (CICP \(description))") }
        let knownPrimaries = CICP.primaries(primaries), knownCurve = CICP.curve(transfer)
        if knownPrimaries == nil && knownCurve == nil {
            return ICCInput(source: .deviceRGB, description: "sRGB (CICP \(description) unspecified: assumed)", notes: [ICCInput.assumedSRGBNote])
        }
        let p = knownPrimaries ?? .sRGB, c = knownCurve ?? CICP.curve(13)!
        var notes: [String] = []
        if knownPrimaries == nil { notes.append("CICP primaries unspecified: sRGB primaries assumed") }
        if knownCurve == nil { notes.append("CICP transfer unspecified: sRGB curve assumed") }
        let name = "CICP \(description) (\(p.name), \(c.name))"
        guard let profile = CICP.profile(p, curve: c, gray: model == .gray, description: name) else {
            throw LightWorkError.colour("CICP \(description): LittleCMS cannot build a profile for it")
        }
        var r = ICCInput.profile(profile, model: model, description: name, intent: intent)
        r.notes = notes + r.notes
        return r
    }

    /// `input(model: .rgb, intent:)`: HEIF's primary image is RGB after libheif's YCbCr conversion.
    public func input(intent: DecodeOptions.RenderingIntent) throws -> ICCInput { try input(model: .rgb, intent: intent) }

    /// A matrix/shaper (or grey TRC) profile for the primaries and curve; nil when LittleCMS refuses them.
    static func profile(_ p: RGBPrimaries, curve c: (type: Int32, params: [Double], name: String), gray: Bool, description: String) -> ICCProfile? {
        lw_lcms_quiet()
        var params = c.params
        guard let curve = cmsBuildParametricToneCurve(nil, c.type, &params) else { return nil }
        defer { cmsFreeToneCurve(curve) }
        var white = cmsCIExyY(x: p.white.x, y: p.white.y, Y: 1)
        let h: cmsHPROFILE?
        if gray {
            h = cmsCreateGrayProfile(&white, curve)
        } else {
            var prim = cmsCIExyYTRIPLE(Red: cmsCIExyY(x: p.red.x, y: p.red.y, Y: 1), Green: cmsCIExyY(x: p.green.x, y: p.green.y, Y: 1),
                                       Blue: cmsCIExyY(x: p.blue.x, y: p.blue.y, Y: 1))
            var curves: [OpaquePointer?] = [curve, curve, curve]
            h = cmsCreateRGBProfile(&white, &prim, &curves)
        }
        guard let h else { return nil }
        if let mlu = cmsMLUalloc(nil, 1) {
            cmsMLUsetASCII(mlu, "en", "US", description)
            cmsWriteTag(h, cmsSigProfileDescriptionTag, UnsafeRawPointer(mlu))
            cmsMLUfree(mlu)
        }
        return ICCProfile(handle: h)
    }

    // MARK: Output

    /// The code points of an output colour space, with `matrix` for the YUV coding: sRGB is 1/13, Display P3 12/13;
    /// Adobe RGB and ProPhoto have no H.273 code, so they are "unspecified" and the embedded ICC profile alone says them.
    /// `output(space, matrix: 6)`: BT.601 matrix, full range, what libheif encodes YCbCr with and viewers assume.
    public static func output(for space: OutputColorSpace) -> CICP { output(space, matrix: 6) }

    public static func output(_ space: OutputColorSpace, matrix: UInt16) -> CICP {
        switch space {
        case .srgb: return CICP(primaries: 1, transfer: 13, matrix: matrix)
        case .displayP3: return CICP(primaries: 12, transfer: 13, matrix: matrix)
        case .adobeRGB, .prophoto: return CICP(primaries: unspecified, transfer: unspecified, matrix: matrix)
        }
    }
}

extension CICP {
    /// The output colour space whose embedded profile (`ICCProfile.embedded(for:)`) is `icc`, nil for any other
    /// profile: a writer gets the profile's bytes, and only LightWork's own ones are known to match a code point.
    static func outputSpace(ofProfile icc: Data?) -> OutputColorSpace? {
        guard let icc else { return nil }
        return OutputColorSpace.allCases.first { ICCProfile.embedded(for: $0) == icc }
    }
}
