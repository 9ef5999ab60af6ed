import CHeif
import Foundation

/// Decodes the primary image of a HEIF file with libheif (HEVC through libde265) into upright device-RGB pixels:
/// libheif applies the file's irot/imir/clap transforms (normative in HEIF), so the EXIF orientation, which
/// repeats them, is not applied again. Colour from the ICC profile (`prof`/`rICC`), else the nclx code points
/// (`CICP`), else sRGB assumed; 9 to 16-bit images stay above 8 bits; alpha un-premultiplied when the file
/// premultiplies it.
public enum HEIFDecoder {
    /// A decoded primary image: interleaved 8-bit or 16-bit (widened to 0…65535) RGB or RGBA, and what the file says of it.
    struct Primary {
        var samples: [UInt8]
        var stride: Int
        var width: Int
        var height: Int
        var alpha: Bool
        var sixteenBit: Bool
        var bits: Int
        var icc: Data?
        var cicp: CICP?
        var exif: Data?
        var premultiplied: Bool
        var warnings: [String]
    }

    static func message(_ error: heif_error) -> String {
        oneLine(error.message.map { String(cString: $0) } ?? "error \(error.code.rawValue)")
    }

    /// Opens `bytes`, checks the primary image's size with `check` before decoding it, and decodes it.
    static func primary(_ bytes: UnsafeRawBufferPointer, threads: Int, check: (Int, Int) throws -> Void) throws -> Primary {
        guard let ctx = heif_context_alloc() else { throw LightWorkError.decodeFailed("HEIF: libheif could not start") }
        defer { heif_context_free(ctx) }
        heif_context_set_max_decoding_threads(ctx, Int32(max(1, threads)))
        var error = heif_context_read_from_memory_without_copy(ctx, bytes.baseAddress, bytes.count, nil)
        guard error.code == heif_error_Ok else { throw LightWorkError.decodeFailed("HEIF: \(message(error))") }
        var handle: OpaquePointer?
        error = heif_context_get_primary_image_handle(ctx, &handle)
        guard error.code == heif_error_Ok, let handle else { throw LightWorkError.decodeFailed("HEIF: no primary image: \(message(error))") }
        defer { heif_image_handle_release(handle) }
        try check(Int(max(heif_image_handle_get_width(handle), heif_image_handle_get_ispe_width(handle))),
                  Int(max(heif_image_handle_get_height(handle), heif_image_handle_get_ispe_height(handle))))
        let alpha = heif_image_handle_has_alpha_channel(handle) != 0
        let lumaBits = Int(heif_image_handle_get_luma_bits_per_pixel(handle))
        let deep = lumaBits > 8
        let chroma = deep ? (alpha ? heif_chroma_interleaved_RRGGBBAA_LE : heif_chroma_interleaved_RRGGBB_LE)
                          : (alpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB)
        guard let options = heif_decoding_options_alloc() else { throw LightWorkError.decodeFailed("HEIF: out of memory") }
        defer { heif_decoding_options_free(options) }
        options.pointee.ignore_transformations = 0
        options.pointee.convert_hdr_to_8bit = 0
        var image: OpaquePointer?
        error = heif_decode_image(handle, &image, heif_colorspace_RGB, chroma, options)
        guard error.code == heif_error_Ok, let image else { throw LightWorkError.decodeFailed("HEIF: \(message(error))") }
        defer { heif_image_release(image) }
        var warnings: [String] = []
        var warning = heif_error(code: heif_error_Ok, subcode: heif_suberror_Unspecified, message: nil)
        if heif_image_get_decoding_warnings(image, 0, &warning, 1) > 0 { warnings.append("libheif: \(message(warning))") }

        var stride: Int32 = 0
        guard let plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride) else {
            throw LightWorkError.decodeFailed("HEIF: libheif delivered no interleaved RGB plane")
        }
        let width = Int(heif_image_get_width(image, heif_channel_interleaved)), height = Int(heif_image_get_height(image, heif_channel_interleaved))
        let bits = Int(heif_image_get_bits_per_pixel_range(image, heif_channel_interleaved))
        let channels = alpha ? 4 : 3
        guard width > 0, height > 0, Int(stride) >= width * channels * (deep ? 2 : 1), (deep ? 9...16 : 8...8).contains(bits) else {
            throw LightWorkError.decodeFailed("HEIF: libheif delivered a \(width)×\(height) plane of \(bits) bits")
        }
        var primary = Primary(samples: [], stride: width * channels * (deep ? 2 : 1), width: width, height: height, alpha: alpha,
                              sixteenBit: deep, bits: deep ? bits : 8, icc: nil, cicp: nil, exif: nil,
                              premultiplied: heif_image_is_premultiplied_alpha(image) != 0, warnings: warnings)
        primary.samples = [UInt8](repeating: 0, count: primary.stride * height)
        primary.samples.withUnsafeMutableBytes { out in
            for y in 0..<height {
                let src = plane + y * Int(stride), dst = out.baseAddress! + y * primary.stride
                if deep {
                    // Little-endian samples of `bits` bits, widened to 16 (v·65535/(2ⁿ−1), rounded).
                    let maxValue = (1 << bits) - 1
                    let s = UnsafeRawPointer(src), d = dst.assumingMemoryBound(to: UInt16.self)
                    for i in 0..<(width * channels) {
                        let v = Int(s.load(fromByteOffset: 2 * i, as: UInt16.self).littleEndian)
                        d[i] = UInt16((min(v, maxValue) * 65535 + maxValue / 2) / maxValue)
                    }
                } else {
                    dst.copyMemory(from: src, byteCount: primary.stride)
                }
            }
            if primary.premultiplied && alpha { unpremultiply(out, count: width * height, sixteenBit: deep) }
        }

