/// Compression of TIFF outputs (`--compression`, recipes' `export.compression`; `TIFFCodec.compression` declares
/// these as its option); all are lossless.
public enum TIFFCompression: String, Sendable, Codable, CaseIterable {
    /// Fastest to write and read, largest files.
    case none
    /// Deflate (zlib format, libdeflate inside libtiff) with the horizontal predictor.
    case deflate
    /// LZW with the horizontal predictor: readable by very old software.
    case lzw

    /// The TIFF Compression tag value (1, 8 = Adobe Deflate, 5).
    public var tagValue: UInt16 {
        switch self {
        case .none: return 1
        case .deflate: return 8
        case .lzw: return 5
        }
    }
}
