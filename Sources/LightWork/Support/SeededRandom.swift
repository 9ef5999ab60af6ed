/// SplitMix64: a tiny, fast, reproducible generator, so the same seed always gives byte-identical files
/// (generated samples, damaged copies) and the same schedules (tests' mutations and kill times).
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    /// A generator for one row (or any other sub-stream) that does not overlap its neighbours' sequences.
    public init(seed: UInt64, stream: UInt64) {
        var mixer = SeededRandom(seed: seed ^ (stream &* 0xD1B5_4A32_D192_ED03))
        state = mixer.next()
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    public mutating func unit() -> Double { Double(next() >> 11) * 0x1p-53 }

    /// Approximately standard normal: the sum of four 16-bit uniforms, rescaled (Irwin–Hall), one draw per call.
    @inline(__always)
    public mutating func gaussian() -> Float {
        let r = next()
        let s = Float(r & 0xFFFF) + Float((r >> 16) & 0xFFFF) + Float((r >> 32) & 0xFFFF) + Float(r >> 48)
        return (s * (1 / 65536) - 2) * 1.7320508
    }
}
