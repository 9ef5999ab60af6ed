import XCTest
import LightWork

final class HaldCLUTReaderTests: XCTestCase {
    /// A HaldCLUT of `level` built from the format's definition: pixel i (row-major) is lattice entry i with
    /// red fastest, then green, then blue; 16-bit samples.
    static func hald(level: Int, channels: Int = 3, _ f: (Double, Double, Double) -> (Double, Double, Double)) -> LUTImagePixels {
        let n = level * level, side = level * level * level
        var samples = [UInt16](repeating: 0, count: side * side * channels)
        for i in 0..<(side * side) {
            let r = i % n, g = (i / n) % n, b = i / (n * n)
            let (x, y, z) = f(Double(r) / Double(n - 1), Double(g) / Double(n - 1), Double(b) / Double(n - 1))
            samples[i * channels] = UInt16((x * 65535).rounded())
            samples[i * channels + 1] = UInt16((y * 65535).rounded())
            samples[i * channels + 2] = UInt16((z * 65535).rounded())
            if channels == 4 { samples[i * channels + 3] = 65535 }
        }
        return LUTImagePixels(width: side, height: side, channels: channels, samples: samples, maxValue: 65535)
    }

    func testIdentityHaldReturnsItsInput() throws {
        for level in [2, 4] {
            let lut = try HaldCLUTReader.read(Self.hald(level: level, channels: 4) { ($0, $1, $2) }, file: "identity.png")
            XCTAssertEqual(lut.size, level * level)
            let probes = LUTProbe.colours(3000)
            for mode in LUT3D.Interpolation.allCases {
                XCTAssertLessThan(LUTProbe.maxError(LUTProbe.apply(lut, probes, mode), probes), 1e-4, "level \(level) \(mode)")
            }
        }
    }

    func testSwapRedBlueAtLatticePoints() throws {
        let lut = try HaldCLUTReader.read(Self.hald(level: 3) { ($2, $1, $0) }, file: "swap.png")
        let n = lut.size
        for b in 0..<n { for g in 0..<n { for r in 0..<n {
            let input = SIMD3(Float(r), Float(g), Float(b)) / Float(n - 1)
            XCTAssertLessThan(abs(lut.sample(input) - SIMD3(input.z, input.y, input.x)).max(), 2e-5)
        } } }
    }

    func testLevelsAndRefusals() {
        XCTAssertEqual(HaldCLUTReader.level(width: 512, height: 512), 8)
        XCTAssertEqual(HaldCLUTReader.level(width: 64, height: 64), 4)
        XCTAssertEqual(HaldCLUTReader.level(width: 4096, height: 4096), 16)
        XCTAssertNil(HaldCLUTReader.level(width: 500, height: 500))
        XCTAssertNil(HaldCLUTReader.level(width: 512, height: 256))
        let grey = LUTImagePixels(width: 8, height: 8, channels: 1, samples: [UInt16](repeating: 0, count: 64), maxValue: 255)
        XCTAssertThrowsError(try HaldCLUTReader.read(grey, file: "grey.png"))
        let odd = LUTImagePixels(width: 10, height: 10, channels: 3, samples: [UInt16](repeating: 0, count: 300), maxValue: 255)
        XCTAssertThrowsError(try HaldCLUTReader.read(odd, file: "odd.png")) { error in
            XCTAssertTrue("\(error)".contains("not a HaldCLUT"), "\(error)")
        }
    }
}
