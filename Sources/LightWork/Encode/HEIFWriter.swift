import CHeif
import Foundation

/// Writes HEIC with libheif and x265: 8-bit (`heif`) or 10-bit (`heif10`, each 16-bit sample rounded to
/// v·1023/65535), 4:2:0 YCbCr with BT.601 coefficients at full range, alpha as libheif's auxiliary image (lossy,
/// at the same quality), grey as RGB. Colour is said twice, as viewers need: the embedded ICC profile (`prof`,
/// which alone can say Adobe RGB and ProPhoto) and an `nclx` box (`CICP.output(for:)`) that states the matrix
/// and range the YCbCr was made with, and the primaries and transfer where H.273 names them. EXIF is an `Exif` item, the XMP packet a `mime` item.
public struct HEIFWriter: ImageWriter {
    let engine: EngineConfiguration

    public init(engine: EngineConfiguration = .detected) { self.engine = engine }

    /// Collects what libheif writes.
    private final class Sink {
        var data = Data()
    }

    static func check(_ error: heif_error, _ what: String) throws {
        guard error.code == heif_error_Ok else { throw LightWorkError.writeFailed("HEIF: \(what): \(HEIFDecoder.message(error))") }
    }

    public func encode(_ pixels: EncodedPixels, settings: EncodeSettings, to output: AtomicFile.Output) throws {
        try pixels.validateForWriting(profile: settings.iccProfile)
        let bits = settings.format.bitDepth
        guard (bits == 8 && pixels.depth == .eight) || (bits == 10 && pixels.depth == .sixteen) else {
            throw LightWorkError.writeFailed("HEIF writes \(bits)-bit files from \(bits == 8 ? 8 : 16)-bit pixels, not \(pixels.depth.rawValue)-bit")
        }
        guard let ctx = heif_context_alloc() else { throw LightWorkError.writeFailed("HEIF: libheif could not start") }
        defer { heif_context_free(ctx) }
        var encoder: OpaquePointer?
        try Self.check(heif_context_get_encoder_for_format(ctx, heif_compression_HEVC, &encoder), "no HEVC encoder (libheif's x265 plugin)")
        guard let encoder else { throw LightWorkError.writeFailed("HEIF: no HEVC encoder") }
        defer { heif_encoder_release(encoder) }
        try Self.check(heif_encoder_set_lossy_quality(encoder, Int32(settings.options.int(HEIFCodec.quality))), "quality")
        try Self.check(heif_encoder_set_parameter_string(encoder, "chroma", "420"), "chroma")
        // x265's thread pool sized to the engine's threads; wavefront coding gives the same bytes at any count
        // (HEIFCodecTests checks).
        try Self.check(heif_encoder_set_parameter_string(encoder, "x265:pools", String(max(1, engine.threads))), "x265 threads")

        let image = try Self.image(pixels, bits: bits)
        defer { heif_image_release(image) }
        if let icc = settings.iccProfile, !icc.isEmpty {
            try icc.withUnsafeBytes { try Self.check(heif_image_set_raw_color_profile(image, "prof", $0.baseAddress, $0.count), "ICC profile") }
        }
        guard let nclx = heif_nclx_color_profile_alloc() else { throw LightWorkError.writeFailed("HEIF: out of memory") }
        defer { heif_nclx_color_profile_free(nclx) }
        let cicp = CICP.output(for: Self.space(of: settings.iccProfile))
        try Self.check(heif_nclx_color_profile_set_color_primaries(nclx, UInt16(cicp.primaries)), "nclx primaries")
        try Self.check(heif_nclx_color_profile_set_transfer_characteristics(nclx, UInt16(cicp.transfer)), "nclx transfer")
        try Self.check(heif_nclx_color_profile_set_matrix_coefficients(nclx, UInt16(cicp.matrix)), "nclx matrix")
        nclx.pointee.full_range_flag = cicp.fullRange ? 1 : 0
        try Self.check(heif_image_set_nclx_color_profile(image, nclx), "nclx")

        guard let options = heif_encoding_options_alloc() else { throw LightWorkError.writeFailed("HEIF: out of memory") }
        defer { heif_encoding_options_free(options) }
        options.pointee.save_alpha_channel = 1
        options.pointee.save_two_colr_boxes_when_ICC_and_nclx_available = 1
        options.pointee.output_nclx_profile = nclx
        options.pointee.macOS_compatibility_workaround_no_nclx_profile = 0
        var handle: OpaquePointer?
        try Self.check(heif_context_encode_image(ctx, image, encoder, options, &handle), "encoding")
        defer { heif_image_handle_release(handle) }
        if let exif = settings.exif, !exif.isEmpty {
            try exif.withUnsafeBytes { try Self.check(heif_context_add_exif_metadata(ctx, handle, $0.baseAddress, Int32($0.count)), "EXIF") }
        }
        if let xmp = settings.xmpPacket, !xmp.isEmpty {
            try xmp.withUnsafeBytes { try Self.check(heif_context_add_XMP_metadata(ctx, handle, $0.baseAddress, Int32($0.count)), "XMP") }
        }

        let sink = Sink()
        var writer = heif_writer(writer_api_version: 1) { _, data, size, user in
            let sink = Unmanaged<Sink>.fromOpaque(user!).takeUnretainedValue()
            if let data { sink.data.append(data.assumingMemoryBound(to: UInt8.self), count: size) }
            return heif_error(code: heif_error_Ok, subcode: heif_suberror_Unspecified, message: nil)
        }
        try Self.check(heif_context_write(ctx, &writer, Unmanaged.passUnretained(sink).toOpaque()), "writing")
        try withExtendedLifetime(sink) { try output.write(sink.data) }
    }

