import CLCMS2
import XCTest
@testable import LightWork

final class ColorMathTests: XCTestCase {
    /// Sharma, Wu & Dalal (2005), table 1: all 34 published pairs with their CIEDE2000 values to 4 decimals
    /// (the hue-quadrant and mean-hue edge cases included, e.g. pairs 13-15).
    static let sharmaWuDalal: [(SIMD3<Double>, SIMD3<Double>, Double)] = [
        ([50.0000, 2.6772, -79.7751], [50.0000, 0.0000, -82.7485], 2.0425),
        ([50.0000, 3.1571, -77.2803], [50.0000, 0.0000, -82.7485], 2.8615),
        ([50.0000, 2.8361, -74.0200], [50.0000, 0.0000, -82.7485], 3.4412),
        ([50.0000, -1.3802, -84.2814], [50.0000, 0.0000, -82.7485], 1.0000),
        ([50.0000, -1.1848, -84.8006], [50.0000, 0.0000, -82.7485], 1.0000),
        ([50.0000, -0.9009, -85.5211], [50.0000, 0.0000, -82.7485], 1.0000),
        ([50.0000, 0.0000, 0.0000], [50.0000, -1.0000, 2.0000], 2.3669),
        ([50.0000, -1.0000, 2.0000], [50.0000, 0.0000, 0.0000], 2.3669),
        ([50.0000, 2.4900, -0.0010], [50.0000, -2.4900, 0.0009], 7.1792),
        ([50.0000, 2.4900, -0.0010], [50.0000, -2.4900, 0.0010], 7.1792),
        ([50.0000, 2.4900, -0.0010], [50.0000, -2.4900, 0.0011], 7.2195),
        ([50.0000, 2.4900, -0.0010], [50.0000, -2.4900, 0.0012], 7.2195),
        ([50.0000, -0.0010, 2.4900], [50.0000, 0.0009, -2.4900], 4.8045),
        ([50.0000, -0.0010, 2.4900], [50.0000, 0.0010, -2.4900], 4.8045),
        ([50.0000, -0.0010, 2.4900], [50.0000, 0.0011, -2.4900], 4.7461),
        ([50.0000, 2.5000, 0.0000], [50.0000, 0.0000, -2.5000], 4.3065),
        ([50.0000, 2.5000, 0.0000], [73.0000, 25.0000, -18.0000], 27.1492),
        ([50.0000, 2.5000, 0.0000], [61.0000, -5.0000, 29.0000], 22.8977),
        ([50.0000, 2.5000, 0.0000], [56.0000, -27.0000, -3.0000], 31.9030),
        ([50.0000, 2.5000, 0.0000], [58.0000, 24.0000, 15.0000], 19.4535),
        ([50.0000, 2.5000, 0.0000], [50.0000, 3.1736, 0.5854], 1.0000),
        ([50.0000, 2.5000, 0.0000], [50.0000, 3.2972, 0.0000], 1.0000),
        ([50.0000, 2.5000, 0.0000], [50.0000, 1.8634, 0.5757], 1.0000),
        ([50.0000, 2.5000, 0.0000], [50.0000, 3.2592, 0.3350], 1.0000),
        ([60.2574, -34.0099, 36.2677], [60.4626, -34.1751, 39.4387], 1.2644),
        ([63.0109, -31.0961, -5.8663], [62.8187, -29.7946, -4.0864], 1.2630),
        ([61.2901, 3.7196, -5.3901], [61.4292, 2.2480, -4.9620], 1.8731),
        ([35.0831, -44.1164, 3.7933], [35.0232, -40.0716, 1.5901], 1.8645),
        ([22.7233, 20.0904, -46.6940], [23.0331, 14.9730, -42.5619], 2.0373),
        ([36.4612, 47.8580, 18.3852], [36.2715, 50.5065, 21.2231], 1.4146),
        ([90.8027, -2.0831, 1.4410], [91.1528, -1.6435, 0.0447], 1.4441),
        ([90.9257, -0.5406, -0.9208], [88.6381, -0.8985, -0.7239], 1.5381),
        ([6.7747, -0.2908, -2.4247], [5.8714, -0.0985, -2.2286], 0.6377),
        ([2.0776, 0.0795, -1.1350], [0.9033, -0.0636, -0.5514], 0.9082),
    ]

    func testDeltaE2000MatchesSharmaWuDalal() {
        XCTAssertEqual(Self.sharmaWuDalal.count, 34)
        for (a, b, expected) in Self.sharmaWuDalal {
            XCTAssertEqual(CIE.deltaE2000(a, b), expected, accuracy: 5e-5, "\(a) vs \(b)")
            XCTAssertEqual(CIE.deltaE2000(b, a), CIE.deltaE2000(a, b), accuracy: 1e-12, "symmetric: \(a) vs \(b)")
        }
    }

    /// LittleCMS's own CIEDE2000 gives the published values too: the verify stage may rely on either.
    func testLittleCMSDeltaE2000AgreesWithThePublishedData() {
        for (a, b, expected) in Self.sharmaWuDalal {
            var l1 = cmsCIELab(L: a.x, a: a.y, b: a.z), l2 = cmsCIELab(L: b.x, a: b.y, b: b.z)
            XCTAssertEqual(cmsCIE2000DeltaE(&l1, &l2, 1, 1, 1), expected, accuracy: 5e-5, "\(a) vs \(b)")
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
