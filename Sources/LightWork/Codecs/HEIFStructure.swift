import Foundation

/// The few boxes of a HEIF (ISO/IEC 23008-12) file the batch parent reads without libheif: the `ftyp` brands,
/// and in the top-level `meta` box the primary item (`pitm`), its `ispe` size (`iprp`/`ipco`/`ipma`) and the
/// first `Exif` item (`iinf`, `iloc`). Every read is bounds-checked; the `meta` box is read whole only when it is
/// at most `maxMetaBytes`.
struct HEIFStructure {
    /// The major brand, then the compatible brands.
    let brands: [String]
    /// The payload of the top-level `meta` box (after its version and flags), nil when there is none in reach.
    private let meta: [UInt8]?
    /// The file, for items stored outside `meta`.
    private let file: FileBytes

    static let maxMetaBytes = 4 << 20
    /// Top-level boxes looked at before giving up on finding `meta`.
    static let maxTopLevelBoxes = 16

    /// A box inside a byte array: its type and its payload's range.
    struct Box {
        let type: String
        let payload: Range<Int>
    }

    /// The boxes in `b[range]`, stopping at the first malformed one.
    static func boxes(_ b: [UInt8], in range: Range<Int>) -> [Box] {
        var out: [Box] = []
        var i = range.lowerBound
        while i + 8 <= range.upperBound, out.count < 4096 {
            var size = BigEndian.u32(b, i)
            var header = 8
            if size == 1 {
                guard i + 16 <= range.upperBound else { break }
                let high = BigEndian.u32(b, i + 8), low = BigEndian.u32(b, i + 12)
                guard high == 0 else { break }
                size = low
                header = 16
            } else if size == 0 {
                size = range.upperBound - i
            }
            guard size >= header, size <= range.upperBound - i else { break }
            out.append(Box(type: String(decoding: b[(i + 4)..<(i + 8)], as: UTF8.self), payload: (i + header)..<(i + size)))
            i += size
        }
        return out
    }

    /// The `ftyp` box's major and compatible brands, nil when the file does not start with one.
    static func brands(_ file: FileBytes) -> [String]? { ftyp(file)?.brands }

    private static func ftyp(_ file: FileBytes) -> (brands: [String], size: Int)? {
        guard let head = file.read(0, 8), String(decoding: head[4..<8], as: UTF8.self) == "ftyp" else { return nil }
        let size = BigEndian.u32(head, 0)
        guard size >= 16, size <= 4096, let ftyp = file.read(0, size) else { return nil }
        var brands = [String(decoding: ftyp[8..<12], as: UTF8.self)]
        var i = 16
        while i + 4 <= size { brands.append(String(decoding: ftyp[i..<(i + 4)], as: UTF8.self)); i += 4 }
        return (brands, size)
    }

    init?(_ file: FileBytes) {
        self.file = file
        guard let (brands, ftypSize) = Self.ftyp(file) else { return nil }
        self.brands = brands

        var offset = ftypSize
        var meta: [UInt8]?
        for _ in 0..<Self.maxTopLevelBoxes {
            guard let h = file.read(offset, 8) else { break }
            let size = BigEndian.u32(h, 0)
            let type = String(decoding: h[4..<8], as: UTF8.self)
            guard size >= 8 else { break }   // 0 (to the end) and 1 (64-bit) are only used by mdat, which ends the search
            if type == "meta" {
                if size - 8 >= 4, size <= Self.maxMetaBytes, let payload = file.read(offset + 12, size - 12) { meta = payload }
                break
            }
            offset += size
        }
        self.meta = meta
    }

    /// The children of the `meta` payload.
    private var metaBoxes: [Box] { meta.map { Self.boxes($0, in: 0..<$0.count) } ?? [] }

    /// The primary item's ID (`pitm`).
    var primaryItem: Int? {
        guard let meta, let pitm = metaBoxes.first(where: { $0.type == "pitm" }), pitm.payload.count >= 6 else { return nil }
        let version = meta[pitm.payload.lowerBound]
        let p = pitm.payload.lowerBound + 4
        if version == 0 { return BigEndian.u16(meta, p) }
        return pitm.payload.count >= 8 ? BigEndian.u32(meta, p) : nil
    }

    /// Width and height of the primary item's `ispe` property (the coded size, before any rotation).
    var primarySize: (width: Int, height: Int)? {
        guard let meta, let item = primaryItem, let iprp = metaBoxes.first(where: { $0.type == "iprp" }) else { return nil }
        let children = Self.boxes(meta, in: iprp.payload)
        guard let ipco = children.first(where: { $0.type == "ipco" }), let ipma = children.first(where: { $0.type == "ipma" }) else { return nil }
        let properties = Self.boxes(meta, in: ipco.payload)
        for index in associations(of: item, ipma: ipma) where index >= 1 && index <= properties.count {
            let p = properties[index - 1]
            if p.type == "ispe", p.payload.count >= 12 {
                return (BigEndian.u32(meta, p.payload.lowerBound + 4), BigEndian.u32(meta, p.payload.lowerBound + 8))
            }
        }
        return nil
    }

