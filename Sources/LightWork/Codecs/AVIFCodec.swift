import Foundation

extension OutputFormat {
    /// 8-bit AVIF (AV1 still image, 4:4:4, libavif with aom).
    public static let avif = OutputFormat("avif", codec: "avif", depth: .eight, fileExtension: "avif", isLossless: false)
    /// 10-bit AVIF, narrowed from 16-bit pixels.
    public static let avif10 = OutputFormat("avif10", codec: "avif", depth: .sixteen, bitDepth: 10, fileExtension: "avif", isLossless: false)
    /// 12-bit AVIF, narrowed from 16-bit pixels.
    public static let avif12 = OutputFormat("avif12", codec: "avif", depth: .sixteen, bitDepth: 12, fileExtension: "avif", isLossless: false)
}

/// AVIF: decoded by `AVIFDecoder` (libavif with dav1d, to device RGB through the ICC profile or the nclx code
/// points), written by `AVIFWriter` (libavif with aom). Signature: an ISO BMFF 'ftyp' box whose major or
/// compatible brands include 'avif' or 'avis'. Its priority is above HEIF's: AVIF files also list the generic HEIF
/// brand 'mif1', so a HEIF codec claiming 'mif1' must be asked after this one.
public struct AVIFCodec: ImageCodec {
    public init() {}
    public var name: String { "avif" }
    public var priority: Int { 12 }
    public var inputExtensions: [String] { ["avif"] }

    /// The brands that make a file AVIF.
    static let brands: Set<String> = ["avif", "avis"]

    public func matches(_ file: FileBytes) -> Bool {
        guard let head = file.read(0, min(file.size, 256)) else { return false }
        return ISOBMFFProbe.brands(head).contains { AVIFCodec.brands.contains($0) }
    }

    // MARK: Input

    public var decodes: Bool { true }
    public func decode(data: Data, url: URL, options: DecodeOptions, engine: EngineConfiguration) throws -> DecodedImage {
        try AVIFDecoder.decode(data: data, options: options)
    }

    /// The largest 'ispe' (image spatial extents) of the meta box: the primary image's, or its grid's.
    public func pixelCount(_ file: FileBytes) -> Int? {
        ISOBMFFProbe(file)?.largestExtent().flatMap { ImageSizeProbe.product($0.width, $0.height) }
    }

    /// The EXIF of the 'Exif' item, located through 'iinf' and 'iloc'.
    public func captureInfo(_ file: FileBytes) -> ImageMetadata? {
        guard let exif = ISOBMFFProbe(file)?.exifItem() else { return nil }
        return EXIFReader.read(EXIFReader.tiffBlock(exif) ?? exif)
    }

    public var readsBack: Bool { true }
    public func readBack(data: Data, path: String) throws -> ImageFile { try AVIFDecoder.readBack(data: data, path: path) }

    // MARK: Output

    public var outputFormats: [OutputFormat] { [.avif, .avif10, .avif12] }
    public var options: [CodecOption] { [AVIFCodec.quality, AVIFCodec.speed] }
    public func writer(engine: EngineConfiguration) -> (any ImageWriter)? { AVIFWriter(threads: engine.threads) }

    /// `--quality` for AVIF: libavif's 0-100 scale (1.0's `quality`), the quantizer being round((100 − q)·63/100).
    public static let quality = CodecOption(name: "quality", values: .integer(0...100), defaultValue: "60", summary: "AVIF quality",
                                            note: "AV1 quantizer (100 − q)·63/100, 4:4:4")
    /// `--speed`: aom's speed preset, slowest 0 to fastest 10.
    public static let speed = CodecOption(name: "speed", values: .integer(0...10), defaultValue: "6", summary: "AVIF encoder speed",
                                          note: "0 slowest and smallest")
}

/// The few ISO BMFF (HEIF) boxes a probe reads: 'ftyp' brands, and in the top-level 'meta' box the 'ispe' extents
/// and the Exif item's location. Plain bounds-checked reads over the file's first megabyte (the batch parent runs
/// it; no decoder library is called).
struct ISOBMFFProbe {
    /// How much of the file is read: the meta box comes before the media data in every writer seen.
    static let prefixLength = 1 << 20
    private let file: FileBytes
    private let bytes: [UInt8]
    private let meta: Range<Int>

    init?(_ file: FileBytes) {
        self.file = file
        bytes = file.prefix(ISOBMFFProbe.prefixLength)
        guard let meta = ISOBMFFProbe.child("meta", in: 0..<bytes.count, of: bytes), meta.count >= 4 else { return nil }
        self.meta = (meta.lowerBound + 4)..<meta.upperBound   // a full box: version and flags first
    }

    /// The major and compatible brands of a leading 'ftyp' box; empty when there is none.
    static func brands(_ b: [UInt8]) -> [String] {
        guard b.count >= 16, String(decoding: b[4..<8], as: UTF8.self) == "ftyp" else { return [] }
        let size = min(BigEndian.u32(b, 0), b.count)
        guard size >= 16 else { return [] }
        var out = [String(decoding: b[8..<12], as: UTF8.self)]
        var i = 16
        while i + 4 <= size { out.append(String(decoding: b[i..<(i + 4)], as: UTF8.self)); i += 4 }
        return out
    }

