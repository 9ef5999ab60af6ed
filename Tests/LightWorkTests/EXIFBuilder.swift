import Foundation

/// Writes small TIFF/EXIF blocks for tests: IFD0 with an Exif and a GPS sub-IFD, in either byte order.
struct EXIFBuilder {
    enum Value {
        case ascii(String)
        case short(UInt16)
        case long(UInt32)
        case rational([(UInt32, UInt32)])
        case byte(UInt8)
    }

    var bigEndian = false
    var ifd0: [(UInt16, Value)] = []
    var exif: [(UInt16, Value)] = []
    var gps: [(UInt16, Value)] = []

    func build() -> Data {
        // Layout: header, IFD0, Exif IFD, GPS IFD, then every out-of-line value.
        var main = ifd0
        if !exif.isEmpty { main.append((0x8769, .long(0))) }
        if !gps.isEmpty { main.append((0x8825, .long(0))) }
        let ifdSize = { (n: Int) in 2 + 12 * n + 4 }
        let ifd0Offset = 8
        let exifOffset = ifd0Offset + ifdSize(main.count)
        let gpsOffset = exifOffset + (exif.isEmpty ? 0 : ifdSize(exif.count))
        var dataOffset = gpsOffset + (gps.isEmpty ? 0 : ifdSize(gps.count))
        main = main.map { $0.0 == 0x8769 ? (0x8769, .long(UInt32(exifOffset))) : $0.0 == 0x8825 ? (0x8825, .long(UInt32(gpsOffset))) : $0 }

        var out: [UInt8] = bigEndian ? [0x4D, 0x4D, 0, 42] : [0x49, 0x49, 42, 0]
        out += u32(8)
        var extra: [UInt8] = []
        for entries in [main, exif, gps] where !entries.isEmpty {
            out += u16(UInt16(entries.count))
            for (tag, value) in entries.sorted(by: { $0.0 < $1.0 }) {
                let (type, count, bytes) = encode(value)
                out += u16(tag) + u16(type) + u32(UInt32(count))
                if bytes.count <= 4 {
                    out += bytes + [UInt8](repeating: 0, count: 4 - bytes.count)
                } else {
                    out += u32(UInt32(dataOffset))
                    extra += bytes
                    dataOffset += bytes.count
                }
            }
            out += u32(0)
        }
        return Data(out + extra)
    }

    private func encode(_ v: Value) -> (UInt16, Int, [UInt8]) {
        switch v {
        case .ascii(let s): let b = Array(s.utf8) + [0]; return (2, b.count, b)
        case .short(let x): return (3, 1, u16(x))
        case .long(let x): return (4, 1, u32(x))
        case .byte(let x): return (1, 1, [x])
        case .rational(let r): return (5, r.count, r.flatMap { u32($0.0) + u32($0.1) })
        }
    }

    func u16(_ v: UInt16) -> [UInt8] { bigEndian ? [UInt8(v >> 8), UInt8(v & 0xff)] : [UInt8(v & 0xff), UInt8(v >> 8)] }
    func u32(_ v: UInt32) -> [UInt8] {
        let b = [UInt8(v & 0xff), UInt8(v >> 8 & 0xff), UInt8(v >> 16 & 0xff), UInt8(v >> 24)]
        return bigEndian ? b.reversed() : b
    }
}
