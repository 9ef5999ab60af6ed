import Foundation

/// How an output file is encoded: format, format options, and the profile and metadata it carries.
public struct EncodeSettings: Sendable, Equatable {
    public var format: OutputFormat
    /// JPEG quality 1…100 (chroma is not subsampled at 90 and above).
    public var jpegQuality: Int
    /// Optimised Huffman tables: ~5-8 % smaller JPEGs, but encoding takes ~3× as long
    /// (24 MP q92 4:4:4: 0.42 s instead of 0.15 s).
    public var jpegOptimizeCoding: Bool
    public var tiffCompression: TIFFCompression
    /// zlib level for PNG (0…9). Default 1: with the Up filter it writes ~9× faster than level 6 for
    /// files ~10 % larger (see PNGWriter).
    public var pngCompressionLevel: Int
    /// The ICC profile to embed (normally `ICCProfile.embedded(for:)`); nil embeds none.
    public var iccProfile: Data?
    /// EXIF as TIFF-structured bytes ("II*\0…" or "MM\0*…", without the JPEG "Exif\0\0" header), normally
    /// `EXIFWriter.blob(for:)`: written as is as JPEG APP1 and PNG eXIf; TIFF outputs carry the fields
    /// `EXIFReader` reads from it as TIFF tags and Exif/GPS IFDs (see `TIFFWriter`). nil writes no EXIF.
    public var exif: Data?
    /// The XMP packet (UTF-8 XML with its `<?xpacket?>` wrapper, as exiv2 serialises it: `Exiv2Metadata.xmpPacket`):
    /// the output's creator, rights, usage terms, caption, keywords, rating, label and location. A writer embeds these
    /// bytes unchanged, in its format's own XMP place (JPEG APP1 "http://ns.adobe.com/xap/1.0/", PNG iTXt
    /// "XML:com.adobe.xmp", TIFF tag 700; WebP's "XMP " chunk, HEIF/AVIF's and JPEG XL's XMP box/item), never edits or
    /// re-serialises them and never adds a tiff:Orientation (EXIF states orientation, once, as 1). nil writes none.
    public var xmpPacket: Data?
    /// IPTC-IIM datasets (`Exiv2Metadata.iptc`), for formats that hold IIM: TIFF tag 33723 as is, JPEG APP13 as a
    /// Photoshop resource block; other writers ignore it (their XMP carries the same fields). nil writes none.
    public var iptc: Data?
    /// The output codec's other options (`CodecOptionValues`; set through `setOptions`): a writer reads its own
    /// with `options.value(of:)`, getting the default where none was given.
    public var options = CodecOptionValues()

    public init(format: OutputFormat = CodecRegistry.defaultFormat, jpegQuality: Int = JPEGCodec.defaultQuality, jpegOptimizeCoding: Bool = true,
                tiffCompression: TIFFCompression = .none, pngCompressionLevel: Int = 1,
                iccProfile: Data? = nil, exif: Data? = nil) {
        self.format = format
        self.jpegQuality = jpegQuality
        self.jpegOptimizeCoding = jpegOptimizeCoding
        self.tiffCompression = tiffCompression
        self.pngCompressionLevel = pngCompressionLevel
        self.iccProfile = iccProfile
        self.exif = exif
    }
}
