import Foundation

/// Camera RAW: whatever LibRaw reads (DNG included), decoded by `RawDecoder`. It is the registry's fallback: a
/// file no other codec claims goes to LibRaw, which knows its formats. Its probes understand the containers
/// cameras use: TIFF-structured RAWs (DNG, CR2, NEF, ARW, PEF, ORF, RW2…), CR3 (ISO boxes) and RAF.
public struct RawCodec: ImageCodec {
    public init() {}
    public var name: String { "raw" }
    public var inputExtensions: [String] { Array(RawCodec.extensions) }

    /// File extensions of camera RAW formats: a file so named that LibRaw cannot identify is damaged, not foreign.
    public static let extensions: Set<String> = ["3fr", "ari", "arw", "bay", "cap", "cr2", "cr3", "crw", "dcr", "dcs", "dng", "drf", "eip",
        "erf", "fff", "iiq", "k25", "kdc", "mdc", "mef", "mos", "mrw", "nef", "nrw", "orf", "pef", "ptx", "raf", "raw", "rw2", "rwl", "rwz",
        "sr2", "srf", "srw", "x3f", "gpr"]

    static let rafMagic = Array("FUJIFILMCCD-RAW".utf8)

    /// The containers it recognises by content: TIFF (with the makers' magics), ISO boxes (CR3), RAF, CRW's HEAPCCDR.
    /// Anything else is still tried by LibRaw, as the fallback.
    public func matches(_ file: FileBytes) -> Bool {
        let head = file.prefix(16)
        return TIFFStructure.isTIFF(head, magic: .withMakerVariants) || RawCodec.isISOBoxes(head) || head.starts(with: RawCodec.rafMagic)
            || (head.count >= 14 && head[6..<14].elementsEqual("HEAPCCDR".utf8))
    }

    static func isISOBoxes(_ head: [UInt8]) -> Bool { head.count >= 8 && head[4..<8].elementsEqual("ftyp".utf8) }

    /// Whether `file` is a DNG: TIFF-structured with a DNGVersion tag in IFD0.
    public static func isDNG(_ file: FileBytes) -> Bool {
        guard let t = file.tiff(), let ifd0 = t.directory(at: t.firstDirectory) else { return false }
        return ifd0[50706] != nil
    }

    // MARK: Input

    public var decodes: Bool { true }
    public func decode(data: Data, url: URL, options: DecodeOptions, engine: EngineConfiguration) throws -> DecodedImage {
        try RawDecoder.decode(data: data, url: url, options: options, engine: engine)
    }
    public func decode(data: Data, url: URL, options: DecodeOptions, engine: EngineConfiguration,
                       inputDone: @escaping @Sendable () -> Void) throws -> DecodedImage {
        try RawDecoder.decode(data: data, url: url, options: options, engine: engine, inputDone: inputDone)
    }

    /// The largest image of a TIFF-structured RAW (IFD chain and SubIFDs); nil for other containers.
    public func pixelCount(_ file: FileBytes) -> Int? {
        guard let t = file.tiff() else { return nil }
        var best: Int?
        t.walk(from: [t.firstDirectory], limit: 32) { ifd in
            guard ifd.declaredCount > 0, ifd.declaredCount <= 1024, ifd.isWhole else { return [] }
            var width: Int?, height: Int?, follow: [Int] = []
            for e in ifd.entries {
                switch e.tag {
                case 256: width = t.integer(e)
                case 257: height = t.integer(e)
                case 330 where e.type == 4 || e.type == 13: follow += t.integers(e, limit: 16)
                default: break
                }
            }
            if let px = ImageSizeProbe.product(width, height) { best = max(best ?? 0, px) }
            return follow + [ifd.next ?? 0]
        }
        return best
    }

    /// Make, model and DateTimeOriginal: from IFD0 and the EXIF IFD of a TIFF-structured RAW (wherever they lie),
    /// from CR3's CMT1/CMT2 boxes, from the EXIF of RAF's embedded JPEG, from CRW's CIFF heaps.
    public func captureInfo(_ file: FileBytes) -> ImageMetadata? {
        if let t = file.tiff(.withMakerVariants) { return RawCodec.captureInfo(t) }
        let b = file.prefix(CaptureInfoProbe.prefixLength)
        if b.starts(with: RawCodec.rafMagic), b.count >= 92 {
            let offset = BigEndian.u32(b, 84)
            return offset < b.count - 2 && b[offset] == 0xFF && b[offset + 1] == 0xD8 ? JPEGCodec.exif(b, from: offset) : nil
        }
        if RawCodec.isISOBoxes(b) { return cr3(b) }
        return CIFFStructure(file)?.captureInfo()
    }

