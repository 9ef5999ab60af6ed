import Foundation

/// A white-balance-style colour shift (`warmth`/`tint` before the film look, `postWarmth`/`postTint`
/// after it; each −1…1, 0 = unchanged), as per-channel gains in linear light.
///
/// Warmth +1 multiplies linear R by 2^0.5 and B by 2^−0.5 (amber), −1 the reverse (blue). Tint follows
/// Lightroom: +1 multiplies G by 2^−0.3 (magenta), −1 by 2^0.3 (green). The three gains are then
/// normalised so a grey keeps its Rec. 709 luminance. The gains act on linear sRGB-primaries light,
/// applied exactly to the encoded values (see `EncodedGain`), so the RAW and RGB paths shift colours
/// identically and no conversion pass surrounds the filter.
public struct WhiteBalanceShift: DescribedFilter {
    /// "warmth/tint" or "postWarmth/postTint": the two recipe values this filter carries.
    public let name: String
    /// −1…1: positive is warmer (amber), negative cooler (blue).
    public let warmth: Double
    /// −1…1: positive is magenta, negative green.
    public let tint: Double

    /// log2 of the R (and inverse B) gain at warmth 1.
    static let warmthStops = 0.5
    /// log2 of the inverse G gain at tint 1.
    static let tintStops = 0.3

    public init(name: String, warmth: Double, tint: Double) {
        self.name = name
        self.warmth = warmth
        self.tint = tint
    }
    public init(values: FilterValues) { self.init(name: values.name, warmth: values["warmth"], tint: values["tint"]) }

    public var isNeutral: Bool { warmth == 0 && tint == 0 }

    /// Linear-light gains for R, G, B, normalised to keep the luminance of grey.
    public var gains: SIMD3<Double> {
        let raw = SIMD3(exp2(WhiteBalanceShift.warmthStops * warmth), exp2(-WhiteBalanceShift.tintStops * tint),
                        exp2(-WhiteBalanceShift.warmthStops * warmth))
        let luminance = 0.2126 * raw.x + 0.7152 * raw.y + 0.0722 * raw.z
        return raw / luminance
    }

    public func apply(_ band: PixelBand, _ context: RenderContext) {
        if isNeutral { return }
        let k = gains
        EncodedGain.scale(band.r, count: band.count, gain: k.x)
        EncodedGain.scale(band.g, count: band.count, gain: k.y)
        EncodedGain.scale(band.b, count: band.count, gain: k.z)
    }
}

extension WhiteBalanceShift {
    /// Gains act in linear light but are applied to the encoded values exactly (`EncodedGain`): the
    /// perceptual domain, so no conversion pass surrounds the filter.
    public static let descriptor = FilterDescriptor(name: "warmth/tint", stage: .pre, kind: .point, domain: .perceptual, summary: "White-balance-style shifts, blue-amber and green-magenta, in linear light.", parameters: [
        FilterParameter(name: "warmth", minValue: -1, maxValue: 1, unit: "strength", description: "White-balance-style shift along blue-amber in linear light: + amber, - blue; grey keeps its luminance."),
        FilterParameter(name: "tint", minValue: -1, maxValue: 1, unit: "strength", description: "White-balance-style shift along green-magenta in linear light: + magenta, - green (as Lightroom)."),
    ])
}
