import Foundation

/// The published colours of a 24-patch ColorChecker, in reading order (dark skin top-left … black bottom-right,
/// 6 columns × 4 rows, the grey row last). Declared once here: the scene generator paints these values and
/// `lightwork chart` measures against them.
public struct ChartReference: Sendable, Codable, Equatable {
    /// One patch: its printed name and CIELAB (D50, 2° observer).
    public struct Patch: Sendable, Codable, Equatable {
        public var name: String
        public var labD50: [Double]
        public init(name: String, labD50: [Double]) { self.name = name; self.labD50 = labD50 }
        public var lab: SIMD3<Double> { SIMD3(labD50[0], labD50[1], labD50[2]) }
    }

    /// The `--reference` name (or the file's path for one read from JSON).
    public var name: String
    /// Where the values were published.
    public var source: String
    public var patches: [Patch]

    public init(name: String, source: String, patches: [Patch]) {
        self.name = name
        self.source = source
        self.patches = patches
    }

    public static let columns = 6
    public static let rows = 4
    /// Patch 19 (0-based 18), "white 9.5": the patch exposure is matched by.
    public static let whiteIndex = 18
    /// Patch 24 (0-based 23), "black 2".
    public static let blackIndex = 23

    static let names = ["dark skin", "light skin", "blue sky", "foliage", "blue flower", "bluish green",
                        "orange", "purplish blue", "moderate red", "purple", "yellow green", "orange yellow",
                        "blue", "green", "red", "yellow", "magenta", "cyan",
                        "white 9.5", "neutral 8", "neutral 6.5", "neutral 5", "neutral 3.5", "black 2"]

    static func table(_ name: String, _ source: String, _ lab: [[Double]]) -> ChartReference {
        ChartReference(name: name, source: source, patches: zip(names, lab).map { Patch(name: $0, labD50: $1) })
    }

    /// X-Rite's values for ColorChecker Classic charts made after November 2014 (new formulations), as X-Rite
    /// published them in "ColorChecker24_After_Nov2014" (CIELAB D50, 2°; the same table colour-science ships as
    /// "ColorChecker24 - After November 2014").
    public static let colorChecker2014 = table(
        "colorchecker-24-2014",
        "X-Rite ColorChecker Classic reference data, charts made after November 2014 (CIELAB D50, 2-degree observer), as published by X-Rite in ColorChecker24_After_Nov2014",
        [[37.54, 14.37, 14.92], [64.66, 19.27, 17.50], [49.32, -3.82, -22.54], [43.46, -12.74, 22.72], [54.94, 9.61, -24.79], [70.48, -32.26, -0.37],
         [62.73, 35.83, 56.50], [39.43, 10.75, -45.17], [50.57, 48.64, 16.67], [30.10, 22.54, -20.87], [71.77, -24.13, 58.19], [71.51, 18.24, 67.37],
         [28.37, 15.42, -49.80], [54.38, -39.72, 32.27], [42.43, 51.05, 28.62], [81.80, 2.67, 80.41], [50.63, 51.28, -14.12], [49.57, -29.71, -28.32],
         [95.19, -1.03, 2.93], [81.29, -0.57, 0.44], [66.89, -0.75, -0.06], [50.76, -0.13, 0.14], [35.63, -0.46, -0.48], [20.64, 0.07, -0.46]])

    /// The BabelColor average of many ColorChecker Classic charts (Danny Pascale, BabelColor, "ColorChecker RGB and
    /// spectra", CIELAB D50, 2°): the usual reference for a chart of unknown age.
    public static let colorCheckerClassic = table(
        "colorchecker-classic",
        "BabelColor average of measured ColorChecker Classic charts (D. Pascale, BabelColor, ColorChecker_RGB_and_spectra; CIELAB D50, 2-degree observer)",
        [[37.986, 13.555, 14.059], [65.711, 18.130, 17.810], [49.927, -4.880, -21.925], [43.139, -13.095, 21.905], [55.112, 8.844, -25.399], [70.719, -33.397, -0.199],
         [62.661, 36.067, 57.096], [40.020, 10.410, -45.964], [51.124, 48.239, 16.248], [30.325, 22.976, -21.587], [72.532, -23.709, 57.255], [71.941, 19.363, 67.857],
         [28.778, 14.179, -50.297], [55.261, -38.342, 31.370], [42.101, 53.378, 28.190], [81.733, 4.039, 79.819], [51.935, 49.986, -14.574], [51.038, -28.631, -28.638],
         [96.539, -0.425, 1.186], [81.257, -0.638, -0.335], [66.766, -0.734, -0.504], [50.867, -0.153, -0.270], [35.656, -0.421, -1.231], [20.461, -0.079, -0.973]])

    /// Every built-in set, by `--reference` name.
    public static let builtIn = [colorChecker2014, colorCheckerClassic]

    /// A built-in set by name, else a JSON file `{"name", "source", "patches": [{"name", "labD50": [L, a, b]} × 24]}`.
    public static func named(_ text: String) throws -> ChartReference {
        if let r = builtIn.first(where: { $0.name == text }) { return r }
        guard text.lowercased().hasSuffix(".json") else {
            throw LightWorkError.usage("--reference '\(text)' is not one of: \(builtIn.map(\.name).joined(separator: ", ")), or a FILE.json")
        }
        let url = URL(fileURLWithPath: text)
        guard let data = FileManager.default.contents(atPath: url.path) else { throw LightWorkError.missingInput(url.path) }
        let r: ChartReference
        do { r = try JSONDecoder().decode(ChartReference.self, from: data) } catch {
            throw LightWorkError.invalidDocument(file: url.path, path: "", reason: "not a chart reference: \(error)")
        }
        guard r.patches.count == columns * rows, r.patches.allSatisfy({ $0.labD50.count == 3 && $0.labD50.allSatisfy(\.isFinite) }) else {
            throw LightWorkError.invalidDocument(file: url.path, path: "patches", reason: "a chart reference has 24 patches, each with labD50 [L, a, b]")
        }
        return r
    }
}
