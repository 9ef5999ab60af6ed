import Foundation

/// One slider after resolution: what the manifest records (UI, value, half).
public struct ResolvedSetting: Sendable, Hashable, Codable {
    public let name: String
    public let ui: Double
    public let value: Double
    public let useLeftRange: Bool

    public init(name: String, ui: Double, value: Double, useLeftRange: Bool) {
        self.name = name
        self.ui = ui
        self.value = value
        self.useLeftRange = useLeftRange
    }
}

/// The film a recipe resolved to.
public struct ResolvedFilm: Sendable, Hashable, Codable {
    public let lookupId: String
    /// The film's name on one line.
    public let name: String
    public let packId: String
    /// Absolute path of its lookup image (checked to lie inside the catalog's folder).
    public let lookupImage: String
}

/// A recipe with every slider resolved against `FilterRanges` and its film checked against the catalog and
/// entitlements: what the engine runs and the manifest records.
public struct ResolvedRecipe: Sendable, Hashable, Codable {
    public let version: Int
    public let name: String
    /// Every slider in chain order (sub-parameters after their filter), defaults included.
    public let settings: [ResolvedSetting]
    public let film: ResolvedFilm?
    /// Absolute path of the recipe's LUT, if it names one.
    public let lut: String?
    /// Film/LUT mix 0…100.
    public let strength: Double
    public let export: ExportSettings?
    /// The recipe's `develop` section, parsed by each module (defaults where it sets nothing).
    public let develop: DevelopSettings
    /// The recipe's `metadata` section (credit for every output), nil without one.
    public var metadata: MetadataOverrides?
    /// The recipe's `cameraProfile` pin, nil without one.
    public var cameraProfile: CameraProfilePin?

    public init(version: Int, name: String, settings: [ResolvedSetting], film: ResolvedFilm?, lut: String?,
                strength: Double, export: ExportSettings?, develop: DevelopSettings = DevelopSettings(), metadata: MetadataOverrides? = nil) {
        self.version = version
        self.name = name
        self.settings = settings
        self.film = film
        self.lut = lut
        self.strength = strength
        self.export = export
        self.develop = develop
        self.metadata = metadata
    }

    public subscript(name: String) -> ResolvedSetting? { settings.first { $0.name == name } }

    /// A slider's resolved value (0 for a name the table does not know).
    public func value(_ name: String) -> Double { self[name]?.value ?? 0 }

    /// The weight of the lookup branch in the mix (0…1); 0 when there is no film or LUT.
    public var lookupMix: Double { film != nil || lut != nil ? strength / 100 : 0 }
}
