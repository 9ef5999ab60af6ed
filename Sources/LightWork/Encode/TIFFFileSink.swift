import CShims
import CTIFF
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// libtiff client I/O on a descriptor it does not own, remembering the first failing errno so that a
/// full disk is reported as such (libtiff itself only says "write error").
///
/// With `directIO` the bytes go to the file past the page cache (`lw_direct_writer`): a 16-bit TIFF is written
/// once and not read again, so copying it into fresh page-cache pages and writing those back at the fsync is
/// pure cost (docs/performance.md). `finish()` then writes out the last window and must run before the file is
/// synced; `wroteDirect` tells the caller to read it back the same way, or `hashed` gives its hash without reading.
final class TIFFFileSink {
    let fd: Int32
    private(set) var errorCode: Int32 = 0
    /// Bytes written since the kernel was last asked to start writeback (page-cache writes only).
    private var unsynced = 0
    /// How much to write before asking for writeback: large enough that the disk sees big requests.
    static let writebackBytes = 16 << 20
    /// The window a direct writer fills before each O_DIRECT write.
    static let directWindowBytes = 8 << 20
    /// libtiff's position in the file (every transfer is a pread or pwrite at it).
    private var position: Int64 = 0
    private let direct: OpaquePointer?

    init(fd: Int32, directIO: Bool = false) {
        self.fd = fd
        direct = directIO ? lw_direct_writer_new(fd, Self.directWindowBytes) : nil
    }

    deinit { lw_direct_writer_free(direct) }

    /// Whether some bytes went to the file with O_DIRECT (and so are not in the page cache).
    var wroteDirect: Bool { direct.map { lw_direct_writer_wrote_direct($0) != 0 } ?? false }

    /// Promises the bytes that will be written at `offset` later (the direct writer's hash takes them now).
    func expect(_ bytes: [UInt8], at offset: Int) {
        guard let direct else { return }
        bytes.withUnsafeBytes { lw_direct_writer_expect(direct, Int64(offset), $0.baseAddress, $0.count) }
    }

    /// After `finish()`: the file's size and SHA-256 as the direct writer hashed it, when it saw every byte in order.
    var hashed: AtomicFile.Written? {
        guard let direct else { return nil }
        var bytes = [UInt8](repeating: 0, count: 32)
        var length: Int64 = 0
        guard lw_direct_writer_digest(direct, &bytes, &length) == 1 else { return nil }
        return AtomicFile.Written(size: Int(length), sha256: SHA256.hex(digest: bytes))
    }

    /// Writes out what the direct writer still holds; false (with `errorCode`) on failure. A no-op otherwise.
    func finish() -> Bool {
        guard let direct else { return true }
        let code = lw_direct_writer_finish(direct)
        if code != 0, errorCode == 0 { errorCode = code }
        return code == 0
    }

    /// Opens a libtiff handle writing through this sink ("w" classic TIFF, "w8" BigTIFF). The sink
    /// must outlive the handle.
    func open(name: String, mode: String) -> OpaquePointer? {
        let handle = Unmanaged.passUnretained(self).toOpaque()
        return TIFFClientOpen(name, mode, handle, Self.read, Self.write, Self.seek, Self.close, Self.size, Self.map, Self.unmap)
    }

    /// The current end of the file (where libtiff appends its next strip or directory); nil on failure.
    func endOffset() -> Int? {
        if let direct { return Int(lw_direct_writer_size(direct)) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { if errorCode == 0 { errorCode = errno }; return nil }
        return Int(st.st_size)
    }

    /// Writes `bytes` at `offset` (used before libtiff appends anything after it); false on failure.
    func write(_ bytes: [UInt8], at offset: Int) -> Bool {
        bytes.withUnsafeBytes { put($0, at: Int64(offset)) }
    }

    /// Every byte at `offset`, through the direct writer when there is one; false (with `errorCode`) on failure.
    private func put(_ raw: UnsafeRawBufferPointer, at offset: Int64) -> Bool {
        guard let base = raw.baseAddress, raw.count > 0 else { return true }
        let code: Int32
        if let direct {
            code = lw_direct_writer_pwrite(direct, base, raw.count, offset)
        } else {
            code = FullWrite.pwrite(fd, raw, at: offset)
            if code == 0 {
                unsynced += raw.count
                if unsynced >= TIFFFileSink.writebackBytes {
                    // Start the disk on what is written so far, so the fsync at the end waits for less.
                    _ = lw_start_writeback(fd)
                    unsynced = 0
                }
            }
        }
        if code != 0, errorCode == 0 { errorCode = code }
        return code == 0
    }

    private static func sink(_ h: thandle_t?) -> TIFFFileSink { Unmanaged<TIFFFileSink>.fromOpaque(h!).takeUnretainedValue() }

    private static let read: TIFFReadWriteProc = { h, buf, n in
        let s = sink(h)
        guard let buf else { return 0 }
        var r: Int
        repeat {
            r = s.direct.map { lw_direct_writer_pread($0, buf, Int(n), s.position) } ?? pread(s.fd, buf, Int(n), off_t(s.position))
        } while r < 0 && errno == EINTR
        if r < 0 {
            if s.errorCode == 0 { s.errorCode = errno }
            return -1
        }
        s.position += Int64(r)
        return tmsize_t(r)
    }

    private static let write: TIFFReadWriteProc = { h, buf, n in
        let s = sink(h)
        guard let p = UnsafeRawPointer(buf) else { return 0 }
        guard s.put(UnsafeRawBufferPointer(start: p, count: Int(n)), at: s.position) else { return -1 }
        s.position += Int64(n)
        return n
    }

    private static let seek: TIFFSeekProc = { h, off, whence in
        let s = sink(h)
        let offset = Int64(bitPattern: off)
        let base: Int64
        switch whence {
        case SEEK_SET: base = 0
        case SEEK_CUR: base = s.position
        case SEEK_END:
            guard let end = s.endOffset() else { return toff_t(bitPattern: -1) }
            base = Int64(end)
        default:
            if s.errorCode == 0 { s.errorCode = EINVAL }
            return toff_t(bitPattern: -1)
        }
        guard base + offset >= 0 else {
            if s.errorCode == 0 { s.errorCode = EINVAL }
            return toff_t(bitPattern: -1)
        }
        s.position = base + offset
        return toff_t(bitPattern: s.position)
    }

    private static let close: TIFFCloseProc = { _ in 0 }   // AtomicFile closes the descriptor

    private static let size: TIFFSizeProc = { h in
        toff_t(sink(h).endOffset() ?? 0)
    }

    private static let map: TIFFMapFileProc = { _, _, _ in 0 }
    private static let unmap: TIFFUnmapFileProc = { _, _, _ in }
}
