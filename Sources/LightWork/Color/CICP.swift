import CLCMS2
import CShims
import Foundation

/// Coding-independent code points (ITU-T H.273): the colour primaries, transfer characteristics and matrix
/// coefficients that HEIF's `nclx` colour box (and AVIF's, and JPEG XL's enum colour) give instead of an ICC
/// profile. `profile()` turns the primaries and transfer into a LittleCMS matrix/shaper profile for the
/// device-RGB input path; `output(for:)` is what an output colour space is called, where H.273 has a name for it.
/// The matrix coefficients and range only say how YCbCr becomes RGB, which the decoding library does.
public struct CICP: Sendable, Hashable, CustomStringConvertible {
    public var primaries: Int
    public var transfer: Int
    public var matrix: Int
    public var fullRange: Bool

    /// H.273's "unspecified" (code 2) for any of the three.
    public static let unspecified = 2

    public init(primaries: Int, transfer: Int, matrix: Int, fullRange: Bool) {
        self.primaries = primaries
        self.transfer = transfer
        self.matrix = matrix
        self.fullRange = fullRange
    }

    /// "nclx 1/13/6 full range".
    public var description: String { "nclx \(primaries)/\(transfer)/\(matrix) \(fullRange ? "full" : "limited") range" }

    /// The code points an output in `space` is written with: H.273 names sRGB (BT.709 primaries, sRGB transfer)
    /// and Display P3 (SMPTE EG 432-1, sRGB transfer); Adobe RGB and ProPhoto have no code points, so they are
    /// unspecified and the embedded ICC profile alone says their colours. Matrix BT.601 (6), full range: what
    /// libheif encodes YCbCr with and what viewers assume.
    public static func output(for space: OutputColorSpace) -> CICP {
        switch space {
        case .srgb: return CICP(primaries: 1, transfer: 13, matrix: 6, fullRange: true)
        case .displayP3: return CICP(primaries: 12, transfer: 13, matrix: 6, fullRange: true)
        case .adobeRGB, .prophoto: return CICP(primaries: unspecified, transfer: unspecified, matrix: 6, fullRange: true)
        }
    }

    /// The primaries of code `code` (H.273 table 2), nil for one LightWork does not map.
    public static func primaries(_ code: Int) -> RGBPrimaries? {
        let d65: SIMD2<Double> = [0.3127, 0.3290]
        switch code {
        case 1: return RGBPrimaries(name: "BT.709", red: [0.64, 0.33], green: [0.30, 0.60], blue: [0.15, 0.06], white: d65)
        case 4: return RGBPrimaries(name: "BT.470 System M", red: [0.67, 0.33], green: [0.21, 0.71], blue: [0.14, 0.08], white: [0.310, 0.316])
        case 5: return RGBPrimaries(name: "BT.601 625", red: [0.64, 0.33], green: [0.29, 0.60], blue: [0.15, 0.06], white: d65)
        case 6, 7: return RGBPrimaries(name: "BT.601 525", red: [0.630, 0.340], green: [0.310, 0.595], blue: [0.155, 0.070], white: d65)
        case 9: return RGBPrimaries(name: "BT.2020", red: [0.708, 0.292], green: [0.170, 0.797], blue: [0.131, 0.046], white: d65)
        case 11: return RGBPrimaries(name: "DCI-P3", red: [0.680, 0.320], green: [0.265, 0.690], blue: [0.150, 0.060], white: [0.314, 0.351])
        case 12: return RGBPrimaries(name: "Display P3", red: [0.680, 0.320], green: [0.265, 0.690], blue: [0.150, 0.060], white: d65)
        case 22: return RGBPrimaries(name: "EBU Tech 3213", red: [0.630, 0.340], green: [0.295, 0.605], blue: [0.155, 0.077], white: d65)
        default: return nil
        }
    }

    /// Decoding curve of transfer code `code` (H.273 table 3) as LittleCMS parametric type 4,
    /// Y = (aX + b)^g for X ≥ d, else cX (types 1 and 4 as pure powers), with its name; nil for one not mapped
    /// (PQ and HLG are HDR: an SDR profile cannot say them).
    static func transferCurve(_ code: Int) -> (name: String, parameters: [Double])? {
        switch code {
        // BT.709 (and BT.601, BT.2020 at 10 and 12 bits): V = 1.099 L^0.45 − 0.099 above L = 0.018, else 4.5 L.
        case 1, 6, 14, 15: return ("BT.709", [1 / 0.45, 1 / 1.099, 0.099 / 1.099, 1 / 4.5, 0.081])
        case 4: return ("gamma 2.2", [2.2, 1, 0, 0, 0])
        case 5: return ("gamma 2.8", [2.8, 1, 0, 0, 0])
        // SMPTE 240M: V = 1.1115 L^0.45 − 0.1115 above L = 0.0228, else 4 L.
        case 7: return ("SMPTE 240M", [1 / 0.45, 1 / 1.1115, 0.1115 / 1.1115, 1 / 4.0, 0.0913])
        case 8: return ("linear", [1, 1, 0, 0, 0])
        case 13: return ("sRGB", [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045])
        default: return nil
        }
    }

    /// The RGB profile these primaries and transfer describe, unspecified ones read as sRGB's (the notes say so).
    /// Throws `unsupportedFormat` for code points LightWork does not map (PQ, HLG, XYZ…), naming them.
    public func profile() throws -> (profile: ICCProfile, name: String, notes: [String]) {
        var notes: [String] = []
        let p = primaries == CICP.unspecified ? 1 : primaries
        let t = transfer == CICP.unspecified ? 13 : transfer
        if primaries == CICP.unspecified { notes.append("\(self): unspecified primaries read as BT.709 (sRGB)") }
        if transfer == CICP.unspecified { notes.append("\(self): unspecified transfer read as sRGB") }
        guard let prim = CICP.primaries(p) else {
            throw LightWorkError.unsupportedFormat("\(self): colour primaries \(primaries) are not supported")
        }
        guard let curve = CICP.transferCurve(t) else {
            let what = t == 16 ? " (PQ, HDR)" : t == 18 ? " (HLG, HDR)" : ""
            throw LightWorkError.unsupportedFormat("\(self): transfer characteristics \(transfer)\(what) are not supported")
        }
        lw_lcms_quiet()
        var parameters = curve.parameters
        guard let tone = cmsBuildParametricToneCurve(nil, 4, &parameters) else {
            throw LightWorkError.colour("LittleCMS cannot build the \(curve.name) curve of \(self)")
        }
        defer { cmsFreeToneCurve(tone) }
        let name = "\(prim.name) primaries, \(curve.name) transfer (\(self))"
        return (ICCProfile.rgb(primaries: prim, curve: tone, description: name), name, notes)
    }

    /// The device-RGB input for pixels these code points describe (an sRGB-equivalent profile is not converted).
    public func input(intent: DecodeOptions.RenderingIntent) throws -> ICCInput {
        let (profile, name, notes) = try profile()
        var input = ICCInput.profile(profile, model: .rgb, description: name, intent: intent)
        input.notes += notes
        return input
    }
}