    /// Make, model and DateTimeOriginal from IFD0 and the EXIF IFD of a TIFF structure (plain TIFFs' too).
    static func captureInfo(_ t: TIFFStructure) -> ImageMetadata? {
        guard let ifd0 = t.directory(at: t.firstDirectory, limit: 1000) else { return nil }
        func ascii(_ e: TIFFStructure.Entry?) -> String? { e.flatMap { $0.type == 2 ? t.ascii($0, limit: 256) : nil } }
        var m = ImageMetadata()
        m.make = ascii(ifd0[0x010F])
        m.model = ascii(ifd0[0x0110])
        m.dateTimeOriginal = ascii(ifd0[0x9003])   // TIFF/EP files may keep it in IFD0
        if let exif = ifd0[0x8769], exif.type == 4 || exif.type == 13, let offset = t.integer(exif) {
            m.dateTimeOriginal = ascii(t.directory(at: offset, limit: 1000)?[0x9003]) ?? m.dateTimeOriginal
        }
        return m.make == nil && m.model == nil && m.dateTimeOriginal == nil ? nil : m
    }

    /// Canon CR3: CMT1 is a TIFF whose IFD0 holds make and model; CMT2 a TIFF whose IFD0 holds the EXIF tags.
    private func cr3(_ b: [UInt8]) -> ImageMetadata? {
        func box(_ name: String) -> [UInt8]? {
            let tag = Array(name.utf8)
            var i = 4
            while i + 4 <= b.count {
                if b[i] == tag[0] && b[i + 1] == tag[1] && b[i + 2] == tag[2] && b[i + 3] == tag[3] {
                    let size = BigEndian.u32(b, i - 4)
                    guard size > 8, i - 4 + size <= b.count else { return nil }
                    return Array(b[(i + 4)..<(i - 4 + size)])
                }
                i += 1
            }
            return nil
        }
        var m = box("CMT1").flatMap { EXIFReader.read(Data($0)) } ?? ImageMetadata()
        if let exif = box("CMT2") { m.dateTimeOriginal = EXIFReader.readIFD0Ascii(Data(exif), tag: 0x9003) }
        return m.make == nil && m.model == nil && m.dateTimeOriginal == nil ? nil : m
    }

    /// TIFF-structured: every IFD and every strip or tile lies inside the file. CR3 and other ISO boxes: the
    /// top-level boxes end exactly at the end of the file. RAF: the JPEG, CFA header and CFA blocks its header points
    /// at lie inside the file.
    public func completeness(_ file: FileBytes) -> FileCompleteness.Verdict {
        let head = file.prefix(16)
        if TIFFStructure.isTIFF(head) { return RawCodec.tiffCompleteness(file) }
        if RawCodec.isISOBoxes(head) { return isoBoxes(file) }
        if head.starts(with: RawCodec.rafMagic) { return raf(file) }
        return .unknown
    }

    /// Whole when every IFD and every strip or tile lies inside the file (plain TIFFs' verdict too).
    static func tiffCompleteness(_ file: FileBytes) -> FileCompleteness.Verdict {
        guard let extents = TIFFImageExtents.read(size: file.size, bytes: file.read) else { return .unknown }
        return extents.dataEnd <= file.size ? .complete
            : .incomplete("its TIFF structure reaches byte \(extents.dataEnd), past the end of the file (\(file.size) bytes)")
    }

    private func isoBoxes(_ r: FileBytes) -> FileCompleteness.Verdict {
        var offset = 0
        var boxes = 0
        while offset < r.size {
            guard boxes < 4096, let h = r.read(offset, 16) ?? r.read(offset, 8) else { return .incomplete("box header cut at \(offset)") }
            boxes += 1
            var size = BigEndian.u32(h, 0)
            if size == 1 {
                guard h.count == 16 else { return .incomplete("box header cut at \(offset)") }
                size = BigEndian.u32(h, 8) << 32 | BigEndian.u32(h, 12)
            } else if size == 0 {
                return .complete     // the last box runs to the end of the file
            }
            guard size >= 8 else { return .unknown }
            let (end, overflow) = offset.addingReportingOverflow(size)
            guard !overflow, end <= r.size else { return .incomplete("a box ends past the end of the file") }
            offset = end
        }
        return .complete
    }

    private func raf(_ r: FileBytes) -> FileCompleteness.Verdict {
        guard let h = r.read(84, 24) else { return .incomplete("RAF header cut") }
        for k in 0..<3 {
            let start = BigEndian.u32(h, k * 8), length = BigEndian.u32(h, k * 8 + 4)
            if start + length > r.size { return .incomplete("a RAF block ends past the end of the file") }
        }
        return .complete
    }
}
