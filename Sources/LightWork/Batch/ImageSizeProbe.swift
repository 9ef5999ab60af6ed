import Foundation

/// An image's pixel count from its header alone, read in the batch parent before a file is dispatched so
/// the memory budget can be kept. Plain bounds-checked Swift over a few header bytes: the parent never runs
/// a decoder (a crafted file must not be able to crash it). JPEG (SOF), PNG (IHDR) and TIFF-based RAWs
/// (DNG, NEF, CR2, ARW…: the largest IFD or SubIFD); nil for anything else.
package enum ImageSizeProbe {
    package static func pixels(at url: URL) -> Int? {
        guard let handle = FileHandle(forReadingAtPath: url.path) else { return nil }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 1 << 18), head.count >= 24 else { return nil }
        let b = [UInt8](head)
        if b[0] == 0xFF, b[1] == 0xD8 { return jpeg(b) }
        if b.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), b[12...15] == [0x49, 0x48, 0x44, 0x52] {
            return product(UInt32Reader.big(b, 16), UInt32Reader.big(b, 20))
        }
        if (b[0] == 0x49 && b[1] == 0x49 && b[2] == 42 && b[3] == 0) || (b[0] == 0x4D && b[1] == 0x4D && b[2] == 0 && b[3] == 42) {
            return TIFFProbe(handle: handle, little: b[0] == 0x49).largestImage()
        }
        return nil
    }

    /// Scans JPEG markers to the first start-of-frame.
    private static func jpeg(_ b: [UInt8]) -> Int? {
        var i = 2
        while i + 9 < b.count {
            guard b[i] == 0xFF else { return nil }
            let marker = b[i + 1]
            if marker == 0xFF { i += 1; continue }
            if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) { i += 2; continue }
            let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
            if (0xC0...0xCF).contains(marker), marker != 0xC4, marker != 0xC8, marker != 0xCC {
                let h = Int(b[i + 5]) << 8 | Int(b[i + 6]), w = Int(b[i + 7]) << 8 | Int(b[i + 8])
                return product(UInt32(w), UInt32(h))
            }
            guard length >= 2 else { return nil }
            i += 2 + length
        }
        return nil
    }

    static func product(_ w: UInt32?, _ h: UInt32?) -> Int? {
        guard let w, let h, w > 0, h > 0 else { return nil }
        let (px, overflow) = Int(w).multipliedReportingOverflow(by: Int(h))
        return overflow ? 1 << 40 : min(px, 1 << 40)
    }

    /// Walks TIFF IFDs (IFD0 chain and SubIFDs) through seeks, with limits on what it visits.
    private struct TIFFProbe {
        let handle: FileHandle
        let little: Bool

        func largestImage() -> Int? {
            guard let header = read(4, 4) else { return nil }
            var queue = [u32(header, 0)]
            var visited = Set<UInt32>()
            var best: Int?
            while let offset = queue.popLast(), visited.count < 32 {
                guard offset >= 8, visited.insert(offset).inserted, let countBytes = read(UInt64(offset), 2) else { continue }
                let count = Int(u16(countBytes, 0))
                guard count > 0, count <= 1024, let entries = read(UInt64(offset) + 2, count * 12 + 4) else { continue }
                var width: UInt32?, height: UInt32?
                for e in 0..<count {
                    let p = e * 12
                    let tag = u16(entries, p), type = u16(entries, p + 2), n = u32(entries, p + 4)
                    let value = type == 3 ? UInt32(u16(entries, p + 8)) : u32(entries, p + 8)
                    switch tag {
                    case 256: width = value
                    case 257: height = value
                    case 330 where type == 4 || type == 13:
                        if n == 1 { queue.append(value) } else if n <= 16, let list = read(UInt64(value), Int(n) * 4) {
                            for k in 0..<Int(n) { queue.append(u32(list, k * 4)) }
                        }
                    default: break
                    }
                }
                if let px = ImageSizeProbe.product(width, height) { best = max(best ?? 0, px) }
                queue.append(u32(entries, count * 12))
            }
            return best
        }

        private func read(_ offset: UInt64, _ count: Int) -> [UInt8]? {
            guard (try? handle.seek(toOffset: offset)) != nil, let d = try? handle.read(upToCount: count), d.count == count else { return nil }
            return [UInt8](d)
        }

        private func u16(_ b: [UInt8], _ i: Int) -> UInt16 {
            little ? UInt16(b[i]) | UInt16(b[i + 1]) << 8 : UInt16(b[i]) << 8 | UInt16(b[i + 1])
        }

        private func u32(_ b: [UInt8], _ i: Int) -> UInt32 {
            little ? UInt32Reader.little(b, i) : UInt32Reader.big(b, i)
        }
    }
}

/// 32-bit integers out of a byte array.
enum UInt32Reader {
    static func big(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
    }

    static func little(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 3]) << 24
    }
}
