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
public struct Vignette: DescribedFilter {
    public let amount: Double
    public let size: Double
    public let feather: Double
    /// Gain and encoded slope as exp(c·s) for ramp position s ∈ [0, 1]: polynomials through Chebyshev nodes
    /// (degree 6 for the gain, |c| ≤ 1.39; degree 4 for the slope, |c| ≤ 0.58; relative error < 2e-6, a
    /// tenth of a 16-bit step), which vectorise where a table lookup would not. Fitted once, here.
    let gainPoly: GainPolynomial
    let slopePoly: SlopePolynomial

    public init(amount: Double, size: Double = 0.5, feather: Double = 0.5) {
        self.amount = Vignette.descriptor.parameter("vignette").clamp(amount)
        self.size = Vignette.descriptor.parameter("vignette.size").clamp(size)
        self.feather = Vignette.descriptor.parameter("vignette.feather").clamp(feather)
        let stops = Vignette.stops(amount: self.amount)
        gainPoly = Vignette.gainPolynomial(stops * M_LN2)
        slopePoly = Vignette.slopePolynomial(stops * M_LN2 / 2.4)
    }

    public init(values: FilterValues) {
        self.init(amount: values["vignette"], size: values["vignette.size"], feather: values["vignette.feather"])
    }

    public var isNeutral: Bool { amount == 0 }

    /// Exposure change at full strength, in stops.
    var stops: Double { Vignette.stops(amount: amount) }

