import Foundation

/// Where a filter sits in the chain: before the film lookup (shared by both branches) or after the film mix.
public enum FilterStage: String, Sendable, Hashable, Codable { case pre, post }

/// What a filter needs to compute one pixel.
public enum FilterKind: String, Sendable, Hashable, Codable {
    /// Only the pixel itself.
    case point
    /// Surrounding pixels too (blurs, local contrast).
    case neighbourhood
    /// Generated texture (grain, dust), deterministic per image.
    case synthesis
}

/// One slider: a filter's main amount or one of its sub-parameters, with its dual-zone mapping.
///
/// UI −100 reaches `minValue`, UI +100 `maxValue`, UI 0 `defaultValue` (always 0 for a main amount, since
/// filter values are offsets from neutral). Each half is linear on its own (`DualZoneRange` around the default).
public struct FilterParameter: Sendable, Hashable {
    /// Full name: `contrast`, or `vignette.size` for a sub-parameter.
    public let name: String
    public let minValue: Double
    public let maxValue: Double
    public let defaultValue: Double
    /// The value's unit or meaning, one line.
    public let unit: String
    public let description: String

    public init(name: String, minValue: Double, maxValue: Double, defaultValue: Double, unit: String, description: String) {
        self.name = name
        self.minValue = minValue
        self.maxValue = maxValue
        self.defaultValue = defaultValue
        self.unit = unit
        self.description = description
    }

    /// The slider as offsets from the default (the app's dual-zone rule).
    public var zone: DualZoneRange { DualZoneRange(minValue: minValue - defaultValue, maxValue: maxValue - defaultValue) }

    /// UI −100…100 → value.
    public func value(forUI ui: Double) -> Double { defaultValue + zone.value(forUI: ui) }

    /// Value → UI on the given half.
    public func ui(forValue value: Double, useLeftRange: Bool) -> Double {
        zone.ui(forValue: value - defaultValue, useLeftRange: useLeftRange)
    }

    /// Whether a value is reachable on the given half.
    public func contains(value: Double, useLeftRange: Bool) -> Bool {
        zone.contains(value: value - defaultValue, useLeftRange: useLeftRange)
    }

    /// The values the given half covers, for messages.
    public func values(useLeftRange: Bool) -> ClosedRange<Double> {
        let r = zone.values(useLeftRange: useLeftRange)
        return (r.lowerBound + defaultValue)...(r.upperBound + defaultValue)
    }
}

/// One filter of the chain as `Profiles/filters.json` declares it.
public struct FilterDefinition: Sendable, Hashable {
    public let name: String
    public let stage: FilterStage
    public let kind: FilterKind
    /// The main amount (default 0).
    public let amount: FilterParameter
    /// Sub-parameters, full names `name.sub`, in file order.
    public let parameters: [FilterParameter]

    public var minValue: Double { amount.minValue }
    public var maxValue: Double { amount.maxValue }
    public var zone: DualZoneRange { amount.zone }
}

/// Every filter's range, declared once in `Profiles/filters.json`; validation, UI↔value mapping, docs and
/// listings all derive from it.
public struct FilterRanges: Sendable, Hashable {
    /// The file format version this code reads.
    public static let currentVersion = 1
    /// The filters the chain runs, in chain order (fixed by the engine; the file must declare exactly these).
    public static let chainOrder = [
        "brightness", "clarity", "contrast", "warmth", "tint", "clarity2", "vignette",
        "postWarmth", "postTint", "fade", "grain", "saturation", "dust",
    ]

    public let version: Int
    /// The file's own summary.
    public let description: String
    /// Filters in chain order.
    public let filters: [FilterDefinition]
    private let byName: [String: FilterParameter]

    public init(version: Int = FilterRanges.currentVersion, description: String = "", filters: [FilterDefinition]) {
        self.version = version
        self.description = description
        self.filters = filters
        var map: [String: FilterParameter] = [:]
        for f in filters {
            map[f.name] = f.amount
            for p in f.parameters { map[p.name] = p }
        }
        byName = map
    }

    /// Every slider name in chain order, each filter's sub-parameters right after it.
    public var parameterNames: [String] { filters.flatMap { [$0.name] + $0.parameters.map(\.name) } }

    public func filter(named name: String) -> FilterDefinition? { filters.first { $0.name == name } }

    /// A main amount (`contrast`) or a sub-parameter (`vignette.size`).
    public func parameter(named name: String) -> FilterParameter? { byName[name] }

    /// Reads and validates a filters.json file.
    public static func load(from url: URL) throws -> FilterRanges {
        let data: Data
        do { data = try Data(contentsOf: url) } catch { throw LightWorkError.missingInput(url.path) }
        return try parse(data, file: url.path)
    }

    private static let cache = LockedBox<[String: FilterRanges]>([:])

    /// The table in a Profiles folder (default: `ProfilesDirectory.locate()`), read once per process.
    public static func bundled(profiles: URL? = nil) throws -> FilterRanges {
        let folder = try profiles ?? ProfilesDirectory.locate()
        let url = folder.appendingPathComponent("filters.json")
        if let hit = cache.withLock({ $0[url.path] }) { return hit }
        let ranges = try load(from: url)
        cache.withLock { $0[url.path] = ranges }
        return ranges
    }

