import Foundation

/// The RGB input path's single entry point: picks the JPEG or PNG decoder by the file's content, never its
/// name (a `.jpg` that holds a PNG decodes as PNG).
public enum RGBDecoder {
    /// Decodes JPEG or PNG bytes into upright device-RGB pixels (`kind: .rgb`).
    /// Throws `.emptyFile`, `.unsupportedFormat` (neither JPEG nor PNG), `.decodeFailed`, `.tooManyPixels`.
    public static func decode(data: Data, options: DecodeOptions) throws -> DecodedImage {
        guard !data.isEmpty else { throw LightWorkError.emptyFile }
        switch InputKind.sniff(data.prefix(8)) {
        case .jpeg: return try JPEGDecoder.decode(data: data, options: options)
        case .png: return try PNGDecoder.decode(data: data, options: options)
        default: throw LightWorkError.unsupportedFormat("neither a JPEG nor a PNG signature")
        }
    }
}
