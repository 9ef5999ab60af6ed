import Foundation

/// Minimal parsers of file structure, independent of the libraries that wrote the files.
enum FileStructure {
    /// JPEG markers in order up to SOS: (marker byte, payload without the length field).
    static func jpegMarkers(_ d: Data) -> [(marker: UInt8, payload: Data)] {
        let b = [UInt8](d)
        var out: [(UInt8, Data)] = []
        guard b.count > 4, b[0] == 0xff, b[1] == 0xd8 else { return out }
        var i = 2
        while i + 4 <= b.count, b[i] == 0xff {
            let marker = b[i + 1]
            let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
            out.append((marker, Data(b[(i + 4)..<min(b.count, i + 2 + length)])))
            if marker == 0xda { break }
            i += 2 + length
        }
        return out
    }

    /// PNG chunks in order: (type, data).
    static func pngChunks(_ d: Data) -> [(type: String, data: Data)] {
        let b = [UInt8](d)
        var out: [(String, Data)] = []
        var i = 8
        while i + 12 <= b.count {
            let length = Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3])
            let type = String(decoding: b[(i + 4)..<(i + 8)], as: UTF8.self)
            out.append((type, Data(b[(i + 8)..<min(b.count, i + 8 + length)])))
            i += 12 + length
        }
        return out
    }

    /// The first IFD of a classic little- or big-endian TIFF: tag → (type, count, value or offset).
    static func tiffTags(_ d: Data) -> [UInt16: (type: UInt16, count: UInt32, value: UInt32)] {
        let b = [UInt8](d)
        guard b.count >= 8 else { return [:] }
        let little = b[0] == 0x49
        func u16(_ o: Int) -> UInt16 { little ? UInt16(b[o]) | UInt16(b[o + 1]) << 8 : UInt16(b[o]) << 8 | UInt16(b[o + 1]) }
        func u32(_ o: Int) -> UInt32 {
            little ? UInt32(u16(o)) | UInt32(u16(o + 2)) << 16 : UInt32(u16(o)) << 16 | UInt32(u16(o + 2))
        }
        let ifd = Int(u32(4))
        var tags: [UInt16: (UInt16, UInt32, UInt32)] = [:]
        let n = Int(u16(ifd))
        for k in 0..<n {
            let e = ifd + 2 + 12 * k
            let type = u16(e + 2)
            let count = u32(e + 4)
            // SHORT values sit in the first two bytes of the value field.
            let value = type == 3 && count == 1 ? UInt32(u16(e + 8)) : u32(e + 8)
            tags[u16(e)] = (type, count, value)
        }
        return tags
    }
}
