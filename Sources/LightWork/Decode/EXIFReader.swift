import Foundation

/// Reads the few EXIF fields LightWork records from a TIFF-structured EXIF block (JPEG APP1, PNG eXIf).
///
/// Bytes come from untrusted files: every offset and count is bounds-checked, unreadable entries are skipped,
/// and a block that is not TIFF yields `nil`. It never traps, whatever the input.
public enum EXIFReader {
    /// The `Exif\0\0` prefix of a JPEG APP1 payload.
    public static let app1Prefix: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0x00, 0x00]

    /// The TIFF block inside `bytes`: after the `Exif\0\0` prefix when there is one (JPEG APP1, and some PNG
    /// writers), the bytes themselves otherwise. `nil` when no TIFF header follows.
    public static func tiffBlock(_ bytes: Data) -> Data? {
        var d = Data(bytes)  // rebase indices to 0
        if d.count >= 6 && [UInt8](d.prefix(6)) == app1Prefix { d = Data(d.dropFirst(6)) }
        guard d.count >= 8 else { return nil }
        let h = [UInt8](d.prefix(4))
        guard h == [0x49, 0x49, 0x2A, 0x00] || h == [0x4D, 0x4D, 0x00, 0x2A] else { return nil }
        return d
    }

    /// Orientation, camera, exposure, date and GPS fields; `nil` when `bytes` is not a TIFF/EXIF block.
    public static func read(_ bytes: Data) -> ImageMetadata? {
        guard let block = tiffBlock(bytes) else { return nil }
        let t = TIFFView(bytes: [UInt8](block))
        var m = ImageMetadata()
        guard let ifd0Offset = t.u32(at: 4) else { return nil }
        let ifd0 = t.entries(at: Int(ifd0Offset))
        for e in ifd0 {
            switch e.tag {
            case 0x0112:
                if let v = t.integer(e), (1...8).contains(v) { m.orientation = v }
            case 0x010F: m.make = t.ascii(e)
            case 0x0110: m.model = t.ascii(e)
            default: break
            }
        }
        if let e = ifd0.first(where: { $0.tag == 0x8769 }), let off = t.integer(e) {
            for e in t.entries(at: off) {
                switch e.tag {
                case 0x829A: m.exposureTime = t.rationals(e).first
                case 0x829D: m.fNumber = t.rationals(e).first
                case 0x8827: if let v = t.integer(e), v > 0 { m.iso = Double(v) }
                case 0x8833: if m.iso == nil, let v = t.integer(e), v > 0 { m.iso = Double(v) }
                case 0x920A: m.focalLength = t.rationals(e).first
                case 0x9003: m.dateTimeOriginal = t.ascii(e)
                case 0xA434: m.lens = t.ascii(e)
                case 0xA001: if let v = t.integer(e) { m.colorSpaceIsSRGB = v == 1 }
                case 0xA002: if let v = t.integer(e), v > 0 { m.pixelWidth = v }
                case 0xA003: if let v = t.integer(e), v > 0 { m.pixelHeight = v }
                default: break
                }
            }
        }
        if let e = ifd0.first(where: { $0.tag == 0x8825 }), let off = t.integer(e) {
            readGPS(t, t.entries(at: off), into: &m)
        }
        return m
    }

    /// One ASCII tag of a TIFF block's first IFD (CR3 keeps its EXIF tags there, in its CMT2 box).
    package static func readIFD0Ascii(_ bytes: Data, tag: UInt16) -> String? {
        guard let block = tiffBlock(bytes) else { return nil }
        let t = TIFFView(bytes: [UInt8](block))
        guard let ifd0 = t.u32(at: 4), let e = t.entries(at: Int(ifd0)).first(where: { $0.tag == tag }) else { return nil }
        return t.ascii(e)
    }

    private static func readGPS(_ t: TIFFView, _ entries: [TIFFView.Entry], into m: inout ImageMetadata) {
        func entry(_ tag: UInt16) -> TIFFView.Entry? { entries.first { $0.tag == tag } }
        func ref(_ tag: UInt16) -> String? { entry(tag).flatMap { t.ascii($0) }?.uppercased() }
        func degrees(_ tag: UInt16) -> Double? {
            guard let e = entry(tag) else { return nil }
            let r = t.rationals(e)
            guard r.count >= 1 else { return nil }
            let v = r[0] + (r.count > 1 ? r[1] / 60 : 0) + (r.count > 2 ? r[2] / 3600 : 0)
            return v.isFinite ? v : nil
        }
        if let lat = degrees(0x0002), lat <= 90 { m.gpsLatitude = ref(0x0001) == "S" ? -lat : lat }
        if let lon = degrees(0x0004), lon <= 180 { m.gpsLongitude = ref(0x0003) == "W" ? -lon : lon }
        if let e = entry(0x0006), let alt = t.rationals(e).first {
            let below = entry(0x0005).flatMap { t.integer($0) } == 1
            m.gpsAltitude = below ? -alt : alt
        }
    }
}

