import Foundation

/// One case of a verify suite: an input, the look and export settings to render it with, and what to compare
/// the result with — a golden image (per pixel), a chart's patch truth (per patch), or both. Paths are relative
/// to the suite file. Settings follow `convert`'s: defaults, then the recipe's export block, then these fields.
///
/// ```json
/// {"name": "harbour-srgb-png16", "input": "../Samples/scene.dng", "recipe": "../Samples/recipes/harbour-evening.json",
///  "format": "png16", "colorspace": "srgb", "longEdge": 192, "golden": "goldens/harbour-srgb-png16.png",
///  "thresholds": {"max": 2.3, "mean": 0.767}}
/// ```
public struct VerifyCase: Sendable, Codable, Equatable {
    /// Unique within the suite: names the candidate file, the JUnit test case and the report row.
    public var name: String
    /// What this case guards (shown in the report).
    public var description: String?
    /// The input image (RAW, JPEG or PNG).
    public var input: String
    /// A recipe JSON (filters, film, export block).
    public var recipe: String?
    /// A catalog film, by lookup id or name (`--film`).
    public var film: String?
    /// Film strength 0…100 (`--strength`; default the recipe's, else 100).
    public var strength: Double?
    /// Filter overrides in UI units −100…100 (`--set name=UI`), e.g. `{"contrast": 35}`.
    public var set: [String: Double]?
    /// Output format; lossless only: `tiff16`, `tiff8`, `png`, `png16` (default the recipe's, else `tiff16`).
    public var format: OutputFormat?
    /// Output colour space (default the recipe's, else `srgb`).
    public var colorspace: OutputColorSpace?
    /// TIFF compression (default `none`).
    public var compression: TIFFCompression?
    /// Shrink so the longer side has this many pixels (keeps goldens small).
    public var longEdge: Int?
    /// RAW colour model (`--color-model`, default `dng`).
    public var colorModel: DecodeOptions.ColorModel?
    /// RAW demosaic (`--demosaic`, default `ahd`).
    public var demosaic: DecodeOptions.Demosaic?
    /// The blessed output this case's render is compared with, pixel by pixel.
    public var golden: String?
    /// A patch-truth file: the render is measured patch by patch against reference Lab values.
    public var chart: ChartSpec?
    /// Limits for this case (over the suite's, over the defaults max 2.3, mean 0.767).
    public var thresholds: VerifyThresholds?

    /// Chart mode settings.
    public struct ChartSpec: Sendable, Codable, Equatable {
        /// The patch-truth JSON (Samples/scene.truth.json's format); or nil with `reference` for a photographed chart.
        public var truth: String?
        /// A photographed chart: the published values it is measured against (`lightwork chart --reference`); the
        /// chart is found in the render as `lightwork chart` finds it, or placed by `corners`.
        public var reference: String?
        /// With `reference`: x1,y1,…,x4,y4, the centres of patches 1, 6, 24, 19 (as `lightwork chart --corners`).
        public var corners: [Double]?
        /// `absolute` (default) or `match-white`.
        public var exposure: ChartComparison.Exposure?
        /// Limits for the per-patch ΔE00 (over the case's).
        public var thresholds: VerifyThresholds?

        public init(truth: String, exposure: ChartComparison.Exposure? = nil, thresholds: VerifyThresholds? = nil) {
            self.truth = truth
            self.exposure = exposure
            self.thresholds = thresholds
        }
    }

    public init(name: String, input: String, golden: String? = nil) {
        self.name = name
        self.input = input
        self.golden = golden
    }

    /// Formats whose output is a faithful record of the render; JPEG's quantisation noise alone crosses the
    /// thresholds, so it has no place in a colour regression suite.
    public static var losslessFormats: [OutputFormat] { CodecRegistry.outputFormats.filter(\.isLossless) }

    static let keys: Set<String> = ["name", "description", "input", "recipe", "film", "strength", "set", "format", "colorspace",
                                    "compression", "longEdge", "colorModel", "demosaic", "golden", "chart", "thresholds"]

    /// Checks what JSON decoding cannot: a usable name, something to compare with, sane numbers.
    func validate(file: String, path: String) throws {
        func fail(_ key: String, _ reason: String) -> LightWorkError {
            .invalidDocument(file: file, path: key.isEmpty ? path : "\(path).\(key)", reason: reason)
        }
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || "-_.".contains($0) }), !name.hasPrefix(".") else {
            throw fail("name", "a case name is letters, digits, '-', '_' or '.', found \"\(name)\"")
        }
        guard golden != nil || chart != nil else {
            throw fail("", "case \"\(name)\" compares with nothing: give a \"golden\" image, a \"chart\" truth file, or both")
        }
        if let format, !Self.losslessFormats.contains(format) {
            throw fail("format", "\(format.rawValue) is lossy: its noise alone crosses the ΔE thresholds; use \(Self.losslessFormats.map(\.rawValue).joined(separator: ", "))")
        }
        if let golden, !["tif", "tiff", "png"].contains((golden as NSString).pathExtension.lowercased()) {
            throw fail("golden", "a golden is a lossless TIFF or PNG, found \"\(golden)\"")
        }
        if let strength, !(0...100).contains(strength) { throw fail("strength", "strength is 0…100, found \(strength)") }
        if let longEdge, longEdge < 1 { throw fail("longEdge", "a whole number of pixels ≥ 1, found \(longEdge)") }
        try thresholds?.validate(file: file, path: "\(path).thresholds")
        try chart?.thresholds?.validate(file: file, path: "\(path).chart.thresholds")
        if let chart, (chart.truth == nil) == (chart.reference == nil) {
            throw fail("chart", "a chart gives either a \"truth\" file (a generated chart) or a \"reference\" (a photographed one)")
        }
        if let corners = chart?.corners, corners.count != 8 || chart?.reference == nil {
            throw fail("chart.corners", "corners are 8 numbers x1,y1,…,x4,y4 and go with a \"reference\"")
        }
    }
}