        switch heif_image_handle_get_color_profile_type(handle) {
        case heif_color_profile_type_prof, heif_color_profile_type_rICC:
            let size = heif_image_handle_get_raw_color_profile_size(handle)
            if size > 0 {
                var icc = Data(count: size)
                let e = icc.withUnsafeMutableBytes { heif_image_handle_get_raw_color_profile(handle, $0.baseAddress) }
                if e.code == heif_error_Ok { primary.icc = icc }
            }
        default: break
        }
        var nclx: UnsafeMutablePointer<heif_color_profile_nclx>?
        if heif_image_handle_get_nclx_color_profile(handle, &nclx).code == heif_error_Ok, let nclx {
            primary.cicp = CICP(primaries: UInt16(nclx.pointee.color_primaries.rawValue), transfer: UInt16(nclx.pointee.transfer_characteristics.rawValue),
                                matrix: UInt16(nclx.pointee.matrix_coefficients.rawValue), fullRange: nclx.pointee.full_range_flag != 0)
            heif_nclx_color_profile_free(nclx)
        }
        var exifID: heif_item_id = 0
        if heif_image_handle_get_list_of_metadata_block_IDs(handle, "Exif", &exifID, 1) == 1 {
            let size = heif_image_handle_get_metadata_size(handle, exifID)
            if size > 4 {
                var block = [UInt8](repeating: 0, count: size)
                if heif_image_handle_get_metadata(handle, exifID, &block).code == heif_error_Ok {
                    // The item starts with the offset from its fifth byte to the TIFF header.
                    let skip = Int(block[0]) << 24 | Int(block[1]) << 16 | Int(block[2]) << 8 | Int(block[3])
                    if skip <= size - 4 { primary.exif = EXIFReader.tiffBlock(Data(block[(4 + skip)...])) }
                }
            }
        }
        return primary
    }

    /// Colour divided by alpha, rounded, in place (interleaved RGBA).
    private static func unpremultiply(_ buffer: UnsafeMutableRawBufferPointer, count: Int, sixteenBit: Bool) {
        func run<T: FixedWidthInteger & UnsignedInteger>(_ p: UnsafeMutablePointer<T>, max: Int) {
            for i in 0..<count {
                let a = Int(p[4 * i + 3])
                for c in 0..<3 {
                    p[4 * i + c] = a == 0 ? 0 : T(min(max, (Int(p[4 * i + c]) * max + a / 2) / a))
                }
            }
        }
        if sixteenBit { run(buffer.baseAddress!.assumingMemoryBound(to: UInt16.self), max: 65535) }
        else { run(buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), max: 255) }
    }

    public static func decode(data: Data, options: DecodeOptions, threads: Int = 1) throws -> DecodedImage {
        guard !data.isEmpty else { throw LightWorkError.emptyFile }
        let primary = try data.withUnsafeBytes { bytes in
            try HEIFDecoder.primary(bytes, threads: threads) { try PixelLimit.check(width: $0, height: $1, format: "HEIF", options: options) }
        }
        let colour: ICCInput
        if let icc = primary.icc {
            colour = ICCInput.embedded(icc, model: .rgb, intent: options.intent)
        } else if let cicp = primary.cicp {
            colour = try cicp.input(intent: options.intent)
        } else {
            colour = ICCInput.unspecified(.rgb)
        }
        let layout: DeviceRGBConverter.Layout = primary.alpha ? .rgba : .rgb
        let (image, sourceProfile, colourNotes) = try primary.samples.withUnsafeBytes { p in
            try DecodedBuffer.working(p.baseAddress!, stride: primary.stride, width: primary.width, height: primary.height, layout: layout,
                                      sixteenBit: primary.sixteenBit, colour: colour, intent: options.intent)
        }
        let notes = colourNotes + primary.warnings
        var metadata = primary.exif.flatMap(EXIFReader.read) ?? ImageMetadata()
        var details = [
            "format": "HEIF",
            "bit depth": String(primary.bits),
            "alpha": primary.alpha ? (primary.premultiplied ? "yes (premultiplied in the file)" : "yes") : "no",
            "colour": primary.icc != nil ? "ICC profile" + (primary.cicp.map { " (and \($0.nclxDescription))" } ?? "") : primary.cicp?.nclxDescription ?? "none",
            "stored size": "\(primary.width)×\(primary.height)",
        ]
        if let o = metadata.orientation, o != 1 {
            details["transforms"] = "irot/imir applied by libheif; EXIF orientation \(o) not applied again"
        }
        metadata.orientation = nil
        var result = DecodedImage(image: image, kind: .rgb, metadata: metadata, notes: notes, sourceProfile: sourceProfile, details: details)
        result.exifBlob = primary.exif
        return result
    }

    /// Reads a HEIF back as libheif decodes its primary image: RGB(A) samples at the file's bit depth (8, or 10 for
    /// `heif10`: the values as stored, 0…1023), with its ICC profile and EXIF.
    static func readBack(data: Data, path: String) throws -> ImageFile {
        guard !data.isEmpty else { throw LightWorkError.emptyFile }
        let p: Primary
        do {
            p = try data.withUnsafeBytes { try primary($0, threads: 1) { try PixelLimit.check(width: $0, height: $1, format: "HEIF", options: PixelLimit.readBack) } }
        } catch let error as LightWorkError {
            throw LightWorkError.decodeFailed("\(path): \(error.description)")
        }
        let channels = p.alpha ? 4 : 3
        // Deep samples were widened to 16 bits by rounding; rounding back gives the stored values exactly.
        let maxValue = UInt32((1 << p.bits) - 1)
        let samples: [UInt16] = p.sixteenBit
            ? p.samples.withUnsafeBytes { $0.bindMemory(to: UInt16.self).prefix(p.width * p.height * channels).map { UInt16((UInt32($0) * maxValue + 32767) / 65535) } }
            : p.samples.map(UInt16.init)
        return ImageFile(format: ImageFile.Format(rawValue: "heif"), width: p.width, height: p.height, channels: channels,
                         bitDepth: p.bits, iccProfile: p.icc, exif: p.exif, samples: samples,
                         metadata: p.exif.flatMap(EXIFReader.read))
    }
}
