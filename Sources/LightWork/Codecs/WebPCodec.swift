import Foundation

extension OutputFormat {
    /// 8-bit WebP, lossy (VP8) or lossless (VP8L, `--lossless`), with alpha.
    public static let webp = OutputFormat("webp", codec: "webp", depth: .eight, fileExtension: "webp", isLossless: false)
}

/// WebP: decoded by `WebPDecoder` (libwebp, to device RGB with the ICCP chunk's profile, EXIF orientation),
/// written by `WebPWriter`, read back through the same libwebp decoder. Signature "RIFF" size "WEBP".
public struct WebPCodec: ImageCodec {
    public init() {}
    public var name: String { "webp" }
    public var priority: Int { 10 }
    public var inputExtensions: [String] { ["webp"] }

    public func matches(_ file: FileBytes) -> Bool {
        guard let b = file.read(0, 12) else { return false }
        return b[0..<4] == [0x52, 0x49, 0x46, 0x46] && b[8..<12] == [0x57, 0x45, 0x42, 0x50]
    }

    // MARK: Input

    public var decodes: Bool { true }
    public func decode(data: Data, url: URL, options: DecodeOptions, engine: EngineConfiguration) throws -> DecodedImage {
        try WebPDecoder.decode(data: data, options: options)
    }

    /// The canvas (VP8X) or the bitstream's frame size (VP8 key frame, VP8L header) of the first chunk.
    public func pixelCount(_ file: FileBytes) -> Int? {
        guard let b = file.read(12, 18) else { return nil }
        let fourCC = String(decoding: b[0..<4], as: UTF8.self)
        func le16(_ i: Int) -> Int { Int(b[i]) | Int(b[i + 1]) << 8 }
        func le24(_ i: Int) -> Int { le16(i) | Int(b[i + 2]) << 16 }
        switch fourCC {
        case "VP8X": return ImageSizeProbe.product(le24(12) + 1, le24(15) + 1)
        case "VP8 ":
            guard b[11] == 0x9D, b[12] == 0x01, b[13] == 0x2A else { return nil }
            return ImageSizeProbe.product(le16(14) & 0x3FFF, le16(16) & 0x3FFF)
        case "VP8L":
            guard b[8] == 0x2F else { return nil }
            let bits = le16(9) | le16(11) << 16
            return ImageSizeProbe.product((bits & 0x3FFF) + 1, (bits >> 14 & 0x3FFF) + 1)
        default: return nil
        }
    }

    /// The EXIF chunk's fields (it usually follows the image data, so the chunk headers are walked).
    public func captureInfo(_ file: FileBytes) -> ImageMetadata? {
        WebPCodec.chunk("EXIF", in: file).flatMap { EXIFReader.read(Data($0)) }
    }

    /// The payload of the first chunk `fourCC` (at most 4 MB), walking at most 64 chunk headers.
    static func chunk(_ fourCC: String, in file: FileBytes) -> [UInt8]? {
        var offset = 12
        for _ in 0..<64 {
            guard let h = file.read(offset, 8) else { return nil }
            let size = Int(h[4]) | Int(h[5]) << 8 | Int(h[6]) << 16 | Int(h[7]) << 24
            if String(decoding: h[0..<4], as: UTF8.self) == fourCC {
                return size <= 4 << 20 ? file.read(offset + 8, size) : nil
            }
            offset += 8 + size + (size & 1)
        }
        return nil
    }

    /// Whole when the file holds the RIFF size its header declares.
    public func completeness(_ file: FileBytes) -> FileCompleteness.Verdict {
        guard let h = file.read(4, 4) else { return .incomplete("WebP shorter than its RIFF header") }
        let riff = Int(h[0]) | Int(h[1]) << 8 | Int(h[2]) << 16 | Int(h[3]) << 24
        return file.size >= riff + 8 ? .complete : .incomplete("WebP holds \(file.size) of the \(riff + 8) bytes its RIFF header declares")
    }

    public var readsBack: Bool { true }
    public func readBack(data: Data, path: String) throws -> ImageFile { try WebPDecoder.readBack(data: data, path: path) }

    // MARK: Output

    public var outputFormats: [OutputFormat] { [.webp] }
    public var options: [CodecOption] { [WebPCodec.quality, WebPCodec.lossless] }
    public func writer(engine: EngineConfiguration) -> (any ImageWriter)? { WebPWriter(engine: engine) }

    /// `--quality` for WebP: libwebp's 0…100 (cwebp's scale); with `--lossless`, the effort spent (larger is smaller, slower).
    public static let quality = CodecOption(name: "quality", values: .integer(0...100), defaultValue: "85", summary: "WebP quality",
                                            note: "with --lossless: compression effort")
    /// `--lossless`: VP8L instead of VP8; every 8-bit sample (and the colour under transparent pixels) kept.
    public static let lossless = CodecOption(name: "lossless", values: .flag, defaultValue: "false", summary: "WebP: lossless (VP8L) instead of lossy (VP8)")
}
