import CShims
import CTIFF
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// libtiff client I/O on a descriptor it does not own, remembering the first failing errno so that a
/// full disk is reported as such (libtiff itself only says "write error").
final class TIFFFileSink {
    let fd: Int32
    private(set) var errorCode: Int32 = 0
    /// Bytes written since the kernel was last asked to start writeback.
    private var unsynced = 0
    /// How much to write before asking for writeback: large enough that the disk sees big requests.
    static let writebackBytes = 16 << 20

    init(fd: Int32) { self.fd = fd }

    /// Opens a libtiff handle writing through this sink ("w" classic TIFF, "w8" BigTIFF). The sink
    /// must outlive the handle.
    func open(name: String, mode: String) -> OpaquePointer? {
        let handle = Unmanaged.passUnretained(self).toOpaque()
        return TIFFClientOpen(name, mode, handle, Self.read, Self.write, Self.seek, Self.close, Self.size, Self.map, Self.unmap)
    }

    /// The current end of the file (where libtiff appends its next strip or directory); nil on failure.
    func endOffset() -> Int? {
        let r = lseek(fd, 0, SEEK_END)
        if r < 0 { if errorCode == 0 { errorCode = errno }; return nil }
        return Int(r)
    }

    /// Writes `bytes` at `offset` (used before libtiff appends anything after it); false on failure.
    func write(_ bytes: [UInt8], at offset: Int) -> Bool {
        bytes.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count {
                let r = pwrite(fd, raw.baseAddress! + done, raw.count - done, off_t(offset + done))
                if r < 0 {
                    if errno == EINTR { continue }
                    if errorCode == 0 { errorCode = errno }
                    return false
                }
                done += r
            }
            return true
        }
    }

    private static func sink(_ h: thandle_t?) -> TIFFFileSink { Unmanaged<TIFFFileSink>.fromOpaque(h!).takeUnretainedValue() }

    private static let read: TIFFReadWriteProc = { h, buf, n in
        let s = sink(h)
        let r = Glibc.read(s.fd, buf, Int(n))
        if r < 0, s.errorCode == 0 { s.errorCode = errno }
        return tmsize_t(r)
    }

    private static let write: TIFFReadWriteProc = { h, buf, n in
        let s = sink(h)
        guard let p = UnsafeRawPointer(buf) else { return 0 }
        let code = FullWrite.write(s.fd, UnsafeRawBufferPointer(start: p, count: Int(n)))
        if code != 0 {
            if s.errorCode == 0 { s.errorCode = code }
            return -1
        }
        s.unsynced += Int(n)
        if s.unsynced >= TIFFFileSink.writebackBytes {
            // Start the disk on what is written so far, so the fsync at the end waits for less.
            _ = lw_start_writeback(s.fd)
            s.unsynced = 0
        }
        return n
    }

    private static let seek: TIFFSeekProc = { h, off, whence in
        let s = sink(h)
        let r = lseek(s.fd, off_t(Int64(bitPattern: off)), whence)
        if r < 0, s.errorCode == 0 { s.errorCode = errno }
        return toff_t(bitPattern: Int64(r))
    }

    private static let close: TIFFCloseProc = { _ in 0 }   // AtomicFile closes the descriptor

    private static let size: TIFFSizeProc = { h in
        var st = stat()
        guard fstat(sink(h).fd, &st) == 0 else { return 0 }
        return toff_t(st.st_size)
    }

    private static let map: TIFFMapFileProc = { _, _, _ in 0 }
    private static let unmap: TIFFUnmapFileProc = { _, _, _ in }
}
