/// Every setting that changes output bytes, after defaults, recipe and command line are merged.
/// Recorded in the manifest; its digest decides whether an existing output can be reused.
public struct ResolvedSettings: Codable, Sendable, Equatable {
    public var format: String
    public var bitDepth: Int
    public var colorSpace: String
    public var quality: Int?
    public var compression: String?
    public var demosaic: String
    public var intent: String
    public var background: String
    public var stripMetadata: Bool
    /// Per filter: UI value, resolved value and the dual-zone flag (empty for a neutral recipe).
    public var filters: [String: FilterSetting]
    public var recipeName: String?
    public var film: String?
    public var strength: Double?
    /// RAW colour model (dng or libraw).
    public var colorModel: String?
    /// The camera profile and its optional steps (`CameraProfileSetting.record`); absent for `matrix`, so a
    /// conversion without one keeps the digest earlier releases wrote.
    public var cameraProfile: String?
    public var lutInterpolation: String?
    /// Resampling (e.g. "long-edge 2048, lanczos3 linear"); absent when images keep their size.
    public var resize: String?
    /// Develop modules that are on, by name, with their canonical setting (`DevelopSettings.record`); absent when
    /// none is, so a conversion without development keeps the digest earlier releases wrote.
    public var develop: [String: String]?
    /// The credit written over the carried metadata (`MetadataOverrides`); absent when none is given, so conversions
    /// without one keep the digest earlier releases wrote.
    public var metadata: MetadataOverrides?
    /// The output codec's encoder options other than JPEG's quality and TIFF's compression (kept in their fields
    /// above for earlier releases' digests), every declared one with its value or default; absent for a codec with none.
    public var codecOptions: [String: String]?

    public struct FilterSetting: Codable, Sendable, Equatable {
        public var ui: Double
        public var value: Double
        public var useLeftRange: Bool

        public init(ui: Double, value: Double, useLeftRange: Bool) {
            self.ui = ui
            self.value = value
            self.useLeftRange = useLeftRange
        }
    }

    public init(format: String, bitDepth: Int, colorSpace: String, quality: Int?, compression: String?, demosaic: String,
                intent: String, background: String, stripMetadata: Bool, filters: [String: FilterSetting] = [:],
                recipeName: String? = nil, film: String? = nil, strength: Double? = nil) {
        self.format = format
        self.bitDepth = bitDepth
        self.colorSpace = colorSpace
        self.quality = quality
        self.compression = compression
        self.demosaic = demosaic
        self.intent = intent
        self.background = background
        self.stripMetadata = stripMetadata
        self.filters = filters
        self.recipeName = recipeName
        self.film = film
        self.strength = strength
    }
}
