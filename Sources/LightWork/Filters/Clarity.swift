/// Midtone local contrast (`clarity` and `clarity2`, −1…1; 0 = unchanged), sRGB-encoded domain.
///
/// detail = L − blur(L) with a Gaussian of 3 % of the long edge (L = Rec. 709 luma of the encoded
/// values). The added luma is `amount × d / (1 + (d / 0.1)²) × 4L(1 − L)`: the limiter lets fine texture
/// through but fades detail at strong edges (so no halos along skylines at ±1), and the midtone weight
/// leaves black and white alone. The change is added equally to R, G and B, which keeps the hue.
/// Negative amounts soften local contrast (at −1 midtone texture flattens towards the blur).
public struct Clarity: DescribedFilter {
    public let name: String
    /// −1…1.
    public let amount: Double

    /// Blur standard deviation as a fraction of the long edge.
    public static let radius = 0.03
    /// Detail level (in encoded units) where the halo limiter peaks; larger detail is attenuated.
    static let limit: Float = 0.1

    public init(name: String = "clarity", amount: Double) {
        self.name = name
        self.amount = amount
    }
    public init(values: FilterValues) { self.init(name: values.name, amount: values["clarity"]) }

    public var isNeutral: Bool { amount == 0 }

    public func apply(_ band: PixelBand, _ context: RenderContext) {
        guard amount != 0, let blur = band.guide else { return }
        let strength = Float(amount) * (amount > 0 ? 1.5 : 1)
        let inverseLimitSquared = 1 / (Clarity.limit * Clarity.limit)
        let r = band.r, g = band.g, b = band.b
        for i in 0..<band.count {
            let l = 0.2126 * r[i] + 0.7152 * g[i] + 0.0722 * b[i]
            let d = l - blur[i]
            let positive = l > 0 ? l : 0
            let lc = positive < 1 ? positive : 1
            let weight = 4 * lc * (1 - lc)
            let delta = strength * weight * d / (1 + d * d * inverseLimitSquared)
            r[i] += delta; g[i] += delta; b[i] += delta
        }
    }
}

extension Clarity {
    public static let descriptor = FilterDescriptor(name: "clarity", stage: .pre, kind: .neighbourhood, domain: .perceptual, guideRadius: radius, summary: "Midtone local contrast with a halo limiter.", parameters: [
        FilterParameter(name: "clarity", minValue: -1, maxValue: 1, unit: "strength", description: "Midtone local contrast against a luminance blur of 3 % of the long edge, with a halo limiter; added equally to R, G, B so hue is kept. Negative softens."),
    ])
}
