import Foundation

/// Reads the few EXIF fields LightWork records from a TIFF-structured EXIF block (JPEG APP1, PNG eXIf), through
/// `TIFFStructure`.
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

    /// Orientation, camera, exposure, date, GPS, Artist (one creator) and Copyright fields; `nil` when `bytes` is not a TIFF/EXIF block.
    public static func read(_ bytes: Data) -> ImageMetadata? {
        guard let block = tiffBlock(bytes) else { return nil }
        guard let t = TIFFStructure([UInt8](block)) else { return nil }
        var m = ImageMetadata()
        let ifd0 = t.directory(at: t.firstDirectory)?.entries ?? []
        for e in ifd0 {
            switch e.tag {
            case 0x0112:
                if let v = t.integer(e), (1...8).contains(v) { m.orientation = v }
            case 0x010F: m.make = t.ascii(e)
            case 0x0110: m.model = t.ascii(e)
            case 0x013B: if let a = DescriptiveMetadata.cleaned(t.ascii(e)) { m.descriptive.creators = [a] }
            case 0x8298: m.descriptive.rights = DescriptiveMetadata.cleaned(t.ascii(e))
            default: break
            }
        }
        if let e = ifd0.first(where: { $0.tag == 0x8769 }), let off = t.integer(e) {
            for e in t.directory(at: off)?.entries ?? [] {
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
            readGPS(t, t.directory(at: off)?.entries ?? [], into: &m)
        }
        return m
    }

    /// One ASCII tag of a TIFF block's first IFD (CR3 keeps its EXIF tags there, in its CMT2 box).
    package static func readIFD0Ascii(_ bytes: Data, tag: UInt16) -> String? {
        guard let block = tiffBlock(bytes) else { return nil }
        guard let t = TIFFStructure([UInt8](block)), let e = t.directory(at: t.firstDirectory)?[tag] else { return nil }
        return t.ascii(e)
    }

    private static func readGPS(_ t: TIFFStructure, _ entries: [TIFFStructure.Entry], into m: inout ImageMetadata) {
        func entry(_ tag: UInt16) -> TIFFStructure.Entry? { entries.first { $0.tag == tag } }
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
