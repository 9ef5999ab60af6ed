import Foundation

extension ExportSettings {
    /// Applies this block over `encode` and `colorSpace`: what convert and verify both do between the defaults
    /// and their own flags or fields.
    public func apply(to encode: inout EncodeSettings, colorSpace: inout OutputColorSpace) {
        if let outputFormat { encode.format = outputFormat }
        if let quality { encode.jpegQuality = quality }
        if let c = compression.flatMap(TIFFCompression.init(rawValue:)) { encode.tiffCompression = c }
        if let colorspace { colorSpace = colorspace }
    }
}
