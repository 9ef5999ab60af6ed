import CShims
import Foundation

/// SHA-256 (FIPS 180-4). Foundation on Linux has no digest API and outside packages are not allowed;
/// inputs and outputs are hashed for the manifest and for resumable runs.
public struct SHA256: Sendable {
    private var h: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) =
        (0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19)
    private var buffer = [UInt8]()
    private var length: UInt64 = 0

    public init() {}

    public mutating func update(_ data: Data) {
        data.withUnsafeBytes { update(UnsafeRawBufferPointer($0)) }
    }

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        length += UInt64(bytes.count)
        var i = 0
        if !buffer.isEmpty {
            let take = min(64 - buffer.count, bytes.count)
            buffer.append(contentsOf: bytes[0..<take])
            i = take
            if buffer.count == 64 {
                buffer.withUnsafeBytes { compress($0.baseAddress!, blocks: 1) }
                buffer.removeAll(keepingCapacity: true)
            }
        }
        if i + 64 <= bytes.count {
            let blocks = (bytes.count - i) / 64
            compress(bytes.baseAddress! + i, blocks: blocks)
            i += blocks * 64
        }
        if i < bytes.count { buffer.append(contentsOf: bytes[i...]) }
    }

    /// Whole 64-byte blocks, through SHA-NI when the CPU has it (cpu.c decides, as for every kernel).
    private mutating func compress(_ p: UnsafeRawPointer, blocks: Int) {
        withUnsafeMutableBytes(of: &h) { state in
            lw_sha256_blocks(state.baseAddress!.assumingMemoryBound(to: UInt32.self), p.assumingMemoryBound(to: UInt8.self), blocks)
        }
    }

    /// The digest as lowercase hex.
    public mutating func finalizeHex() -> String {
        let bitLength = length &* 8
        var pad: [UInt8] = [0x80]
        let rem = (buffer.count + 1) % 64
        pad += [UInt8](repeating: 0, count: rem <= 56 ? 56 - rem : 120 - rem)
        for s in stride(from: 56, through: 0, by: -8) { pad.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(s))) }
        pad.withUnsafeBytes { update($0) }
        let words = [h.0, h.1, h.2, h.3, h.4, h.5, h.6, h.7]
        return words.map { String(format: "%08x", $0) }.joined()
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
    /// position is left alone, so another thread may use it meanwhile).
    public static func hex(fileDescriptor fd: Int32) throws -> (hex: String, size: Int) {
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
}
