import Foundation
import LightWork

/// The export flags a photographer expects (`--long-edge`, `--short-edge`, `--scale`, `--name`, `--on-exist`,
/// `--include`, `--exclude`, `--prefer`; declared in ConvertCommand.specs), parsed and checked before any file is touched.
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

    /// Selection and naming rules for the planner.
    static func rules(_ p: ParsedArguments, options: ConvertOptions) throws -> PlanRules {
        var rules = PlanRules(outputExtension: options.encode.format.fileExtension)
        rules.filter = try InputFilter(include: p.all("include"), exclude: p.all("exclude"))
        if let v = p.value("prefer") {
            guard let prefer = PairPreference(rawValue: v) else { throw ConvertCommand.choices("--prefer", v, PairPreference.allCases.map(\.rawValue)) }
            rules.prefer = prefer
        }
        if let v = p.value("on-exist") {
            guard let policy = CollisionPolicy(rawValue: v) else { throw ConvertCommand.choices("--on-exist", v, CollisionPolicy.allCases.map(\.rawValue)) }
            rules.onExist = policy
        }
        if let v = p.value("name") { rules.name = try OutputNameTemplate(v) }
        rules.filmName = filmName(label: options.settings.film)
        rules.recipeName = options.settings.recipeName
        return rules
    }

    /// The film's name from the manifest's label ("0001001 Kodak Portra 400" → "Kodak Portra 400"), or a LUT
    /// file's stem ("teal.cube" → "teal").
    static func filmName(label: String?) -> String? {
        guard let label else { return nil }
        let parts = label.split(separator: " ", maxSplits: 1)
        if parts.count == 2, parts[0].count == 7, parts[0].allSatisfy(\.isNumber) { return String(parts[1]) }
        return (label as NSString).deletingPathExtension
    }

    private static func pixels(_ flag: String, _ v: String) throws -> Int {
        guard let n = Int(v), n >= 1 else { throw LightWorkError.usage("\(flag) takes a whole number of pixels ≥ 1, not '\(v)'") }
        return n
    }
}
