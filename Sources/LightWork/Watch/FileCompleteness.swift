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
            guard let extents = TIFFImageExtents.read(size: reader.size, bytes: reader.read) else { return .unknown }
            return extents.dataEnd <= reader.size ? .complete
                : .incomplete("its TIFF structure reaches byte \(extents.dataEnd), past the end of the file (\(reader.size) bytes)")
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
}
