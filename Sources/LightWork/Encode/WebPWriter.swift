import CWebP
import Foundation

/// Writes WebP with libwebp: lossy VP8 at `WebPCodec.quality` or lossless VP8L (`WebPCodec.lossless`, which
/// also keeps the colour under transparent pixels), alpha losslessly in either, grey as RGB (WebP has no grey).
/// The profile goes in the ICCP chunk, EXIF in the EXIF chunk and the XMP packet in the "XMP " chunk (libwebp's muxer; WebP has no CICP).
public struct WebPWriter: ImageWriter {
    let engine: EngineConfiguration

    public init(engine: EngineConfiguration = .detected) { self.engine = engine }

    public func encode(_ pixels: EncodedPixels, settings: EncodeSettings, to output: AtomicFile.Output) throws {
        try pixels.validateForWriting(profile: settings.iccProfile)
        guard pixels.depth == .eight else { throw LightWorkError.writeFailed("WebP takes 8-bit pixels, not \(pixels.depth.rawValue)-bit") }
        guard pixels.width <= Int(WEBP_MAX_DIMENSION), pixels.height <= Int(WEBP_MAX_DIMENSION) else {
            throw LightWorkError.writeFailed("WebP images are at most \(WEBP_MAX_DIMENSION) pixels a side, not \(pixels.width)×\(pixels.height)")
        }
        let lossless = settings.options.flag(WebPCodec.lossless)
        var config = WebPConfig()
        guard WebPConfigInit(&config) != 0 else { throw LightWorkError.writeFailed("WebP: libwebp version mismatch") }
        config.lossless = lossless ? 1 : 0
        config.quality = Float(settings.options.int(WebPCodec.quality))
        config.exact = lossless ? 1 : 0
        // libwebp's threads split analysis and filtering: the same bytes at any count (WebPCodecTests checks).
        config.thread_level = engine.threads > 1 ? 1 : 0
        guard WebPValidateConfig(&config) != 0 else { throw LightWorkError.writeFailed("WebP: libwebp refuses the encoder settings") }

        let bitstream = try Self.compress(pixels, config: &config)
        var image = WebPData(bytes: nil, size: 0)
        try bitstream.withUnsafeBytes { b in
            image = WebPData(bytes: b.baseAddress?.assumingMemoryBound(to: UInt8.self), size: b.count)
            let chunks: [(String, Data)] = [("ICCP", settings.iccProfile), ("EXIF", settings.exif), ("XMP ", settings.xmpPacket)].compactMap { name, data in
                data.flatMap { $0.isEmpty ? nil : (name, $0) }
            }
            guard !chunks.isEmpty else { try output.write(b); return }
            guard let mux = WebPMuxNew() else { throw LightWorkError.writeFailed("WebP: libwebp's muxer could not start") }
            defer { WebPMuxDelete(mux) }
            guard WebPMuxSetImage(mux, &image, 0) == WEBP_MUX_OK else { throw LightWorkError.writeFailed("WebP: the muxer refused the bitstream") }
            for (name, data) in chunks {
                let status = data.withUnsafeBytes { d -> WebPMuxError in
                    var payload = WebPData(bytes: d.baseAddress?.assumingMemoryBound(to: UInt8.self), size: d.count)
                    return WebPMuxSetChunk(mux, name, &payload, 1)
                }
                guard status == WEBP_MUX_OK else { throw LightWorkError.writeFailed("WebP: the muxer refused the \(name) chunk (\(status.rawValue))") }
            }
            var assembled = WebPData(bytes: nil, size: 0)
            defer { WebPDataClear(&assembled) }
            guard WebPMuxAssemble(mux, &assembled) == WEBP_MUX_OK, let p = assembled.bytes else {
                throw LightWorkError.writeFailed("WebP: the muxer could not assemble the file")
            }
            try output.write(UnsafeRawBufferPointer(start: p, count: assembled.size))
        }
    }

    /// The bare VP8/VP8L RIFF file for `pixels`.
    private static func compress(_ pixels: EncodedPixels, config: inout WebPConfig) throws -> Data {
        var picture = WebPPicture()
        guard WebPPictureInit(&picture) != 0 else { throw LightWorkError.writeFailed("WebP: libwebp version mismatch") }
        defer { WebPPictureFree(&picture) }
        picture.use_argb = config.lossless
        picture.width = Int32(pixels.width)
        picture.height = Int32(pixels.height)
        // WebP has no grey: grey and grey+alpha are given as RGB and RGBA.
        let rgb: [UInt8]
        let channels = pixels.hasAlpha ? 4 : 3
        switch pixels.channels {
        case 1: rgb = pixels.samples8.flatMap { [$0, $0, $0] }
        case 2: rgb = (0..<(pixels.width * pixels.height)).flatMap { i -> [UInt8] in
            let g = pixels.samples8[2 * i], a = pixels.samples8[2 * i + 1]
            return [g, g, g, a]
        }
        default: rgb = pixels.samples8
        }
        let imported = rgb.withUnsafeBufferPointer { p in
            channels == 4 ? WebPPictureImportRGBA(&picture, p.baseAddress, Int32(4 * pixels.width))
                          : WebPPictureImportRGB(&picture, p.baseAddress, Int32(3 * pixels.width))
        }
        guard imported != 0 else { throw LightWorkError.writeFailed("WebP: libwebp could not take the pixels (out of memory)") }
        var memory = WebPMemoryWriter()
        WebPMemoryWriterInit(&memory)
        defer { WebPMemoryWriterClear(&memory) }
        let ok = withUnsafeMutablePointer(to: &memory) { m -> Int32 in
            picture.writer = WebPMemoryWrite
            picture.custom_ptr = UnsafeMutableRawPointer(m)
            return WebPEncode(&config, &picture)
        }
        guard ok != 0, let mem = memory.mem else {
            throw LightWorkError.writeFailed("WebP: libwebp could not encode (error \(picture.error_code.rawValue))")
        }
        return Data(bytes: mem, count: memory.size)
    }
}
