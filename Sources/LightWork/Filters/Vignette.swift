import Foundation

/// Radial darkening towards the corners (`vignette`, −1…1; negative lightens), with `vignette.size`
/// (0…1, default 0.5) and `vignette.feather` (0…1, default 0.5).
///
/// The shape is an ellipse with the frame's aspect ratio: r = 0 at the centre, r = 1 in the corners
/// (relative to the half-diagonal in frame-normalised coordinates), so it looks the same at any
/// resolution and crop. Nothing changes inside r = size; the effect eases in (a smoothstep in r²) until
/// r = size + (1 − size) × (0.1 + 0.9 × feather) and stays at full strength beyond. Full strength is a linear-light
/// gain of −2 EV at +1 and +1 EV at −1, applied to the encoded values exactly (see `EncodedGain`), so it
/// behaves like optical light fall-off and is the same on the RAW and RGB paths.
public struct Vignette: Filter {
    public let name = "vignette"
    public let amount: Double
    public let size: Double
    public let feather: Double

    public init(amount: Double, size: Double = 0.5, feather: Double = 0.5) {
        self.amount = min(max(amount, -1), 1)
        self.size = min(max(size, 0), 1)
        self.feather = min(max(feather, 0), 1)
    }

    public var isNeutral: Bool { amount == 0 }
    public var domain: FilterDomain { .perceptual }

    /// Exposure change at full strength, in stops.
    var stops: Double { amount > 0 ? -2 * amount : -amount }
    /// The ramp runs over r² from size² to this (r² avoids a square root per pixel).
    var rampEndSquared: Double {
        let end = size + (1 - size) * (0.1 + 0.9 * feather)
        return max(end * end, size * size + 1e-3)
    }

    /// The linear-light gain at normalised radius r (0 centre, 1 corner).
    public func gain(atRadius r: Double) -> Double {
        let t = min(max((r * r - size * size) / (rampEndSquared - size * size), 0), 1)
        return exp2(stops * t * t * (3 - 2 * t))
    }

    public func apply(_ band: PixelBand, _ context: RenderContext) {
        if amount == 0 { return }
        let w = band.width
        let halfW = Double(context.width) / 2, halfH = Double(context.height) / 2
        // Gain and encoded slope as exp(c·s) for ramp position s ∈ [0, 1]: degree-10 Taylor polynomials
        // (|c| ≤ 1.4, error < 1e-6), which vectorise where a table lookup would not.
        let gainPoly = Vignette.exponentialPolynomial(stops * M_LN2)
        let slopePoly = Vignette.exponentialPolynomial(stops * M_LN2 / 2.4)
        let start = Float(size * size), inverseWidth = Float(1 / (rampEndSquared - size * size))
        let darkening = amount > 0
        ThreadScratch.withFloats(w) { u2 in
            // r² = (u² + v²) / 2 with u, v running −1…1 across the frame.
            for x in 0..<w {
                let u = (Double(x) + 0.5 - halfW) / halfW
                u2[x] = Float(u * u / 2)
            }
            for row in 0..<band.rows {
                let v = (Double(band.y0 + row) + 0.5 - halfH) / halfH
                let v2 = Float(v * v / 2)
                let r = band.r + row * w, g = band.g + row * w, b = band.b + row * w
                if darkening {
                    for x in 0..<w {
                        let t = min(max((u2[x] + v2 - start) * inverseWidth, 0), 1)
                        let s = t * t * (3 - 2 * t)
                        let gain = Vignette.evaluate(gainPoly, s), slope = Vignette.evaluate(slopePoly, s)
                        r[x] = EncodedGain.darken(r[x], gain: gain, slope: slope)
                        g[x] = EncodedGain.darken(g[x], gain: gain, slope: slope)
                        b[x] = EncodedGain.darken(b[x], gain: gain, slope: slope)
                    }
                } else {
                    for x in 0..<w {
                        let t = min(max((u2[x] + v2 - start) * inverseWidth, 0), 1)
                        let s = t * t * (3 - 2 * t)
                        let gain = Vignette.evaluate(gainPoly, s), slope = Vignette.evaluate(slopePoly, s)
                        r[x] = EncodedGain.brighten(r[x], gain: gain, slope: slope)
                        g[x] = EncodedGain.brighten(g[x], gain: gain, slope: slope)
                        b[x] = EncodedGain.brighten(b[x], gain: gain, slope: slope)
                    }
                }
            }
        }
    }

    typealias Polynomial = (Float, Float, Float, Float, Float, Float, Float, Float, Float, Float, Float)

    /// Taylor coefficients of exp(c·s), constant term first.
    static func exponentialPolynomial(_ c: Double) -> Polynomial {
        var k = [Double](repeating: 1, count: 11)
        for i in 1...10 { k[i] = k[i - 1] * c / Double(i) }
        let f = k.map(Float.init)
        return (f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9], f[10])
    }

    @inline(__always)
    static func evaluate(_ p: Polynomial, _ s: Float) -> Float {
        var y = p.10
        y = y * s + p.9; y = y * s + p.8; y = y * s + p.7; y = y * s + p.6; y = y * s + p.5
        y = y * s + p.4; y = y * s + p.3; y = y * s + p.2; y = y * s + p.1; y = y * s + p.0
        return y
    }
}
