import Foundation

extension ExportSettings {
    /// Applies this block over `encode` and `colorSpace`: what convert and verify both do between the defaults
    /// and their own flags or fields.
    public func apply(to encode: inout EncodeSettings, colorSpace: inout OutputColorSpace) {
        switch (format, bitDepth) {
        case (.tiff?, 8): encode.format = .tiff8
        case (.tiff?, _): encode.format = .tiff16
        case (.jpeg?, _): encode.format = .jpeg
        case (.png?, 16): encode.format = .png16
        case (.png?, _): encode.format = .png
        case (nil, _): break
        }
        if let quality { encode.jpegQuality = quality }
        if let c = compression.flatMap(TIFFCompression.init(rawValue:)) { encode.tiffCompression = c }
        if let colorspace { colorSpace = colorspace }
    }
}
