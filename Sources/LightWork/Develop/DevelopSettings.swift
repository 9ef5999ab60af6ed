import Foundation

/// Every develop module's setting, typed, keyed by the module's descriptor name; a module not set has its
/// `defaultSetting`. Written (spec, worker protocol) as `{"whiteBalance": "5200:+8", …}`: each module's canonical
/// text, parsed back by the module itself.
public struct DevelopSettings: Sendable, Hashable, Codable {
    private var values: [String: any DevelopSetting] = [:]
    /// Modules whose setting came from `applyExportDefaults`, not from a recipe or a flag (no skip note on an encoded
    /// image: nobody asked for them there). Carried through the worker protocol under `exportDefaultsKey`.
    private var exportDefaulted: Set<String> = []
    static let exportDefaultsKey = "exportDefaults"

    /// Every module at its default.
    public init() {}

    /// The setting of `module`.
    public subscript<M: DevelopModule>(_ module: M.Type) -> M.Setting {
        get { values[M.descriptor.name] as? M.Setting ?? M.defaultSetting }
        set {
            values[M.descriptor.name] = newValue
            exportDefaulted.remove(M.descriptor.name)
        }
    }

    /// Sets the module called `name` from text (a CLI value, a recipe's); throws `usage` for an unknown name or value.
    public mutating func set(_ name: String, text: String) throws {
        guard let module = DevelopStage.module(named: name) else {
            throw LightWorkError.usage("unknown develop setting \"\(name)\" (known: \(DevelopStage.names.joined(separator: ", ")))")
        }
        values[name] = try module.parseSetting(text)
        exportDefaulted.remove(name)
    }

    /// The canonical text of the module called `name` (its default's when not set).
    public func text(_ name: String) -> String? {
        guard let module = DevelopStage.module(named: name) else { return nil }
        return values[name]?.text ?? module.defaultText
    }

    /// Gives every module with an `exportDefault` that is not set that default (what `convert` and `watch` do before
    /// their flags; a recipe's or a flag's setting, `linear` included, stays).
    public mutating func applyExportDefaults() {
        for module in DevelopStage.modules where values[module.descriptor.name] == nil {
            if let d = module.exportDefaultAny {
                values[module.descriptor.name] = d
                exportDefaulted.insert(module.descriptor.name)
            }
        }
    }

    /// Whether the module called `name` has its export default because nothing chose a setting.
    func isExportDefault(_ name: String) -> Bool { exportDefaulted.contains(name) }

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
        var texts = try decoder.singleValueContainer().decode([String: String].self)
        let defaulted = texts.removeValue(forKey: DevelopSettings.exportDefaultsKey)
        for (name, text) in texts.sorted(by: { $0.key < $1.key }) {
            do { try set(name, text: text) } catch {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "develop \(name): \(error)"))
            }
        }
        exportDefaulted = Set((defaulted ?? "").split(separator: ",").map(String.init)).intersection(values.keys)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        var texts = values.mapValues(\.text)
        if !exportDefaulted.isEmpty { texts[DevelopSettings.exportDefaultsKey] = exportDefaulted.sorted().joined(separator: ",") }
        try c.encode(texts)
    }
}

extension DevelopModule {
    static func parseSetting(_ text: String) throws -> any DevelopSetting { try Setting(parsing: text) }
    static var defaultText: String { defaultSetting.text }
    static var defaultIsOff: Bool { defaultSetting.isOff }
    static var exportDefaultAny: (any DevelopSetting)? { exportDefault }

    /// Runs the module when its setting in `settings` is on.
    static func run(_ settings: DevelopSettings, on image: PlanarImage, context: inout DevelopContext) throws -> PlanarImage {
        let setting = settings[Self.self]
        return setting.isOff ? image : try apply(setting, to: image, context: &context)
    }
}
