import Foundation

/// A plane projective map, row-major 3 × 3 with h[8] = 1: chart coordinates (patch columns and rows) to image
/// pixels in `lightwork chart`, fitted by least squares to four or more point pairs.
public struct Homography: Sendable, Equatable {
    public var h: [Double]

    public init(_ h: [Double]) { precondition(h.count == 9); self.h = h }

    public func apply(_ p: SIMD2<Double>) -> SIMD2<Double> {
        let w = h[6] * p.x + h[7] * p.y + h[8]
        return SIMD2((h[0] * p.x + h[1] * p.y + h[2]) / w, (h[3] * p.x + h[4] * p.y + h[5]) / w)
    }

    /// The map back (adjugate; nil when singular).
    public var inverse: Homography? {
        let a = h
        let c0 = a[4] * a[8] - a[5] * a[7], c1 = a[5] * a[6] - a[3] * a[8], c2 = a[3] * a[7] - a[4] * a[6]
        let det = a[0] * c0 + a[1] * c1 + a[2] * c2
        guard abs(det) > 1e-300 else { return nil }
        let inv = [c0, a[2] * a[7] - a[1] * a[8], a[1] * a[5] - a[2] * a[4],
                   c1, a[0] * a[8] - a[2] * a[6], a[2] * a[3] - a[0] * a[5],
                   c2, a[1] * a[6] - a[0] * a[7], a[0] * a[4] - a[1] * a[3]].map { $0 / det }
        return Homography(inv.map { $0 / inv[8] })
    }

    /// This map followed by a uniform scale of the output (image pixels of a reduced copy to the full image).
    public func scaled(by s: Double) -> Homography {
        Homography([h[0] * s, h[1] * s, h[2] * s, h[3] * s, h[4] * s, h[5] * s, h[6], h[7], h[8]])
    }

    /// The least-squares map taking `from[i]` to `to[i]` (at least 4 pairs, no three of four collinear), solved on
    /// coordinates normalised to unit spread so pixel-sized numbers stay well conditioned; nil when degenerate.
    public static func fit(from: [SIMD2<Double>], to: [SIMD2<Double>]) -> Homography? {
        guard from.count == to.count, from.count >= 4 else { return nil }
        func normaliser(_ p: [SIMD2<Double>]) -> (SIMD2<Double>, Double) {
            let c = p.reduce(SIMD2<Double>(0, 0), +) / Double(p.count)
            let spread = p.map { (($0 - c) * ($0 - c)).sum().squareRoot() }.reduce(0, +) / Double(p.count)
            return (c, spread > 0 ? 1 / spread : 1)
        }
        let (fc, fs) = normaliser(from), (tc, ts) = normaliser(to)
        var ata = [Double](repeating: 0, count: 64), atb = [Double](repeating: 0, count: 8)
        for (p, q) in zip(from, to) {
            let u = (p - fc) * fs, x = (q - tc) * ts
            let rows: [([Double], Double)] = [([u.x, u.y, 1, 0, 0, 0, -u.x * x.x, -u.y * x.x], x.x),
                                              ([0, 0, 0, u.x, u.y, 1, -u.x * x.y, -u.y * x.y], x.y)]
            for (r, b) in rows {
                for i in 0..<8 {
                    atb[i] += r[i] * b
                    for j in 0..<8 { ata[i * 8 + j] += r[i] * r[j] }
                }
            }
        }
        guard let n = solve(ata, atb, 8) else { return nil }
        // H = T_to⁻¹ · N · T_from.
        let N = n + [1]
        let tFrom = [fs, 0, -fs * fc.x, 0, fs, -fs * fc.y, 0, 0, 1]
        let tToInv = [1 / ts, 0, tc.x, 0, 1 / ts, tc.y, 0, 0, 1]
        let m = multiply(tToInv, multiply(N, tFrom))
        guard abs(m[8]) > 1e-300 else { return nil }
        return Homography(m.map { $0 / m[8] })
    }

    static func multiply(_ a: [Double], _ b: [Double]) -> [Double] {
        var out = [Double](repeating: 0, count: 9)
        for row in 0..<3 {
            for col in 0..<3 {
                var s = 0.0
                for k in 0..<3 { s += a[row * 3 + k] * b[k * 3 + col] }
                out[row * 3 + col] = s
            }
        }
        return out
    }

    /// Gaussian elimination with partial pivoting on an n × n system; nil when singular.
    static func solve(_ a: [Double], _ b: [Double], _ n: Int) -> [Double]? {
        var m = a, v = b
        for col in 0..<n {
            let pivot = (col..<n).max { abs(m[$0 * n + col]) < abs(m[$1 * n + col]) }!
            guard abs(m[pivot * n + col]) > 1e-12 else { return nil }
            if pivot != col {
                for k in 0..<n { m.swapAt(col * n + k, pivot * n + k) }
                v.swapAt(col, pivot)
            }
            for row in (col + 1)..<n {
                let f = m[row * n + col] / m[col * n + col]
                guard f != 0 else { continue }
                for k in col..<n { m[row * n + k] -= f * m[col * n + k] }
                v[row] -= f * v[col]
            }
        }
        var x = [Double](repeating: 0, count: n)
        for row in stride(from: n - 1, through: 0, by: -1) {
            var s = v[row]
            for k in (row + 1)..<n { s -= m[row * n + k] * x[k] }
            x[row] = s / m[row * n + row]
        }
        return x
    }
}
