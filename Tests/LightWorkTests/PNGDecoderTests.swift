import Foundation
import XCTest
@testable import LightWork

final class PNGDecoderTests: XCTestCase {
    private func decode(_ data: Data, _ options: DecodeOptions = DecodeOptions()) throws -> DecodedImage {
        try PNGDecoder.decode(data: data, options: options)
    }

    private func be16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xff)] }

    func testGreyAndRGBWithoutColourInformationAreUsedAsTheyAre() throws {
        // 8-bit grey and RGB: exactly v/255, replicated for grey; the documented note.
        let grey = PNGBuilder(width: 4, height: 2, colourType: 0).build(rows: [[0, 1, 128, 255], [10, 20, 30, 40]])
        var d = try decode(grey)
        XCTAssertEqual(d.notes, [ICCInput.assumedSRGBNote])
        XCTAssertEqual(d.sourceProfile, "sRGB (assumed)")
        XCTAssertFalse(d.image.hasAlpha)
        XCTAssertEqual(d.image.pixel(x: 2, y: 0), SIMD4(Float(Float16(128.0 / 255)), Float(Float16(128.0 / 255)), Float(Float16(128.0 / 255)), 1))
        XCTAssertEqual(d.image.pixel(x: 3, y: 1).x, Float(Float16(40.0 / 255)))

        let rgb = PNGBuilder(width: 2, height: 1, colourType: 2).build(rows: [[255, 0, 7, 1, 2, 3]])
        d = try decode(rgb)
        XCTAssertEqual(d.image.pixel(x: 0, y: 0), SIMD4(1, 0, Float(Float16(7.0 / 255)), 1), "no channel swap")
        XCTAssertEqual(d.image.pixel(x: 1, y: 0), SIMD4(Float(Float16(1.0 / 255)), Float(Float16(2.0 / 255)), Float(Float16(3.0 / 255)), 1))
    }

    /// 16-bit samples must not go through 8 bits: values chosen between 8-bit steps survive to half precision.
    func testSixteenBitSamplesKeepTheirPrecision() throws {
        let values: [UInt16] = [0x1234, 0x8080 + 0x40, 0xFF7F, 0x0101 * 77 + 0x80]
        let rows = [values.flatMap(be16)]
        for (type, channels) in [(UInt8(0), 1), (UInt8(2), 3)] {
            var b = PNGBuilder(width: UInt32(values.count / channels), height: 1, colourType: type)
            b.bitDepth = 16
            if type == 2 { b = PNGBuilder(width: 1, height: 1, colourType: 2); b.bitDepth = 16 }
            let r = type == 2 ? [Array(rows[0].prefix(6))] : rows
            let d = try decode(b.build(rows: r))
            let f = d.image.floats()
            for i in 0..<(type == 2 ? 3 : values.count) {
                let expected = Float(values[i]) / 65535
                let got = type == 2 ? f[i] : f[4 * i]
                XCTAssertEqual(got, expected, accuracy: expected / 2048 + 1e-6, "type \(type) sample \(i)")
                let via8 = Float((Int(values[i]) * 255 + 32767) / 65535) / 255
                XCTAssertGreaterThan(abs(via8 - expected), expected / 1024, "the chosen value distinguishes an 8-bit round trip")
            }
        }
    }

    func testAlphaIsKeptUnassociatedForEveryAlphaLayout() throws {
        // Grey+alpha 8-bit: a grey of 200 at alpha 0 keeps its grey (no premultiplication).
        var d = try decode(PNGBuilder(width: 2, height: 1, colourType: 4).build(rows: [[200, 0, 50, 128]]))
        XCTAssertTrue(d.image.hasAlpha)
        XCTAssertEqual(d.image.pixel(x: 0, y: 0), SIMD4(Float(Float16(200.0 / 255)), Float(Float16(200.0 / 255)), Float(Float16(200.0 / 255)), 0))
        XCTAssertEqual(d.image.pixel(x: 1, y: 0).w, Float(Float16(128.0 / 255)))
        // RGBA 8-bit.
        d = try decode(PNGBuilder(width: 1, height: 1, colourType: 6).build(rows: [[10, 20, 30, 0]]))
        XCTAssertEqual(d.image.pixel(x: 0, y: 0), SIMD4(Float(Float16(10.0 / 255)), Float(Float16(20.0 / 255)), Float(Float16(30.0 / 255)), 0))
        // RGBA 16-bit and grey+alpha 16-bit.
        var b = PNGBuilder(width: 1, height: 1, colourType: 6)
        b.bitDepth = 16
        d = try decode(b.build(rows: [[0xFF, 0xFF, 0x80, 0x00, 0x00, 0x01, 0x40, 0x00]]))
        XCTAssertEqual(d.image.pixel(x: 0, y: 0).x, 1)
        XCTAssertEqual(d.image.pixel(x: 0, y: 0).y, Float(0x8000) / 65535, accuracy: 0.0003)
        XCTAssertEqual(d.image.pixel(x: 0, y: 0).w, Float(0x4000) / 65535, accuracy: 0.0002)
        b.colourType = 4
        d = try decode(b.build(rows: [[0x12, 0x34, 0xC0, 0x00]]))
        XCTAssertEqual(d.image.pixel(x: 0, y: 0).z, Float(0x1234) / 65535, accuracy: 0.00005)
        XCTAssertEqual(d.image.pixel(x: 0, y: 0).w, Float(0xC000) / 65535, accuracy: 0.0003)
    }

    func testPaletteWithTransparencyAndLowBitGrey() throws {
        var b = PNGBuilder(width: 3, height: 1, colourType: 3)
        b.before = [("PLTE", [255, 0, 0, 0, 255, 0, 0, 0, 255]), ("tRNS", [255, 64])]
        let d = try decode(b.build(rows: [[2, 1, 0]]))
        XCTAssertTrue(d.image.hasAlpha)
        XCTAssertEqual(d.image.pixel(x: 0, y: 0), SIMD4(0, 0, 1, 1), "entry 2 has no tRNS value: opaque")
        XCTAssertEqual(d.image.pixel(x: 1, y: 0), SIMD4(0, 1, 0, Float(Float16(64.0 / 255))))
        XCTAssertEqual(d.image.pixel(x: 2, y: 0), SIMD4(1, 0, 0, 1))

        var g = PNGBuilder(width: 4, height: 1, colourType: 0)
        g.bitDepth = 2
        let grey = try decode(g.build(rows: [[0b00_01_10_11]]))
        XCTAssertEqual((0..<4).map { grey.image.pixel(x: $0, y: 0).x }, [0, Float(Float16(85.0 / 255)), Float(Float16(170.0 / 255)), 1])
    }

    func testInterlacedImageMatchesTheSameNonInterlaced() throws {
        let w = 13, h = 11
        let rows = (0..<h).map { y in (0..<(w * 3)).map { UInt8((y * 37 + $0 * 11) % 256) } }
        var b = PNGBuilder(width: UInt32(w), height: UInt32(h), colourType: 2)
        let plain = try decode(b.build(rows: rows))
        b.interlaced = true
        let interlaced = try decode(b.build(rows: rows))
        XCTAssertEqual(interlaced.details["interlaced"], "yes (Adam7)")
        XCTAssertEqual(plain.image.floats(), interlaced.image.floats())
        XCTAssertEqual(plain.image.pixel(x: 5, y: 7).y, Float(Float16(Float((7 * 37 + 16 * 11) % 256) / 255)))
    }

    func testSRGBChunkMeansNoConversion() throws {
        var b = PNGBuilder(width: 1, height: 1, colourType: 2)
        b.before = [("sRGB", [0]), ("gAMA", PNGBuilder.gAMA(1.0))]  // sRGB wins over gAMA, as the PNG spec says
        let d = try decode(b.build(rows: [[30, 60, 90]]))
        XCTAssertEqual(d.sourceProfile, "sRGB (PNG sRGB chunk)")
        XCTAssertTrue(d.notes.isEmpty)
        XCTAssertEqual(d.image.pixel(x: 0, y: 0), SIMD4(Float(Float16(30.0 / 255)), Float(Float16(60.0 / 255)), Float(Float16(90.0 / 255)), 1))
    }

    /// gAMA alone: sRGB primaries with the curve 1/gAMA. A linear file (gAMA 1.0) must come out sRGB-encoded.
    func testGammaOnlyIsConvertedWithSRGBPrimaries() throws {
        var b = PNGBuilder(width: 3, height: 1, colourType: 2)
        b.before = [("gAMA", PNGBuilder.gAMA(1.0))]
        let d = try decode(b.build(rows: [[128, 128, 128, 255, 0, 0, 10, 200, 60]]))
        XCTAssertEqual(d.sourceProfile, "PNG gAMA 1.0")
        func srgb(_ v: Double) -> Double { v <= 0.0031308 ? 12.92 * v : 1.055 * pow(v, 1 / 2.4) - 0.055 }
        let p = d.image.pixel(x: 0, y: 0)
        XCTAssertEqual(Double(p.x), srgb(128.0 / 255), accuracy: 1.0 / 255)
        XCTAssertEqual(Double(p.y), srgb(128.0 / 255), accuracy: 1.0 / 255)
        XCTAssertEqual(d.image.pixel(x: 1, y: 0).x, 1, accuracy: 1.0 / 255, "same primaries: red stays red")
        XCTAssertEqual(d.image.pixel(x: 1, y: 0).y, 0, accuracy: 1.0 / 255)
        let q = d.image.pixel(x: 2, y: 0)
        XCTAssertEqual(Double(q.y), srgb(200.0 / 255), accuracy: 1.0 / 255)
        XCTAssertEqual(Double(q.z), srgb(60.0 / 255), accuracy: 1.0 / 255)
    }

    func testGreyWithGammaOnlyIsConvertedToGrey() throws {
        var b = PNGBuilder(width: 2, height: 1, colourType: 0)
        b.before = [("gAMA", PNGBuilder.gAMA(1.0))]
        let d = try decode(b.build(rows: [[64, 255]]))
        let p = d.image.pixel(x: 0, y: 0)
        let expected = 1.055 * pow(64.0 / 255, 1 / 2.4) - 0.055
        for c in 0..<3 { XCTAssertEqual(Double(p[c]), expected, accuracy: 1.0 / 255) }
        XCTAssertEqual(d.image.pixel(x: 1, y: 0).x, 1, accuracy: 1.0 / 255)
    }

    func testEmbeddedGreyProfileOnGreyAndMismatchedProfileIgnored() throws {
        let greyICC = try Data(contentsOf: TestPaths.sharedSamples("icc").appendingPathComponent("gray-icc-profiles-free.icc"))
        var b = PNGBuilder(width: 1, height: 1, colourType: 0)
        b.before = [("iCCP", PNGBuilder.iCCP(greyICC))]
        let d = try decode(b.build(rows: [[100]]))
        XCTAssertEqual(d.sourceProfile, ICCProfile(data: greyICC)!.profileDescription)
        XCTAssertTrue(d.notes.isEmpty, "\(d.notes)")
        // An RGB profile on grey pixels: libpng itself discards the chunk (a benign error), so sRGB is assumed.
        let adobe = try Data(contentsOf: TestPaths.sharedSamples("icc").appendingPathComponent("adobergb1998-colord.icc"))
        b.before = [("iCCP", PNGBuilder.iCCP(adobe))]
        let m = try decode(b.build(rows: [[100]]))
        XCTAssertEqual(m.sourceProfile, "sRGB (assumed)")
        XCTAssertEqual(m.notes, [ICCInput.assumedSRGBNote])
        XCTAssertEqual(m.image.pixel(x: 0, y: 0).x, Float(Float16(100.0 / 255)))
    }

    /// eXIf orientation applied exactly once, for all eight values, on lossless pixels.
    /// Stored 3×2 grid [a b c / d e f]; expected upright grids written out from the EXIF specification.
    func testEXIfOrientationIsAppliedToThePixels() throws {
        let a: UInt8 = 10, b: UInt8 = 40, c: UInt8 = 70, d: UInt8 = 100, e: UInt8 = 130, f: UInt8 = 160
        let expected: [Int: [[UInt8]]] = [
            1: [[a, b, c], [d, e, f]], 2: [[c, b, a], [f, e, d]], 3: [[f, e, d], [c, b, a]], 4: [[d, e, f], [a, b, c]],
            5: [[a, d], [b, e], [c, f]], 6: [[d, a], [e, b], [f, c]], 7: [[f, c], [e, b], [d, a]], 8: [[c, f], [b, e], [a, d]],
        ]
        for n in 1...8 {
            var builder = PNGBuilder(width: 3, height: 2, colourType: 0)
            let exif = EXIFBuilder(bigEndian: n % 2 == 0, ifd0: [(0x0112, .short(UInt16(n)))]).build()
            // Odd orientations put eXIf before the image data, even ones after it (both are allowed).
            if n % 2 == 1 { builder.before = [("eXIf", [UInt8](exif))] } else { builder.after = [("eXIf", [UInt8](exif))] }
            let decoded = try decode(builder.build(rows: [[a, b, c], [d, e, f]]))
            XCTAssertEqual(decoded.metadata.orientation, n)
            XCTAssertEqual(decoded.exifBlob, exif)
            let grid = expected[n]!
            XCTAssertEqual(decoded.image.height, grid.count, "orientation \(n)")
            XCTAssertEqual(decoded.image.width, grid[0].count, "orientation \(n)")
            for y in 0..<grid.count { for x in 0..<grid[0].count {
                XCTAssertEqual(decoded.image.pixel(x: x, y: y).x, Float(Float16(Float(grid[y][x]) / 255)), "orientation \(n) at \(x),\(y)")
            } }
        }
    }

    func testTruncatedPNGFailsWithOneLine() throws {
        let data = try Data(contentsOf: TestPaths.sharedSamples("rgb").appendingPathComponent("gama-chrm-only-hopper.png"))
        for keep in [data.count / 2, 60, 12] {
            assertLightWorkError(try self.decode(data.prefix(keep))) {
                if case .decodeFailed(let m) = $0 { return m.hasPrefix("PNG: ") } else { return false }
            }
        }
    }

    func testBadCRCFailsWithOneLine() throws {
        var bytes = [UInt8](PNGBuilder(width: 2, height: 2, colourType: 0).build(rows: [[1, 2], [3, 4]]))
        // The IDAT CRC: last 4 bytes before IEND's 12.
        bytes[bytes.count - 13] ^= 0xFF
        assertLightWorkError(try self.decode(Data(bytes))) { $0.description.contains("CRC") }
        var header = [UInt8](PNGBuilder(width: 2, height: 2, colourType: 0).build(rows: [[1, 2], [3, 4]]))
        header[8 + 8 + 13] ^= 0x01  // IHDR CRC
        assertLightWorkError(try self.decode(Data(header))) { $0.description.contains("CRC") }
    }

    func testZeroSizedHeaderIsRefused() {
        let data = PNGBuilder(width: 0, height: 0, colourType: 0).build(rows: [])
        assertLightWorkError(try self.decode(data)) { if case .decodeFailed = $0 { return true } else { return false } }
    }

    /// 100000×100000 declared, one row of data: refused by the pixel limit right after the header.
    func testHugeHeaderIsRefusedByThePixelLimitBeforeAllocating() {
        let data = PNGBuilder(width: 100_000, height: 100_000, colourType: 2).build(rows: [[0, 0, 0]])
        assertLightWorkError(try self.decode(data)) { $0 == .tooManyPixels(width: 100_000, height: 100_000, limit: 200_000_000) }
    }

    func testAJPGNamedFileThatIsAPNGDecodesAsPNG() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let url = dir.appendingPathComponent("photo.jpg")
        try PNGBuilder(width: 1, height: 1, colourType: 2).build(rows: [[1, 2, 3]]).write(to: url)
        let d = try RGBDecoder.decode(data: Data(contentsOf: url), options: DecodeOptions())
        XCTAssertEqual(d.details["format"], "PNG")
        XCTAssertEqual(d.image.pixel(x: 0, y: 0).z, Float(Float16(3.0 / 255)))
        assertLightWorkError(try JPEGDecoder.decode(data: Data(contentsOf: url), options: DecodeOptions())) {
            if case .decodeFailed = $0 { return true } else { return false }
        }
        assertLightWorkError(try RGBDecoder.decode(data: Data("hello".utf8), options: DecodeOptions())) {
            if case .unsupportedFormat = $0 { return true } else { return false }
        }
        assertLightWorkError(try RGBDecoder.decode(data: Data(), options: DecodeOptions())) { $0 == .emptyFile }
    }
}
