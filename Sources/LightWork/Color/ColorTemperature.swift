import Foundation

/// A white point as correlated colour temperature and tint, converted to and from CIE 1931 xy by Robertson's
/// method with the isotherm table the DNG SDK uses (`dng_temperature`), so the DNG colour model weighs its two
/// calibrations exactly as Adobe's reference code does.
public struct ColorTemperature: Sendable, Equatable {
    /// Correlated colour temperature in kelvin (the SDK's range is about 1667 K … 100 000 K).
    public var kelvin: Double
    /// Distance from the Planckian locus along the isotherm, in the SDK's units (uv distance × −3000; green is negative).
    public var tint: Double

    public init(kelvin: Double, tint: Double = 0) {
        self.kelvin = kelvin
        self.tint = tint
    }

    /// The SDK's scale from uv distance to tint.
    static let tintScale = -3000.0

    /// One isotherm: reciprocal megakelvin `r`, the Planckian locus point (u, v) in CIE 1960 UCS, and the
    /// isotherm's slope `t`. Wyszecki & Stiles, *Color Science* (2nd ed.), p. 228, as the DNG SDK lists it —
    /// including its u = 0.24702 at 325 mired (the book's misprint of 0.24792), kept so temperatures match the SDK's.
    static let isotherms: [(r: Double, u: Double, v: Double, t: Double)] = [
        (0, 0.18006, 0.26352, -0.24341), (10, 0.18066, 0.26589, -0.25479), (20, 0.18133, 0.26846, -0.26876),
        (30, 0.18208, 0.27119, -0.28539), (40, 0.18293, 0.27407, -0.30470), (50, 0.18388, 0.27709, -0.32675),
        (60, 0.18494, 0.28021, -0.35156), (70, 0.18611, 0.28342, -0.37915), (80, 0.18740, 0.28668, -0.40955),
        (90, 0.18880, 0.28997, -0.44278), (100, 0.19032, 0.29326, -0.47888), (125, 0.19462, 0.30141, -0.58204),
        (150, 0.19962, 0.30921, -0.70471), (175, 0.20525, 0.31647, -0.84901), (200, 0.21142, 0.32312, -1.0182),
        (225, 0.21807, 0.32909, -1.2168), (250, 0.22511, 0.33439, -1.4512), (275, 0.23247, 0.33904, -1.7298),
        (300, 0.24010, 0.34308, -2.0637), (325, 0.24702, 0.34655, -2.4681), (350, 0.25591, 0.34951, -2.9641),
        (375, 0.26400, 0.35200, -3.5814), (400, 0.27218, 0.35407, -4.3633), (425, 0.28039, 0.35577, -5.3762),
        (450, 0.28863, 0.35714, -6.7262), (475, 0.29685, 0.35823, -8.5955), (500, 0.30505, 0.35907, -11.324),
        (525, 0.31320, 0.35968, -15.628), (550, 0.32129, 0.36011, -23.325), (575, 0.32931, 0.36038, -40.770),
        (600, 0.33724, 0.36051, -116.45),
    ]

    /// The temperature and tint of chromaticity `xy`: finds the two isotherms the point lies between and
    /// interpolates by its distances to them (the SDK's `dng_temperature::Set_xy_coord`).
    public init(xy: SIMD2<Double>) {
        let denominator = 1.5 - xy.x + 6 * xy.y
        let u = 2 * xy.x / denominator, v = 3 * xy.y / denominator
        let table = ColorTemperature.isotherms
        var lastDt = 0.0, lastDu = 0.0, lastDv = 0.0
        kelvin = 0
        tint = 0
        for index in 1..<table.count {
            // Unit vector along this isotherm, and the point's signed distance from it.
            let length = (1 + table[index].t * table[index].t).squareRoot()
            var du = 1 / length, dv = table[index].t / length
            var uu = u - table[index].u, vv = v - table[index].v
            var dt = -uu * dv + vv * du
            guard dt <= 0 || index == table.count - 1 else {
                lastDt = dt; lastDu = du; lastDv = dv
                continue
            }
            dt = -min(dt, 0)
            let f = index == 1 ? 0 : dt / (lastDt + dt)
            kelvin = 1e6 / (table[index - 1].r * f + table[index].r * (1 - f))
            uu = u - (table[index - 1].u * f + table[index].u * (1 - f))
            vv = v - (table[index - 1].v * f + table[index].v * (1 - f))
            du = du * (1 - f) + lastDu * f
            dv = dv * (1 - f) + lastDv * f
            let norm = (du * du + dv * dv).squareRoot()
            tint = (uu * du / norm + vv * dv / norm) * ColorTemperature.tintScale
            break
        }
    }

    /// The chromaticity of this temperature and tint (the SDK's `dng_temperature::Get_xy_coord`).
    public var xy: SIMD2<Double> {
        let table = ColorTemperature.isotherms
        let r = 1e6 / kelvin
        let offset = tint / ColorTemperature.tintScale
        var index = 0
        while index < table.count - 2 && r >= table[index + 1].r { index += 1 }
        let f = (table[index + 1].r - r) / (table[index + 1].r - table[index].r)
        var u = table[index].u * f + table[index + 1].u * (1 - f)
        var v = table[index].v * f + table[index + 1].v * (1 - f)
        let len1 = (1 + table[index].t * table[index].t).squareRoot()
        let len2 = (1 + table[index + 1].t * table[index + 1].t).squareRoot()
        var uu = (1 / len1) * f + (1 / len2) * (1 - f)
        var vv = (table[index].t / len1) * f + (table[index + 1].t / len2) * (1 - f)
        let len3 = (uu * uu + vv * vv).squareRoot()
        uu /= len3
        vv /= len3
        u += uu * offset
        v += vv * offset
        return SIMD2(1.5 * u / (u - 4 * v + 2), v / (u - 4 * v + 2))
    }
}
