import Foundation

/// The RGB input path's single entry point: picks the decoding codec by the file's content, never its name (a
/// `.jpg` that holds a PNG decodes as PNG); RAW (LibRaw, the registry's fallback) is not this path.
public enum RGBDecoder {
    /// Decodes JPEG, PNG, WebP or HEIF bytes (any non-RAW decoding codec's) into upright device-RGB pixels (`kind: .rgb`).
    /// Throws `.emptyFile`, `.unsupportedFormat` (no RGB codec's signature), `.decodeFailed`, `.tooManyPixels`.
    public static func decode(data: Data, options: DecodeOptions) throws -> DecodedImage {
        guard !data.isEmpty else { throw LightWorkError.emptyFile }
        let codec = CodecRegistry.decoder(for: data)
        guard !(codec is RawCodec) else {
            let names = CodecRegistry.codecs.filter { $0.decodes && !($0 is RawCodec) }.map { $0.name.uppercased() }
            throw LightWorkError.unsupportedFormat("neither a \(names.joined(separator: " nor a ")) signature")
        }
        // The RGB decoders run on one thread (libjpeg, libpng); the engine only reaches LibRaw.
        return try codec.decode(data: data, url: URL(fileURLWithPath: "/dev/null"), options: options, engine: .detected)
    }
}
