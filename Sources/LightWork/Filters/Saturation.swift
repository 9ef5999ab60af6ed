/// Colour saturation (`saturation`, −1…1; 0 = unchanged, −1 = exact greyscale), in the sRGB-encoded domain.
///
/// Each channel moves away from or towards the pixel's luma L (Rec. 709 weights): `L + s · (c − L)`, so
/// luma is kept. Negative values scale chroma by 1 + saturation, and −1 writes L itself into R, G and B
/// (bit-identical channels). Positive values boost vibrance-style: the scale is
/// `1 + saturation · (1 − 0.7 · C)` with C = max − min of the pixel's channels (clamped to 1), so muted
/// colours gain most and already-saturated ones only a little, which keeps them from clipping.
public struct Saturation: DescribedFilter {
    public let amount: Double

    public init(amount: Double) { self.amount = Saturation.descriptor.parameter("saturation").clamp(amount) }
    public init(values: FilterValues) { self.init(amount: values["saturation"]) }

    public var isNeutral: Bool { amount == 0 }

    public func apply(_ band: PixelBand, _ context: RenderContext) {
        if amount == 0 { return }
        let r = band.r, g = band.g, b = band.b, n = band.count
        if amount <= -1 {
            for i in 0..<n {
                let l = 0.2126 * r[i] + 0.7152 * g[i] + 0.0722 * b[i]
                r[i] = l; g[i] = l; b[i] = l
            }
        } else if amount < 0 {
            let s = Float(1 + amount)
            for i in 0..<n {
                let l = 0.2126 * r[i] + 0.7152 * g[i] + 0.0722 * b[i]
                r[i] = l + s * (r[i] - l); g[i] = l + s * (g[i] - l); b[i] = l + s * (b[i] - l)
            }
        } else {
            let a = Float(amount)
            for i in 0..<n {
                let l = 0.2126 * r[i] + 0.7152 * g[i] + 0.0722 * b[i]
                // max/min of the three as plain selects (Swift.max/min keep this loop from vectorising).
                let x = r[i], y = g[i], z = b[i]
                let hi = y >= x ? y : x, lo = y < x ? y : x
                let spread = (z >= hi ? z : hi) - (z < lo ? z : lo)
                let chroma = spread < 1 ? spread : 1
                let s = 1 + a * (1 - 0.7 * chroma)
                r[i] = l + s * (r[i] - l); g[i] = l + s * (g[i] - l); b[i] = l + s * (b[i] - l)
            }
        }
    }
}

extension Saturation {
    public static let descriptor = FilterDescriptor(name: "saturation", stage: .post, kind: .point, domain: .perceptual, summary: "Chroma around luma, luminance kept.", parameters: [
        FilterParameter(name: "saturation", minValue: -1, maxValue: 1, unit: "strength", description: "Chroma around luma, luminance kept: -1 is exact greyscale; + is vibrance-like (already saturated colours gain less)."),
    ])
}