    static func stops(amount: Double) -> Double { amount > 0 ? -2 * amount : -amount }
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
        let start = Float(size * size), inverseWidth = Float(1 / (rampEndSquared - size * size))
        let darkening = amount > 0
        // r² = (u² + v²) / 2 with u, v running −1…1 across the frame; the u² row depends only on the geometry.
        let u2 = ThreadTables.table(ThreadTables.Key(kind: 0x7669_676e, a: w, b: UInt64(context.width), c: 0), count: w) { u2 in
            for x in 0..<w {
                let u = (Double(x) + 0.5 - halfW) / halfW
                u2[x] = Float(u * u / 2)
            }
        }
        let centre = min(w - 1, Int(halfW))
        for row in 0..<band.rows {
            let v = (Double(band.y0 + row) + 0.5 - halfH) / halfH
            let v2 = Float(v * v / 2)
            // Inside r = size the gain is exactly 1 (s = 0): only the stretches left and right of that run
            // are computed. u² falls to the centre column and rises again, so the run is one interval, found
            // by bisection on either side.
            let outside = { (x: Int) in u2[x] + v2 - start > 0 }
            let inner = Vignette.firstIndex(in: 0..<(centre + 1), where: { !outside($0) }) ?? w
            let outer = inner == w ? w : Vignette.firstIndex(in: centre..<w, where: outside) ?? w
            for (x0, x1) in [(0, inner), (outer, w)] where x1 > x0 {
                let r = band.r + row * w + x0, g = band.g + row * w + x0, b = band.b + row * w + x0
                if darkening {
                    Vignette.darkenRow(r, g, b, u2 + x0, x1 - x0, v2: v2, start: start, inverseWidth: inverseWidth, gainPoly, slopePoly)
                } else {
                    Vignette.brightenRow(r, g, b, u2 + x0, x1 - x0, v2: v2, start: start, inverseWidth: inverseWidth, gainPoly, slopePoly)
                }
            }
        }
    }

    /// The first index of `range` where `predicate` holds, for a predicate that is false and then true across it.
    static func firstIndex(in range: Range<Int>, where predicate: (Int) -> Bool) -> Int? {
        var low = range.lowerBound, high = range.upperBound
        while low < high {
            let mid = (low + high) / 2
            if predicate(mid) { high = mid } else { low = mid + 1 }
        }
        return low < range.upperBound ? low : nil
    }

    /// Ramp position s at r² = u2 + v2: smoothstep of min(max((r² − start) · inverseWidth, 0), 1), spelt as
    /// plain selects (Swift.min/max keep these loops from vectorising).
    @inline(__always)
    static func ramp(_ u2: Float, _ v2: Float, _ start: Float, _ inverseWidth: Float) -> Float {
        let q = (u2 + v2 - start) * inverseWidth
        let q0: Float = 0 >= q ? 0 : q
        let t: Float = 1 < q0 ? 1 : q0
        return t * t * (3 - 2 * t)
    }

    private static func darkenRow(_ r: UnsafeMutablePointer<Float>, _ g: UnsafeMutablePointer<Float>, _ b: UnsafeMutablePointer<Float>,
                                  _ u2: UnsafePointer<Float>, _ w: Int, v2: Float, start: Float, inverseWidth: Float,
                                  _ gainPoly: GainPolynomial, _ slopePoly: SlopePolynomial) {
        for x in 0..<w {
            let s = ramp(u2[x], v2, start, inverseWidth)
            let gain = evaluate(gainPoly, s), slope = evaluate(slopePoly, s)
            r[x] = EncodedGain.darken(r[x], gain: gain, slope: slope)
            g[x] = EncodedGain.darken(g[x], gain: gain, slope: slope)
            b[x] = EncodedGain.darken(b[x], gain: gain, slope: slope)
        }
    }

    private static func brightenRow(_ r: UnsafeMutablePointer<Float>, _ g: UnsafeMutablePointer<Float>, _ b: UnsafeMutablePointer<Float>,
                                    _ u2: UnsafePointer<Float>, _ w: Int, v2: Float, start: Float, inverseWidth: Float,
                                    _ gainPoly: GainPolynomial, _ slopePoly: SlopePolynomial) {
        for x in 0..<w {
            let s = ramp(u2[x], v2, start, inverseWidth)
            let gain = evaluate(gainPoly, s), slope = evaluate(slopePoly, s)
            r[x] = EncodedGain.brighten(r[x], gain: gain, slope: slope)
            g[x] = EncodedGain.brighten(g[x], gain: gain, slope: slope)
            b[x] = EncodedGain.brighten(b[x], gain: gain, slope: slope)
        }
    }

    typealias GainPolynomial = (Float, Float, Float, Float, Float, Float, Float)
    typealias SlopePolynomial = (Float, Float, Float, Float, Float)

    /// Coefficients (constant term first) of the degree-`degree` polynomial that equals exp(c·s) at the
    /// Chebyshev nodes of [0, 1]: near-minimax, so a low degree suffices.
    static func exponentialFit(_ c: Double, degree: Int) -> [Float] {
        ChebyshevFit.coefficients(degree: degree, centre: 0.5, halfWidth: 0.5) { exp(c * $0) }.map(Float.init)
    }

    static func gainPolynomial(_ c: Double) -> GainPolynomial {
        let f = exponentialFit(c, degree: 6)
        return (f[0], f[1], f[2], f[3], f[4], f[5], f[6])
    }

    static func slopePolynomial(_ c: Double) -> SlopePolynomial {
        let f = exponentialFit(c, degree: 4)
        return (f[0], f[1], f[2], f[3], f[4])
    }

    @inline(__always)
    static func evaluate(_ p: GainPolynomial, _ s: Float) -> Float {
        var y = p.6
        y = y * s + p.5; y = y * s + p.4; y = y * s + p.3; y = y * s + p.2; y = y * s + p.1; y = y * s + p.0
        return y
    }

    @inline(__always)
    static func evaluate(_ p: SlopePolynomial, _ s: Float) -> Float {
        var y = p.4
        y = y * s + p.3; y = y * s + p.2; y = y * s + p.1; y = y * s + p.0
        return y
    }
}

extension Vignette {
    public static let descriptor = FilterDescriptor(name: "vignette", stage: .pre, kind: .point, domain: .perceptual, summary: "Elliptical radial fall-off following the frame.", parameters: [
        FilterParameter(name: "vignette", minValue: -1, maxValue: 1, unit: "strength", description: "Elliptical radial fall-off following the frame: + darkens the corners (-2 EV at +1), - lightens them (+1 EV at -1)."),
        FilterParameter(name: "vignette.size", minValue: 0, maxValue: 1, defaultValue: 0.5, unit: "fraction", description: "Radius where the fall-off starts, relative to the half-diagonal."),
        FilterParameter(name: "vignette.feather", minValue: 0, maxValue: 1, defaultValue: 0.5, unit: "fraction", description: "Softness of the fall-off."),
    ])
}