    /// The 1-based property indices `ipma` associates with `item`.
    private func associations(of item: Int, ipma: Box) -> [Int] {
        guard let meta, ipma.payload.count >= 8 else { return [] }
        let version = meta[ipma.payload.lowerBound], wide = meta[ipma.payload.lowerBound + 3] & 1 != 0
        let end = ipma.payload.upperBound
        var i = ipma.payload.lowerBound + 4
        let count = BigEndian.u32(meta, i)
        i += 4
        for _ in 0..<min(count, 1 << 16) {
            let idSize = version < 1 ? 2 : 4
            guard i + idSize + 1 <= end else { return [] }
            let id = idSize == 2 ? BigEndian.u16(meta, i) : BigEndian.u32(meta, i)
            let n = Int(meta[i + idSize])
            i += idSize + 1
            let entrySize = wide ? 2 : 1
            guard i + n * entrySize <= end else { return [] }
            if id == item {
                return (0..<n).map { k in wide ? BigEndian.u16(meta, i + 2 * k) & 0x7FFF : Int(meta[i + k] & 0x7F) }
            }
            i += n * entrySize
        }
        return []
    }

    /// The bytes of the first item of type `Exif` (at most 1 MB, one extent, stored in the file or in `idat`),
    /// after the item's 4-byte offset to the TIFF header.
    var exif: Data? {
        guard let meta, let id = firstItem(ofType: "Exif"), let extent = location(of: id) else { return nil }
        guard extent.length >= 4, extent.length <= 1 << 20 else { return nil }
        let bytes: [UInt8]?
        if extent.inIdat {
            guard let idat = metaBoxes.first(where: { $0.type == "idat" }), extent.offset <= idat.payload.count - extent.length else { return nil }
            let start = idat.payload.lowerBound + extent.offset
            bytes = Array(meta[start..<(start + extent.length)])
        } else {
            bytes = file.read(extent.offset, extent.length)
        }
        guard let bytes else { return nil }
        let skip = BigEndian.u32(bytes, 0)
        guard skip <= bytes.count - 4 else { return nil }
        return Data(bytes[(4 + skip)...])
    }

    /// The ID of the first `infe` (version 2 or 3) of `type` in `iinf`.
    private func firstItem(ofType type: String) -> Int? {
        guard let meta, let iinf = metaBoxes.first(where: { $0.type == "iinf" }), iinf.payload.count >= 6 else { return nil }
        let countSize = meta[iinf.payload.lowerBound] == 0 ? 2 : 4
        let entries = Self.boxes(meta, in: (iinf.payload.lowerBound + 4 + countSize)..<iinf.payload.upperBound)
        for infe in entries where infe.type == "infe" && infe.payload.count >= 12 {
            let p = infe.payload.lowerBound, version = meta[p]
            guard version >= 2 else { continue }
            let idSize = version == 2 ? 2 : 4
            guard infe.payload.count >= 4 + idSize + 2 + 4 else { continue }
            let id = idSize == 2 ? BigEndian.u16(meta, p + 4) : BigEndian.u32(meta, p + 4)
            let t = p + 4 + idSize + 2
            if String(decoding: meta[t..<(t + 4)], as: UTF8.self) == type { return id }
        }
        return nil
    }

    /// Where item `id` lies (`iloc`): its first extent's offset and length, in the file or in `idat`.
    private func location(of id: Int) -> (offset: Int, length: Int, inIdat: Bool)? {
        guard let meta, let iloc = metaBoxes.first(where: { $0.type == "iloc" }), iloc.payload.count >= 8 else { return nil }
        let end = iloc.payload.upperBound
        var i = iloc.payload.lowerBound
        let version = meta[i]
        guard version <= 2 else { return nil }
        let offsetSize = Int(meta[i + 4] >> 4), lengthSize = Int(meta[i + 4] & 15)
        let baseSize = Int(meta[i + 5] >> 4), indexSize = version >= 1 ? Int(meta[i + 5] & 15) : 0
        guard [0, 4, 8].contains(offsetSize), [0, 4, 8].contains(lengthSize), [0, 4, 8].contains(baseSize), [0, 4, 8].contains(indexSize) else { return nil }
        i += 6
        func number(_ size: Int) -> Int? {
            guard i + size <= end else { return nil }
            defer { i += size }
            switch size {
            case 0: return 0
            case 4: return BigEndian.u32(meta, i)
            default:
                guard BigEndian.u32(meta, i) == 0 else { return nil }   // beyond 4 GB: not for a probe
                return BigEndian.u32(meta, i + 4)
            }
        }
        // The item count and each item ID: 16 bits before version 2, 32 from it.
        func count() -> Int? {
            guard version >= 2 else {
                guard i + 2 <= end else { return nil }
                defer { i += 2 }
                return BigEndian.u16(meta, i)
            }
            return number(4)
        }
        guard let itemCount = count() else { return nil }
        for _ in 0..<min(itemCount, 1 << 16) {
            guard let itemID = count() else { return nil }
            var method = 0
            if version >= 1 {
                guard i + 2 <= end else { return nil }
                method = BigEndian.u16(meta, i) & 15; i += 2
            }
            guard i + 2 <= end else { return nil }
            i += 2   // data_reference_index
            guard let base = number(baseSize), i + 2 <= end else { return nil }
            let extents = BigEndian.u16(meta, i); i += 2
            var first: (Int, Int)?
            for _ in 0..<extents {
                guard number(indexSize) != nil, let offset = number(offsetSize), let length = number(lengthSize) else { return nil }
                if first == nil { first = (base + offset, length) }
            }
            if itemID == id {
                guard extents == 1, let first, method <= 1 else { return nil }
                return (first.0, first.1, method == 1)
            }
        }
        return nil
    }
}
