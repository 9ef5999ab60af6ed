/// What LightWork knows about how and with what a picture was taken; carried to outputs as EXIF
/// (unless `--strip-metadata`) and recorded in the manifest. Every field is optional.
public struct ImageMetadata: Sendable, Codable, Equatable {
    public var make: String?
    public var model: String?
    public var lens: String?
    /// Exposure time in seconds.
    public var exposureTime: Double?
    public var fNumber: Double?
    public var iso: Double?
    /// Focal length in millimetres.
    public var focalLength: Double?
    /// "YYYY:MM:DD HH:MM:SS", as EXIF writes it.
    public var dateTimeOriginal: String?
    public var gpsLatitude: Double?
    public var gpsLongitude: Double?
    public var gpsAltitude: Double?
    /// Orientation of the stored pixels as the file declared it (outputs are always written upright, tag 1).
    public var orientation: Int?
    /// Of the output image: its size (EXIF PixelXDimension/PixelYDimension) and whether it is sRGB (EXIF
    /// ColorSpace 1) or another space its embedded ICC profile describes (0xFFFF). Set by the converter.
    public var pixelWidth: Int?
    public var pixelHeight: Int?
    public var colorSpaceIsSRGB: Bool?
    /// Credit, caption, keywords, rating, label and place: EXIF holds creators (Artist) and rights (Copyright); the
    /// converter sets the whole from `CarriedMetadata` (XMP, IPTC and sidecars included).
    public var descriptive = DescriptiveMetadata()

    public init() {}
}
