import CShims
import Foundation

extension OutputFormat {
    /// 8-bit baseline JPEG (RGB or grey, no alpha).
    public static let jpeg = OutputFormat("jpeg", codec: "jpeg", depth: .eight, fileExtension: "jpg", supportsAlpha: false, isLossless: false)
}

/// JPEG: decoded by `JPEGDecoder` (libjpeg-turbo, to device RGB), written by `JPEGWriter`, read back through the
/// same libjpeg decompressor. Signature FF D8 FF (SOI and the first marker).
public struct JPEGCodec: ImageCodec {
    public init() {}
    public var name: String { "jpeg" }
    public var aliases: [String] { ["jpg"] }
    public var priority: Int { 10 }
    public var inputExtensions: [String] { JPEGCodec.extensions }
    /// The extensions JPEGs carry (also what pairs a RAW with its camera JPEG).
    public static let extensions = ["jpg", "jpeg", "jpe"]

    public func matches(_ file: FileBytes) -> Bool { JPEGCodec.matches(file.read(0, 3) ?? []) }
    static func matches(_ head: [UInt8]) -> Bool { head.count >= 3 && head[0] == 0xFF && head[1] == 0xD8 && head[2] == 0xFF }

    // MARK: Input

    public var decodes: Bool { true }
    public func decode(data: Data, url: URL, options: DecodeOptions, engine: EngineConfiguration) throws -> DecodedImage {
        try JPEGDecoder.decode(data: data, options: options)
    }

    /// Scans markers in the first 256 KB to the first start-of-frame. Bytes between segments are skipped to the
    /// next 0xFF, as libjpeg skips them (with a warning) and then decodes the frame they hide.
    public func pixelCount(_ file: FileBytes) -> Int? {
        let b = file.prefix(1 << 18)
        var i = 2
        while i + 9 < b.count {
            guard b[i] == 0xFF else { i += 1; continue }
            let marker = b[i + 1]
            if marker == 0xFF { i += 1; continue }
            if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) { i += 2; continue }
            let length = BigEndian.u16(b, i + 2)
            if (0xC0...0xCF).contains(marker), marker != 0xC4, marker != 0xC8, marker != 0xCC {
                return ImageSizeProbe.product(BigEndian.u16(b, i + 7), BigEndian.u16(b, i + 5))
            }
            guard length >= 2 else { return nil }
            i += 2 + length
        }
        return nil
    }

    public func captureInfo(_ file: FileBytes) -> ImageMetadata? {
        JPEGCodec.exif(file.prefix(CaptureInfoProbe.prefixLength), from: 0)
    }

    /// The EXIF of the APP1 segment of the JPEG at `start` in `b` (RAF embeds one), walking markers up to the image data.
    static func exif(_ b: [UInt8], from start: Int) -> ImageMetadata? {
        var i = start + 2
        while i + 4 <= b.count {
            guard b[i] == 0xFF else { return nil }
            let marker = b[i + 1]
            if marker == 0xFF { i += 1; continue }                  // fill byte
            if marker == 0xDA || marker == 0xD9 { return nil }      // image data or end: no EXIF before it
            if (0xD0...0xD7).contains(marker) || marker == 0x01 { i += 2; continue }
            let length = BigEndian.u16(b, i + 2)
            guard length >= 2 else { return nil }
            let payload = i + 4, end = i + 2 + length
            if marker == 0xE1, end <= b.count, b[payload..<end].starts(with: EXIFReader.app1Prefix) {
                return EXIFReader.read(Data(b[payload..<end]))
            }
            i = end
        }
        return nil
    }

    /// Whole when it ends with the EOI marker (FF D9), trailing zero padding allowed (cameras pad).
    public func completeness(_ file: FileBytes) -> FileCompleteness.Verdict {
        guard let tail = file.read(max(0, file.size - 4096), min(file.size, 4096)) else { return .incomplete("unreadable end") }
        var end = tail.count
        while end > 2, tail[end - 1] == 0x00 { end -= 1 }
        return end >= 2 && tail[end - 2] == 0xFF && tail[end - 1] == 0xD9 ? .complete : .incomplete("JPEG without its end marker")
    }

    public var readsBack: Bool { true }
    public func readBack(data: Data, path: String) throws -> ImageFile { try JPEGDecoder.readBack(data: data, path: path) }

    // MARK: Output

    public var outputFormats: [OutputFormat] { [.jpeg] }
    public var options: [CodecOption] { [JPEGCodec.quality] }
    public func writer(engine: EngineConfiguration) -> (any ImageWriter)? { JPEGWriter() }

    /// Quality when nothing asks for another.
    public static let defaultQuality = 92
    /// `--quality`, recipes' `export.quality`.
    public static let quality = CodecOption(name: "quality", values: .integer(1...100), defaultValue: String(defaultQuality), summary: "JPEG quality",
                                            note: "4:4:4 chroma from \(JPEGWriter.fullChromaQuality)")
}
