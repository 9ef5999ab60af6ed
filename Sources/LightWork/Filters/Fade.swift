/// Matte fade (`fade`, −1…1; 0 = unchanged): positive lifts the blacks like a matte print, negative
/// deepens them slightly. Per sRGB-encoded channel.
///
/// Positive: `x + level · (1 − x)²` with level = 0.15 × fade, so black rises to `level` with a gentle toe
/// (slope 1 − 2·level at black), mid grey rises by about a third of that and white stays white with slope 1.
/// Negative: `x · (1 − depth · (1 − x)²)` with depth = 0.35 × |fade|: black stays black, shadows sink,
/// white is unchanged. Both are monotonic; below 0 they continue linearly, above 1 values pass through.
public struct Fade: DescribedFilter {
    /// −1…1.
    public let amount: Double

    public init(amount: Double) { self.amount = amount }
    public init(values: FilterValues) { self.init(amount: values["fade"]) }

    public var isNeutral: Bool { amount == 0 }

    public func apply(_ band: PixelBand, _ context: RenderContext) {
        if amount == 0 { return }
        let n = band.count
        if amount > 0 {
            let level = Float(0.15 * amount)
            for i in 0..<n { band.r[i] = Fade.lift(band.r[i], level) }
            for i in 0..<n { band.g[i] = Fade.lift(band.g[i], level) }
            for i in 0..<n { band.b[i] = Fade.lift(band.b[i], level) }
        } else {
            let depth = Float(-0.35 * amount)
            for i in 0..<n { band.r[i] = Fade.deepen(band.r[i], depth) }
            for i in 0..<n { band.g[i] = Fade.deepen(band.g[i], depth) }
            for i in 0..<n { band.b[i] = Fade.deepen(band.b[i], depth) }
        }
    }

    @inline(__always)
    static func lift(_ x: Float, _ level: Float) -> Float {
        // min(x, 1) and max(c, 0) as plain selects (the same results; Swift.min/max stop vectorisation).
        let c = 1 < x ? 1 : x, u = 1 - (0 >= c ? 0 : c)
        let curve = c + level * u * u
        // Below black: the tangent at 0, so out-of-gamut values stay ordered.
        let belowBlack = level + (1 - 2 * level) * x
        return x > 1 ? x : (x < 0 ? belowBlack : curve)
    }

    @inline(__always)
    static func deepen(_ x: Float, _ depth: Float) -> Float {
        let u = 1 - x
        let curve = x * (1 - depth * u * u)
        return x > 1 ? x : (x < 0 ? (1 - depth) * x : curve)
    }
}

extension Fade {
    public static let descriptor = FilterDescriptor(name: "fade", stage: .post, kind: .point, domain: .perceptual, summary: "Matte fade: lifted or deepened blacks.", parameters: [
        FilterParameter(name: "fade", minValue: -1, maxValue: 1, unit: "strength", description: "+ lifts blacks with a gentle toe for a matte print (black rises to 0.15 at +1); - deepens shadows slightly; white is unchanged."),
    ])
}
