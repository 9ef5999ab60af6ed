import CJPEG
import CLCMS2
import CPNG
import CShims
import Foundation
import XCTest
@testable import LightWork

/// Independent readers the decoder tests compare against: libjpeg and libpng called directly, ICC profiles
/// taken from the file's own bytes, colours converted by a LittleCMS transform built here.
/// Only for the known-good sample files (libjpeg's default error handler exits on a bad file).
enum ReferenceReaders {
    /// Stored samples of a JPEG as libjpeg decodes them (RGB, grey or CMYK, 8 bits), with the APP14 flag.
    struct JPEGSamples {
        var width: Int, height: Int, components: Int
        var adobeInverted: Bool
        var samples: [UInt8]
    }

    static func jpegSamples(_ data: Data) -> JPEGSamples {
        var err = jpeg_error_mgr()
        var cinfo = jpeg_decompress_struct()
        cinfo.err = jpeg_std_error(&err)
        jpeg_CreateDecompress(&cinfo, JPEG_LIB_VERSION, MemoryLayout<jpeg_decompress_struct>.size)
        defer { jpeg_destroy_decompress(&cinfo) }
        let bytes = [UInt8](data)
        return bytes.withUnsafeBufferPointer { b -> JPEGSamples in
            jpeg_mem_src(&cinfo, b.baseAddress, UInt(b.count))
            _ = jpeg_read_header(&cinfo, 1)
            if cinfo.jpeg_color_space == JCS_YCbCr { cinfo.out_color_space = JCS_RGB }
            if cinfo.jpeg_color_space == JCS_YCCK { cinfo.out_color_space = JCS_CMYK }
            _ = jpeg_start_decompress(&cinfo)
            let w = Int(cinfo.output_width), h = Int(cinfo.output_height), n = Int(cinfo.output_components)
            var out = [UInt8](repeating: 0, count: w * h * n)
            out.withUnsafeMutableBufferPointer { o in
                while cinfo.output_scanline < cinfo.output_height {
                    var row: UnsafeMutablePointer<UInt8>? = o.baseAddress! + Int(cinfo.output_scanline) * w * n
                    _ = jpeg_read_scanlines(&cinfo, &row, 1)
                }
            }
            let inverted = cinfo.saw_Adobe_marker != 0
            _ = jpeg_finish_decompress(&cinfo)
            return JPEGSamples(width: w, height: h, components: n, adobeInverted: inverted, samples: out)
        }
    }

    /// The ICC profile of a JPEG, reassembled from its APP2 "ICC_PROFILE" chunks by walking the markers.
    static func jpegICC(_ data: Data) -> Data? {
        let b = [UInt8](data)
        var chunks: [Int: [UInt8]] = [:]
        var i = 2
        while i + 4 <= b.count, b[i] == 0xFF {
            let marker = b[i + 1]
            if marker == 0xDA || marker == 0xD9 { break }
            let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
            let payload = Array(b[(i + 4)..<min(b.count, i + 2 + length)])
            if marker == 0xE2, payload.count > 14, Array(payload.prefix(12)) == Array("ICC_PROFILE".utf8) + [0] {
                chunks[Int(payload[12])] = Array(payload[14...])
            }
            i += 2 + length
        }
        guard !chunks.isEmpty else { return nil }
        return Data(chunks.keys.sorted().flatMap { chunks[$0]! })
    }

    /// PNG rows as libpng delivers them after the same expansions (8 or 16-bit native samples).
    struct PNGRows {
        var width: Int, height: Int, channels: Int, depth: Int
        var bytes: [UInt8]
        var icc: Data?
        var gamma: Double?
        /// white x, y, red x, y, green x, y, blue x, y.
        var chromaticities: [Double]?
        func sample(x: Int, y: Int, c: Int) -> Double {
            let i = (y * width + x) * channels + c
            if depth == 8 { return Double(bytes[i]) / 255 }
            return Double(bytes.withUnsafeBytes { $0.load(fromByteOffset: 2 * i, as: UInt16.self) }) / 65535
        }
    }

