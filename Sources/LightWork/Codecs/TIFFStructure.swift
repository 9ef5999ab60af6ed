import Foundation

/// The one reader of TIFF structure (byte order, IFDs, typed tag values) behind every TIFF-based probe: EXIF
/// blocks (`EXIFReader`), how far a RAW reaches (`TIFFImageExtents`), the size probe, the capture-info probe and
/// DNG detection.
///
/// Bytes come from untrusted files and are read through `bytes(offset, count)`, which returns exactly `count`
/// bytes or nil: every offset is checked against the source before use, a value that lies outside it reads as
/// absent, and the IFD walk visits each offset once (a loop ends) with a cap on directories and entries. It never
/// traps, whatever the input.
public struct TIFFStructure {
    /// The TIFF magics read: classic only, or also the makers' variants (Panasonic RW2 "IIU\0", Olympus ORF
    /// "IIRO", "IIRS", "MMOR"), or classic and a DNG camera profile's ("IIRC", "MMCR": a DCP file).
    public enum Magic: Sendable { case classic, withMakerVariants, withCameraProfile }

    /// Exactly `count` bytes at `offset`, or nil when any of them lies outside the source.
    public typealias ByteSource = (_ offset: Int, _ count: Int) -> [UInt8]?

    public let littleEndian: Bool
    /// Offset of IFD0 (from the header).
    public let firstDirectory: Int
    private let bytes: ByteSource

    /// The most entries read from one IFD (a crafted count cannot make a reader allocate megabytes).
    public static let maxEntries = 4096

    /// Reads the 8-byte header through `bytes`; nil when it is not TIFF (of the `magic` given).
    public init?(magic: Magic = .classic, bytes: @escaping ByteSource) {
        guard let h = bytes(0, 8) else { return nil }
        switch (h[0], h[1], h[2], h[3]) {
        case (0x49, 0x49, 0x2A, 0x00): littleEndian = true
        case (0x4D, 0x4D, 0x00, 0x2A): littleEndian = false
        case (0x49, 0x49, 0x55, 0x00), (0x49, 0x49, 0x52, 0x4F), (0x49, 0x49, 0x52, 0x53):
            guard magic == .withMakerVariants else { return nil }
            littleEndian = true
        case (0x4D, 0x4D, 0x4F, 0x52):
            guard magic == .withMakerVariants else { return nil }
            littleEndian = false
        case (0x49, 0x49, 0x52, 0x43):
            guard magic == .withCameraProfile else { return nil }
            littleEndian = true
        case (0x4D, 0x4D, 0x43, 0x52):
            guard magic == .withCameraProfile else { return nil }
            littleEndian = false
        default: return nil
        }
        self.bytes = bytes
        firstDirectory = TIFFStructure.u32(h, 4, little: littleEndian)
    }

    /// A TIFF structure held in memory (`bytes` must stay alive and unchanged while it is read).
    public init?(magic: Magic = .classic, _ data: [UInt8]) {
        self.init(magic: magic, bytes: TIFFStructure.source(data))
    }

    /// Bounds-checked reads of `data`.
    public static func source(_ data: [UInt8]) -> ByteSource {
        { offset, count in
            guard offset >= 0, count >= 0, offset <= data.count - count else { return nil }
            return Array(data[offset..<(offset + count)])
        }
    }

    /// Bounds-checked reads of a buffer (which must outlive the reader).
    public static func source(_ buffer: UnsafeRawBufferPointer) -> ByteSource {
        { offset, count in
            guard offset >= 0, count >= 0, offset <= buffer.count - count else { return nil }
            return Array(buffer[offset..<(offset + count)])
        }
    }

    /// Whether `head` starts with a TIFF header of `magic`.
    public static func isTIFF(_ head: [UInt8], magic: Magic = .classic) -> Bool {
        TIFFStructure(magic: magic, bytes: source(Array(head.prefix(8)))) != nil
    }

    // MARK: Directories

    /// One IFD entry as stored: its value is inline when it fits in four bytes, at `valueOffset` otherwise.
    public struct Entry: Sendable, Equatable {
        public let tag: UInt16
        public let type: UInt16
        public let count: Int
        /// The entry's last four bytes (the inline value, or the offset of the value).
        public let field: [UInt8]
        /// Where the value lies: inside the entry when it fits, else the offset the entry gives.
        public let valueOffset: Int
        /// Bytes of the whole value; nil for a type TIFF does not define.
        public let byteLength: Int?
        /// Whether the value is out of line (its bytes lie at `valueOffset`, elsewhere in the file).
        public var isOutOfLine: Bool { (byteLength ?? 0) > 4 }
    }

