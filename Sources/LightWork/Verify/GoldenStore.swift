import Foundation

/// Blessing goldens (`lightwork verify --update`): a golden is rewritten only when its pixels changed, so a run
/// that changes nothing leaves the repository untouched, and every rewrite says what it changed.
public enum GoldenStore {
    /// Whether `golden`'s name fits the format the case renders (`.tif`/`.tiff` for TIFF, `.png` for PNG).
    public static func extensionMatches(golden: String, format: OutputFormat) -> Bool {
        let ext = (golden as NSString).pathExtension.lowercased()
        return format.fileExtension == "tif" ? ["tif", "tiff"].contains(ext) : ext == format.fileExtension
    }

    /// Makes `candidate` (already rendered, and read as `candidateFile`) the golden at `golden`. `previous` is the
    /// comparison with the old golden, nil when there was none or it could not be compared. Returns what happened.
    public static func bless(candidate: URL, candidateFile: ImageFile, golden: URL, previous: PixelComparison?, hadGolden: Bool) throws -> String {
        let size = "\(candidateFile.width)×\(candidateFile.height), \(candidateFile.bitDepth)-bit \(candidateFile.format.rawValue)"
        if let previous, previous.identicalSamples { return "unchanged (identical samples)" }
        try FileManager.default.createDirectory(at: golden.deletingLastPathComponent(), withIntermediateDirectories: true)
        try AtomicFile.write(data: try Data(contentsOf: candidate), to: golden)
        guard hadGolden else { return "created (\(size))" }
        guard let previous else { return "replaced (\(size); the old golden could not be compared)" }
        let s = previous.statistics
        return String(format: "updated: against the old golden max ΔE00 %.3f, mean %.4f, %.3f %% of pixels above %.3g, samples differ by up to %d",
                      s.max, s.mean, s.shareAbove * 100, s.threshold, previous.maxSampleDifference)
    }
}
