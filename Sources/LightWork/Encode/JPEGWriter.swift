import CShims
import Foundation

/// Writes baseline JPEG with libjpeg-turbo: 8-bit RGB or grey, optimised Huffman tables (unless turned off
/// in the settings), accurate integer DCT (the same bytes on every machine), 4:4:4 chroma at
/// quality 90 and above (4:2:0 below), EXIF as APP1, the XMP packet as a second APP1, the ICC profile as APP2 and
/// IPTC-IIM as APP13. Alpha is refused:
/// the caller flattens it first.
public struct JPEGWriter: ImageWriter {
    /// Quality from which chroma is kept at full resolution.
    public static let fullChromaQuality = 90

    public init() {}

    public func encode(_ pixels: EncodedPixels, settings: EncodeSettings, to output: AtomicFile.Output) throws {
        try pixels.validateForWriting(profile: settings.iccProfile)
        guard pixels.depth == .eight else {
            throw LightWorkError.writeFailed("\(output.finalPath): JPEG stores 8-bit samples; 16-bit pixels must be converted first")
        }
        guard pixels.channels == 1 || pixels.channels == 3 else {
            throw LightWorkError.writeFailed("\(output.finalPath): JPEG cannot store an alpha channel; flatten the alpha first or write PNG/TIFF")
        }
        let quality = min(100, max(1, settings.jpegQuality))
        let exif = settings.exif.map(Self.app1Payload)
        let xmp = settings.xmpPacket.map { Self.xmpHeader + $0 }
        let iptc = try settings.iptc.map { Self.photoshopHeader + (try Exiv2Metadata.photoshopResource(iim: $0)) }
        var encoded: UnsafeMutablePointer<UInt8>?
        var length = 0
        var message = [CChar](repeating: 0, count: 512)
        let status = pixels.samples8.withUnsafeBufferPointer { px in
            withOptionalBytes(exif) { exifPtr, exifCount in
                withOptionalBytes(settings.iccProfile) { iccPtr, iccCount in
                  withOptionalBytes(xmp) { xmpPtr, xmpCount in
                    withOptionalBytes(iptc) { iptcPtr, iptcCount in
                        var params = lw_jpeg_encode_params(
                            width: Int32(pixels.width), height: Int32(pixels.height), components: Int32(pixels.channels),
                            quality: Int32(quality), subsample_444: quality >= Self.fullChromaQuality ? 1 : 0,
                            optimize_coding: settings.jpegOptimizeCoding ? 1 : 0, exif: exifPtr, exif_len: exifCount, icc: iccPtr, icc_len: iccCount,
                            xmp: xmpPtr, xmp_len: xmpCount, iptc: iptcPtr, iptc_len: iptcCount)
                        return lw_jpeg_encode(&params, px.baseAddress, pixels.samplesPerRow, &encoded, &length, &message, message.count)
                    }
                  }
                }
            }
        }
        defer { lw_jpeg_free(encoded) }
        guard status == 0, let encoded else {
            throw LightWorkError.writeFailed("\(output.finalPath): libjpeg: \(cMessage(message))")
        }
        try output.write(UnsafeRawBufferPointer(start: encoded, count: length))
    }

    /// What precedes the XMP packet in its APP1 segment (XMP specification part 3).
    static let xmpHeader = Data("http://ns.adobe.com/xap/1.0/\0".utf8)
    /// What precedes the image resources in APP13.
    static let photoshopHeader = Data("Photoshop 3.0\0".utf8)

    /// The APP1 payload: "Exif\0\0" then the TIFF-structured EXIF (kept as is if the header is already there).
    static func app1Payload(_ exif: Data) -> Data {
        let header = Data("Exif\0\0".utf8)
        return exif.starts(with: header) ? exif : header + exif
    }
}

/// Calls `body` with the bytes of `data` (or nil and 0), for optional blobs handed to C.
func withOptionalBytes<R>(_ data: Data?, _ body: (UnsafePointer<UInt8>?, Int) throws -> R) rethrows -> R {
    guard let data, !data.isEmpty else { return try body(nil, 0) }
    return try data.withUnsafeBytes { try body($0.bindMemory(to: UInt8.self).baseAddress, $0.count) }
}