    /// One IFD: the entries that could be read and the offset of the next IFD (0: none).
    public struct Directory: Sendable {
        public let offset: Int
        /// The entry count the IFD declares (at most `maxEntries` are read).
        public let declaredCount: Int
        public let entries: [Entry]
        /// The next IFD's offset, nil when the four bytes after the entries lie outside the source.
        public let next: Int?
        /// Whether every declared entry and the next-IFD offset were read.
        public var isWhole: Bool { entries.count == declaredCount && next != nil }
        /// Bytes the IFD occupies: the count, the declared entries and the next offset.
        public var byteLength: Int { 2 + 12 * declaredCount + 4 }

        public subscript(tag: UInt16) -> Entry? { entries.first { $0.tag == tag } }
    }

    /// Bytes of one value of each TIFF type (nil for types TIFF does not define).
    public static func size(of type: UInt16) -> Int? {
        switch type {
        case 1, 2, 6, 7: return 1
        case 3, 8: return 2
        case 4, 9, 11, 13: return 4
        case 5, 10, 12: return 8
        default: return nil
        }
    }

    /// The IFD at `offset`, with the entries that lie inside the source (at most `limit`); nil when its entry
    /// count cannot be read.
    public func directory(at offset: Int, limit: Int = TIFFStructure.maxEntries) -> Directory? {
        guard offset >= 0, let countBytes = bytes(offset, 2) else { return nil }
        let declared = u16(countBytes, 0)
        let wanted = min(declared, limit)
        let block = bytes(offset + 2, 12 * wanted) ?? readable(offset + 2, wanted)
        var entries: [Entry] = []
        entries.reserveCapacity(block.count / 12)
        for i in 0..<(block.count / 12) {
            let p = 12 * i
            let type = UInt16(truncatingIfNeeded: u16(block, p + 2)), count = u32(block, p + 4)
            let field = Array(block[(p + 8)..<(p + 12)])
            let (length, overflow) = (TIFFStructure.size(of: type) ?? 0).multipliedReportingOverflow(by: count)
            let byteLength = TIFFStructure.size(of: type) == nil || overflow ? nil : length
            let inline = (byteLength ?? 0) <= 4
            entries.append(Entry(tag: UInt16(truncatingIfNeeded: u16(block, p)), type: type, count: count, field: field,
                                 valueOffset: inline ? offset + 2 + p + 8 : u32(field, 0), byteLength: byteLength))
        }
        let next = declared == wanted ? bytes(offset + 2 + 12 * declared, 4).map { u32($0, 0) } : nil
        return Directory(offset: offset, declaredCount: declared, entries: entries, next: next)
    }

    /// The whole entries readable from `offset` when fewer than `wanted` are (a file cut inside an IFD).
    private func readable(_ offset: Int, _ wanted: Int) -> [UInt8] {
        var low = 0, high = wanted
        while low < high {
            let mid = (low + high + 1) / 2
            if bytes(offset, 12 * mid) != nil { low = mid } else { high = mid - 1 }
        }
        return bytes(offset, 12 * low) ?? []
    }

    /// Visits IFDs from `start`: each once (a loop of offsets ends), at most `limit` of them, offsets below 8 (inside
    /// the header) skipped. `visit` returns the further IFD offsets to follow (the next IFD, SubIFDs, the EXIF IFD:
    /// the caller decides). Offsets whose entry count cannot be read are passed to `unreadable`. Returns the number of
    /// distinct offsets visited.
    @discardableResult
    public func walk(from start: [Int], limit: Int, unreadable: (Int) -> Void = { _ in },
                     visit: (Directory) -> [Int]) -> Int {
        var pending = start
        var seen = Set<Int>()
        while let offset = pending.popLast(), seen.count < limit {
            guard offset >= 8, seen.insert(offset).inserted else { continue }
            guard let d = directory(at: offset) else { unreadable(offset); continue }
            pending += visit(d)
        }
        return seen.count
    }

