/// One place in the chain: a filter type, and for a second instance of a type the names it goes by there.
public struct FilterSlot: Sendable {
    public let type: any DescribedFilter.Type
    /// The instance's name (the type's own for its first instance).
    public let name: String
    public let stage: FilterStage
    /// The sliders under this instance's names, with what they mean here.
    public let parameters: [FilterParameter]
    /// What this instance is, one line.
    public let summary: String
    /// Instance name → declared name, for the sliders this instance renames.
    private let declaredNames: [String: String]

    /// `type`'s first instance, as its descriptor declares it.
    public init(_ type: any DescribedFilter.Type) {
        let d = type.descriptor
        self.init(type, name: d.name, stage: d.stage, summary: d.summary, renaming: [:])
    }

    /// Another instance of `type`: its own `name`, each renamed slider's new name (`["clarity": "clarity2"]`
    /// renames `clarity` and any `clarity.sub`), its stage and a line saying what it is.
    public init(_ type: any DescribedFilter.Type, name: String, stage: FilterStage? = nil, summary: String,
                renaming: [String: String]) {
        let d = type.descriptor
        self.type = type
        self.name = name
        self.stage = stage ?? d.stage
        self.summary = summary
        var declared: [String: String] = [:]
        parameters = d.parameters.map { p in
            let parts = p.name.split(separator: ".", maxSplits: 1).map(String.init)
            guard let main = renaming[parts[0]] else { return p }
            let newName = parts.count == 2 ? "\(main).\(parts[1])" : main
            declared[newName] = p.name
            return p.renamed(newName)
        }
        declaredNames = declared
    }

    public var descriptor: FilterDescriptor { type.descriptor }

    /// The declared name of one of this instance's sliders.
    public func declaredName(of name: String) -> String { declaredNames[name] ?? name }

    /// The filter for `values` keyed by this instance's names (a missing key is the slider's default).
    public func make(values: [String: Double], look: (any ColorLookup)?, strength: Double) -> any Filter {
        var declared: [String: Double] = [:]
        for p in parameters { declared[declaredName(of: p.name)] = values[p.name] ?? p.defaultValue }
        return type.init(values: FilterValues(name: name, values: declared, look: look, lookStrength: strength))
    }
}

/// The original app's chain, in its order, declared once:
///
///     brightness → clarity → contrast → warmth/tint → clarity2 → vignette          = result1
///     result1 → film lookup → mix(result1, lookup, strength)                       (FilmLook)
///     → postWarmth/postTint → fade → grain → saturation → dust                     → output
///
/// The film branch of the original (a copy of result1 through the lookup, then mixed) is one point
/// filter here, since both branches share everything up to the vignette. Recipes, `FilterRanges`,
/// `lightwork filters` and `Profiles/filters.json` all read `slots`.
public enum FilterChain {
    /// Every filter in chain order.
    public static let slots: [FilterSlot] = [
        FilterSlot(Brightness.self),
        FilterSlot(Clarity.self),
        FilterSlot(Contrast.self),
        FilterSlot(WhiteBalanceShift.self),
        FilterSlot(Clarity.self, name: "clarity2", summary: "Second clarity stage, after white balance (same maths as clarity, its own setting).",
                   renaming: ["clarity": "clarity2"]),
        FilterSlot(Vignette.self),
        FilterSlot(FilmLook.self),
        FilterSlot(WhiteBalanceShift.self, name: "postWarmth/postTint", stage: .post, summary: "Warmth and tint applied after the film look.",
                   renaming: ["warmth": "postWarmth", "tint": "postTint"]),
        FilterSlot(Fade.self),
        FilterSlot(Grain.self),
        FilterSlot(Saturation.self),
        FilterSlot(Dust.self),
    ]

    /// The filter types in chain order (a type appears once per instance).
    public static var types: [any DescribedFilter.Type] { slots.map(\.type) }

    /// The recipe value names `build` reads, in chain order (sub-parameters after their filter).
    public static let valueNames = slots.flatMap { $0.parameters.map(\.name) }

    /// Default of each sub-parameter when its key is missing (main values default to 0).
    public static let defaults: [String: Double] = Dictionary(uniqueKeysWithValues: slots.flatMap(\.parameters)
        .filter { $0.defaultValue != 0 }.map { ($0.name, $0.defaultValue) })

    /// The chain for `values` (keyed by `valueNames`; a missing key is 0 or the sub-parameter's default),
    /// the film's lookup (nil = no film) and the film strength (0…1). Returns every filter, neutral ones
    /// included; the Renderer skips those.
    public static func build(values: [String: Double], look: (any ColorLookup)?, strength: Double) -> [any Filter] {
        slots.map { $0.make(values: values, look: look, strength: strength) }
    }
}