    /// The output space whose profile `icc` is (its description names it), sRGB when it is none of them: only the
    /// nclx box depends on it, and the ICC profile is written beside it in any case.
    static func space(of icc: Data?) -> OutputColorSpace {
        guard let icc else { return .srgb }
        return OutputColorSpace.allCases.first { ICCProfile.embedded(for: $0) == icc } ?? .srgb
    }

    /// A libheif RGB(A) image holding `pixels` at `bits` bits (grey expanded to RGB).
    private static func image(_ pixels: EncodedPixels, bits: Int) throws -> OpaquePointer {
        let alpha = pixels.hasAlpha, channels = alpha ? 4 : 3
        let deep = bits > 8
        let chroma = deep ? (alpha ? heif_chroma_interleaved_RRGGBBAA_LE : heif_chroma_interleaved_RRGGBB_LE)
                          : (alpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB)
        var image: OpaquePointer?
        try check(heif_image_create(Int32(pixels.width), Int32(pixels.height), heif_colorspace_RGB, chroma, &image), "image")
        guard let image else { throw LightWorkError.writeFailed("HEIF: out of memory") }
        do {
            try check(heif_image_add_plane(image, heif_channel_interleaved, Int32(pixels.width), Int32(pixels.height), Int32(bits)), "plane")
            var stride: Int32 = 0
            guard let plane = heif_image_get_plane(image, heif_channel_interleaved, &stride) else {
                throw LightWorkError.writeFailed("HEIF: libheif gave no plane")
            }
            let source = pixels.channels, width = pixels.width
            // Source sample for output channel c of pixel x (grey repeats its one colour sample; alpha is last).
            @inline(__always) func index(_ x: Int, _ c: Int) -> Int {
                source >= 3 ? x * source + c : x * source + (c == 3 ? 1 : 0)
            }
            for y in 0..<pixels.height {
                let row = plane + y * Int(stride)
                let base = y * width * source
                if deep {
                    let d = UnsafeMutableRawPointer(row)
                    for x in 0..<width {
                        for c in 0..<channels {
                            let v = Int(pixels.samples16[base + index(x, c)])
                            let narrowed = UInt16((v * 1023 + 32767) / 65535)
                            d.storeBytes(of: narrowed.littleEndian, toByteOffset: 2 * (x * channels + c), as: UInt16.self)
                        }
                    }
                } else {
                    for x in 0..<width {
                        for c in 0..<channels { row[x * channels + c] = pixels.samples8[base + index(x, c)] }
                    }
                }
            }
        } catch {
            heif_image_release(image)
            throw error
        }
        return image
    }
}
