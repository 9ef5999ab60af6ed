import CJPEG
import Foundation

/// Encodes test JPEGs with libjpeg directly (only valid parameters: libjpeg's default handler exits on error).
enum JPEGBuilder {
    /// `samples` are interleaved 8-bit values of `components` channels (1 grey, 3 RGB, 4 CMYK).
    /// `adobeMarker` writes APP14 (for CMYK, the samples must then be stored inverted, Adobe style).
    static func encode(width: Int, height: Int, components: Int, samples: [UInt8], quality: Int32 = 95,
                       progressive: Bool = false, adobeMarker: Bool = false, icc: Data? = nil, exif: Data? = nil) -> Data {
        var err = jpeg_error_mgr()
        var cinfo = jpeg_compress_struct()
        cinfo.err = jpeg_std_error(&err)
        jpeg_CreateCompress(&cinfo, JPEG_LIB_VERSION, MemoryLayout<jpeg_compress_struct>.size)
        defer { jpeg_destroy_compress(&cinfo) }
        var buffer: UnsafeMutablePointer<UInt8>? = nil
        var size: UInt = 0
        jpeg_mem_dest(&cinfo, &buffer, &size)
        cinfo.image_width = JDIMENSION(width)
        cinfo.image_height = JDIMENSION(height)
        cinfo.input_components = Int32(components)
        cinfo.in_color_space = components == 1 ? JCS_GRAYSCALE : components == 3 ? JCS_RGB : JCS_CMYK
        jpeg_set_defaults(&cinfo)
        if components == 4 { jpeg_set_colorspace(&cinfo, JCS_CMYK) }
        cinfo.write_Adobe_marker = adobeMarker ? 1 : 0
        jpeg_set_quality(&cinfo, quality, 1)
        if progressive { jpeg_simple_progression(&cinfo) }
        jpeg_start_compress(&cinfo, 1)
        if let exif {
            let payload = [UInt8]("Exif".utf8) + [0, 0] + [UInt8](exif)
            jpeg_write_marker(&cinfo, Int32(JPEG_APP0 + 1), payload, UInt32(payload.count))
        }
        if let icc {
            let bytes = [UInt8](icc)
            jpeg_write_icc_profile(&cinfo, bytes, UInt32(bytes.count))
        }
        samples.withUnsafeBufferPointer { s in
            while cinfo.next_scanline < cinfo.image_height {
                var row: UnsafeMutablePointer<UInt8>? = UnsafeMutablePointer(mutating: s.baseAddress! + Int(cinfo.next_scanline) * width * components)
                _ = jpeg_write_scanlines(&cinfo, &row, 1)
            }
        }
        jpeg_finish_compress(&cinfo)
        let out = Data(bytes: buffer!, count: Int(size))
        free(buffer)
        return out
    }

    /// Offsets of the SOF marker's height and width fields (to craft bad headers).
    static func sofDimensionOffset(_ data: Data) -> Int? {
        let b = [UInt8](data)
        var i = 2
        while i + 9 < b.count, b[i] == 0xFF {
            let m = b[i + 1]
            if (0xC0...0xC2).contains(m) { return i + 5 }
            i += 2 + (Int(b[i + 2]) << 8 | Int(b[i + 3]))
        }
        return nil
    }
}
