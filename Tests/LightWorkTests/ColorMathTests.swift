import XCTest
@testable import LightWork

final class ColorMathTests: XCTestCase {
    /// Sharma, Wu & Dalal (2005) test pairs: the published CIEDE2000 values to 4 decimals.
    func testDeltaE2000MatchesSharmaWuDalal() {
        let pairs: [(SIMD3<Double>, SIMD3<Double>, Double)] = [
            ([50.0000, 2.6772, -79.7751], [50.0000, 0.0000, -82.7485], 2.0425),
            ([50.0000, 3.1571, -77.2803], [50.0000, 0.0000, -82.7485], 2.8615),
            ([50.0000, -1.3802, -84.2814], [50.0000, 0.0000, -82.7485], 1.0000),
            ([50.0000, 0.0000, 0.0000], [50.0000, -1.0000, 2.0000], 2.3669),
            ([50.0000, 2.4900, -0.0010], [50.0000, -2.4900, 0.0011], 7.2195),
            ([60.2574, -34.0099, 36.2677], [60.4626, -34.1751, 39.4387], 1.2644),
            ([22.7233, 20.0904, -46.6940], [23.0331, 14.9730, -42.5619], 2.0373),
            ([90.8027, -2.0831, 1.4410], [91.1528, -1.6435, 0.0447], 1.4441),
            ([2.0776, 0.0795, -1.1350], [0.9033, -0.0636, -0.5514], 0.9082),
        ]
        for (a, b, expected) in pairs {
            XCTAssertEqual(CIE.deltaE2000(a, b), expected, accuracy: 1e-4, "\(a) vs \(b)")
        }
    }

    func testSRGBMatrixMatchesPublishedD50Colorants() {
        // ICC sRGB colorants (Bradford-adapted to D50), as in every v4 sRGB profile, to 4 decimals.
        let m = RGBPrimaries.sRGB.toXYZD50
        XCTAssertEqual(m[0, 0], 0.4360, accuracy: 2e-4)
        XCTAssertEqual(m[1, 1], 0.7169, accuracy: 2e-4)
        XCTAssertEqual(m[2, 2], 0.7141, accuracy: 2e-4)
        // White maps to D50.
        let w = m * SIMD3(1, 1, 1)
        XCTAssertEqual(w.x, CIE.d50.x, accuracy: 1e-9)
        XCTAssertEqual(w.z, CIE.d50.z, accuracy: 1e-9)
    }

    func testFastCurveMatchesExactCurveWithin16BitPrecision() {
        for tf in [TransferFunction.sRGB, .gamma(563.0 / 256.0), .gamma(1.8)] {
            let curve = FastCurve.encoder(tf)
            var worst = 0.0
            var x = 1e-7
            while x <= 1 {
                let err = abs(Double(curve(Float(x))) - tf.encode(Double(Float(x))))
                worst = max(worst, err)
                x *= 1.013
            }
            XCTAssertLessThan(worst * 65535, 0.05, "\(tf)")
        }
    }
}
