import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Reads a file's capture date and camera from its header, in Swift, without a decoder: what the `{date}`
/// and `{camera}` name tokens need before any file is converted.
///
/// Names are decided while planning, before conversion, so that collisions are found (and suffixes given)
/// in input order whatever the number of jobs, and so that no decoder runs in the planning process (a
/// crafted file must not be able to crash the batch there). Only headers are read (the first 256 KB, and a TIFF's
/// IFD entries where they lie). Understood:
/// TIFF-based RAWs (DNG, CR2, NEF, ARW, PEF, SRW, ERF, 3FR, ORF, RW2…), CR3 (its CMT1/CMT2 boxes), RAF (its
/// embedded JPEG's EXIF), JPEG (APP1) and PNG (eXIf). Anything else (CRW, MRW, X3F…) has no date or camera
/// here, so its name uses "nodate"/"nocamera" even where LibRaw later finds them (the manifest records those).
public enum CaptureInfoProbe {
    /// Bytes read from the start of each file.
    static let prefixLength = 256 * 1024

    /// Make, model and DateTimeOriginal of the file at `url`, or nil when none can be read from its header.
    public static func read(_ url: URL) -> ImageMetadata? {
        let fd = open(url.path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        let head = pread(fd, count: prefixLength, at: 0)
        guard head.count >= 16 else { return nil }
        if isTIFF(head) { return tiff(fd, littleEndian: head[0] == 0x49) }
        return read(header: head)
    }

    /// TIFF-based files keep their IFDs anywhere (some DNG writers put them at the end): read the few
    /// entries needed where they are.
    static func tiff(_ fd: Int32, littleEndian: Bool) -> ImageMetadata? {
        func u16(_ b: [UInt8], _ i: Int) -> Int { littleEndian ? Int(b[i]) | Int(b[i + 1]) << 8 : Int(b[i]) << 8 | Int(b[i + 1]) }
        func u32(_ b: [UInt8], _ i: Int) -> Int { littleEndian ? u16(b, i) | u16(b, i + 2) << 16 : u16(b, i) << 16 | u16(b, i + 2) }
        /// (tag → (type, count, value field bytes)) of the IFD at `offset`.
        func entries(_ offset: Int) -> [Int: (type: Int, count: Int, field: [UInt8])] {
            let head = pread(fd, count: 2, at: offset)
            guard head.count == 2 else { return [:] }
            let n = min(u16(head, 0), 1000)
            let b = pread(fd, count: 12 * n, at: offset + 2)
            var out: [Int: (Int, Int, [UInt8])] = [:]
            for i in 0..<(b.count / 12) { out[u16(b, 12 * i)] = (u16(b, 12 * i + 2), u32(b, 12 * i + 4), Array(b[(12 * i + 8)..<(12 * i + 12)])) }
            return out
        }
        func ascii(_ e: (type: Int, count: Int, field: [UInt8])?) -> String? {
            guard let e, e.type == 2, e.count > 0, e.count <= 256 else { return nil }
            let bytes = e.count <= 4 ? Array(e.field.prefix(e.count)) : pread(fd, count: e.count, at: u32(e.field, 0))
            let s = String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            return s.isEmpty ? nil : s
        }
        let header = pread(fd, count: 8, at: 0)
        guard header.count == 8 else { return nil }
        let ifd0 = entries(u32(header, 4))
        var m = ImageMetadata()
        m.make = ascii(ifd0[0x010F])
        m.model = ascii(ifd0[0x0110])
        m.dateTimeOriginal = ascii(ifd0[0x9003])   // TIFF/EP files may keep it in IFD0
        if let exif = ifd0[0x8769], exif.type == 4 || exif.type == 13 {
            m.dateTimeOriginal = ascii(entries(u32(exif.field, 0))[0x9003]) ?? m.dateTimeOriginal
        }
        return m.make == nil && m.model == nil && m.dateTimeOriginal == nil ? nil : m
    }

    /// TIFF byte order and magic, including Olympus' (IIRO, IIRS) and Panasonic's (IIU) variants.
    static func isTIFF(_ b: [UInt8]) -> Bool {
        (b[0] == 0x49 && b[1] == 0x49 && (b[2] == 0x2A && b[3] == 0 || b[2] == 0x52 && b[3] == 0x4F || b[2] == 0x52 && b[3] == 0x53 || b[2] == 0x55 && b[3] == 0))
            || (b[0] == 0x4D && b[1] == 0x4D && b[2] == 0 && b[3] == 0x2A)
    }

    /// Up to `count` bytes at `offset` (fewer at the end of the file, none on error).
    static func pread(_ fd: Int32, count: Int, at offset: Int) -> [UInt8] {
        guard count > 0, offset >= 0 else { return [] }
        var out = [UInt8](repeating: 0, count: count)
        var got = 0
        while got < count {
            let n = out.withUnsafeMutableBytes { Glibc.pread(fd, $0.baseAddress! + got, count - got, off_t(offset + got)) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            got += n
        }
        return Array(out.prefix(got))
    }

    /// The same from the first bytes of a non-TIFF file (what `read(_:)` reads for JPEG, PNG, RAF and CR3).
    public static func read(header b: [UInt8]) -> ImageMetadata? {
        guard b.count >= 16 else { return nil }
        if b[0] == 0xFF && b[1] == 0xD8 { return jpeg(b, from: 0) }
        if b.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return png(b) }
        if b.starts(with: Array("FUJIFILMCCD-RAW".utf8)), b.count >= 92 {
            let offset = Int(be32(b, 84))
            return offset < b.count - 2 && b[offset] == 0xFF && b[offset + 1] == 0xD8 ? jpeg(b, from: offset) : nil
        }
        if b[4...7].elementsEqual(Array("ftyp".utf8)) { return cr3(b) }
        return nil
    }

    /// "YYYY-MM-DD" from EXIF's "YYYY:MM:DD HH:MM:SS", or nil for a missing, blank or zero date.
    public static func isoDate(_ exif: String?) -> String? {
        guard let s = exif, s.count >= 10 else { return nil }
        let chars = Array(s.prefix(10))
        let digits = [0, 1, 2, 3, 5, 6, 8, 9]
        guard digits.allSatisfy({ chars[$0].isASCII && chars[$0].isNumber }), ":-".contains(chars[4]), ":-".contains(chars[7]) else { return nil }
        let year = String(chars[0..<4]), month = String(chars[5..<7]), day = String(chars[8..<10])
        guard year != "0000", let m = Int(month), (1...12).contains(m), let d = Int(day), (1...31).contains(d) else { return nil }
        return "\(year)-\(month)-\(day)"
    }

    /// The EXIF of a JPEG's APP1 segment, walking markers from `start` up to the image data.
    static func jpeg(_ b: [UInt8], from start: Int) -> ImageMetadata? {
        var i = start + 2
        while i + 4 <= b.count {
            guard b[i] == 0xFF else { return nil }
            let marker = b[i + 1]
            if marker == 0xFF { i += 1; continue }                  // fill byte
            if marker == 0xDA || marker == 0xD9 { return nil }      // image data or end: no EXIF before it
            if (0xD0...0xD7).contains(marker) || marker == 0x01 { i += 2; continue }
            let length = Int(be16(b, i + 2))
            guard length >= 2 else { return nil }
            let payload = i + 4, end = i + 2 + length
            if marker == 0xE1, end <= b.count, b[payload..<end].starts(with: EXIFReader.app1Prefix) {
                return EXIFReader.read(Data(b[payload..<end]))
            }
            i = end
        }
        return nil
    }

    /// The EXIF of a PNG's eXIf chunk (before the image data).
    static func png(_ b: [UInt8]) -> ImageMetadata? {
        var i = 8
        while i + 8 <= b.count {
            let length = Int(be32(b, i))
            let type = String(decoding: b[(i + 4)..<(i + 8)], as: UTF8.self)
            let data = i + 8
            guard length <= b.count - data else { return nil }
            if type == "eXIf" { return EXIFReader.read(Data(b[data..<(data + length)])) }
            if type == "IDAT" || type == "IEND" { return nil }
            i = data + length + 4
        }
        return nil
    }

    /// Canon CR3: CMT1 is a TIFF whose IFD0 holds make and model; CMT2 a TIFF whose IFD0 holds the EXIF tags.
    static func cr3(_ b: [UInt8]) -> ImageMetadata? {
        func box(_ name: String) -> [UInt8]? {
            let tag = Array(name.utf8)
            var i = 4
            while i + 4 <= b.count {
                if b[i] == tag[0] && b[i + 1] == tag[1] && b[i + 2] == tag[2] && b[i + 3] == tag[3] {
                    let size = Int(be32(b, i - 4))
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

    private static func be16(_ b: [UInt8], _ i: Int) -> UInt16 { UInt16(b[i]) << 8 | UInt16(b[i + 1]) }
    private static func be32(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
    }
}
