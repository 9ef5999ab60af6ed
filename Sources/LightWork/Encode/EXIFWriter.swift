import Foundation

/// Serialises `ImageMetadata` as a little-endian TIFF-structured EXIF block ("II*\0…", no "Exif\0\0" prefix):
/// what `EncodeSettings.exif` carries into JPEG (APP1), PNG (eXIf) and TIFF outputs.
///
/// Only the fields LightWork knows are written: IFD0 Make, Model, Orientation, X/YResolution (72 dpi, the EXIF
/// default), ResolutionUnit, Software, DateTime, Artist and Copyright (the XMP packet holds the full credit); an Exif IFD with ExposureTime, FNumber, ISO, ExifVersion,
/// DateTimeOriginal, FocalLength, FlashpixVersion, ColorSpace, PixelX/YDimension of the output (JPEG and PNG
/// only: TIFF states its size in IFD0), LensModel; a GPS IFD when the latitude and longitude are known. An
/// input's original EXIF is not carried whole: maker notes, thumbnails and the like may describe the pre-edit
/// image (its size, orientation, rendering) and are dropped.
///
/// Orientation is always 1 because outputs are written upright; a stale input orientation would make viewers
/// rotate an already-rotated picture. DateTime is the photo's DateTimeOriginal, never the current time, so the
/// same input always gives the same bytes.
public enum EXIFWriter {
    /// The resolution every output states (the EXIF default, what viewers assume for a picture that states none).
    public static let dotsPerInch: UInt32 = 72

    /// The EXIF block for `metadata`. Always non-nil: even an empty `metadata` yields Orientation 1 and Software,
    /// so that every output states its orientation. `jpeg` adds what EXIF requires of a YCbCr JPEG
    /// (YCbCrPositioning centred, as libjpeg samples; ComponentsConfiguration Y Cb Cr).
    public static func blob(for metadata: ImageMetadata, software: String = "LightWork", jpeg: Bool = false) -> Data? {
        var ifd0: [Entry] = []
        if let make = ascii(metadata.make) { ifd0.append(Entry(tag: 0x010F, make)) }
        if let model = ascii(metadata.model) { ifd0.append(Entry(tag: 0x0110, model)) }
        ifd0.append(Entry(tag: 0x0112, .short(1)))
        ifd0.append(Entry(tag: 0x011A, .rationals([(dotsPerInch, UInt32(1))])))
        ifd0.append(Entry(tag: 0x011B, .rationals([(dotsPerInch, UInt32(1))])))
        ifd0.append(Entry(tag: 0x0128, .short(2)))
        if let name = ascii(software) { ifd0.append(Entry(tag: 0x0131, name)) }
        if let date = exifDate(metadata.dateTimeOriginal) { ifd0.append(Entry(tag: 0x0132, .ascii(date))) }
        if let artist = ascii(artist(metadata.descriptive)) { ifd0.append(Entry(tag: 0x013B, artist)) }
        if let rights = ascii(metadata.descriptive.rights) { ifd0.append(Entry(tag: 0x8298, rights)) }
        if jpeg { ifd0.append(Entry(tag: 0x0213, .short(1))) }
        ifd0.append(Entry(tag: 0x8769, .directory(1)))
        let gps = gpsEntries(metadata)
        if !gps.isEmpty { ifd0.append(Entry(tag: 0x8825, .directory(2))) }
        var exif = exifEntries(metadata, pixelSize: true)
        if jpeg { exif.append(Entry(tag: 0x9101, .undefined([1, 2, 3, 0]))) }
        let header: [UInt8] = [0x49, 0x49, 0x2A, 0x00, 0x08, 0x00, 0x00, 0x00]
        let body = layout([ifd0, exif, gps], at: header.count).bytes
        return Data(header + body)
    }

    /// The Exif and GPS IFDs alone (no header, no IFD0), laid out to sit at file offset `base` (even): for
    /// TIFF outputs, whose IFD0 is written by libtiff. `gpsOffset` is nil when there is no GPS IFD.
    static func subDirectories(for metadata: ImageMetadata, at base: Int) -> (bytes: [UInt8], exifOffset: Int, gpsOffset: Int?) {
        let gps = gpsEntries(metadata)
        let exif = exifEntries(metadata, pixelSize: false)
        let (bytes, offsets) = layout(gps.isEmpty ? [exif] : [exif, gps], at: base)
        return (bytes, offsets[0], gps.isEmpty ? nil : offsets[1])
    }

    /// EXIF's one Artist string for the creators: joined by "; ", as the Metadata Working Group maps dc:creator.
    static func artist(_ d: DescriptiveMetadata) -> String? {
        d.creators.isEmpty ? nil : d.creators.joined(separator: "; ")
    }

