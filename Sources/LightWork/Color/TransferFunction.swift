import CShims
import Foundation

/// A tone-response curve: how linear light is encoded into stored values.
public enum TransferFunction: Sendable, Hashable, Codable {
    case linear
    /// IEC 61966-2-1: linear toe below 0.0031308, then 1.055·x^(1/2.4) − 0.055.
    case sRGB
    /// A pure power law, encoded = linear^(1/gamma).
    case gamma(Double)

    /// Linear → encoded, exact (Double). Negative values mirror, so out-of-gamut colours survive a round trip.
    public func encode(_ x: Double) -> Double {
        if x < 0 { return -encode(-x) }
        switch self {
        case .linear: return x
        case .sRGB: return x <= 0.0031308 ? 12.92 * x : 1.055 * pow(x, 1 / 2.4) - 0.055
        case .gamma(let g): return pow(x, 1 / g)
        }
    }

    /// Encoded → linear, exact (Double); inverse of `encode`.
    public func decode(_ v: Double) -> Double {
        if v < 0 { return -decode(-v) }
        switch self {
        case .linear: return v
        case .sRGB: return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
        case .gamma(let g): return pow(v, g)
        }
    }
}

/// A curve tabulated on the bit pattern of a Float32 (256 steps per octave from 2^-24 to 2^4), linearly
/// interpolated: relative error below 3e-7 everywhere (a uniform 4096-entry table is off by hundreds of
/// 16-bit code values near black for a pure power curve), in a 28 KiB table that stays in the L1 cache.
/// Outside the table it calls the exact function.
public struct FastCurve: Sendable {
    private static let stepBits: UInt32 = 8
    private static let shift: UInt32 = 23 - stepBits
    private static let lowExponent: UInt32 = 127 - 24
    private static let highExponent: UInt32 = 127 + 4
    private static let base = lowExponent << stepBits
    /// Magnitudes (as bit patterns) the table covers: [2^-24, 2^4).
    private static let lowBits = lowExponent << 23
    private static let highBits = highExponent << 23
    private let table: [Float]
    private let exact: @Sendable (Double) -> Double

    /// Tabulates `f`, which must be odd-symmetric (f(−x) = −f(x)) as `TransferFunction` curves are.
    public init(_ f: @escaping @Sendable (Double) -> Double) {
        exact = f
        let count = Int((FastCurve.highExponent - FastCurve.lowExponent) << FastCurve.stepBits) + 1
        var t = [Float](repeating: 0, count: count)
        for i in 0..<count {
            let bits = (UInt32(i) + FastCurve.base) << FastCurve.shift
            t[i] = Float(f(Double(Float(bitPattern: bits))))
        }
        table = t
    }

    public static func encoder(_ tf: TransferFunction) -> FastCurve { FastCurve { tf.encode($0) } }
    public static func decoder(_ tf: TransferFunction) -> FastCurve { FastCurve { tf.decode($0) } }

    /// Values per block: a block without out-of-table values takes the branch-free path.
    private static let block = 256

    /// Evaluates the curve on `count` values in place.
    public func apply(_ values: UnsafeMutablePointer<Float>, count: Int) {
        table.withUnsafeBufferPointer { t in
            let tp = t.baseAddress!
            var start = 0
            while start < count {
                let n = min(FastCurve.block, count - start)
                let v = values + start
                if FastCurve.inTable(v, n) {
                    lw_curve_interpolate(v, n, tp, FastCurve.shift, FastCurve.base)
                } else {
                    for i in 0..<n { v[i] = evaluate(v[i], tp) }
                }
                start += n
            }
        }
    }

    /// True when every value is zero or has a magnitude inside the table (a vectorised scan).
    @inline(__always)
    private static func inTable(_ v: UnsafePointer<Float>, _ n: Int) -> Bool {
        var outside: UInt32 = 0
        for i in 0..<n {
            let bits = v[i].bitPattern & 0x7fff_ffff
            let beyond: UInt32 = bits &- lowBits >= highBits &- lowBits ? 1 : 0
            let nonZero: UInt32 = bits != 0 ? 1 : 0
            outside |= beyond & nonZero
        }
        return outside == 0
    }

    /// The curve at one value (table lookup; exact outside the table's range).
    public func callAsFunction(_ x: Float) -> Float {
        table.withUnsafeBufferPointer { evaluate(x, $0.baseAddress!) }
    }

    @inline(__always)
    private func evaluate(_ x: Float, _ t: UnsafePointer<Float>) -> Float {
        let a = abs(x)
        let bits = a.bitPattern
        if bits >= FastCurve.lowBits && bits < FastCurve.highBits {
            let i = Int((bits >> FastCurve.shift) - FastCurve.base)
            let frac = Float(bits & (1 << FastCurve.shift - 1)) * (1 / Float(1 << FastCurve.shift))
            let v = t[i] + (t[i + 1] - t[i]) * frac
            return x < 0 ? -v : v
        }
        if a == 0 { return x }
        if !a.isFinite { return x.isNaN ? 0 : x }
        return Float(exact(Double(x)))
    }
}
