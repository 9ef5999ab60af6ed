import Foundation
import LightWork

/// The export flags a photographer expects (`--long-edge`, `--short-edge`, `--scale`, `--name`, `--on-exist`,
/// `--include`, `--exclude`, `--min-rating`, `--label`, `--prefer`, `--artist`, `--copyright`, `--keywords`; declared in
/// ConvertCommand.specs), parsed and checked before any file is touched.
enum ExportArguments {
    /// The resize request, if any; at most one of the three flags.
    static func resize(_ p: ParsedArguments) throws -> ResizeSpec? {
        var modes: [ResizeSpec.Mode] = []
        if let v = p.value("long-edge") { modes.append(.longEdge(try pixels("--long-edge", v))) }
        if let v = p.value("short-edge") { modes.append(.shortEdge(try pixels("--short-edge", v))) }
        if let v = p.value("scale") {
            guard let f = Double(v) else { throw LightWorkError.usage("--scale takes a number 0 < F <= 1, not '\(v)'") }
            modes.append(.scale(f))
        }
        guard modes.count <= 1 else { throw LightWorkError.usage("--long-edge, --short-edge and --scale exclude each other: choose one") }
        return try modes.first.map(ResizeSpec.init)
    }

    /// `--name` and `--on-exist`: how outputs are named (nil where the flag is not given).
    static func naming(_ p: ParsedArguments) throws -> (name: OutputNameTemplate?, onExist: CollisionPolicy?) {
        var policy: CollisionPolicy?
        if let v = p.value("on-exist") {
            guard let value = CollisionPolicy(rawValue: v) else { throw ConvertCommand.choices("--on-exist", v, CollisionPolicy.allCases.map(\.rawValue)) }
            policy = value
        }
        return (try p.value("name").map { try OutputNameTemplate($0) }, policy)
    }

    /// The planner's rules: the spec's naming, and which inputs the batch takes (`--include`, `--exclude`, `--prefer`).
    static func rules(_ p: ParsedArguments, spec: ConvertSpec) throws -> PlanRules {
        var prefer = PairPreference.raw
        if let v = p.value("prefer") {
            guard let value = PairPreference(rawValue: v) else { throw ConvertCommand.choices("--prefer", v, PairPreference.allCases.map(\.rawValue)) }
            prefer = value
        }
        var rules = try PlanRules(spec: spec, filter: try InputFilter(include: p.all("include"), exclude: p.all("exclude")), prefer: prefer)
        rules.selection = try selection(p)
        return rules
    }

    /// `--min-rating` and `--label`: which inputs the batch takes by their XMP sidecar.
    static func selection(_ p: ParsedArguments) throws -> InputSelection {
        var minRating: Int?
        if let v = p.value("min-rating") {
            guard let n = Int(v) else { throw LightWorkError.usage("--min-rating takes 0…5 stars, not '\(v)'") }
            minRating = n
        }
        let labels = p.all("label").flatMap { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        return try InputSelection(minRating: minRating, labels: labels)
    }

    /// `--artist`, `--copyright`, `--keywords` over the recipe's `metadata` section, field by field; nil when neither sets
    /// anything. With `--strip-metadata` the flags are refused (they would be dropped) and the recipe's section ignored.
    static func metadata(_ p: ParsedArguments, recipe: MetadataOverrides?) throws -> MetadataOverrides? {
        func text(_ flag: String) throws -> String? {
            guard let v = p.value(flag) else { return nil }
            guard let s = DescriptiveMetadata.cleaned(v) else { throw LightWorkError.usage("--\(flag) is empty") }
            return s
        }
        var flags = MetadataOverrides(artist: try text("artist"), copyright: try text("copyright"))
        if let k = p.value("keywords") {
            let list = MetadataOverrides.keywords(k)
            guard !list.isEmpty else { throw LightWorkError.usage("--keywords names no keyword") }
            flags.keywords = list
        }
        if p.has("strip-metadata") {
            guard flags.isEmpty else { throw LightWorkError.usage("--strip-metadata writes no metadata: --artist, --copyright and --keywords would be dropped") }
            return nil
        }
        let merged = (recipe ?? MetadataOverrides()).overlaid(by: flags)
        return merged.isEmpty ? nil : merged
    }

    private static func pixels(_ flag: String, _ v: String) throws -> Int {
        guard let n = Int(v), n >= 1 else { throw LightWorkError.usage("\(flag) takes a whole number of pixels ≥ 1, not '\(v)'") }
        return n
    }
}
