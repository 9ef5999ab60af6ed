import Foundation

/// A linear-light gain applied directly to sRGB-encoded values: `encode(g · decode(v))` without the two
/// curve evaluations. Above the sRGB toe a gain is an affine map of the encoding,
/// `g^(1/2.4) · (v + 0.055) − 0.055`; in the toe it is `g · v`. For g ≥ 1 the exact result is the
/// smaller of the two, for g ≤ 1 the larger (the curve's two pieces are nearly tangent at the junction),
/// which is exact outside the toe and within 0.003 for gains 0.25…2 inside it. Negative values mirror,
/// as the engine's curves do. This keeps gains (white balance, vignetting) in linear light while the
/// filter computes in the perceptual domain, so no conversion pass is needed around it.
enum EncodedGain {
    /// The encoded-domain slope for a linear gain: g^(1/2.4).
    static func encodedSlope(_ gain: Double) -> Float { Float(pow(gain, 1 / 2.4)) }

    /// `encode(gain · decode(v))` for a gain ≥ 1; `slope` is `encodedSlope(gain)`.
    @inline(__always)
    static func brighten(_ v: Float, gain: Float, slope: Float) -> Float {
        let a = abs(v)
        let p = gain * a, q = slope * (a + 0.055) - 0.055
        let m = q < p ? q : p     // min(p, q) spelt out: Swift.min/max defeat vectorisation of these loops (5× slower)
        return v < 0 ? -m : m
    }

    /// `encode(gain · decode(v))` for a gain ≤ 1; `slope` is `encodedSlope(gain)`.
    @inline(__always)
    static func darken(_ v: Float, gain: Float, slope: Float) -> Float {
        let a = abs(v)
        let p = gain * a, q = slope * (a + 0.055) - 0.055
        let m = q >= p ? q : p    // max(p, q) spelt out
        return v < 0 ? -m : m
    }

    /// Applies one constant linear-light gain to a plane of encoded values.
    static func scale(_ p: UnsafeMutablePointer<Float>, count: Int, gain: Double) {
        let g = Float(gain), s = encodedSlope(gain)
        if gain >= 1 {
            for i in 0..<count { p[i] = brighten(p[i], gain: g, slope: s) }
        } else {
            for i in 0..<count { p[i] = darken(p[i], gain: g, slope: s) }
        }
    }
}
