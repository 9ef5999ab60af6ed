import Foundation

/// A 3×3 matrix in row-major order, in Double: colour matrices are built once and applied as Float.
public struct Matrix3: Sendable, Equatable, Codable {
    public var m: [Double]   // 9 values, row-major

    public init(_ rows: [[Double]]) { m = rows.flatMap { $0 } }
    public init(flat: [Double]) { precondition(flat.count == 9); m = flat }

    public static let identity = Matrix3([[1, 0, 0], [0, 1, 0], [0, 0, 1]])

    public subscript(r: Int, c: Int) -> Double { m[3 * r + c] }

    public static func * (a: Matrix3, b: Matrix3) -> Matrix3 {
        var out = [Double](repeating: 0, count: 9)
        for r in 0..<3 { for c in 0..<3 { out[3 * r + c] = (0..<3).reduce(0) { $0 + a[r, $1] * b[$1, c] } } }
        return Matrix3(flat: out)
    }

    public static func * (a: Matrix3, v: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3(a[0, 0] * v.x + a[0, 1] * v.y + a[0, 2] * v.z,
              a[1, 0] * v.x + a[1, 1] * v.y + a[1, 2] * v.z,
              a[2, 0] * v.x + a[2, 1] * v.y + a[2, 2] * v.z)
    }

    public var determinant: Double {
        self[0, 0] * (self[1, 1] * self[2, 2] - self[1, 2] * self[2, 1])
            - self[0, 1] * (self[1, 0] * self[2, 2] - self[1, 2] * self[2, 0])
            + self[0, 2] * (self[1, 0] * self[2, 1] - self[1, 1] * self[2, 0])
    }

    /// The inverse; colour matrices here are always invertible (primaries are linearly independent).
    public var inverse: Matrix3 {
        let d = determinant
        let a = self
        return Matrix3([
            [(a[1, 1] * a[2, 2] - a[1, 2] * a[2, 1]) / d, (a[0, 2] * a[2, 1] - a[0, 1] * a[2, 2]) / d, (a[0, 1] * a[1, 2] - a[0, 2] * a[1, 1]) / d],
            [(a[1, 2] * a[2, 0] - a[1, 0] * a[2, 2]) / d, (a[0, 0] * a[2, 2] - a[0, 2] * a[2, 0]) / d, (a[0, 2] * a[1, 0] - a[0, 0] * a[1, 2]) / d],
            [(a[1, 0] * a[2, 1] - a[1, 1] * a[2, 0]) / d, (a[0, 1] * a[2, 0] - a[0, 0] * a[2, 1]) / d, (a[0, 0] * a[1, 1] - a[0, 1] * a[1, 0]) / d],
        ])
    }

    public static func diagonal(_ v: SIMD3<Double>) -> Matrix3 { Matrix3([[v.x, 0, 0], [0, v.y, 0], [0, 0, v.z]]) }

    /// The nine values as Float, row-major, for pixel loops.
    public var floats: [Float] { m.map(Float.init) }
}

/// CIE colour maths used by the colour path, the Samples generator and the accuracy tests.
public enum CIE {
    /// ICC D50 (the connection-space white, as LittleCMS's `cmsD50_XYZ`).
    public static let d50 = SIMD3<Double>(0.9642, 1.0, 0.8249)
    /// D65 from its chromaticity (0.3127, 0.3290), as LittleCMS computes it from `cmsxyY`.
    public static let d65 = xyToXYZ(x: 0.3127, y: 0.3290)
    /// CIE illuminant A (tungsten, 2856 K), chromaticity (0.44757, 0.40745).
    public static let illuminantA = xyToXYZ(x: 0.44757, y: 0.40745)

    public static func xyToXYZ(x: Double, y: Double, Y: Double = 1) -> SIMD3<Double> {
        SIMD3(x * Y / y, Y, (1 - x - y) * Y / y)
    }

    /// Bradford cone-response matrix (as in LittleCMS and the DNG specification).
    public static let bradford = Matrix3([[0.8951, 0.2664, -0.1614], [-0.7502, 1.7135, 0.0367], [0.0389, -0.0685, 1.0296]])

    /// Chromatic adaptation from white `src` to white `dst` by Bradford.
    public static func bradfordAdaptation(from src: SIMD3<Double>, to dst: SIMD3<Double>) -> Matrix3 {
        let s = bradford * src, d = bradford * dst
        return bradford.inverse * Matrix3.diagonal(d / s) * bradford
    }

