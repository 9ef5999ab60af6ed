import Foundation

/// Where a filter sits in the chain: before the film lookup (shared by both branches) or after the film mix.
public enum FilterStage: String, Sendable, Hashable, Codable { case pre, film, post }

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
/// `minValue…maxValue` is also exactly what the filter can use: nothing outside it reaches the maths.
public struct FilterParameter: Sendable, Hashable {
    /// Full name: `contrast`, or `vignette.size` for a sub-parameter.
    public let name: String
    public let minValue: Double
    public let maxValue: Double
    public let defaultValue: Double
    /// The value's unit or meaning, one line.
    public let unit: String
    public let description: String

    public init(name: String, minValue: Double, maxValue: Double, defaultValue: Double = 0, unit: String, description: String) {
        self.name = name
        self.minValue = minValue
        self.maxValue = maxValue
        self.defaultValue = defaultValue
        self.unit = unit
        self.description = description
    }

    /// The same slider under another name (a second instance of a filter in the chain).
    func renamed(_ newName: String) -> FilterParameter {
        FilterParameter(name: newName, minValue: minValue, maxValue: maxValue, defaultValue: defaultValue, unit: unit, description: description)
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

    /// The UI positions that move the filter: a half whose end is the default (grain's left half, 0…0) would
    /// resolve every position on it to the default, so it is not offered.
    public var usableUI: ClosedRange<Double> {
        (minValue == defaultValue ? 0 : -100)...(maxValue == defaultValue ? 0 : 100)
    }

    /// Why `ui` cannot be used (nil when it can): outside ±100, or on an empty half. The text names the usable
    /// UI and value range, so the fix is in the message.
    public func refusal(ui: Double) -> String? {
        if !DualZoneRange.uiRange.contains(ui) { return "UI value \(FilterParameter.format(ui)) outside −100…100" }
        if usableUI.contains(ui) { return nil }
        return "\(name) cannot go \(ui < 0 ? "below" : "above") \(FilterParameter.format(defaultValue)) (\(unit)): "
            + "its UI runs \(FilterParameter.format(usableUI.lowerBound))…\(FilterParameter.format(usableUI.upperBound)) "
            + "for values \(FilterParameter.format(minValue))…\(FilterParameter.format(maxValue)); "
            + "UI \(FilterParameter.format(ui)) would do nothing"
    }

    /// `value` kept inside `minValue…maxValue` (for filters built directly in code rather than from a recipe).
    public func clamp(_ value: Double) -> Double {
        Swift.min(Swift.max(value, Swift.min(minValue, maxValue)), Swift.max(minValue, maxValue))
    }

    /// A number as people write it: integers without a decimal point.
    static func format(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e6 ? String(Int(v)) : String(format: "%g", v)
    }
}

/// What a filter declares about itself, once, in its own file: the sliders its `init(values:)` reads, where
/// and how it computes, and the version of its parameters' meaning (bumped with a `migrate` step whenever an
/// old recipe's value would now mean something else).
public struct FilterDescriptor: Sendable {
    /// The filter's name in the chain (its first instance): what the manifest, the chain and listings call it.
    public let name: String
    /// Version of the parameters' meaning; recipes written for an older one go through `migrate`.
    public let version: Int
    /// Where the filter belongs in the chain.
    public let stage: FilterStage
    public let kind: FilterKind
    /// The domain `apply` expects.
    public let domain: FilterDomain
    /// Radius of the blurred luminance guide the filter needs, as a fraction of the long edge (nil = none).
    public let guideRadius: Double?
    /// One line for listings.
    public let summary: String
    /// The sliders, with the names of the first instance. A name without a dot is a main amount (default 0);
    /// `main.sub` is a sub-parameter of the main `main`.
    public let parameters: [FilterParameter]

    public init(name: String, version: Int = 1, stage: FilterStage, kind: FilterKind, domain: FilterDomain,
                guideRadius: Double? = nil, summary: String, parameters: [FilterParameter]) {
        self.name = name
        self.version = version
        self.stage = stage
        self.kind = kind
        self.domain = domain
        self.guideRadius = guideRadius
        self.summary = summary
        self.parameters = parameters
    }

    /// The declared slider called `name` (a programming error when there is none).
    public func parameter(_ name: String) -> FilterParameter {
        guard let p = parameters.first(where: { $0.name == name }) else {
            preconditionFailure("filter \(self.name) declares no parameter \(name)")
        }
        return p
    }
}

/// A filter that describes itself and is built from resolved values: what the chain is made of.
///
/// Adding a filter is its file (the type, its `descriptor`, `init(values:)`, `apply`) and one line in
/// `FilterChain.slots`.
public protocol DescribedFilter: Filter {
    static var descriptor: FilterDescriptor { get }
    /// The filter for resolved values: every declared slider is present and inside its range.
    init(values: FilterValues)
    /// Rewrites a recipe's settings written for `version` (older than `descriptor.version`) into the current
    /// meaning. Keys are the declared names. The default has nothing to migrate.
    static func migrate(from version: Int, settings: inout [String: FilterSetting]) throws
}

public extension DescribedFilter {
    static func migrate(from version: Int, settings: inout [String: FilterSetting]) throws {}
    /// A filter that appears once in the chain goes by its descriptor's name.
    var name: String { Self.descriptor.name }
    var domain: FilterDomain { Self.descriptor.domain }
    var guideRadius: Double? { Self.descriptor.guideRadius }
}

/// What `init(values:)` gets: the instance's name, each declared slider's resolved value (by its declared
/// name, whatever the instance calls it), and the film's lookup for the one filter that mixes it.
public struct FilterValues: Sendable {
    /// The instance's name in the chain (`clarity2` for the second clarity).
    public let name: String
    private let values: [String: Double]
    /// The film's lookup (nil = no film) and its mix 0…1.
    public let look: (any ColorLookup)?
    public let lookStrength: Double

    public init(name: String, values: [String: Double], look: (any ColorLookup)? = nil, lookStrength: Double = 0) {
        self.name = name
        self.values = values
        self.look = look
        self.lookStrength = lookStrength
    }

    /// The value of the declared slider `name`.
    public subscript(_ name: String) -> Double {
        guard let v = values[name] else { preconditionFailure("filter \(self.name) has no value \(name)") }
        return v
    }
}
