import Foundation

/// Every develop module's setting, typed, keyed by the module's descriptor name; a module not set has its
/// `defaultSetting`. Written (spec, worker protocol) as `{"whiteBalance": "5200:+8", …}`: each module's canonical
/// text, parsed back by the module itself.
public struct DevelopSettings: Sendable, Hashable, Codable {
    private var values: [String: any DevelopSetting] = [:]

    /// Every module at its default.
    public init() {}

    /// The setting of `module`.
    public subscript<M: DevelopModule>(_ module: M.Type) -> M.Setting {
        get { values[M.descriptor.name] as? M.Setting ?? M.defaultSetting }
        set { values[M.descriptor.name] = newValue }
    }

    /// Sets the module called `name` from text (a CLI value, a recipe's); throws `usage` for an unknown name or value.
    public mutating func set(_ name: String, text: String) throws {
        guard let module = DevelopStage.module(named: name) else {
            throw LightWorkError.usage("unknown develop setting \"\(name)\" (known: \(DevelopStage.names.joined(separator: ", ")))")
        }
        values[name] = try module.parseSetting(text)
    }

    /// The canonical text of the module called `name` (its default's when not set).
    public func text(_ name: String) -> String? {
        guard let module = DevelopStage.module(named: name) else { return nil }
        return values[name]?.text ?? module.defaultText
    }

    /// Whether the module called `name` is off.
    func isOff(_ name: String) -> Bool {
        guard let module = DevelopStage.module(named: name) else { return true }
        return values[name]?.isOff ?? module.defaultIsOff
    }

    /// The manifest's record: the text of every module that is not off, by name; nil when all are (so the settings
    /// digest of a conversion without development is the one earlier releases wrote).
    public var record: [String: String]? {
        var out: [String: String] = [:]
        for name in DevelopStage.names where !isOff(name) { out[name] = text(name) }
        return out.isEmpty ? nil : out
    }

    public static func == (a: DevelopSettings, b: DevelopSettings) -> Bool {
        DevelopStage.names.allSatisfy { a.text($0) == b.text($0) }
    }

    public func hash(into hasher: inout Hasher) {
        for name in DevelopStage.names { hasher.combine(text(name)) }
    }

    public init(from decoder: Decoder) throws {
        let texts = try decoder.singleValueContainer().decode([String: String].self)
        for (name, text) in texts.sorted(by: { $0.key < $1.key }) {
            do { try set(name, text: text) } catch {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "develop \(name): \(error)"))
            }
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(values.mapValues(\.text))
    }
}

extension DevelopModule {
    static func parseSetting(_ text: String) throws -> any DevelopSetting { try Setting(parsing: text) }
    static var defaultText: String { defaultSetting.text }
    static var defaultIsOff: Bool { defaultSetting.isOff }

    /// Runs the module when its setting in `settings` is on.
    static func run(_ settings: DevelopSettings, on image: PlanarImage, context: inout DevelopContext) throws -> PlanarImage {
        let setting = settings[Self.self]
        return setting.isOff ? image : try apply(setting, to: image, context: &context)
    }
}
