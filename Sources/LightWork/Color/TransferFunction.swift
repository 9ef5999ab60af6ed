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

/// A transfer curve in Float32, in the one form every `TransferFunction` takes: `toeSlope · a` for
/// magnitudes a ≤ `toeEnd`, else `outScale · u^p + outOffset` with `u = inScale · a + inOffset`.
///
/// u^p is split on the float's exponent and mantissa, u = 2^e · m: 2^(e·p) from a 32-entry table and m^p
/// from a degree-7 polynomial (Chebyshev nodes on [1, 2)), relative error below 3e-7. The vector path
/// (`lw_curve_apply`) keeps the table in registers (above a toe, the sixteen entries from the toe's exponent
/// up serve nearly every value); a table of the whole curve needs memory gathers, which are slow on AMD
/// cores and made the curves a quarter of the filter chain's time. Values beyond the
/// table (u outside [2^-24, 2^8)) use the exact function. Negative values mirror, so out-of-gamut colours
/// survive a round trip; NaN becomes 0 and ±∞ stays as it is.
public struct FastCurve: @unchecked Sendable {
    private let curve: lw_curve
    private let exact: @Sendable (Double) -> Double
    /// True for the linear curve: `apply` leaves values alone.
    public let isIdentity: Bool

    public static func encoder(_ tf: TransferFunction) -> FastCurve {
        let exact: @Sendable (Double) -> Double = { tf.encode($0) }
        switch tf {
        case .linear: return FastCurve(exponent: 1, toeEnd: 0, toeSlope: 1, identity: true, exact: exact)
        case .sRGB: return FastCurve(exponent: 1 / 2.4, outScale: 1.055, outOffset: -0.055, toeEnd: 0.0031308, toeSlope: 12.92, exact: exact)
        case .gamma(let g): return FastCurve(exponent: 1 / g, toeEnd: 0, toeSlope: 0, exact: exact)
        }
    }

    public static func decoder(_ tf: TransferFunction) -> FastCurve {
        let exact: @Sendable (Double) -> Double = { tf.decode($0) }
        switch tf {
        case .linear: return FastCurve(exponent: 1, toeEnd: 0, toeSlope: 1, identity: true, exact: exact)
        case .sRGB: return FastCurve(exponent: 2.4, inScale: 1 / 1.055, inOffset: 0.055 / 1.055, toeEnd: 0.04045, toeSlope: 1 / 12.92, exact: exact)
        case .gamma(let g): return FastCurve(exponent: g, toeEnd: 0, toeSlope: 0, exact: exact)
        }
    }

    private init(exponent p: Double, inScale: Double = 1, inOffset: Double = 0, outScale: Double = 1, outOffset: Double = 0,
                 toeEnd: Double, toeSlope: Double, identity: Bool = false, exact: @escaping @Sendable (Double) -> Double) {
        var c = lw_curve()
        // Degree 7 in t = m − 1.5 through m^p at the Chebyshev nodes of the mantissa's [1, 2].
        let poly = ChebyshevFit.coefficients(degree: 7, centre: 0, halfWidth: 0.5) { pow($0 + 1.5, p) }
        withUnsafeMutableBytes(of: &c.poly) { raw in
            for (k, v) in poly.enumerated() { raw.storeBytes(of: Float(v), toByteOffset: 4 * k, as: Float.self) }
        }
        withUnsafeMutableBytes(of: &c.scale) { raw in
            for k in 0..<32 { raw.storeBytes(of: Float(exp2(Double(k - 24) * p)), toByteOffset: 4 * k, as: Float.self) }
        }
        (c.in_scale, c.in_offset, c.out_scale, c.out_offset) = (Float(inScale), Float(inOffset), Float(outScale), Float(outOffset))
        (c.toe_end, c.toe_slope) = (Float(toeEnd), Float(toeSlope))
        curve = c
        self.exact = exact
        isIdentity = identity
    }

    /// Evaluates the curve on `count` values in place.
    public func apply(_ values: UnsafeMutablePointer<Float>, count: Int) {
        if isIdentity { return }
        withUnsafePointer(to: curve) { c in
            var start = 0
            while start < count {
                start += lw_curve_apply(c, values + start, count - start)
                // Stopped at a value beyond the table (or its group of eight): those one at a time.
                let end = min(start + 8, count)
                for i in start..<end { values[i] = evaluate(values[i], c) }
                start = end
            }
        }
    }

    /// The curve at every half float, indexed by its bits (the same bits as `apply`): a curve applied while
    /// loading half-float pixels costs one lookup a value.
    public func halfTable() -> [Float] {
        var halves = (0...UInt16.max).map { $0 }
        var table = [Float](repeating: 0, count: halves.count)
        lw_half_to_float(&halves, &table, table.count)
        apply(&table, count: table.count)
        return table
    }

    /// The curve at one value (the same bits as `apply`).
    public func callAsFunction(_ x: Float) -> Float {
        isIdentity ? x : withUnsafePointer(to: curve) { evaluate(x, $0) }
    }

    private func evaluate(_ x: Float, _ c: UnsafePointer<lw_curve>) -> Float {
        if lw_curve_in_range(c, x) != 0 { return lw_curve_one(c, x) }
        if x.isNaN { return 0 }
        if x.isInfinite { return x }
        return Float(exact(Double(x)))
    }
}
