import Foundation

/// How far a TIFF-structured file (DNG and the TIFF-based RAWs: NEF, CR2, ARW, PEF, …) says it reaches: the
/// furthest byte any IFD (the chain from IFD0, SubIFDs, the EXIF IFD), any out-of-line tag value, or any strip
/// or tile points at. A file cut short in a copy or an upload still opens in LibRaw, and lossy-JPEG DNGs then
/// decode the missing part as flat grey without any error; the decoder and the folder watch both compare
/// this extent with the file's size.
public struct TIFFImageExtents: Sendable, Equatable {
    /// One past the last byte the structure references.
    public let dataEnd: Int
    /// IFDs read.
    public let directories: Int
    /// The Compression values of those IFDs (9 in a raw IFD: VC-5, a GoPro GPR).
    public let compressions: Set<Int>

    /// TIFF Compression 9: SMPTE VC-5, the codec of GoPro's GPR (a DNG).
    public static let vc5Compression = 9

    /// Reads the structure of `bytes` (classic TIFF, `II*\0` or `MM\0*`, or RW2's and ORF's variants); nil for anything else.
    public static func read(_ bytes: UnsafeRawBufferPointer) -> TIFFImageExtents? {
        read(size: bytes.count) { offset, count in
            guard offset >= 0, count >= 0, offset + count <= bytes.count else { return nil }
            return Array(bytes[offset..<(offset + count)])
        }
    }

    /// Reads the structure of a file of `size` bytes through `bytes(offset, count)` (exactly `count` bytes, nil
    /// past the end), so a file being uploaded can be judged with a few small reads; nil when it is not TIFF.
    public static func read(size: Int, bytes: (Int, Int) -> [UInt8]?) -> TIFFImageExtents? {
        guard let head = bytes(0, 8) else { return nil }
        let little: Bool
        switch (head[0], head[1], head[2], head[3]) {
        case (0x49, 0x49, 0x2A, 0x00): little = true
        case (0x4D, 0x4D, 0x00, 0x2A): little = false
        // TIFF with a maker's magic: Panasonic RW2 ("IIU\0"), Olympus ORF ("IIRO", "IIRS", "MMOR").
        case (0x49, 0x49, 0x55, 0x00), (0x49, 0x49, 0x52, 0x4F), (0x49, 0x49, 0x52, 0x53): little = true
        case (0x4D, 0x4D, 0x4F, 0x52): little = false
        default: return nil
        }
        func u16(_ b: [UInt8], _ i: Int) -> Int { little ? Int(b[i]) | Int(b[i + 1]) << 8 : Int(b[i]) << 8 | Int(b[i + 1]) }
        func u32(_ b: [UInt8], _ i: Int) -> Int { little ? u16(b, i) | u16(b, i + 2) << 16 : u16(b, i) << 16 | u16(b, i + 2) }
        /// The SHORT or LONG values of the entry at `p` of `entries` (at most 1 << 20; none when unreadable).
        func integers(_ entries: [UInt8], _ p: Int) -> [Int] {
            let type = u16(entries, p + 2), count = u32(entries, p + 4)
            guard type == 3 || type == 4 || type == 13, count > 0, count <= 1 << 20 else { return [] }
            let width = type == 3 ? 2 : 4
            let values: [UInt8]
            if count * width <= 4 { values = Array(entries[(p + 8)..<(p + 12)]) } else {
                guard let b = bytes(u32(entries, p + 8), count * width) else { return [] }
                values = b
            }
            return (0..<count).map { width == 2 ? u16(values, 2 * $0) : u32(values, 4 * $0) }
        }
        let typeSize = [1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8, 13: 4]

        var pending = [u32(head, 4)]
        var seen = Set<Int>()
        var end = 8
        var compressions = Set<Int>()
        while let offset = pending.popLast(), seen.count < 256 {
            guard offset >= 8, seen.insert(offset).inserted else { continue }
            guard let countBytes = bytes(offset, 2) else { end = max(end, offset + 2); continue }
            let count = u16(countBytes, 0)
            end = max(end, offset + 2 + 12 * count + 4)
            guard let entries = bytes(offset + 2, 12 * count + 4) else { continue }
            var offsets: [Int] = [], lengths: [Int] = []
            for i in 0..<count {
                let p = 12 * i
                let tag = u16(entries, p)
                if let width = typeSize[u16(entries, p + 2)], width * u32(entries, p + 4) > 4 {
                    end = max(end, u32(entries, p + 8) + width * u32(entries, p + 4))   // out-of-line value
                }
                switch tag {
                case 273, 324: offsets = integers(entries, p)                        // StripOffsets, TileOffsets
                case 279, 325: lengths = integers(entries, p)                        // StripByteCounts, TileByteCounts
                case 259: compressions.formUnion(integers(entries, p).prefix(1))
                case 330, 34665: pending += integers(entries, p).prefix(64)          // SubIFDs, EXIF IFD
                default: break
                }
            }
            for (start, length) in zip(offsets, lengths) { end = max(end, start + length) }
            let next = u32(entries, 12 * count)
            if next != 0 { pending.append(next) }
        }
        return TIFFImageExtents(dataEnd: end, directories: seen.count, compressions: compressions)
    }
}
