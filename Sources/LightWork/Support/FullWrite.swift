import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Writes a whole buffer to a descriptor: short writes are continued and EINTR retried, the one loop every
/// writer (outputs, TIFF strips, worker pipes, the watch journal) needs.
enum FullWrite {
    /// 0 when every byte was written, else the errno of the failing write.
    static func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32 {
        guard var p = bytes.baseAddress else { return 0 }
        var left = bytes.count
        while left > 0 {
            let n = Glibc.write(fd, p, left)
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            p += n
            left -= n
        }
        return 0
    }

    /// The same at a file offset (pwrite), leaving the descriptor's position alone.
    static func pwrite(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int64) -> Int32 {
        guard var p = bytes.baseAddress else { return 0 }
        var left = bytes.count, at = offset
        while left > 0 {
            let n = Glibc.pwrite(fd, p, left, off_t(at))
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            p += n
            left -= n
            at += Int64(n)
        }
        return 0
    }
}