    /// XYZ → CIELAB relative to white `w` (D50 unless said otherwise).
    public static func xyzToLab(_ xyz: SIMD3<Double>, white w: SIMD3<Double> = d50) -> SIMD3<Double> {
        func f(_ t: Double) -> Double { t > 216.0 / 24389.0 ? cbrt(t) : (24389.0 / 27.0 * t + 16) / 116 }
        let fx = f(xyz.x / w.x), fy = f(xyz.y / w.y), fz = f(xyz.z / w.z)
        return SIMD3(116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz))
    }

    /// CIELAB → XYZ relative to white `w`.
    public static func labToXYZ(_ lab: SIMD3<Double>, white w: SIMD3<Double> = d50) -> SIMD3<Double> {
        let fy = (lab.x + 16) / 116, fx = fy + lab.y / 500, fz = fy - lab.z / 200
        func finv(_ t: Double) -> Double { t * t * t > 216.0 / 24389.0 ? t * t * t : (116 * t - 16) * 27.0 / 24389.0 }
        return SIMD3(w.x * finv(fx), w.y * finv(fy), w.z * finv(fz))
    }

    /// CIEDE2000 colour difference (Sharma, Wu & Dalal 2005), kL = kC = kH = 1.
    public static func deltaE2000(_ lab1: SIMD3<Double>, _ lab2: SIMD3<Double>) -> Double {
        let (L1, a1, b1) = (lab1.x, lab1.y, lab1.z), (L2, a2, b2) = (lab2.x, lab2.y, lab2.z)
        let C1 = (a1 * a1 + b1 * b1).squareRoot(), C2 = (a2 * a2 + b2 * b2).squareRoot()
        let Cbar = (C1 + C2) / 2
        let G = 0.5 * (1 - (pow(Cbar, 7) / (pow(Cbar, 7) + pow(25, 7))).squareRoot())
        let a1p = (1 + G) * a1, a2p = (1 + G) * a2
        let C1p = (a1p * a1p + b1 * b1).squareRoot(), C2p = (a2p * a2p + b2 * b2).squareRoot()
        func hue(_ b: Double, _ a: Double) -> Double {
            if a == 0 && b == 0 { return 0 }
            let h = atan2(b, a) * 180 / .pi
            return h < 0 ? h + 360 : h
        }
        let h1p = hue(b1, a1p), h2p = hue(b2, a2p)
        let dLp = L2 - L1, dCp = C2p - C1p
        var dhp = 0.0
        if C1p * C2p != 0 {
            dhp = h2p - h1p
            if dhp > 180 { dhp -= 360 } else if dhp < -180 { dhp += 360 }
        }
        let dHp = 2 * (C1p * C2p).squareRoot() * sin(dhp / 2 * .pi / 180)
        let Lbarp = (L1 + L2) / 2, Cbarp = (C1p + C2p) / 2
        var hbarp = h1p + h2p
        if C1p * C2p != 0 {
            if abs(h1p - h2p) <= 180 { hbarp = (h1p + h2p) / 2 } else if h1p + h2p < 360 { hbarp = (h1p + h2p + 360) / 2 } else { hbarp = (h1p + h2p - 360) / 2 }
        }
        let rad = Double.pi / 180
        let T = 1 - 0.17 * cos((hbarp - 30) * rad) + 0.24 * cos(2 * hbarp * rad) + 0.32 * cos((3 * hbarp + 6) * rad) - 0.20 * cos((4 * hbarp - 63) * rad)
        let dTheta = 30 * exp(-pow((hbarp - 275) / 25, 2))
        let RC = 2 * (pow(Cbarp, 7) / (pow(Cbarp, 7) + pow(25, 7))).squareRoot()
        let SL = 1 + 0.015 * pow(Lbarp - 50, 2) / (20 + pow(Lbarp - 50, 2)).squareRoot()
        let SC = 1 + 0.045 * Cbarp, SH = 1 + 0.015 * Cbarp * T
        let RT = -sin(2 * dTheta * rad) * RC
        let l = dLp / SL, c = dCp / SC, h = dHp / SH
        return (l * l + c * c + h * h + RT * c * h).squareRoot()
    }
}
