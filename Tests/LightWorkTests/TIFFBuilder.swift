import CShims
import CTIFF
import Foundation
import XCTest
@testable import LightWork

/// Writes TIFFs of any layout through libtiff for tests: samples given as stored (integers, or float values),
/// strips or tiles, any photometric interpretation, extra samples, orientation and ICC profile, so every input
/// layout has a known truth.
struct TIFFBuilder {
    var width: Int
    var height: Int
    /// 8, 16 (unsigned integers) or 32 (IEEE float).
    var bits = 8
    var photometric = PHOTOMETRIC_RGB
    var samplesPerPixel = 3
    var extraSamples: [UInt16] = []
    /// Tile width and length (multiples of 16), nil for strips.
    var tile: (Int, Int)?
    var rowsPerStrip = 3
    var compression = COMPRESSION_NONE
    var predictor: UInt16?
    var orientation: UInt16?
    var icc: Data?
    var bigEndian = false
    /// IFD0 tags written as they are (Make, Model, NewSubfileType…): (tag, value) for ASCII strings.
    var strings: [(UInt32, String)] = []
    var shorts: [(UInt32, UInt16)] = []
    var longs: [(UInt32, UInt32)] = []
    /// Red, green and blue entries (3 × 2^bits) of a palette image.
    var colormap: [UInt16]?
    /// Writes DNGVersion 1.4 (a DNG marker).
    var dngVersion = false

    /// The file for `samples` (`width × height × samplesPerPixel` values, interleaved, as stored).
    func build(_ samples: [Double]) throws -> Data {
        precondition(samples.count == width * height * samplesPerPixel)
        lw_tiff_quiet()
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("lw-tiffbuilder-\(UUID().uuidString).tif")
        defer { try? FileManager.default.removeItem(at: url) }
        guard let tif = TIFFOpen(url.path, bigEndian ? "wb" : "wl") else { throw LightWorkError.writeFailed("TIFFOpen") }
        func set16(_ tag: Int32, _ v: UInt16) { XCTAssertEqual(lw_tiff_set_u16(tif, UInt32(tag), v), 1, "tag \(tag)") }
        func set32(_ tag: Int32, _ v: UInt32) { XCTAssertEqual(lw_tiff_set_u32(tif, UInt32(tag), v), 1, "tag \(tag)") }
        set32(TIFFTAG_IMAGEWIDTH, UInt32(width))
        set32(TIFFTAG_IMAGELENGTH, UInt32(height))
        set16(TIFFTAG_BITSPERSAMPLE, UInt16(bits))
        set16(TIFFTAG_SAMPLESPERPIXEL, UInt16(samplesPerPixel))
        set16(TIFFTAG_SAMPLEFORMAT, UInt16(bits == 32 ? SAMPLEFORMAT_IEEEFP : SAMPLEFORMAT_UINT))
        set16(TIFFTAG_PHOTOMETRIC, UInt16(photometric))
        set16(TIFFTAG_PLANARCONFIG, UInt16(PLANARCONFIG_CONTIG))
        set16(TIFFTAG_COMPRESSION, UInt16(compression))
        if let predictor { set16(TIFFTAG_PREDICTOR, predictor) }
        if let orientation { set16(TIFFTAG_ORIENTATION, orientation) }
        if !extraSamples.isEmpty { XCTAssertEqual(lw_tiff_set_extrasamples(tif, UInt16(extraSamples.count), extraSamples), 1) }
        if let icc { _ = icc.withUnsafeBytes { lw_tiff_set_bytes(tif, UInt32(TIFFTAG_ICCPROFILE), UInt32(icc.count), $0.baseAddress) } }
        if let colormap {
            let n = colormap.count / 3
            XCTAssertEqual(lw_tiff_set_colormap(tif, Array(colormap[0..<n]), Array(colormap[n..<(2 * n)]), Array(colormap[(2 * n)...])), 1)
        }
        if dngVersion { XCTAssertEqual(lw_tiff_set_pointer(tif, UInt32(TIFFTAG_DNGVERSION), [UInt8(1), 4, 0, 0]), 1) }
        for (tag, s) in strings { XCTAssertEqual(lw_tiff_set_string(tif, tag, s), 1) }
        for (tag, v) in shorts { XCTAssertEqual(lw_tiff_set_u16(tif, tag, v), 1) }
        for (tag, v) in longs { XCTAssertEqual(lw_tiff_set_u32(tif, tag, v), 1) }
        let bytesPerSample = bits / 8, pixelBytes = samplesPerPixel * bytesPerSample, rowBytes = width * pixelBytes
        var raw = [UInt8](repeating: 0, count: rowBytes * height)
        for (i, v) in samples.enumerated() {
            switch bits {
            case 8: raw[i] = UInt8(v)
            case 16: withUnsafeBytes(of: UInt16(v)) { raw[2 * i] = $0[0]; raw[2 * i + 1] = $0[1] }
            default: withUnsafeBytes(of: Float(v)) { for k in 0..<4 { raw[4 * i + k] = $0[k] } }
            }
        }
        if let (tw, tl) = tile {
            set32(TIFFTAG_TILEWIDTH, UInt32(tw))
            set32(TIFFTAG_TILELENGTH, UInt32(tl))
            var buffer = [UInt8](repeating: 0, count: tw * tl * pixelBytes)
            for y0 in stride(from: 0, to: height, by: tl) {
                for x0 in stride(from: 0, to: width, by: tw) {
                    for k in buffer.indices { buffer[k] = 0 }
                    for y in y0..<min(height, y0 + tl) {
                        let n = (min(width, x0 + tw) - x0) * pixelBytes
                        buffer.replaceSubrange(((y - y0) * tw * pixelBytes)..<((y - y0) * tw * pixelBytes + n),
                                               with: raw[(y * rowBytes + x0 * pixelBytes)..<(y * rowBytes + x0 * pixelBytes + n)])
                    }
                    XCTAssertGreaterThanOrEqual(TIFFWriteTile(tif, &buffer, UInt32(x0), UInt32(y0), 0, 0), 0)
                }
            }
        } else {
            set32(TIFFTAG_ROWSPERSTRIP, UInt32(rowsPerStrip))
            for (s, y0) in stride(from: 0, to: height, by: rowsPerStrip).enumerated() {
                let n = min(rowsPerStrip, height - y0) * rowBytes
                var strip = Array(raw[(y0 * rowBytes)..<(y0 * rowBytes + n)])
                XCTAssertGreaterThanOrEqual(TIFFWriteEncodedStrip(tif, UInt32(s), &strip, tmsize_t(n)), 0)
            }
        }
        TIFFClose(tif)
        return try Data(contentsOf: url)
    }
}

/// An independent reader of written images: ImageMagick's `convert`, every pixel as 16-bit big-endian RGBA.
enum MagickReader {
    /// RGBA samples of `url` at 16 bits (8-bit files scaled by ImageMagick: ×257).
    static func rgba16(_ url: URL) throws -> [UInt16] {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["convert", url.path, "-depth", "16", "-endian", "MSB", "rgba:-"]
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            throw LightWorkError.missingTool("ImageMagick's convert failed on \(url.path) (scripts/ensure-deps.sh --test installs it): "
                                             + String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
        }
        let b = [UInt8](data)
        return (0..<(b.count / 2)).map { UInt16(b[2 * $0]) << 8 | UInt16(b[2 * $0 + 1]) }
    }
}
