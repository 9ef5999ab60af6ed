import Foundation

extension OutputFormat {
    /// 8-bit HEIC (HEVC in HEIF, x265), alpha as an auxiliary image.
    public static let heif = OutputFormat("heif", codec: "heif", depth: .eight, fileExtension: "heic", isLossless: false)
    /// 10-bit HEIC: the writer rounds the 16-bit pixels to v·1023/65535.
    public static let heif10 = OutputFormat("heif10", codec: "heif", depth: .sixteen, bitDepth: 10, fileExtension: "heic", isLossless: false)
}

/// HEIF with HEVC images (HEIC, what phones write): decoded by `HEIFDecoder` (libheif and libde265: the primary
/// image with its irot/imir/clap applied, ICC or nclx colour), written by `HEIFWriter` (x265), read back through
/// libheif. Signature: an `ftyp` box with an HEVC brand, or the generic `mif1`/`msf1` without an AV1 one: AVIF
/// (`avif`, `avis`) is the AVIF codec's, though libheif could decode it too.
public struct HEIFCodec: ImageCodec {
    public init() {}
    public var name: String { "heif" }
    public var aliases: [String] { ["heic"] }
    public var priority: Int { 10 }
    public var inputExtensions: [String] { ["heic", "heif", "hif"] }

    /// The brands of HEVC-coded HEIF images and sequences.
    static let hevcBrands: Set<String> = ["heic", "heix", "heim", "heis", "hevc", "hevx", "hevm", "hevs"]
    /// The AV1 brands, left to AVIF.
    static let av1Brands: Set<String> = ["avif", "avis"]

    public func matches(_ file: FileBytes) -> Bool { HEIFCodec.claims(HEIFStructure.brands(file)) }

    static func claims(_ brands: [String]?) -> Bool {
        guard let brands, let major = brands.first, !av1Brands.contains(major) else { return false }
        let all = Set(brands)
        if !all.isDisjoint(with: hevcBrands) { return true }
        return (major == "mif1" || major == "msf1") && all.isDisjoint(with: av1Brands)
    }

    // MARK: Input

    public var decodes: Bool { true }
    public func decode(data: Data, url: URL, options: DecodeOptions, engine: EngineConfiguration) throws -> DecodedImage {
        try HEIFDecoder.decode(data: data, options: options, threads: engine.threads)
    }

    /// The primary item's `ispe` (rotation does not change the count).
    public func pixelCount(_ file: FileBytes) -> Int? {
        guard let size = HEIFStructure(file)?.primarySize else { return nil }
        return ImageSizeProbe.product(size.width, size.height)
    }

    /// The fields of the first `Exif` item.
    public func captureInfo(_ file: FileBytes) -> ImageMetadata? {
        HEIFStructure(file)?.exif.flatMap(EXIFReader.read)
    }

    public var readsBack: Bool { true }
    public func readBack(data: Data, path: String) throws -> ImageFile { try HEIFDecoder.readBack(data: data, path: path) }

    // MARK: Output

    public var outputFormats: [OutputFormat] { [.heif, .heif10] }
    public var options: [CodecOption] { [HEIFCodec.quality] }
    public func writer(engine: EngineConfiguration) -> (any ImageWriter)? { HEIFWriter(engine: engine) }

    /// `--quality` for HEIF: libheif's 0…100 for x265 (mapped onto its CRF).
    public static let quality = CodecOption(name: "quality", values: .integer(0...100), defaultValue: "80", summary: "HEIF quality")
}
