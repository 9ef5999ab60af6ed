import XCTest
import LightWork

final class LookupImageReaderTests: XCTestCase {
    /// The app's lookup image built from its definition: tile = blue (column b % 8, row b / 8), x = red, y = green.
    static func lookupImage(_ f: (Double, Double, Double) -> (Double, Double, Double)) -> LUTImagePixels {
        var samples = [UInt16](repeating: 0, count: 512 * 512 * 3)
        for y in 0..<512 {
            for x in 0..<512 {
                let b = (y / 64) * 8 + x / 64, r = x % 64, g = y % 64
                let (u, v, w) = f(Double(r) / 63, Double(g) / 63, Double(b) / 63)
                let o = (y * 512 + x) * 3
                samples[o] = UInt16((u * 65535).rounded()); samples[o + 1] = UInt16((v * 65535).rounded()); samples[o + 2] = UInt16((w * 65535).rounded())
            }
        }
        return LUTImagePixels(width: 512, height: 512, channels: 3, samples: samples, maxValue: 65535)
    }

    func testIdentityLookupImageReturnsItsInput() throws {
        let lut = try LookupImageReader.read(Self.lookupImage { ($0, $1, $2) }, file: "identity.png")
        XCTAssertEqual(lut.size, 64)
        let probes = LUTProbe.colours(3000)
        for mode in LUT3D.Interpolation.allCases {
            XCTAssertLessThan(LUTProbe.maxError(LUTProbe.apply(lut, probes, mode), probes), 1e-4)
        }
    }

    func testSwapRedBlueAtLatticePoints() throws {
        let lut = try LookupImageReader.read(Self.lookupImage { ($2, $1, $0) }, file: "swap.png")
        for (r, g, b) in [(0, 0, 0), (63, 0, 0), (5, 40, 17), (63, 63, 63), (10, 20, 62), (33, 1, 9)] {
            let input = SIMD3(Float(r), Float(g), Float(b)) / 63
            XCTAssertLessThan(abs(lut.sample(input) - SIMD3(input.z, input.y, input.x)).max(), 2e-5, "\(r) \(g) \(b)")
        }
    }

    /// Both layouts are 512×512; the dispatcher tells them apart by name or by smoothness.
    func testLayoutIsNotHaldAndIsGuessed() throws {
        let swap: (Double, Double, Double) -> (Double, Double, Double) = { ($2, $1, $0) }
        let lookup = Self.lookupImage(swap)
        let hald = HaldCLUTReaderTests.hald(level: 8, swap)
        XCTAssertEqual(LUTFile.guessLayout(lookup, file: "Film.png"), .lookup)
        XCTAssertEqual(LUTFile.guessLayout(hald, file: "Film.png"), .hald)
        XCTAssertEqual(LUTFile.guessLayout(lookup, file: "my-hald-8.png"), .hald)
        // Read with the wrong layout, a lookup image gives a different cube.
        let right = try LookupImageReader.read(lookup, file: "x.png"), wrong = try HaldCLUTReader.read(lookup, file: "x.png")
        XCTAssertGreaterThan(zip(right.table, wrong.table).map { abs($0 - $1) }.max()!, 0.5)
        XCTAssertThrowsError(try LookupImageReader.read(HaldCLUTReaderTests.hald(level: 4) { ($0, $1, $2) }, file: "small.png"))
    }

    func testWriterPlacesColoursByTheAppLayout() throws {
        let image = LookupImage.pixels(of: LUT3D.identity(size: 64))
        XCTAssertEqual(image.width, 512)
        XCTAssertEqual(image.samples.count, 512 * 512 * 3)
        // Pixel (x = 3·64 + 10, y = 2·64 + 20): tile 2·8 + 3 = blue 19, red 10, green 20.
        let o = ((2 * 64 + 20) * 512 + 3 * 64 + 10) * 3
        XCTAssertEqual(Array(image.samples[o..<o + 3]), [10, 20, 19].map { UInt8((Double($0) * 255 / 63).rounded()) })
        // Read back: identity within 8-bit precision.
        let pixels = LUTImagePixels(width: 512, height: 512, channels: 3, samples: image.samples.map(UInt16.init), maxValue: 255)
        let back = try LookupImageReader.read(pixels, file: "written.png")
        let probes = LUTProbe.colours(1000)
        XCTAssertLessThan(LUTProbe.maxError(LUTProbe.apply(back, probes), probes), 0.5 / 255 + 1e-5)
        // A smaller LUT is resampled onto the 64-point lattice.
        let small = LookupImage.pixels(of: LUT3D.identity(size: 17))
        XCTAssertEqual(small.samples, image.samples)
    }
}
