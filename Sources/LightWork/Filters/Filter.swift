/// Where a filter's maths is defined. The engine converts the pixels into that domain before the filter.
public enum FilterDomain: String, Sendable, Hashable, Codable {
    /// Linear light in the image's own primaries (exposure, white balance, vignetting behave physically here).
    case linear
    /// sRGB-encoded values in sRGB primaries: the domain the original app's looks were designed in
    /// (film LUTs, contrast pivot, fade, grain) — identical for the RAW and the RGB path.
    case perceptual
}

/// One step of the chain: a pure value holding its parameters and a per-pixel function.
///
/// Filters never decide tiling, threads or precision; the engine does (see `Renderer`). A filter with
/// a `guideRadius` gets the blurred luminance of its input image in `PixelBand.guide`.
public protocol Filter: Sendable {
    /// The name used in recipes, `--set` and the manifest.
    var name: String { get }
    /// True when the filter would change nothing; the engine then skips it (and any blur it needs).
    var isNeutral: Bool { get }
    /// The domain `apply` expects.
    var domain: FilterDomain { get }
    /// When non-nil, the engine computes a blurred luminance of the filter's input with this radius,
    /// given as a fraction of the image's long edge (so the result is resolution independent), from a
    /// reduced copy of the image run through the chain up to this filter. `apply` is then also called on bands
    /// of that reduced copy (the guide grid), so the next guide sees this filter's effect.
    var guideRadius: Double? { get }
    /// Transforms one band in place.
    func apply(_ band: PixelBand, _ context: RenderContext)
}

public extension Filter {
    var guideRadius: Double? { nil }
}
