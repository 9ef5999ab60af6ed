import Foundation

/// Every slider of a chain, read from its filters' descriptors (`FilterChain.slots`): validation, UI↔value
/// mapping, migration, `lightwork filters` and `Profiles/filters.json` all derive from it.
public struct FilterRanges: Sendable {
    /// The version of the `Profiles/filters.json` layout `json()` writes.
    public static let fileVersion = 2

    /// The chain LightWork runs.
    public static let standard: FilterRanges = {
        do { return try FilterRanges(slots: FilterChain.slots) } catch { preconditionFailure("FilterChain.slots: \(error)") }
    }()

    /// The chain's filters in order.
    public let slots: [FilterSlot]
    private let byName: [String: (slot: Int, parameter: FilterParameter)]

    /// The table for `slots`, refused when two sliders or instances share a name, a main amount's default is
    /// not 0, a default lies outside its range, a range is empty, a sub-parameter has no main amount in its
    /// filter, or the stages are out of order (pre, film, post).
    public init(slots: [FilterSlot]) throws {
        var map: [String: (slot: Int, parameter: FilterParameter)] = [:]
        func fail(_ reason: String) -> LightWorkError { .invalidDocument(file: "FilterChain.slots", path: "$", reason: reason) }
        var instances: Set<String> = []
        var lastStage = 0
        let stageOrder: [FilterStage] = [.pre, .film, .post]
        for (i, slot) in slots.enumerated() {
            guard instances.insert(slot.name).inserted else { throw fail("filter \"\(slot.name)\" declared twice") }
            let stage = stageOrder.firstIndex(of: slot.stage) ?? 0
            guard stage >= lastStage else {
                throw fail("filter \"\(slot.name)\" (\(slot.stage.rawValue)) out of chain order: it follows a \(stageOrder[lastStage].rawValue) filter")
            }
            lastStage = stage
            for p in slot.parameters {
                guard map[p.name] == nil else { throw fail("slider \"\(p.name)\" declared twice") }
                guard p.minValue != p.maxValue, p.minValue.isFinite, p.maxValue.isFinite else {
                    throw fail("slider \"\(p.name)\" has no range (\(p.minValue)…\(p.maxValue))")
                }
                let parts = p.name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
                switch parts.count {
                case 1:
                    guard p.defaultValue == 0 else { throw fail("\(p.name): a filter's default is 0 (values are offsets from neutral)") }
                case 2:
                    guard !parts[1].isEmpty, !parts[1].contains("="), slot.parameters.contains(where: { $0.name == parts[0] }) else {
                        throw fail("\(p.name): a sub-parameter is main.word, after its main amount \"\(parts[0])\" in the same filter")
                    }
                    guard p.clamp(p.defaultValue) == p.defaultValue else {
                        throw fail("\(p.name): default \(p.defaultValue) lies outside \(p.minValue)…\(p.maxValue)")
                    }
                default:
                    throw fail("\(p.name): a slider name is a word or main.word")
                }
                map[p.name] = (i, p)
            }
        }
        self.slots = slots
        byName = map
    }

    /// Every slider name in chain order, each filter's sub-parameters right after it.
    public var parameterNames: [String] { slots.flatMap { $0.parameters.map(\.name) } }

    /// A main amount (`contrast`) or a sub-parameter (`vignette.size`).
    public func parameter(named name: String) -> FilterParameter? { byName[name]?.parameter }

    /// The chain filter that reads the slider `name`.
    public func slot(owning name: String) -> FilterSlot? { byName[name].map { slots[$0.slot] } }

