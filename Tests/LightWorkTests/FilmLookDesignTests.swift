import XCTest
import LightWork

final class FilmLookDesignTests: XCTestCase {
    func testAtLeastTwelveDistinctLooks() {
        let looks = FilmLookDesign.all
        XCTAssertGreaterThanOrEqual(looks.count, 12)
        XCTAssertEqual(Set(looks.map(\.lookupId)).count, looks.count)
        XCTAssertEqual(Set(looks.map(\.imageName)).count, looks.count)
        XCTAssertEqual(Set(looks.map(\.name)).count, looks.count)
        XCTAssertGreaterThanOrEqual(looks.filter { $0.monochrome != nil }.count, 3)
    }

    /// Every look changes colours noticeably and stays inside 0…1.
    func testLooksAreNotIdentityAndStayInRange() {
        let probes = LUTProbe.colours(300)
        for look in FilmLookDesign.all {
            let lut = look.lut(size: 17)
            XCTAssertTrue(lut.table.allSatisfy { $0 >= 0 && $0 <= 1 }, look.name)
            XCTAssertGreaterThan(LUTProbe.maxError(LUTProbe.apply(lut, probes), probes), 0.03, look.name)
        }
    }

    /// Greys get brighter as input gets brighter (no tone reversal along the neutral axis).
    func testNeutralAxisIsMonotone() {
        for look in FilmLookDesign.all {
            var last = -1.0
            for i in 0...50 {
                let v = Double(i) / 50
                let out = look.transform(SIMD3(repeating: v))
                let y = 0.2126 * out.x + 0.7152 * out.y + 0.0722 * out.z
                XCTAssertGreaterThanOrEqual(y, last - 1e-9, "\(look.name) at \(v)")
                last = y
            }
        }
    }

    /// A black-and-white film without toning gives grey for any colour.
    func testUntonedMonochromeIsGrey() throws {
        let silver = try XCTUnwrap(FilmLookDesign.look(id: "1001001"))
        XCTAssertNotNil(silver.monochrome)
        for c in LUTProbe.colours(100) {
            let out = silver.transform(SIMD3(Double(c.x), Double(c.y), Double(c.z)))
            XCTAssertEqual(out.x, out.y, accuracy: 1e-12)
            XCTAssertEqual(out.y, out.z, accuracy: 1e-12)
        }
    }

    func testToneCurvePassesThroughItsPointsWithoutOvershoot() {
        let curve = ToneCurve([(0, 0.05), (0.25, 0.1), (0.5, 0.6), (1, 0.95)])
        XCTAssertEqual(curve(0.25), 0.1, accuracy: 1e-12)
        XCTAssertEqual(curve(0.5), 0.6, accuracy: 1e-12)
        var last = curve(0)
        for i in 1...200 {
            let y = curve(Double(i) / 200)
            XCTAssertGreaterThanOrEqual(y, last - 1e-12)
            last = y
        }
        XCTAssertEqual(ToneCurve.identity(0.3), 0.3, accuracy: 1e-12)
    }

    /// The lookup image of a look reads back as the look (within 8-bit rounding).
    func testLookupImageRoundTrip() throws {
        let look = try XCTUnwrap(FilmLookDesign.look(id: "0003001"))
        let image = FilmLookDesign.lookupImagePixels(for: look)
        let pixels = LUTImagePixels(width: image.width, height: image.height, channels: 3, samples: image.samples.map(UInt16.init), maxValue: 255)
        let back = try LUTFile.read(pixels, file: look.imageName)
        let reference = look.lut(size: 64)
        XCTAssertLessThan(zip(back.table, reference.table).map { abs($0 - $1) }.max()!, 0.5 / 255 + 1e-5)
    }
}
