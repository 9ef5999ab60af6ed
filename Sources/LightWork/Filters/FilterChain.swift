/// Builds the original app's chain, in its order, from resolved filter values (not UI units):
///
///     brightness → clarity → contrast → warmth/tint → clarity2 → vignette          = result1
///     result1 → film lookup → mix(result1, lookup, strength)                       (FilmLook)
///     → postWarmth/postTint → fade → grain → saturation → dust                     → output
///
/// The film branch of the original (a copy of result1 through the lookup, then mixed) is one point
/// filter here, since both branches share everything up to the vignette.
public enum FilterChain {
    /// The recipe value names `build` reads, in chain order (sub-parameters after their filter).
    public static let valueNames = [
        "brightness", "clarity", "contrast", "warmth", "tint", "clarity2",
        "vignette", "vignette.size", "vignette.feather",
        "postWarmth", "postTint", "fade", "grain", "grain.size", "saturation", "dust", "dust.size",
    ]

    /// Default of each sub-parameter when its key is missing (main values default to 0).
    public static let defaults: [String: Double] = [
        "vignette.size": 0.5, "vignette.feather": 0.5, "grain.size": 0.5, "dust.size": 0.5,
    ]

    /// The chain for `values` (keyed by `valueNames`; a missing key is 0 or the sub-parameter's default),
    /// the film's lookup (nil = no film) and the film strength (0…1). Returns every filter, neutral ones
    /// included; the Renderer skips those.
    public static func build(values: [String: Double], look: (any ColorLookup)?, strength: Double) -> [any Filter] {
        func v(_ key: String) -> Double { values[key] ?? defaults[key] ?? 0 }
        return [
            Brightness(ev: v("brightness")),
            Clarity(name: "clarity", amount: v("clarity")),
            Contrast(amount: v("contrast")),
            WhiteBalanceShift(name: "warmth/tint", warmth: v("warmth"), tint: v("tint")),
            Clarity(name: "clarity2", amount: v("clarity2")),
            Vignette(amount: v("vignette"), size: v("vignette.size"), feather: v("vignette.feather")),
            FilmLook(lookup: look, strength: strength),
            WhiteBalanceShift(name: "postWarmth/postTint", warmth: v("postWarmth"), tint: v("postTint")),
            Fade(amount: v("fade")),
            Grain(amount: v("grain"), size: v("grain.size")),
            Saturation(amount: v("saturation")),
            Dust(density: v("dust"), size: v("dust.size")),
        ]
    }
}
