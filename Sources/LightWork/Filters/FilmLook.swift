/// The film emulation (`film` lookup at `strength` 0…1): result1 → lookup → mix(result1, lookup, strength),
/// in the sRGB-encoded domain the film lookups are made for.
///
/// The lookup sees a copy of each pixel clamped to 0…1 (a lookup table is defined on the unit cube
/// only); the mix keeps the original values where strength is below 1. Neutral without a lookup or at
/// strength 0.
public struct FilmLook: DescribedFilter {
    public let lookup: (any ColorLookup)?
    /// 0 (no film) … 1 (full film).
    public let strength: Double

    public init(lookup: (any ColorLookup)?, strength: Double) {
        self.lookup = lookup
        self.strength = min(max(strength, 0), 1)
    }
    public init(values: FilterValues) { self.init(lookup: values.look, strength: values.lookStrength) }

    public var isNeutral: Bool { lookup == nil || strength == 0 }

    public func apply(_ band: PixelBand, _ context: RenderContext) {
        guard let lookup, strength > 0 else { return }
        lookup.mix(r: band.r, g: band.g, b: band.b, count: band.count, strength: Float(strength))
    }
}

extension FilmLook {
    /// No slider: the look and its strength come from `film`/`lut` and `strength` (0…100), not from `filters`.
    public static let descriptor = FilterDescriptor(name: "film", stage: .film, kind: .point, domain: .perceptual, summary: "The film's lookup (--film or --lut) mixed with the unfilmed image by --strength 0…100.", parameters: [])
}