    /// Parses and validates the JSON: version, every chain filter exactly once in chain order, finite ranges,
    /// main defaults 0, sub-parameter defaults inside their range.
    public static func parse(_ data: Data, file: String) throws -> FilterRanges {
        let root = try JSONNode.parse(data, file: file)
        let top = try root.object(allowing: ["version", "description", "filters"])
        let versionNode = try top.required("version", in: root)
        let version = try versionNode.int()
        guard version == currentVersion else {
            throw versionNode.fail("unsupported version \(version) (this LightWork reads version \(currentVersion))")
        }
        let description = try top["description"]?.string() ?? ""
        let list = try top.required("filters", in: root)
        var filters: [FilterDefinition] = []
        for node in try list.array() {
            let f = try node.object(allowing: ["name", "stage", "kind", "minValue", "maxValue", "default",
                                               "unit", "description", "parameters"])
            let nameNode = try f.required("name", in: node)
            let name = try nameNode.string()
            guard chainOrder.contains(name) else {
                throw nameNode.fail("unknown filter \"\(name)\" (the chain runs: \(chainOrder.joined(separator: ", ")))")
            }
            guard !filters.contains(where: { $0.name == name }) else { throw nameNode.fail("filter \"\(name)\" declared twice") }
            guard filters.count < chainOrder.count, chainOrder[filters.count] == name else {
                throw nameNode.fail("filter \"\(name)\" out of chain order (expected \"\(chainOrder[filters.count])\" here)")
            }
            let stage = try enumValue(FilterStage.self, f.required("stage", in: node))
            let kind = try enumValue(FilterKind.self, f.required("kind", in: node))
            let amount = try slider(name: name, f, node, isMain: true)
            var subs: [FilterParameter] = []
            if let params = f["parameters"] {
                for pNode in try params.array() {
                    let p = try pNode.object(allowing: ["name", "minValue", "maxValue", "default", "unit", "description"])
                    let subNode = try p.required("name", in: pNode)
                    let sub = try subNode.string()
                    guard !sub.isEmpty, !sub.contains("."), !sub.contains("=") else {
                        throw subNode.fail("a sub-parameter name is a plain word (it is addressed as \(name).<word>)")
                    }
                    guard !subs.contains(where: { $0.name == "\(name).\(sub)" }) else { throw subNode.fail("declared twice") }
                    subs.append(try slider(name: "\(name).\(sub)", p, pNode, isMain: false))
                }
            }
            filters.append(FilterDefinition(name: name, stage: stage, kind: kind, amount: amount, parameters: subs))
        }
        guard filters.count == chainOrder.count else {
            throw list.fail("missing filter \"\(chainOrder[filters.count])\" (the file must declare: \(chainOrder.joined(separator: ", ")))")
        }
        return FilterRanges(version: version, description: description, filters: filters)
    }

    private static func enumValue<E: RawRepresentable>(_: E.Type, _ node: JSONNode) throws -> E where E.RawValue == String {
        let s = try node.string()
        guard let e = E(rawValue: s) else { throw node.fail("unknown value \"\(s)\"") }
        return e
    }

    private static func slider(name: String, _ members: [String: JSONNode], _ node: JSONNode, isMain: Bool) throws -> FilterParameter {
        let minValue = try members.required("minValue", in: node).number()
        let maxValue = try members.required("maxValue", in: node).number()
        let defaultNode = try members.required("default", in: node)
        let defaultValue = try defaultNode.number()
        if isMain {
            guard defaultValue == 0 else { throw defaultNode.fail("a filter's default is 0 (values are offsets from neutral)") }
        } else {
            guard defaultValue >= Swift.min(minValue, maxValue) && defaultValue <= Swift.max(minValue, maxValue) else {
                throw defaultNode.fail("default \(defaultValue) lies outside \(minValue)…\(maxValue)")
            }
        }
        let unit = try members.required("unit", in: node).string()
        let description = try members.required("description", in: node).string()
        return FilterParameter(name: name, minValue: minValue, maxValue: maxValue, defaultValue: defaultValue,
                               unit: unit, description: description)
    }

    /// A plain-text table for `lightwork filters`: name, stage, range (UI −100 / 0 / +100), unit, meaning.
    public func listing() -> String {
        var lines = ["filter               stage  UI −100 … 0 … +100          unit"]
        func fmt(_ v: Double) -> String {
            v == v.rounded() && abs(v) < 1e6 ? String(Int(v)) : String(format: "%g", v)
        }
        for f in filters {
            for p in [f.amount] + f.parameters {
                let isMain = p.name == f.name
                let label = isMain ? p.name : "  " + p.name
                let range = "\(fmt(p.minValue)) … \(fmt(p.defaultValue)) … \(fmt(p.maxValue))"
                let stage = isMain ? f.stage.rawValue : ""
                lines.append(label.padding(toLength: 21, withPad: " ", startingAt: 0)
                    + stage.padding(toLength: 7, withPad: " ", startingAt: 0)
                    + range.padding(toLength: 28, withPad: " ", startingAt: 0) + p.unit)
                lines.append(String(repeating: " ", count: isMain ? 4 : 6) + p.description)
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