    // MARK: Values

    /// The value bytes of `e`, nil when they lie outside the source or the type is unknown.
    public func valueBytes(_ e: Entry) -> [UInt8]? {
        guard let length = e.byteLength else { return nil }
        return e.isOutOfLine ? bytes(e.valueOffset, length) : Array(e.field.prefix(length))
    }

    /// The BYTE, SHORT, LONG or IFD values of `e` (at most `limit`; none when unreadable or of another type).
    public func integers(_ e: Entry, limit: Int = 1 << 20) -> [Int] {
        guard [1, 3, 4, 7, 13].contains(e.type), e.count > 0, e.count <= limit, let b = valueBytes(e) else { return [] }
        switch e.type {
        case 1, 7: return b.map(Int.init)
        case 3: return (0..<e.count).map { u16(b, 2 * $0) }
        default: return (0..<e.count).map { u32(b, 4 * $0) }
        }
    }

    /// Whether the whole value of `e` lies inside the source (without reading it).
    public func valueIsInside(_ e: Entry) -> Bool {
        guard let length = e.byteLength else { return false }
        return !e.isOutOfLine || (e.valueOffset >= 0 && bytes(e.valueOffset + length - 1, 1) != nil)
    }

    /// The first value of a BYTE, SHORT, LONG or IFD entry whose value lies inside the source.
    public func integer(_ e: Entry) -> Int? {
        guard [1, 3, 4, 7, 13].contains(e.type), e.count >= 1, valueIsInside(e), let width = TIFFStructure.size(of: e.type),
              let b = e.isOutOfLine ? bytes(e.valueOffset, width) : e.field else { return nil }
        switch e.type {
        case 1, 7: return Int(b[0])
        case 3: return u16(b, 0)
        default: return u32(b, 0)
        }
    }

    /// RATIONAL (or SRATIONAL) values (at most 16) of an entry whose value lies inside the source; a zero
    /// denominator ends the list.
    public func rationals(_ e: Entry) -> [Double] {
        guard e.type == 5 || e.type == 10, e.count > 0, valueIsInside(e) else { return [] }
        let n = min(e.count, 16)
        guard let b = bytes(e.valueOffset, 8 * n) else { return [] }
        var out: [Double] = []
        for i in 0..<n {
            let num = UInt32(truncatingIfNeeded: u32(b, 8 * i)), den = UInt32(truncatingIfNeeded: u32(b, 8 * i + 4))
            guard den != 0 else { break }
            out.append(e.type == 5 ? Double(num) / Double(den) : Double(Int32(bitPattern: num)) / Double(Int32(bitPattern: den)))
        }
        return out
    }

    /// An ASCII (or UNDEFINED) entry up to its first NUL, trimmed; nil when empty, unreadable, or longer than
    /// `limit` bytes.
    public func ascii(_ e: Entry, limit: Int = 1 << 24) -> String? {
        guard e.type == 2 || e.type == 7, e.count > 0, e.count <= limit, let b = valueBytes(e) else { return nil }
        let s = String(decoding: b.prefix { $0 != 0 }, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return s.isEmpty ? nil : s
    }

    // MARK: Byte order

    func u16(_ b: [UInt8], _ i: Int) -> Int { TIFFStructure.u16(b, i, little: littleEndian) }
    func u32(_ b: [UInt8], _ i: Int) -> Int { TIFFStructure.u32(b, i, little: littleEndian) }

    static func u16(_ b: [UInt8], _ i: Int, little: Bool) -> Int {
        little ? Int(b[i]) | Int(b[i + 1]) << 8 : Int(b[i]) << 8 | Int(b[i + 1])
    }

    static func u32(_ b: [UInt8], _ i: Int, little: Bool) -> Int {
        little ? u16(b, i, little: true) | u16(b, i + 2, little: true) << 16 : u16(b, i, little: false) << 16 | u16(b, i + 2, little: false)
    }
}

/// Big-endian integers of ISO boxes, PNG chunks, JPEG segments and RAF headers, out of a byte array.
enum BigEndian {
    static func u16(_ b: [UInt8], _ i: Int) -> Int { Int(b[i]) << 8 | Int(b[i + 1]) }
    static func u32(_ b: [UInt8], _ i: Int) -> Int { u16(b, i) << 16 | u16(b, i + 2) }
}
