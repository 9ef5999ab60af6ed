/// Global contrast (`contrast`, −1…1; 0 = unchanged): an S-curve on each sRGB-encoded channel.
///
/// The pivot is sRGB 0.46 (18 % linear grey) and stays put, as do black (0) and white (1). Each side is
/// a quadratic in t ∈ [0, 1] across its span, `t ∓ a·t(1 − t)` with a = 0.6 × contrast, so the slope at
/// the pivot is 1 + a and at black and white 1 − a: monotonic over the whole range, steeper midtones for
/// positive values, flatter ones for negative. Per channel, like a film's characteristic curve, so
/// contrast also adds a little saturation. Values outside 0…1 (RAW headroom, wide-gamut colours) pass
/// through unchanged.
public struct Contrast: DescribedFilter {
    /// −1…1.
    public let amount: Double

    /// sRGB-encoded mid grey: ((0.46 + 0.055) / 1.055)^2.4 ≈ 0.18 linear.
    public static let pivot: Float = 0.46

    public init(amount: Double) { self.amount = amount }
    public init(values: FilterValues) { self.init(amount: values["contrast"]) }

    public var isNeutral: Bool { amount == 0 }

    public func apply(_ band: PixelBand, _ context: RenderContext) {
        if amount == 0 { return }
        let a = Float(0.6 * amount)
        let n = band.count
        for i in 0..<n { band.r[i] = Contrast.curve(band.r[i], a) }
        for i in 0..<n { band.g[i] = Contrast.curve(band.g[i], a) }
        for i in 0..<n { band.b[i] = Contrast.curve(band.b[i], a) }
    }

    /// The curve for one encoded value.
    @inline(__always)
    static func curve(_ x: Float, _ a: Float) -> Float {
        let p = pivot
        let below = x * (1 / p)                 // t on the shadow side
        let above = (x - p) * (1 / (1 - p))     // t on the highlight side
        let shadow = p * (below - a * below * (1 - below))
        let highlight = p + (1 - p) * (above + a * above * (1 - above))
        let inside = x < p ? shadow : highlight
        return x < 0 || x > 1 ? x : inside
    }
}

extension Contrast {
    public static let descriptor = FilterDescriptor(name: "contrast", stage: .pre, kind: .point, domain: .perceptual, summary: "Per-channel S-curve pivoting on 18 % grey.", parameters: [
        FilterParameter(name: "contrast", minValue: -1, maxValue: 1, unit: "strength", description: "Per-channel S-curve pivoting on 18 % grey (sRGB 0.46); black and white stay fixed; negative flattens."),
    ])
}
