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
        read(size: bytes.count, bytes: TIFFStructure.source(bytes))
    }

    /// Reads the structure of a file of `size` bytes through `bytes(offset, count)` (exactly `count` bytes, nil
    /// past the end), so a file being uploaded can be judged with a few small reads; nil when it is not TIFF.
    public static func read(size: Int, bytes: @escaping TIFFStructure.ByteSource) -> TIFFImageExtents? {
        guard let t = TIFFStructure(magic: .withMakerVariants, bytes: bytes) else { return nil }
        var end = 8
        var compressions = Set<Int>()
        let directories = t.walk(from: [t.firstDirectory], limit: 256, unreadable: { end = max(end, $0 + 2) }) { ifd in
            end = max(end, ifd.offset + ifd.byteLength)
            guard ifd.isWhole else { return [] }
            var offsets: [Int] = [], lengths: [Int] = [], follow: [Int] = []
            for e in ifd.entries {
                if e.isOutOfLine, let length = e.byteLength { end = max(end, e.valueOffset + length) }   // out-of-line value
                switch e.tag {
                case 273, 324: offsets = t.integers(e)                        // StripOffsets, TileOffsets
                case 279, 325: lengths = t.integers(e)                        // StripByteCounts, TileByteCounts
                case 259: compressions.formUnion(t.integers(e).prefix(1))
                case 330, 34665: follow += t.integers(e).prefix(64)           // SubIFDs, EXIF IFD
                default: break
                }
            }
            for (start, length) in zip(offsets, lengths) { end = max(end, start + length) }
            if let next = ifd.next, next != 0 { follow.append(next) }
            return follow
        }
        return TIFFImageExtents(dataEnd: end, directories: directories, compressions: compressions)
    }
}
