import Foundation

/// Whether a file's structure is whole, read from a few bytes at its ends and the offsets its header
/// declares: a file still being uploaded ends early, and its declared pieces lie past its end. Plain
/// bounds-checked Swift (the watch parent never runs a decoder on what it is given):
///
/// - JPEG: ends with the EOI marker (FF D9), trailing zero or FF padding allowed;
/// - PNG: ends with the IEND chunk;
/// - TIFF-based RAW (DNG, NEF, CR2, ARW…): every IFD (chain, SubIFDs, EXIF) and every strip or tile lies
///   inside the file;
/// - CR3 and other ISO boxes: the top-level boxes end exactly at the end of the file;
/// - RAF: the JPEG, CFA header and CFA blocks its header points at lie inside the file.
///
/// Other formats cannot be judged and count as whole (only signature stability then protects them).
public enum FileCompleteness {
    public enum Verdict: Sendable, Equatable {
        case complete
        case incomplete(String)
        /// The format is not one this probe reads.
        case unknown

        /// Whether a watch may convert the file now.
        public var allowsConversion: Bool { if case .incomplete = self { return false }; return true }
    }

    public static func check(_ url: URL) -> Verdict {
        guard let reader = Reader(url) else { return .incomplete("cannot be opened") }
        guard reader.size > 0 else { return .incomplete("empty") }
        guard let head = reader.read(0, min(reader.size, 16)), head.count >= 4 else { return .incomplete("shorter than any image header") }
        if head[0] == 0xFF, head[1] == 0xD8 { return jpeg(reader) }
        if head.count >= 8, head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return png(reader) }
        if (head[0] == 0x49 && head[1] == 0x49 && head[2] == 42 && head[3] == 0) || (head[0] == 0x4D && head[1] == 0x4D && head[2] == 0 && head[3] == 42) {
            return TIFFWalk(reader: reader, little: head[0] == 0x49).verdict()
        }
        if head.count >= 8, head[4...7] == [0x66, 0x74, 0x79, 0x70] { return isoBoxes(reader) }     // "ftyp"
        if head.count >= 15, String(decoding: head.prefix(15), as: UTF8.self) == "FUJIFILMCCD-RAW" { return raf(reader) }
        return .unknown
    }

    private static func jpeg(_ r: Reader) -> Verdict {
        guard let tail = r.read(max(0, r.size - 4096), min(r.size, 4096)) else { return .incomplete("unreadable end") }
        var end = tail.count
        while end > 2, tail[end - 1] == 0x00 { end -= 1 }
        return end >= 2 && tail[end - 2] == 0xFF && tail[end - 1] == 0xD9 ? .complete : .incomplete("JPEG without its end marker")
    }

    private static func png(_ r: Reader) -> Verdict {
        let iend: [UInt8] = [0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82]
        guard r.size >= 12, let tail = r.read(r.size - 12, 12) else { return .incomplete("PNG shorter than its end chunk") }
        return tail == iend ? .complete : .incomplete("PNG without its IEND chunk")
    }

    private static func isoBoxes(_ r: Reader) -> Verdict {
        var offset = 0
        var boxes = 0
        while offset < r.size {
            guard boxes < 4096, let h = r.read(offset, 16) ?? r.read(offset, 8) else { return .incomplete("box header cut at \(offset)") }
            boxes += 1
            var size = Int(UInt32Reader.big(h, 0))
            if size == 1 {
                guard h.count == 16 else { return .incomplete("box header cut at \(offset)") }
                size = Int(UInt32Reader.big(h, 8)) << 32 | Int(UInt32Reader.big(h, 12))
            } else if size == 0 {
                return .complete     // the last box runs to the end of the file
            }
            guard size >= 8 else { return .unknown }
            let (end, overflow) = offset.addingReportingOverflow(size)
            guard !overflow, end <= r.size else { return .incomplete("a box ends past the end of the file") }
            offset = end
        }
        return .complete
    }

    private static func raf(_ r: Reader) -> Verdict {
        guard let h = r.read(84, 24) else { return .incomplete("RAF header cut") }
        for k in 0..<3 {
            let start = Int(UInt32Reader.big(h, k * 8)), length = Int(UInt32Reader.big(h, k * 8 + 4))
            if start + length > r.size { return .incomplete("a RAF block ends past the end of the file") }
        }
        return .complete
    }

    /// Reads byte ranges of a file through pread (no whole-file read: RAWs are tens of megabytes).
    final class Reader {
        let fd: Int32
        let size: Int

        init?(_ url: URL) {
            fd = open(url.path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return nil }
            var st = stat()
            guard fstat(fd, &st) == 0 else { close(fd); return nil }
            size = Int(st.st_size)
        }

        deinit { close(fd) }

        /// Exactly `count` bytes at `offset`, nil when the file is shorter.
        func read(_ offset: Int, _ count: Int) -> [UInt8]? {
            guard offset >= 0, count >= 0, offset + count <= size else { return nil }
            var out = [UInt8](repeating: 0, count: count)
            var done = 0
            while done < count {
                let n = out.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, count - done, off_t(offset + done)) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return nil }
                done += n
            }
            return out
        }
    }

    /// Every IFD the file declares (IFD0 chain, SubIFDs, EXIF IFD), and the strips and tiles they point at.
    private struct TIFFWalk {
        let reader: Reader
        let little: Bool

        func verdict() -> Verdict {
            guard let header = reader.read(4, 4) else { return .incomplete("TIFF header cut") }
            var queue = [Int(u32(header, 0))]
            var visited = Set<Int>()
            while let offset = queue.popLast() {
                guard visited.count < 64 else { break }
                guard offset != 0, visited.insert(offset).inserted else { continue }
                guard let countBytes = reader.read(offset, 2) else { return .incomplete("an IFD lies past the end of the file") }
                let count = Int(u16(countBytes, 0))
                guard count > 0, count <= 4096 else { return .unknown }
                guard let entries = reader.read(offset + 2, count * 12 + 4) else { return .incomplete("an IFD is cut by the end of the file") }
                var offsets: [Int] = [], lengths: [Int] = []
                for e in 0..<count {
                    let p = e * 12
                    let tag = u16(entries, p), type = u16(entries, p + 2), n = Int(u32(entries, p + 4))
                    guard let width = TIFFWalk.typeSize[type] else { continue }
                    let bytes = width * n
                    let inline = bytes <= 4
                    let valueOffset = Int(u32(entries, p + 8))
                    if !inline && valueOffset + bytes > reader.size { return .incomplete("tag \(tag)'s data lies past the end of the file") }
                    switch tag {
                    case 273, 324: offsets = values(entries, p, type: type, count: n, inline: inline, at: valueOffset)
                    case 279, 325: lengths = values(entries, p, type: type, count: n, inline: inline, at: valueOffset)
                    case 330, 34665: queue += values(entries, p, type: type, count: min(n, 64), inline: inline, at: valueOffset)
                    default: break
                    }
                }
                for (start, length) in zip(offsets, lengths) where start + length > reader.size {
                    return .incomplete("image data lies past the end of the file")
                }
                queue.append(Int(u32(entries, count * 12)))
            }
            return .complete
        }

        static let typeSize: [UInt16: Int] = [1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8, 13: 4]

        /// The SHORT or LONG values of one entry (inline or at `at`), at most 1 << 20 of them.
        private func values(_ entries: [UInt8], _ p: Int, type: UInt16, count: Int, inline: Bool, at: Int) -> [Int] {
            guard type == 3 || type == 4 || type == 13, count > 0, count <= 1 << 20 else { return [] }
            let width = type == 3 ? 2 : 4
            let bytes: [UInt8]
            if inline { bytes = Array(entries[(p + 8)..<(p + 12)]) } else {
                guard let b = reader.read(at, count * width) else { return [] }
                bytes = b
            }
            return (0..<count).map { width == 2 ? Int(u16(bytes, $0 * 2)) : Int(u32(bytes, $0 * 4)) }
        }

        private func u16(_ b: [UInt8], _ i: Int) -> UInt16 {
            little ? UInt16(b[i]) | UInt16(b[i + 1]) << 8 : UInt16(b[i]) << 8 | UInt16(b[i + 1])
        }

        private func u32(_ b: [UInt8], _ i: Int) -> UInt32 {
            little ? UInt32Reader.little(b, i) : UInt32Reader.big(b, i)
        }
    }
}
