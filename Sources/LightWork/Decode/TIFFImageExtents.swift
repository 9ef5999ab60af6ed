import Foundation

/// Where a TIFF-structured file (DNG and the TIFF-based RAWs: NEF, CR2, ARW, PEF, …) says its image data
/// lies: the furthest end of any strip or tile of any IFD, its SubIFDs included. A file cut short in a copy
/// or an upload still opens in LibRaw, and lossy-JPEG DNGs then decode the missing part as flat grey
/// without any error; comparing this extent with the file's size catches them before decoding.
public struct TIFFImageExtents: Sendable, Equatable {
    /// One past the last byte of image data any strip or tile points at.
    public let dataEnd: Int
    /// IFDs read (the chain from IFD0 and every SubIFD).
    public let directories: Int

    /// Reads `bytes` as classic TIFF (`II*\0` or `MM\0*`); nil for anything else (BigTIFF, other formats)
    /// or when no strips or tiles are found.
    public static func read(_ bytes: UnsafeRawBufferPointer) -> TIFFImageExtents? {
        guard bytes.count >= 8 else { return nil }
        let little: Bool
        switch (bytes[0], bytes[1], bytes[2], bytes[3]) {
        case (0x49, 0x49, 0x2A, 0x00): little = true
        case (0x4D, 0x4D, 0x00, 0x2A): little = false
        default: return nil
        }
        let reader = Reader(bytes: bytes, little: little)
        guard let first = reader.u32(4) else { return nil }
        var pending = [(offset: Int(first), depth: 0)]
        var seen = Set<Int>()
        var end = 0
        while let (offset, depth) = pending.popLast(), seen.count < 256 {
            guard offset >= 8, !seen.contains(offset), let count = reader.u16(offset) else { continue }
            seen.insert(offset)
            var offsets: [Int] = [], lengths: [Int] = []
            for i in 0..<Int(count) {
                let entry = offset + 2 + 12 * i
                guard let tag = reader.u16(entry) else { break }
                switch tag {
                case 273, 324: offsets = reader.integers(entry)       // StripOffsets, TileOffsets
                case 279, 325: lengths = reader.integers(entry)       // StripByteCounts, TileByteCounts
                case 330 where depth < 4: pending += reader.integers(entry).map { ($0, depth + 1) }   // SubIFDs
                default: break
                }
            }
            for (start, length) in zip(offsets, lengths) { end = max(end, start + length) }
            if let next = reader.u32(offset + 2 + 12 * Int(count)), next != 0 { pending.append((Int(next), depth)) }
        }
        return end > 0 ? TIFFImageExtents(dataEnd: end, directories: seen.count) : nil
    }

    /// Bounds-checked reads in the file's byte order.
    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        let little: Bool

        func u16(_ o: Int) -> Int? {
            guard o >= 0, o + 2 <= bytes.count else { return nil }
            let a = Int(bytes[o]), b = Int(bytes[o + 1])
            return little ? a | b << 8 : a << 8 | b
        }

        func u32(_ o: Int) -> Int? {
            guard let a = u16(o), let b = u16(o + 2) else { return nil }
            return little ? a | b << 16 : a << 16 | b
        }

        /// The SHORT or LONG values of the entry at `entry` (at most 1 << 20 of them; none when out of bounds).
        func integers(_ entry: Int) -> [Int] {
            guard let type = u16(entry + 2), let count = u32(entry + 4), count <= 1 << 20 else { return [] }
            let size: Int
            switch type {
            case 3: size = 2
            case 4, 13: size = 4
            default: return []
            }
            let at: Int
            if count * size <= 4 { at = entry + 8 } else { guard let o = u32(entry + 8) else { return [] }; at = o }
            guard at + count * size <= bytes.count else { return [] }
            return (0..<count).compactMap { size == 2 ? u16(at + 2 * $0) : u32(at + 4 * $0) }
        }
    }
}