    /// The boxes directly in `range`: (type, payload range); stops at the first malformed size.
    static func boxes(in range: Range<Int>, of b: [UInt8]) -> [(type: String, payload: Range<Int>)] {
        var out: [(String, Range<Int>)] = []
        var i = range.lowerBound
        while i + 8 <= range.upperBound {
            var size = BigEndian.u32(b, i), header = 8
            if size == 1 {
                guard i + 16 <= range.upperBound, BigEndian.u32(b, i + 8) == 0 else { break }
                size = BigEndian.u32(b, i + 12); header = 16
            } else if size == 0 {
                size = range.upperBound - i
            }
            guard size >= header, size <= range.upperBound - i else { break }
            out.append((String(decoding: b[(i + 4)..<(i + 8)], as: UTF8.self), (i + header)..<(i + size)))
            i += size
        }
        return out
    }

    static func child(_ type: String, in range: Range<Int>, of b: [UInt8]) -> Range<Int>? {
        boxes(in: range, of: b).first { $0.type == type }?.payload
    }

    /// The largest 'ispe' in meta/iprp/ipco.
    func largestExtent() -> (width: Int, height: Int)? {
        guard let iprp = ISOBMFFProbe.child("iprp", in: meta, of: bytes), let ipco = ISOBMFFProbe.child("ipco", in: iprp, of: bytes) else { return nil }
        var best: (width: Int, height: Int)?
        for box in ISOBMFFProbe.boxes(in: ipco, of: bytes) where box.type == "ispe" && box.payload.count >= 12 {
            let w = BigEndian.u32(bytes, box.payload.lowerBound + 4), h = BigEndian.u32(bytes, box.payload.lowerBound + 8)
            if w * h > (best.map { $0.width * $0.height } ?? -1) { best = (w, h) }
        }
        return best
    }

    /// The bytes of the 'Exif' item (a 4-byte TIFF header offset, then the TIFF block), at most 256 KB; nil when none.
    func exifItem() -> Data? {
        guard let id = exifItemID(), let (offset, length) = location(of: id), length > 4, length <= CaptureInfoProbe.prefixLength,
              let item = file.read(offset, length) else { return nil }
        let skip = 4 + BigEndian.u32(item, 0)
        guard skip < item.count else { return nil }
        return Data(item[skip...])
    }

    /// The item ID of the first 'infe' whose type is 'Exif' (versions 2 and 3 carry a type).
    private func exifItemID() -> Int? {
        guard let iinf = ISOBMFFProbe.child("iinf", in: meta, of: bytes), iinf.count >= 6 else { return nil }
        let first = iinf.lowerBound + 4 + (bytes[iinf.lowerBound] == 0 ? 2 : 4)
        guard first <= iinf.upperBound else { return nil }
        for box in ISOBMFFProbe.boxes(in: first..<iinf.upperBound, of: bytes) where box.type == "infe" {
            let p = box.payload.lowerBound, version = box.payload.count >= 4 ? bytes[p] : 0
            guard version >= 2 else { continue }
            let idSize = version == 2 ? 2 : 4
            guard box.payload.count >= 4 + idSize + 2 + 4 else { continue }
            let type = String(decoding: bytes[(p + 4 + idSize + 2)..<(p + 4 + idSize + 6)], as: UTF8.self)
            if type == "Exif" { return idSize == 2 ? BigEndian.u16(bytes, p + 4) : BigEndian.u32(bytes, p + 4) }
        }
        return nil
    }

    /// The file offset and length of item `id`'s first extent (construction method 0: in the file); nil otherwise.
    private func location(of id: Int) -> (Int, Int)? {
        guard let iloc = ISOBMFFProbe.child("iloc", in: meta, of: bytes), iloc.count >= 8 else { return nil }
        var i = iloc.lowerBound
        let version = Int(bytes[i]); i += 4
        let offsetSize = Int(bytes[i] >> 4), lengthSize = Int(bytes[i] & 15), baseSize = Int(bytes[i + 1] >> 4)
        let indexSize = version >= 1 ? Int(bytes[i + 1] & 15) : 0
        i += 2
        func read(_ n: Int) -> Int? {
            guard [0, 4, 8].contains(n), i + n <= iloc.upperBound else { return nil }
            defer { i += n }
            switch n {
            case 0: return 0
            case 4: return BigEndian.u32(bytes, i)
            default: return BigEndian.u32(bytes, i) == 0 ? BigEndian.u32(bytes, i + 4) : nil
            }
        }
        func read16() -> Int? {
            guard i + 2 <= iloc.upperBound else { return nil }
            defer { i += 2 }
            return BigEndian.u16(bytes, i)
        }
        guard let count = version < 2 ? read16() : read(4) else { return nil }
        for _ in 0..<count {
            guard let item = version < 2 ? read16() : read(4) else { return nil }
            var method = 0
            if version >= 1 { guard let m = read16() else { return nil }; method = m & 15 }
            guard read16() != nil, let base = read(baseSize), let extents = read16() else { return nil }
            var first: (Int, Int)?
            for _ in 0..<extents {
                if indexSize > 0 { guard read(indexSize) != nil else { return nil } }
                guard let offset = read(offsetSize), let length = read(lengthSize) else { return nil }
                if first == nil { first = (base + offset, length) }
            }
            if item == id { return method == 0 && extents == 1 ? first : nil }
        }
        return nil
    }
}
