import Foundation

extension OutputFormat {
    /// 8-bit PNG.
    public static let png = OutputFormat("png", codec: "png", depth: .eight, fileExtension: "png")
    /// 16-bit PNG.
    public static let png16 = OutputFormat("png16", codec: "png", depth: .sixteen, fileExtension: "png")
}

/// PNG: decoded by `PNGDecoder` (libpng, to device RGB), written by `PNGWriter`, read back through the same libpng
/// reader. Signature: the 8-byte PNG signature.
public struct PNGCodec: ImageCodec {
    public init() {}
    public var name: String { "png" }
    public var priority: Int { 10 }
    public var inputExtensions: [String] { ["png"] }

    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    public func matches(_ file: FileBytes) -> Bool { file.read(0, 8) == PNGCodec.signature }

    // MARK: Input

    public var decodes: Bool { true }
    public func decode(data: Data, url: URL, options: DecodeOptions, engine: EngineConfiguration) throws -> DecodedImage {
        try PNGDecoder.decode(data: data, options: options)
    }

    /// Width × height of the IHDR chunk, which must come first.
    public func pixelCount(_ file: FileBytes) -> Int? {
        guard let b = file.read(0, 24), b[12...15] == [0x49, 0x48, 0x44, 0x52] else { return nil }
        return ImageSizeProbe.product(BigEndian.u32(b, 16), BigEndian.u32(b, 20))
    }

    /// The EXIF of the eXIf chunk (before the image data) in the first 256 KB.
    public func captureInfo(_ file: FileBytes) -> ImageMetadata? {
        let b = file.prefix(CaptureInfoProbe.prefixLength)
        var i = 8
        while i + 8 <= b.count {
            let length = BigEndian.u32(b, i)
            let type = String(decoding: b[(i + 4)..<(i + 8)], as: UTF8.self)
            let data = i + 8
            guard length <= b.count - data else { return nil }
            if type == "eXIf" { return EXIFReader.read(Data(b[data..<(data + length)])) }
            if type == "IDAT" || type == "IEND" { return nil }
            i = data + length + 4
        }
        return nil
    }

    /// Whole when it ends with the IEND chunk.
    public func completeness(_ file: FileBytes) -> FileCompleteness.Verdict {
        let iend: [UInt8] = [0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82]
        guard file.size >= 12, let tail = file.read(file.size - 12, 12) else { return .incomplete("PNG shorter than its end chunk") }
        return tail == iend ? .complete : .incomplete("PNG without its IEND chunk")
    }

    public var readsBack: Bool { true }
    public func readBack(data: Data, path: String) throws -> ImageFile { try PNGDecoder.readBack(data: data, path: path) }

    // MARK: Output

    public var outputFormats: [OutputFormat] { [.png, .png16] }
    public func writer(engine: EngineConfiguration) -> (any ImageWriter)? { PNGWriter() }
}
