import CShims
import Foundation

/// SHA-256 (FIPS 180-4). Foundation on Linux has no digest API and outside packages are not allowed;
/// inputs and outputs are hashed for the manifest and for resumable runs.
public struct SHA256: Sendable {
    private var h: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) =
        (0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19)
    private var buffer = [UInt8]()
    private var length: UInt64 = 0
    /// Whole blocks go through the CPU's SHA instructions when it has them (tests turn this off to check
    /// the portable path against them).
    nonisolated(unsafe) static var useHardware = lw_sha256_hardware() == 1

    private static let k: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]

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
                buffer.withUnsafeBytes { block in
                    if SHA256.useHardware {
                        withUnsafeMutableBytes(of: &h) { lw_sha256_blocks($0.baseAddress!.assumingMemoryBound(to: UInt32.self), block.baseAddress!.assumingMemoryBound(to: UInt8.self), 1) }
                    } else {
                        compressOne(block.baseAddress!)
                    }
                }
                buffer.removeAll(keepingCapacity: true)
            }
        }
        if i + 64 <= bytes.count, SHA256.useHardware {
            let blocks = (bytes.count - i) / 64
            withUnsafeMutableBytes(of: &h) { state in
                lw_sha256_blocks(state.baseAddress!.assumingMemoryBound(to: UInt32.self),
                                 bytes.baseAddress!.assumingMemoryBound(to: UInt8.self) + i, blocks)
            }
            i += blocks * 64
        }
        if i + 64 <= bytes.count {
            // One schedule buffer and the constants' address for the whole run of blocks (no per-block allocation).
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
                SHA256.k.withUnsafeBufferPointer { k in
                    while i + 64 <= bytes.count {
                        compress(bytes.baseAddress! + i, k.baseAddress!, w.baseAddress!)
                        i += 64
                    }
                }
            }
        }
        if i < bytes.count { buffer.append(contentsOf: bytes[i...]) }
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
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var s = SHA256()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { s.update(chunk) }
        return s.finalizeHex()
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

    @inline(__always) private static func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x &>> n) | (x &<< (32 &- n)) }

    private mutating func compressOne(_ p: UnsafeRawPointer) {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
            SHA256.k.withUnsafeBufferPointer { k in compress(p, k.baseAddress!, w.baseAddress!) }
        }
    }

    /// One 64-byte block; `w` is scratch for the 64-word message schedule.
    private mutating func compress(_ p: UnsafeRawPointer, _ k: UnsafePointer<UInt32>, _ w: UnsafeMutablePointer<UInt32>) {
        for t in 0..<16 { w[t] = p.loadUnaligned(fromByteOffset: 4 * t, as: UInt32.self).bigEndian }
        for t in 16..<64 {
            let s0 = SHA256.rotr(w[t - 15], 7) ^ SHA256.rotr(w[t - 15], 18) ^ (w[t - 15] >> 3)
            let s1 = SHA256.rotr(w[t - 2], 17) ^ SHA256.rotr(w[t - 2], 19) ^ (w[t - 2] >> 10)
            w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
        }
        var (a, b, c, d, e, f, g, hh) = h
        for t in 0..<64 {
            let s1 = SHA256.rotr(e, 6) ^ SHA256.rotr(e, 11) ^ SHA256.rotr(e, 25)
            let ch = (e & f) ^ (~e & g)
            let t1 = hh &+ s1 &+ ch &+ k[t] &+ w[t]
            let s0 = SHA256.rotr(a, 2) ^ SHA256.rotr(a, 13) ^ SHA256.rotr(a, 22)
            let maj = (a & b) ^ (a & c) ^ (b & c)
            let t2 = s0 &+ maj
            hh = g; g = f; f = e; e = d &+ t1; d = c; c = b; b = a; a = t1 &+ t2
        }
        h = (h.0 &+ a, h.1 &+ b, h.2 &+ c, h.3 &+ d, h.4 &+ e, h.5 &+ f, h.6 &+ g, h.7 &+ hh)
    }
}