    /// `value` as it may be written as EXIF DateTime/DateTimeOriginal ("YYYY:MM:DD HH:MM:SS"); nil otherwise.
    static func exifDate(_ value: String?) -> String? {
        guard let value else { return nil }
        let b = Array(value.utf8)
        guard b.count == 19 else { return nil }
        for (i, c) in b.enumerated() {
            switch i {
            case 4, 7, 13, 16: guard c == UInt8(ascii: ":") else { return nil }
            case 10: guard c == UInt8(ascii: " ") else { return nil }
            default: guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(c) || c == UInt8(ascii: " ") else { return nil }
            }
        }
        return value
    }

    /// A text field as written: NULs removed, whitespace trimmed, at most `maxTextBytes` of UTF-8; nil when empty.
    static func text(_ value: String?) -> String? {
        guard var s = value?.replacingOccurrences(of: "\0", with: "").trimmingCharacters(in: .whitespacesAndNewlines),
              !s.isEmpty else { return nil }
        while s.utf8.count > maxTextBytes { s.removeLast() }
        return s
    }

    /// Bounds each string so that the whole block always fits a JPEG APP1 segment (64 KiB).
    static let maxTextBytes = 1024

    // MARK: Entries

    /// `pixelSize`: PixelX/YDimension, which EXIF allows in compressed files (JPEG, PNG) and not in TIFF.
    private static func exifEntries(_ m: ImageMetadata, pixelSize: Bool) -> [Entry] {
        var out: [Entry] = []
        if let t = positive(m.exposureTime), let r = rational(t) { out.append(Entry(tag: 0x829A, .rationals([r]))) }
        if let f = positive(m.fNumber), let r = rational(f) { out.append(Entry(tag: 0x829D, .rationals([r]))) }
        // ISOSpeedRatings (PhotographicSensitivity since EXIF 2.3) is a SHORT: higher values are clamped.
        if let iso = positive(m.iso) { out.append(Entry(tag: 0x8827, .short(UInt16(min(65535, max(1, iso.rounded())))))) }
        out.append(Entry(tag: 0x9000, .undefined(Array("0232".utf8))))
        if let date = exifDate(m.dateTimeOriginal) { out.append(Entry(tag: 0x9003, .ascii(date))) }
        if let f = positive(m.focalLength), let r = rational(f) { out.append(Entry(tag: 0x920A, .rationals([r]))) }
        out.append(Entry(tag: 0xA000, .undefined(Array("0100".utf8))))
        if let srgb = m.colorSpaceIsSRGB { out.append(Entry(tag: 0xA001, .short(srgb ? 1 : 0xFFFF))) }
        if pixelSize, let w = m.pixelWidth, let h = m.pixelHeight, w > 0, h > 0, w <= Int(UInt32.max), h <= Int(UInt32.max) {
            out.append(Entry(tag: 0xA002, .long(UInt32(w))))
            out.append(Entry(tag: 0xA003, .long(UInt32(h))))
        }
        if let lens = ascii(m.lens) { out.append(Entry(tag: 0xA434, lens)) }
        return out
    }

    private static func gpsEntries(_ m: ImageMetadata) -> [Entry] {
        guard let lat = m.gpsLatitude, let lon = m.gpsLongitude, lat.isFinite, lon.isFinite,
              abs(lat) <= 90, abs(lon) <= 180 else { return [] }
        var out = [Entry(tag: 0x0000, .bytes([2, 3, 0, 0])),
                   Entry(tag: 0x0001, .ascii(lat < 0 ? "S" : "N")), Entry(tag: 0x0002, .rationals(sexagesimal(lat))),
                   Entry(tag: 0x0003, .ascii(lon < 0 ? "W" : "E")), Entry(tag: 0x0004, .rationals(sexagesimal(lon)))]
        if let alt = m.gpsAltitude, alt.isFinite, let r = alt == 0 ? (0, 1) : rational(abs(alt)) {
            out.append(Entry(tag: 0x0005, .bytes([alt < 0 ? 1 : 0])))
            out.append(Entry(tag: 0x0006, .rationals([r])))
        }
        return out
    }

    private static func ascii(_ value: String?) -> Value? { text(value).map(Value.ascii) }

    private static func positive(_ v: Double?) -> Double? {
        guard let v, v.isFinite, v > 0 else { return nil }
        return v
    }

