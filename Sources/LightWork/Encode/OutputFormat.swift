/// The file formats LightWork writes (`--format`), with the bit depth the pipeline must produce for each.
public enum OutputFormat: String, Sendable, Codable, CaseIterable {
    /// 16-bit TIFF, the default: no precision lost after development.
    case tiff16
    /// 8-bit TIFF.
    case tiff8
    /// 8-bit baseline JPEG (RGB or grey, no alpha).
    case jpeg
    /// 8-bit PNG.
    case png
    /// 16-bit PNG.
    case png16

    /// The file name extension, without a dot.
    public var fileExtension: String {
        switch self {
        case .tiff16, .tiff8: return "tif"
        case .jpeg: return "jpg"
        case .png, .png16: return "png"
        }
    }

    /// Sample depth of the pixels the writer expects.
    public var depth: EncodedPixels.Depth {
        switch self {
        case .tiff16, .png16: return .sixteen
        case .tiff8, .jpeg, .png: return .eight
        }
    }

    /// Bits per sample (8 or 16).
    public var bitDepth: Int { depth.rawValue }

    /// Whether the format can carry an alpha channel (JPEG cannot: the caller flattens it first).
    public var supportsAlpha: Bool { self != .jpeg }

    /// The writer for this format, compressing on `engine.threads` threads where the format can.
    public func writer(engine: EngineConfiguration = .detected) -> any ImageWriter {
        switch self {
        case .tiff16, .tiff8: return TIFFWriter(engine: engine)
        case .jpeg: return JPEGWriter()
        case .png, .png16: return PNGWriter()
        }
    }
}
