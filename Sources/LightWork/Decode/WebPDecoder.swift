import CWebP
import Foundation

/// Decodes still WebP (lossy VP8, lossless VP8L, with or without alpha) with libwebp into upright device-RGB
/// pixels: colour from the ICCP chunk (none means sRGB, as the container specifies), metadata and orientation
/// from the EXIF chunk. Animated WebP is refused.
public enum WebPDecoder {
    /// The container's chunks LightWork reads (libwebp's demuxer: the ICCP, EXIF and XMP chunk payloads).
    struct Chunks {
        var icc: Data?
        var exif: Data?
        var xmp: Data?
        var animated = false
    }

    static func chunks(_ bytes: UnsafeRawBufferPointer) -> Chunks {
        var result = Chunks()
        var data = WebPData(bytes: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), size: bytes.count)
        guard let demux = WebPDemux(&data) else { return result }
        defer { WebPDemuxDelete(demux) }
        result.animated = WebPDemuxGetI(demux, WEBP_FF_FORMAT_FLAGS) & ANIMATION_FLAG.rawValue != 0
        func payload(_ fourCC: String) -> Data? {
            var iterator = WebPChunkIterator()
            guard WebPDemuxGetChunk(demux, fourCC, 1, &iterator) != 0 else { return nil }
            defer { WebPDemuxReleaseChunkIterator(&iterator) }
            guard let p = iterator.chunk.bytes, iterator.chunk.size > 0 else { return nil }
            return Data(bytes: p, count: iterator.chunk.size)
        }
        result.icc = payload("ICCP")
        result.exif = payload("EXIF")
        result.xmp = payload("XMP ")
        return result
    }

    /// libwebp's status as a reason.
    static func reason(_ status: VP8StatusCode) -> String {
        switch status {
        case VP8_STATUS_OUT_OF_MEMORY: return "out of memory"
        case VP8_STATUS_INVALID_PARAM: return "invalid parameter"
        case VP8_STATUS_BITSTREAM_ERROR: return "corrupt bitstream"
        case VP8_STATUS_UNSUPPORTED_FEATURE: return "unsupported feature"
        case VP8_STATUS_NOT_ENOUGH_DATA: return "truncated (the bitstream ends early)"
        default: return "status \(status.rawValue)"
        }
    }

    /// The whole image as 8-bit RGB or RGBA (non-premultiplied), `body(pixels, stride, width, height, hasAlpha, features)`.
    private static func withPixels<R>(_ bytes: UnsafeRawBufferPointer, check: (Int, Int) throws -> Void,
                                      _ body: (UnsafeRawPointer, Int, Int, Int, Bool, WebPBitstreamFeatures) throws -> R) throws -> R {
        let base = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else { throw LightWorkError.decodeFailed("WebP: libwebp version mismatch") }
        let status = WebPGetFeatures(base, bytes.count, &config.input)
        guard status == VP8_STATUS_OK else { throw LightWorkError.decodeFailed("WebP: \(reason(status))") }
        guard config.input.has_animation == 0 else { throw LightWorkError.unsupportedFormat("animated WebP") }
        let width = Int(config.input.width), height = Int(config.input.height)
        try check(width, height)
        let alpha = config.input.has_alpha != 0
        config.output.colorspace = alpha ? MODE_RGBA : MODE_RGB
        // libwebp's threads only overlap filtering with decoding: the same pixels either way.
        config.options.use_threads = 1
        let decoded = WebPDecode(base, bytes.count, &config)
        defer { WebPFreeDecBuffer(&config.output) }
        guard decoded == VP8_STATUS_OK, let rgba = config.output.u.RGBA.rgba else {
            throw LightWorkError.decodeFailed("WebP: \(reason(decoded))")
        }
        return try body(UnsafeRawPointer(rgba), Int(config.output.u.RGBA.stride), width, height, alpha, config.input)
    }

    public static func decode(data: Data, options: DecodeOptions) throws -> DecodedImage {
        guard !data.isEmpty else { throw LightWorkError.emptyFile }
        return try data.withUnsafeBytes { bytes in
            let chunks = chunks(bytes)
            guard !chunks.animated else { throw LightWorkError.unsupportedFormat("animated WebP") }
            return try withPixels(bytes, check: { try PixelLimit.check(width: $0, height: $1, format: "WebP", options: options) }) {
                pixels, stride, width, height, alpha, features in
                let colour = chunks.icc.map { ICCInput.embedded($0, model: .rgb, intent: options.intent) }
                    ?? ICCInput.declaredSRGB("sRGB (WebP without an ICC profile)")
                let (image, sourceProfile, notes) = try DecodedBuffer.working(
                    pixels, stride: stride, width: width, height: height, layout: alpha ? .rgba : .rgb, sixteenBit: false,
                    colour: colour, intent: options.intent)
                let exif = chunks.exif.flatMap(EXIFReader.tiffBlock)
                let metadata = exif.flatMap(EXIFReader.read) ?? ImageMetadata()
                let orientation = metadata.orientation.flatMap(Orientation.init(rawValue:)) ?? .up
                var result = DecodedImage(image: image.uprighted(orientation), kind: .rgb, metadata: metadata, notes: notes,
                                          sourceProfile: sourceProfile, details: [
                                              "format": "WebP",
                                              "encoding": features.format == 2 ? "lossless (VP8L)" : "lossy (VP8)",
                                              "alpha": alpha ? "yes" : "no",
                                              "stored size": "\(width)×\(height)",
                                          ])
                result.exifBlob = exif
                return result
            }
        }
    }

    /// Reads a WebP back as libwebp decodes it: 8-bit RGB or RGBA, with its ICC profile and EXIF.
    static func readBack(data: Data, path: String) throws -> ImageFile {
        try data.withUnsafeBytes { bytes in
            guard !bytes.isEmpty else { throw LightWorkError.emptyFile }
            let chunks = chunks(bytes)
            do {
                return try withPixels(bytes, check: { try PixelLimit.check(width: $0, height: $1, format: "WebP", options: PixelLimit.readBack) }) { pixels, stride, width, height, alpha, _ in
                    let channels = alpha ? 4 : 3
                    var samples = [UInt16](repeating: 0, count: width * height * channels)
                    let p = pixels.assumingMemoryBound(to: UInt8.self)
                    for y in 0..<height {
                        for i in 0..<(width * channels) { samples[y * width * channels + i] = UInt16(p[y * stride + i]) }
                    }
                    let exif = chunks.exif.flatMap(EXIFReader.tiffBlock)
                    return ImageFile(format: ImageFile.Format(rawValue: "webp"), width: width, height: height, channels: channels, bitDepth: 8,
                                     iccProfile: chunks.icc, exif: exif, samples: samples, metadata: exif.flatMap(EXIFReader.read))
                }
            } catch let error as LightWorkError {
                throw LightWorkError.decodeFailed("\(path): \(error.description)")
            }
        }
    }
}
