import Foundation

/// An image file read back (see `ImageFileReader`): what was stored, sample for sample.
public struct ImageFile: Sendable {
    /// The format read, named as its codec is (`ImageCodec.name`): a codec that reads back needs no case here.
    public struct Format: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }
        public static let tiff = Format(rawValue: "tiff")
        public static let jpeg = Format(rawValue: "jpeg")
        public static let png = Format(rawValue: "png")
    }

    public let format: Format
    public let width: Int
    public let height: Int
    /// 1 (grey), 2 (grey+alpha), 3 (RGB) or 4 (RGBA).
    public let channels: Int
    /// 8 or 16, or the file's own narrower depth (10 for heif10): the samples are not scaled, so an 8-bit file holds values 0…255.
    public let bitDepth: Int
    /// The embedded ICC profile (TIFF tag 34675, JPEG APP2, PNG iCCP), nil when none.
    public let iccProfile: Data?
    /// EXIF as TIFF-structured bytes (JPEG APP1 without "Exif\0\0", PNG eXIf); nil when none or for TIFF.
    public let exif: Data?
    /// The metadata fields LightWork records: from `exif` through `EXIFReader` (JPEG, PNG), from IFD0 and the
    /// Exif and GPS IFDs through libtiff (TIFF). nil when the file carries none.
    public let metadata: ImageMetadata?
    /// Interleaved samples, `width * height * channels`, rows top to bottom as stored.
    public let samples: [UInt16]
    /// TIFF structure details, for TIFF files.
    public let tiff: TIFFInfo?

    public init(format: Format, width: Int, height: Int, channels: Int, bitDepth: Int, iccProfile: Data?,
                exif: Data?, samples: [UInt16], tiff: TIFFInfo? = nil, metadata: ImageMetadata? = nil) {
        self.format = format
        self.width = width
        self.height = height
        self.channels = channels
        self.bitDepth = bitDepth
        self.iccProfile = iccProfile
        self.exif = exif
        self.samples = samples
        self.tiff = tiff
        self.metadata = metadata
    }

    /// One sample.
    public func sample(x: Int, y: Int, channel: Int) -> UInt16 { samples[(y * width + x) * channels + channel] }
}

/// TIFF tags a reader of LightWork's outputs checks (compression, predictor, orientation, provenance).
public struct TIFFInfo: Sendable, Equatable {
    /// Compression tag value (1 none, 5 LZW, 8 Adobe Deflate, 32946 old Deflate…).
    public var compression: UInt16
    /// Predictor tag (1 none, 2 horizontal), nil when absent.
    public var predictor: UInt16?
    public var rowsPerStrip: UInt32?
    /// Orientation tag, nil when absent.
    public var orientation: UInt16?
    public var software: String?
    /// ExtraSamples values (2 = unassociated alpha).
    public var extraSamples: [UInt16]
    /// Whether a DateTime tag is present (LightWork writes only the photo's own DateTimeOriginal there, never
    /// the time of writing, for deterministic bytes).
    public var hasDateTime: Bool
    /// Whether the pixels were read through libtiff's generic RGBA path (tiled, palette, CMYK, 1-bit…),
    /// which yields 8-bit RGBA.
    public var readAsRGBA: Bool
}