    /// A plain-text table for `lightwork filters`: name, stage, range (UI −100 / 0 / +100), unit, meaning.
    /// A half that would do nothing (grain below 0) shows as "n/a": its UI positions are refused.
    public func listing() -> String {
        var lines = ["filter               stage  UI −100 … 0 … +100          unit"]
        let f = FilterParameter.format
        func row(_ label: String, _ stage: String, _ range: String, _ unit: String, _ text: String, indent: Int) {
            lines.append(label.padding(toLength: 21, withPad: " ", startingAt: 0)
                + stage.padding(toLength: 7, withPad: " ", startingAt: 0)
                + range.padding(toLength: 28, withPad: " ", startingAt: 0) + unit)
            lines.append(String(repeating: " ", count: indent) + text)
        }
        for slot in slots {
            if slot.parameters.isEmpty {
                row(slot.name, slot.stage.rawValue, "--strength 0 … 100", "%", slot.summary, indent: 4)
            }
            for p in slot.parameters {
                let isMain = !p.name.contains(".")
                let low = p.usableUI.lowerBound < 0 ? f(p.minValue) : "n/a"
                let high = p.usableUI.upperBound > 0 ? f(p.maxValue) : "n/a"
                row(isMain ? p.name : "  " + p.name, isMain ? slot.stage.rawValue : "", "\(low) … \(f(p.defaultValue)) … \(high)",
                    p.unit, p.description, indent: isMain ? 4 : 6)
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The table as `Profiles/filters.json` holds it (`lightwork filters --json`), in chain order, with a stable
    /// layout so the shipped file can be held equal to it.
    public func json() -> String {
        func string(_ s: String) -> String {
            let data = try? JSONSerialization.data(withJSONObject: s, options: [.fragmentsAllowed, .withoutEscapingSlashes])
            return data.flatMap { String(data: $0, encoding: .utf8) } ?? "\"\""
        }
        func number(_ v: Double) -> String { v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v) }
        var out = "{\n  \"version\": \(FilterRanges.fileVersion),\n"
        out += "  \"description\": \(string(FilterRanges.fileDescription)),\n  \"filters\": [\n"
        out += slots.map { slot -> String in
            let d = slot.descriptor
            var s = "    {\n      \"name\": \(string(slot.name)),\n      \"version\": \(d.version),\n"
            s += "      \"stage\": \"\(slot.stage.rawValue)\",\n      \"kind\": \"\(d.kind.rawValue)\",\n"
            s += "      \"domain\": \"\(d.domain.rawValue)\",\n"
            if let r = d.guideRadius { s += "      \"guideRadius\": \(number(r)),\n" }
            s += "      \"summary\": \(string(slot.summary)),\n      \"parameters\": ["
            s += slot.parameters.isEmpty ? "]\n    }" : "\n" + slot.parameters.map { p in
                "        {\n          \"name\": \(string(p.name)),\n          \"minValue\": \(number(p.minValue)),\n"
                    + "          \"maxValue\": \(number(p.maxValue)),\n          \"default\": \(number(p.defaultValue)),\n"
                    + "          \"unit\": \(string(p.unit)),\n          \"description\": \(string(p.description))\n        }"
            }.joined(separator: ",\n") + "\n      ]\n    }"
            return s
        }.joined(separator: ",\n")
        return out + "\n  ]\n}\n"
    }

    static let fileDescription = "LightWork's filters in chain order, generated from each filter's descriptor by "
        + "`lightwork filters --json` (do not edit: a test holds this file equal to the descriptors). Each filter's "
        + "parameters are its sliders: UI −100 reaches minValue, UI +100 maxValue, UI 0 the default (0 for a main "
        + "amount: values are offsets from neutral); each half is linear on its own (dual-zone slider), and a half "
        + "whose end is the default (grain below 0) is refused. Sub-parameters are named filter.sub. version: the "
        + "meaning of the filter's values (recipes written for an older one are migrated). stage: pre = shared "
        + "branch before the film lookup, film = the lookup and its mix, post = after the film mix. kind: point "
        + "(per pixel), neighbourhood (needs surrounding pixels), synthesis (adds generated texture). domain: the "
        + "pixel encoding the filter works in (linear light, or perceptual = sRGB-encoded values). guideRadius: "
        + "the blurred-luminance guide the filter needs, as a fraction of the long edge."
}
