import Foundation

extension OutputFormat {
    /// 8-bit JPEG XL (lossy VarDCT by default, `--lossless` for exact samples).
    public static let jxl = OutputFormat("jxl", codec: "jxl", depth: .eight, fileExtension: "jxl", isLossless: false)
    /// 16-bit JPEG XL.
    public static let jxl16 = OutputFormat("jxl16", codec: "jxl", depth: .sixteen, fileExtension: "jxl", isLossless: false)
}

/// JPEG XL: decoded by `JXLDecoder` (libjxl, to device RGB through the ICC profile libjxl gives for the pixels it
/// returns), written by `JXLWriter`. Signature: a bare codestream (FF 0A) or the 12-byte container signature box.
public struct JXLCodec: ImageCodec {
    public init() {}
    public var name: String { "jxl" }
    public var aliases: [String] { ["jpegxl"] }
    public var priority: Int { 10 }
    public var inputExtensions: [String] { ["jxl"] }

    static let containerSignature: [UInt8] = [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]

    public func matches(_ file: FileBytes) -> Bool {
        file.read(0, 2) == [0xFF, 0x0A] || file.read(0, 12) == JXLCodec.containerSignature
    }

    // MARK: Input

    public var decodes: Bool { true }
    public func decode(data: Data, url: URL, options: DecodeOptions, engine: EngineConfiguration) throws -> DecodedImage {
        try JXLDecoder.decode(data: data, options: options, threads: engine.threads)
    }

    /// Width × height from the codestream's SizeHeader (in the 'jxlc' or first 'jxlp' box of a container).
    public func pixelCount(_ file: FileBytes) -> Int? {
        let b = file.prefix(1 << 16)
        guard let start = JXLCodec.codestreamStart(b), let size = JXLCodec.sizeHeader(b, at: start) else { return nil }
        return ImageSizeProbe.product(size.width, size.height)
    }

    /// The EXIF of an uncompressed 'Exif' box (a 4-byte TIFF header offset, then the TIFF block).
    public func captureInfo(_ file: FileBytes) -> ImageMetadata? {
        let b = file.prefix(CaptureInfoProbe.prefixLength)
        guard b.starts(with: JXLCodec.containerSignature),
              let box = ISOBMFFProbe.boxes(in: 0..<b.count, of: b).first(where: { $0.type == "Exif" }), box.payload.count > 4 else { return nil }
        let tiff = box.payload.lowerBound + 4 + BigEndian.u32(b, box.payload.lowerBound)
        guard tiff < box.payload.upperBound else { return nil }
        return EXIFReader.read(Data(b[tiff..<box.payload.upperBound]))
    }

    /// Where the codestream's FF 0A begins: offset 0, or the payload of a container's 'jxlc' or first 'jxlp' box.
    static func codestreamStart(_ b: [UInt8]) -> Int? {
        if b.count >= 2, b[0] == 0xFF, b[1] == 0x0A { return 0 }
        guard b.starts(with: containerSignature) else { return nil }
        for box in ISOBMFFProbe.boxes(in: 0..<b.count, of: b) {
            if box.type == "jxlc" { return box.payload.lowerBound }
            if box.type == "jxlp" { return box.payload.lowerBound + 4 }
        }
        return nil
    }

    /// The SizeHeader after the codestream signature at `start` (ISO/IEC 18181-1 D.2: bits least significant first).
    static func sizeHeader(_ b: [UInt8], at start: Int) -> (width: Int, height: Int)? {
        guard start + 2 < b.count, b[start] == 0xFF, b[start + 1] == 0x0A else { return nil }
        var bit = (start + 2) * 8
        func read(_ n: Int) -> Int? {
            var v = 0
            for k in 0..<n {
                guard bit / 8 < b.count else { return nil }
                v |= Int((b[bit / 8] >> (bit % 8)) & 1) << k
                bit += 1
            }
            return v
        }
        func u32() -> Int? {
            guard let selector = read(2), let v = read([9, 13, 18, 30][selector]) else { return nil }
            return v + 1
        }
        guard let small = read(1) else { return nil }
        let height: Int
        if small == 1 { guard let v = read(5) else { return nil }; height = (v + 1) * 8 } else { guard let v = u32() else { return nil }; height = v }
        guard let ratio = read(3) else { return nil }
        if ratio == 0 {
            if small == 1 { guard let v = read(5) else { return nil }; return ((v + 1) * 8, height) }
            guard let v = u32() else { return nil }
            return (v, height)
        }
        let (num, den) = [(1, 1), (12, 10), (4, 3), (3, 2), (16, 9), (5, 4), (2, 1)][ratio - 1]
        return (height * num / den, height)
    }

    public var readsBack: Bool { true }
    public func readBack(data: Data, path: String) throws -> ImageFile { try JXLDecoder.readBack(data: data, path: path) }

    // MARK: Output

    public var outputFormats: [OutputFormat] { [.jxl, .jxl16] }
    public var options: [CodecOption] { [JXLCodec.quality, JXLCodec.lossless, JXLCodec.effort] }
    public func writer(engine: EngineConfiguration) -> (any ImageWriter)? { JXLWriter(threads: engine.threads) }

    /// `--quality` for JPEG XL, as cjxl maps it to a Butteraugli distance: 0.1 + (100 − q)·0.09 from 30 up
    /// (90 is distance 1, libjxl's default), 6.4 + 2.5^((30 − q)/5)/6.25 below; 100 is lossless.
    public static let quality = CodecOption(name: "quality", values: .integer(0...100), defaultValue: "90", summary: "JPEG XL quality",
                                            note: "as cjxl: 90 is distance 1.0, 100 lossless")
    /// `--lossless`: modular mode, the samples exactly.
    public static let lossless = CodecOption(name: "lossless", values: .flag, defaultValue: "false",
                                             summary: "JPEG XL lossless (modular, exact samples)", note: "JPEG XL only")
    /// `--effort`: libjxl's effort, 1 fastest to 9 slowest.
    public static let effort = CodecOption(name: "effort", values: .integer(1...9), defaultValue: "7", summary: "JPEG XL encoder effort",
                                           note: "9 slowest and smallest")

    /// The Butteraugli distance of a quality (cjxl's mapping; 0 for lossless).
    static func distance(quality q: Int) -> Float {
        if q >= 100 { return 0 }
        if q >= 30 { return 0.1 + Float(100 - q) * 0.09 }
        return 6.4 + Float(pow(2.5, Double(30 - q) / 5.0) / 6.25)
    }
}
