/// Integer hashing for deterministic, partition-free randomness: a value depends only on the render
/// seed, a per-filter salt and absolute coordinates, never on thread order or band boundaries.
enum LatticeHash {
    /// Folds the 64-bit render seed and a filter's salt into a 32-bit key.
    @inline(__always)
    static func key(seed: UInt64, salt: UInt32) -> UInt32 {
        mix(UInt32(truncatingIfNeeded: seed) ^ mix(UInt32(truncatingIfNeeded: seed >> 32) ^ salt))
    }

    /// A well-distributed 32-bit hash (the "lowbias32" finaliser).
    @inline(__always)
    static func mix(_ v: UInt32) -> UInt32 {
        var h = v
        h ^= h >> 16
        h &*= 0x7feb_352d
        h ^= h >> 15
        h &*= 0x846c_a68b
        h ^= h >> 16
        return h
    }

    /// Hash of a 2D integer lattice point under `key`.
    @inline(__always)
    static func hash(_ x: Int, _ y: Int, _ key: UInt32) -> UInt32 {
        mix(key ^ UInt32(truncatingIfNeeded: x) &* 0x8da6_b343 ^ UInt32(truncatingIfNeeded: y) &* 0xd816_3841)
    }

    /// Uniform in [0, 1) from a hash.
    @inline(__always)
    static func unit(_ h: UInt32) -> Float { Float(h >> 8) * (1.0 / 16_777_216.0) }

    /// Uniform in [−1, 1) from a hash.
    @inline(__always)
    static func signed(_ h: UInt32) -> Float { Float(h >> 8) * (2.0 / 16_777_216.0) - 1 }
}
