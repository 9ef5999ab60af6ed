/// An RGB colour space's primaries and white point, with its matrices to and from XYZ (D50, Bradford-adapted
/// exactly as LittleCMS builds a matrix-shaper profile's colorants).
public struct RGBPrimaries: Sendable, Hashable, Codable {
    public let name: String
    public let red: SIMD2<Double>
    public let green: SIMD2<Double>
    public let blue: SIMD2<Double>
    public let white: SIMD2<Double>

    public static let sRGB = RGBPrimaries(name: "srgb", red: [0.64, 0.33], green: [0.30, 0.60], blue: [0.15, 0.06], white: [0.3127, 0.3290])
    public static let displayP3 = RGBPrimaries(name: "display-p3", red: [0.680, 0.320], green: [0.265, 0.690], blue: [0.150, 0.060], white: [0.3127, 0.3290])
    public static let adobeRGB = RGBPrimaries(name: "adobe-rgb", red: [0.64, 0.33], green: [0.21, 0.71], blue: [0.15, 0.06], white: [0.3127, 0.3290])
    /// ROMM RGB (ProPhoto), white D50 as ISO 22028-2 gives it.
    public static let proPhoto = RGBPrimaries(name: "prophoto", red: [0.7347, 0.2653], green: [0.1596, 0.8404], blue: [0.0366, 0.0001], white: [0.3457, 0.3585])

    /// Linear RGB → XYZ relative to the space's own white (white maps to Y = 1).
    public var toXYZNative: Matrix3 {
        let cols = [red, green, blue].map { CIE.xyToXYZ(x: $0.x, y: $0.y) }
        let p = Matrix3([[cols[0].x, cols[1].x, cols[2].x], [cols[0].y, cols[1].y, cols[2].y], [cols[0].z, cols[1].z, cols[2].z]])
        let w = CIE.xyToXYZ(x: white.x, y: white.y)
        let s = p.inverse * w
        return p * Matrix3.diagonal(s)
    }

    /// Linear RGB → XYZ D50 (the ICC connection space), Bradford-adapted from the space's white.
    public var toXYZD50: Matrix3 {
        let w = CIE.xyToXYZ(x: white.x, y: white.y)
        return CIE.bradfordAdaptation(from: w, to: CIE.d50) * toXYZNative
    }

    /// `toXYZD50` as an ICC profile stores it (each colorant rounded to s15Fixed16): the matrix any
    /// colour-managed reader of LightWork's embedded profiles actually uses.
    public var iccColorants: Matrix3 {
        Matrix3(flat: toXYZD50.m.map { ($0 * 65536).rounded() / 65536 })
    }

    /// Linear RGB of this space → linear RGB of `other`, through XYZ D50 (relative colorimetric), with the
    /// profiles' stored colorants, so the result equals a LittleCMS conversion between the two profiles.
    public func conversion(to other: RGBPrimaries) -> Matrix3 {
        if self == other { return .identity }
        return other.iccColorants.inverse * iccColorants
    }
}