    /// |degrees| as whole degrees, whole minutes and seconds in millionths (2.8e-10° steps), split exactly.
    private static func sexagesimal(_ degrees: Double) -> [(UInt32, UInt32)] {
        let micro = UInt64((abs(degrees) * 3_600_000_000).rounded())
        let d = micro / 3_600_000_000, rest = micro % 3_600_000_000
        return [(UInt32(d), 1), (UInt32(rest / 60_000_000), 1), (UInt32(rest % 60_000_000), 1_000_000)]
    }

    /// The first continued-fraction convergent of `x` (> 0) within 1e-7 of it, relatively: the exact fraction for
    /// values read from EXIF rationals (1/250, 28/5), and the intended one for values that passed through a
    /// 32-bit float (LibRaw's 0.0040000002 gives 1/250). Nil when `x` does not fit an unsigned rational.
    static func rational(_ x: Double) -> (UInt32, UInt32)? {
        guard x.isFinite, x > 0, x < Double(UInt32.max) else { return nil }
        var (p0, q0, p1, q1): (UInt64, UInt64, UInt64, UInt64) = (0, 1, 1, 0)
        var rest = x
        var best: (UInt32, UInt32)?
        for _ in 0..<64 {
            let a = rest.rounded(.down)
            guard a < Double(UInt32.max) else { break }
            let ai = UInt64(a)
            let (p, q) = (ai * p1 + p0, ai * q1 + q0)
            guard p <= UInt64(UInt32.max), q <= UInt64(UInt32.max) else { break }
            best = (UInt32(p), UInt32(q))
            if abs(Double(p) / Double(q) - x) <= x * 1e-7 { break }
            (p0, q0, p1, q1) = (p1, q1, p, q)
            let frac = rest - a
            guard frac > 0 else { break }
            rest = 1 / frac
        }
        guard let best, best.0 > 0 else { return nil }
        return best
    }

    // MARK: Layout

    private enum Value {
        case ascii(String)
        case short(UInt16)
        case long(UInt32)
        case rationals([(UInt32, UInt32)])
        case bytes([UInt8])
        case undefined([UInt8])
        /// A LONG pointing at another directory of the same layout, by index.
        case directory(Int)
    }

    private struct Entry {
        let tag: UInt16
        let value: Value
        init(tag: UInt16, _ value: Value) { self.tag = tag; self.value = value }
    }

    /// Writes `directories` one after another from file offset `base`, each IFD followed by its out-of-line
    /// values (each starting on an even offset); entries sorted by tag; next-IFD links are 0 (these are sub-IFDs,
    /// or the only image IFD). Returns the bytes and each directory's offset; empty directories are skipped.
    private static func layout(_ directories: [[Entry]], at base: Int) -> (bytes: [UInt8], offsets: [Int]) {
        func encoded(_ v: Value, offsets: [Int]) -> (type: UInt16, count: Int, bytes: [UInt8]) {
            switch v {
            case .ascii(let s): let b = Array(s.utf8) + [0]; return (2, b.count, b)
            case .short(let x): return (3, 1, le16(x))
            case .long(let x): return (4, 1, le32(x))
            case .rationals(let r): return (5, r.count, r.flatMap { le32($0.0) + le32($0.1) })
            case .bytes(let b): return (1, b.count, b)
            case .undefined(let b): return (7, b.count, b)
            case .directory(let i): return (4, 1, le32(UInt32(offsets[i])))
            }
        }
        func even(_ n: Int) -> Int { n + (n & 1) }
        func size(_ entries: [Entry]) -> Int {
            entries.reduce(2 + 12 * entries.count + 4) { total, e in
                let n = encoded(e.value, offsets: [Int](repeating: 0, count: directories.count)).bytes.count
                return total + (n > 4 ? even(n) : 0)
            }
        }
        var offsets: [Int] = []
        var next = even(base)
        for d in directories {
            offsets.append(next)
            if !d.isEmpty { next += size(d) }
        }
        var out = [UInt8](repeating: 0, count: even(base) - base)
        for (d, entries) in directories.enumerated() where !entries.isEmpty {
            var data: [UInt8] = []
            let dataStart = offsets[d] + 2 + 12 * entries.count + 4
            out += le16(UInt16(entries.count))
            for e in entries.sorted(by: { $0.tag < $1.tag }) {
                let (type, count, bytes) = encoded(e.value, offsets: offsets)
                out += le16(e.tag) + le16(type) + le32(UInt32(count))
                if bytes.count <= 4 {
                    out += bytes + [UInt8](repeating: 0, count: 4 - bytes.count)
                } else {
                    out += le32(UInt32(dataStart + data.count))
                    data += bytes
                    if data.count & 1 == 1 { data.append(0) }
                }
            }
            out += le32(0)
            out += data
        }
        return (out, offsets)
    }

    private static func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    private static func le32(_ v: UInt32) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)] }
}
