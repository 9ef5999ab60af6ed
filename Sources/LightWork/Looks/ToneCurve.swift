import Foundation

/// A tone curve through control points (input, output) in 0…1, interpolated with monotone cubic Hermite
/// splines (Fritsch–Carlson) so it never overshoots between points; straight beyond the end points.
public struct ToneCurve: Sendable, Hashable {
    /// Control points, inputs strictly increasing.
    public let points: [SIMD2<Double>]
    private let slopes: [Double]

    public static let identity = ToneCurve([(0, 0), (1, 1)])

    public init(_ points: [(Double, Double)]) {
        precondition(points.count >= 2, "a tone curve needs two points")
        let p = points.map { SIMD2($0.0, $0.1) }
        for i in 1..<p.count { precondition(p[i].x > p[i - 1].x, "tone curve inputs must increase") }
        self.points = p
        // Secant slopes, then tangents limited so each segment stays monotone.
        let n = p.count
        var secant = [Double](repeating: 0, count: n - 1)
        for i in 0..<(n - 1) { secant[i] = (p[i + 1].y - p[i].y) / (p[i + 1].x - p[i].x) }
        var m = [Double](repeating: 0, count: n)
        m[0] = secant[0]
        m[n - 1] = secant[n - 2]
        for i in 1..<(n - 1) { m[i] = secant[i - 1] * secant[i] <= 0 ? 0 : (secant[i - 1] + secant[i]) / 2 }
        for i in 0..<(n - 1) where secant[i] == 0 {
            m[i] = 0; m[i + 1] = 0
        }
        for i in 0..<(n - 1) where secant[i] != 0 {
            let a = m[i] / secant[i], b = m[i + 1] / secant[i]
            let s = a * a + b * b
            if s > 9 {
                let t = 3 / s.squareRoot()
                m[i] = t * a * secant[i]
                m[i + 1] = t * b * secant[i]
            }
        }
        slopes = m
    }

    public func callAsFunction(_ x: Double) -> Double {
        let p = points
        if x <= p[0].x { return p[0].y + slopes[0] * (x - p[0].x) }
        if x >= p[p.count - 1].x { return p[p.count - 1].y + slopes[p.count - 1] * (x - p[p.count - 1].x) }
        var i = 0
        while x > p[i + 1].x { i += 1 }
        let h = p[i + 1].x - p[i].x
        let t = (x - p[i].x) / h
        let t2 = t * t, t3 = t2 * t
        return (2 * t3 - 3 * t2 + 1) * p[i].y + (t3 - 2 * t2 + t) * h * slopes[i]
            + (-2 * t3 + 3 * t2) * p[i + 1].y + (t3 - t2) * h * slopes[i + 1]
    }
}
