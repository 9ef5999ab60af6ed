import Foundation
import XCTest
@testable import LightWork

final class EXIFReaderTests: XCTestCase {
    private func fullBlock(bigEndian: Bool) -> Data {
        EXIFBuilder(bigEndian: bigEndian,
                    ifd0: [(0x010F, .ascii("Maker Co")), (0x0110, .ascii("Model 7 ")), (0x0112, .short(6))],
                    exif: [(0x829A, .rational([(1, 250)])), (0x829D, .rational([(28, 10)])), (0x8827, .short(800)),
                           (0x920A, .rational([(350, 10)])), (0x9003, .ascii("2024:05:06 07:08:09")), (0xA434, .ascii("Lens 35mm F2"))],
                    gps: [(0x0001, .ascii("S")), (0x0002, .rational([(33, 1), (51, 1), (3600, 100)])),
                          (0x0003, .ascii("W")), (0x0004, .rational([(70, 1), (30, 1), (0, 1)])),
                          (0x0005, .byte(1)), (0x0006, .rational([(125, 10)]))]).build()
    }

    func testReadsEveryFieldInBothByteOrders() throws {
        for bigEndian in [false, true] {
            let m = try XCTUnwrap(EXIFReader.read(fullBlock(bigEndian: bigEndian)))
            XCTAssertEqual(m.make, "Maker Co")
            XCTAssertEqual(m.model, "Model 7", "trailing spaces trimmed")
            XCTAssertEqual(m.orientation, 6)
            XCTAssertEqual(m.exposureTime, 0.004)
            XCTAssertEqual(m.fNumber, 2.8)
            XCTAssertEqual(m.iso, 800)
            XCTAssertEqual(m.focalLength, 35)
            XCTAssertEqual(m.dateTimeOriginal, "2024:05:06 07:08:09")
            XCTAssertEqual(m.lens, "Lens 35mm F2")
            XCTAssertEqual(try XCTUnwrap(m.gpsLatitude), -(33 + 51.0 / 60 + 36.0 / 3600), accuracy: 1e-12)
            XCTAssertEqual(try XCTUnwrap(m.gpsLongitude), -70.5, accuracy: 1e-12)
            XCTAssertEqual(m.gpsAltitude, -12.5, "altitude ref 1 = below sea level")
        }
    }

    func testAcceptsTheJPEGExifPrefixAndRejectsNonTIFF() throws {
        let block = fullBlock(bigEndian: false)
        XCTAssertEqual(EXIFReader.read(Data(EXIFReader.app1Prefix) + block), EXIFReader.read(block))
        XCTAssertEqual(EXIFReader.tiffBlock(Data(EXIFReader.app1Prefix) + block), block)
        XCTAssertNil(EXIFReader.read(Data("not exif at all".utf8)))
        XCTAssertNil(EXIFReader.read(Data()))
        XCTAssertNil(EXIFReader.read(Data([0x49, 0x49, 42, 0])), "header without IFD offset")
    }

    func testOutOfRangeValuesAreIgnored() throws {
        let m = try XCTUnwrap(EXIFReader.read(EXIFBuilder(ifd0: [(0x0112, .short(9))], exif: [(0x829D, .rational([(5, 0)]))]).build()))
        XCTAssertNil(m.orientation, "orientation 9 does not exist")
        XCTAssertNil(m.fNumber, "zero denominator")
    }

    func testSampleFilesMatchTheirDocumentedCameras() throws {
        let dir = try TestPaths.sharedSamples("rgb")
        let expected: [(String, String, String, Int?)] = [
            ("display-p3-iceland.jpg", "NIKON CORPORATION", "NIKON D800E", 1),
            ("adobe-rgb-canon-eos-7d.jpg", "Canon", "Canon EOS 7D", nil),
            ("cmyk-swop-profile.jpg", "Canon", "Canon EOS 300D DIGITAL", 1),
            ("large-exif-olympus-pen-e-p3.jpg", "OLYMPUS IMAGING CORP.", "E-P3", 1),
        ]
        for (name, make, model, orientation) in expected {
            let d = try RGBDecoder.decode(data: Data(contentsOf: dir.appendingPathComponent(name)), options: DecodeOptions())
            XCTAssertEqual(d.metadata.make, make, name)
            XCTAssertEqual(d.metadata.model, model, name)
            XCTAssertEqual(d.metadata.orientation, orientation, name)
            XCTAssertNotNil(d.metadata.dateTimeOriginal, name)
        }
    }

    /// Hostile blocks: offsets past the end, huge counts, a sub-IFD pointing at itself, unknown types.
    func testHostileStructuresNeverTrap() {
        var b: [UInt8] = [0x49, 0x49, 42, 0, 8, 0, 0, 0]
        b += [4, 0]                                                       // four entries
        b += [0x0F, 0x01, 2, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0xF0, 0xFF, 0xFF, 0x7F]  // Make: 4 G characters far away
        b += [0x69, 0x87, 4, 0, 1, 0, 0, 0, 8, 0, 0, 0]                   // Exif IFD = IFD0 itself
        b += [0x25, 0x88, 4, 0, 1, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF]       // GPS IFD past the end
        b += [0x12, 0x01, 99, 0, 1, 0, 0, 0, 3, 0, 0, 0]                  // unknown type 99
        let m = EXIFReader.read(Data(b))
        XCTAssertNotNil(m)
        XCTAssertNil(m?.make)
        XCTAssertNil(m?.orientation)
        XCTAssertNil(EXIFReader.read(Data([0x4D, 0x4D, 0, 42, 0xFF, 0xFF, 0xFF, 0xFF]))?.make)
    }

    /// Every truncation and thousands of random byte changes of a valid block: never a trap.
    func testMutatedBlocksNeverTrap() {
        let valid = [UInt8](fullBlock(bigEndian: true))
        for n in 0...valid.count { _ = EXIFReader.read(Data(valid.prefix(n))) }
        var rng = SeededRandom(seed: 42)
        var parsed = 0
        for _ in 0..<3000 {
            var m = valid
            for _ in 0..<(1 + Int(rng.next() % 6)) {
                m[Int(rng.next() % UInt64(m.count))] = UInt8(truncatingIfNeeded: rng.next())
            }
            if EXIFReader.read(Data(m)) != nil { parsed += 1 }
        }
        XCTAssertGreaterThan(parsed, 0)
    }
}

