import CShims
import Foundation

/// SHA-256 (FIPS 180-4). Foundation on Linux has no digest API and outside packages are not allowed;
/// inputs and outputs are hashed for the manifest and for resumable runs.
public struct SHA256: Sendable {
    /// The C context (`lw_sha256.h`), whose blocks go through SHA-NI when the CPU has it (cpu.c decides).
    private var context = lw_sha256_ctx()

    public init() { lw_sha256_init(&context) }

    public mutating func update(_ data: Data) {
        data.withUnsafeBytes { update(UnsafeRawBufferPointer($0)) }
    }

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        lw_sha256_update(&context, base, bytes.count)
    }

    /// The digest as lowercase hex.
    public mutating func finalizeHex() -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        lw_sha256_final(&context, &digest)
        return SHA256.hex(digest: digest)
    }

    /// 32 digest bytes as lowercase hex.
    static func hex(digest: [UInt8]) -> String {
        digest.map { String(format: "%02x", $0) }.joined()
    }

    /// Hex digest of a whole buffer.
    public static func hex(_ data: Data) -> String {
        var s = SHA256()
        s.update(data)
        return s.finalizeHex()
    }

    /// Hex digest of a file, read in 1 MiB chunks.
    public static func hex(fileAt url: URL) throws -> String {
        let fd = open(url.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: url.path]) }
        defer { close(fd) }
        return try hex(fileDescriptor: fd).hex
    }

    /// Hex digest and size of everything in an open file, read with `pread` in 1 MiB chunks (the descriptor's
    /// position is left alone, so another thread may use it meanwhile). With `direct` the file is read past the page
    /// cache (O_DIRECT, the next chunk read while this one is hashed), as a file written that way should be;
    /// where the file system refuses, through the cache.
    public static func hex(fileDescriptor fd: Int32, direct: Bool = false) throws -> (hex: String, size: Int) {
        if direct, let digest = try directHex(fileDescriptor: fd) { return digest }
        var s = SHA256()
        let chunk = 1 << 20
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: chunk, alignment: 64)
        defer { buffer.deallocate() }
        var offset = 0
        while true {
            let n = pread(fd, buffer, chunk, off_t(offset))
            if n < 0 {
                if errno == EINTR { continue }
                throw LightWorkError.writeFailed("cannot read back what was written: \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            s.update(UnsafeRawBufferPointer(start: buffer, count: n))
            offset += n
        }
        return (s.finalizeHex(), offset)
    }

    /// `hex(fileDescriptor:)` through O_DIRECT reads of 8 MiB, two buffers in turn; nil when the descriptor
    /// cannot read that way (then nothing was hashed). The descriptor is left without O_DIRECT.
    private static func directHex(fileDescriptor fd: Int32) throws -> (hex: String, size: Int)? {
        var st = stat()
        guard fstat(fd, &st) == 0, lw_set_direct_io(fd, 1) == 0 else { return nil }
        defer { _ = lw_set_direct_io(fd, 0) }
        let size = Int(st.st_size), chunk = 8 << 20
        let buffers = (0..<2).map { _ in UncheckedSendable(UnsafeMutableRawPointer.allocate(byteCount: chunk, alignment: Int(LW_DIRECT_ALIGN))) }
        defer { buffers.forEach { $0.value.deallocate() } }
        /// One chunk at `offset` into buffer `k`: the bytes read, or -errno.
        @Sendable func load(_ k: Int, _ offset: Int) -> Int {
            var done = 0
            let want = min(chunk, size - offset)
            while done < want {
                let r = pread(fd, buffers[k].value + done, chunk - done, off_t(offset + done))
                if r < 0 {
                    if errno == EINTR { continue }
                    return -Int(errno)
                }
                if r == 0 { break }
                done += r
            }
            return done
        }
        var s = SHA256()
        var offset = 0, k = 0
        var got = size > 0 ? load(0, 0) : 0
        if got == -Int(EINVAL) { return nil }
        while offset < size {
            guard got > 0 else {
                let reason = got < 0 ? String(cString: strerror(Int32(-got))) : "the file is shorter than its size"
                throw LightWorkError.writeFailed("cannot read back what was written: \(reason)")
            }
            let next = offset + got
            let ahead = LockedBox(0), done = DispatchSemaphore(value: 0)
            if next < size {
                let slot = 1 - k
                DispatchQueue.global().async { ahead.withLock { $0 = load(slot, next) }; done.signal() }
            }
            s.update(UnsafeRawBufferPointer(start: buffers[k].value, count: got))
            if next < size { done.wait() }
            offset = next
            got = ahead.withLock { $0 }
            k = 1 - k
        }
        return (s.finalizeHex(), offset)
    }
}