    static func pngRows(_ data: Data) -> PNGRows? {
        let bytes = [UInt8](data)
        return bytes.withUnsafeBufferPointer { b -> PNGRows? in
            guard let d = lw_pngdec_create(b.baseAddress, b.count) else { return nil }
            defer { lw_pngdec_destroy(d) }
            guard lw_pngdec_read_info(d) == 0 else { return nil }
            let png = lw_pngdec_png(d)!, info = lw_pngdec_info(d)!
            var icc: Data? = nil
            var name: png_charp? = nil, comp: Int32 = 0, prof: png_bytep? = nil, len: png_uint_32 = 0
            if png_get_iCCP(png, info, &name, &comp, &prof, &len) != 0, let prof { icc = Data(bytes: prof, count: Int(len)) }
            var g = 0.0
            let gamma: Double? = png_get_gAMA(png, info, &g) != 0 ? g : nil
            var wx = 0.0, wy = 0.0, rx = 0.0, ry = 0.0, gx = 0.0, gy = 0.0, bx = 0.0, by = 0.0
            let chrm: [Double]? = png_get_cHRM(png, info, &wx, &wy, &rx, &ry, &gx, &gy, &bx, &by) != 0 ? [wx, wy, rx, ry, gx, gy, bx, by] : nil
            var passes: Int32 = 0
            guard lw_pngdec_expand(d, &passes) == 0 else { return nil }
            let w = Int(png_get_image_width(png, info)), h = Int(png_get_image_height(png, info))
            let rowBytes = Int(png_get_rowbytes(png, info))
            var out = [UInt8](repeating: 0, count: rowBytes * h)
            let ok = out.withUnsafeMutableBufferPointer { o -> Bool in
                var rows: [UnsafeMutablePointer<UInt8>?] = (0..<h).map { o.baseAddress! + $0 * rowBytes }
                for _ in 0..<passes { if lw_pngdec_read_rows(d, &rows, UInt32(h)) != 0 { return false } }
                return true
            }
            guard ok else { return nil }
            return PNGRows(width: w, height: h, channels: Int(png_get_channels(png, info)), depth: Int(png_get_bit_depth(png, info)),
                           bytes: out, icc: icc, gamma: gamma, chromaticities: chrm)
        }
    }

    /// LittleCMS double-precision formats (macros Swift does not import): FLOAT_SH(1)|COLORSPACE_SH(pt)|CHANNELS_SH(n).
    /// RGB and grey take 0…1; CMYK takes ink percentages 0…100.
    static let rgbDouble: cmsUInt32Number = 1 << 22 | 4 << 16 | 3 << 3
    static let grayDouble: cmsUInt32Number = 1 << 22 | 3 << 16 | 1 << 3
    static let cmykDouble: cmsUInt32Number = 1 << 22 | 6 << 16 | 4 << 3

    /// Converts one colour (values 0…1 in the profile's channel order) to sRGB with LittleCMS in double
    /// precision; by default relative colorimetric with black-point compensation, as the decoder is specified to do.
    /// Outputs are clipped to 0…1 as an integer transform clips them.
    static func toSRGB(_ colours: [[Double]], profile: cmsHPROFILE, format: cmsUInt32Number, intent: UInt32 = 1,
                       blackPointCompensation: Bool = true) -> [[Double]] {
        let srgb = cmsCreate_sRGBProfile()!
        defer { cmsCloseProfile(srgb) }
        let flags = UInt32(cmsFLAGS_NOOPTIMIZE) | (blackPointCompensation ? UInt32(cmsFLAGS_BLACKPOINTCOMPENSATION) : 0)
        let t = cmsCreateTransform(profile, format, srgb, rgbDouble, intent, flags)!
        defer { cmsDeleteTransform(t) }
        return colours.map { c in
            var input = c
            var out = [Double](repeating: 0, count: 3)
            cmsDoTransform(t, &input, &out, 1)
            return out.map { min(1, max(0, $0)) }
        }
    }
}

extension WorkingImage {
    /// Every value as Float32 RGBA (one conversion; for tests that look at many pixels).
    func floats() -> [Float] {
        var out = [Float](repeating: 0, count: 4 * pixelCount)
        lw_half_to_float(storage, &out, 4 * pixelCount)
        return out
    }
}

/// Asserts that `body` throws a LightWorkError matching `expected`, whose message is one non-empty line.
func assertLightWorkError(_ body: @autoclosure () throws -> Any, file: StaticString = #filePath, line: UInt = #line,
                          _ expected: (LightWorkError) -> Bool) {
    do {
        _ = try body()
        XCTFail("expected an error", file: file, line: line)
    } catch let e as LightWorkError {
        XCTAssertTrue(expected(e), "unexpected error: \(e)", file: file, line: line)
        XCTAssertFalse(e.description.isEmpty, file: file, line: line)
        XCTAssertFalse(e.description.contains("\n"), "message spans lines: \(e.description)", file: file, line: line)
    } catch {
        XCTFail("not a LightWorkError: \(error)", file: file, line: line)
    }
}