/// Bounds-checked reads of a TIFF structure's header, IFD entries and values.
private struct TIFFView {
    let bytes: [UInt8]
    var littleEndian: Bool { bytes.first == 0x49 }

    struct Entry {
        let tag: UInt16
        let type: UInt16
        let count: Int
        /// Offset of the value bytes (inline in the entry when they fit in four bytes).
        let valueOffset: Int
    }

    func u16(at o: Int) -> UInt16? {
        guard o >= 0, o <= bytes.count - 2 else { return nil }
        let a = UInt16(bytes[o]), b = UInt16(bytes[o + 1])
        return littleEndian ? a | b << 8 : a << 8 | b
    }

    func u32(at o: Int) -> UInt32? {
        guard let a = u16(at: o), let b = u16(at: o + 2) else { return nil }
        return littleEndian ? UInt32(a) | UInt32(b) << 16 : UInt32(a) << 16 | UInt32(b)
    }

    /// Bytes of one value of each TIFF type (nil for unknown types).
    static func size(of type: UInt16) -> Int? {
        switch type {
        case 1, 2, 6, 7: return 1
        case 3, 8: return 2
        case 4, 9, 11: return 4
        case 5, 10, 12: return 8
        default: return nil
        }
    }

    /// The entries of the IFD at `offset`; entries whose values lie outside the block are dropped.
    func entries(at offset: Int) -> [Entry] {
        guard let n = u16(at: offset) else { return [] }
        var out: [Entry] = []
        for i in 0..<Int(n) {
            let o = offset + 2 + 12 * i
            guard let tag = u16(at: o), let type = u16(at: o + 2), let count = u32(at: o + 4),
                  let size = TIFFView.size(of: type) else { continue }
            let length = Int(count) * size
            let valueOffset: Int
            if length <= 4 { valueOffset = o + 8 } else {
                guard let v = u32(at: o + 8) else { continue }
                valueOffset = Int(v)
            }
            guard valueOffset >= 0, length <= bytes.count, valueOffset <= bytes.count - length else { continue }
            out.append(Entry(tag: tag, type: type, count: Int(count), valueOffset: valueOffset))
        }
        return out
    }

    /// The first value of a BYTE, SHORT or LONG entry.
    func integer(_ e: Entry) -> Int? {
        guard e.count >= 1 else { return nil }
        switch e.type {
        case 1, 7: return Int(bytes[e.valueOffset])
        case 3: return u16(at: e.valueOffset).map(Int.init)
        case 4: return u32(at: e.valueOffset).map(Int.init)
        default: return nil
        }
    }

    /// RATIONAL (or SRATIONAL) values; entries with a zero denominator end the list.
    func rationals(_ e: Entry) -> [Double] {
        guard e.type == 5 || e.type == 10 else { return [] }
        var out: [Double] = []
        for i in 0..<min(e.count, 16) {
            guard let n = u32(at: e.valueOffset + 8 * i), let d = u32(at: e.valueOffset + 8 * i + 4), d != 0 else { break }
            out.append(e.type == 5 ? Double(n) / Double(d) : Double(Int32(bitPattern: n)) / Double(Int32(bitPattern: d)))
        }
        return out
    }

    /// An ASCII entry up to its first NUL, trimmed; nil when empty.
    func ascii(_ e: Entry) -> String? {
        guard e.type == 2 || e.type == 7 else { return nil }
        let raw = bytes[e.valueOffset..<(e.valueOffset + e.count)].prefix { $0 != 0 }
        let s = String(decoding: raw, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return s.isEmpty ? nil : s
    }
}
