import Foundation
import XCTest
@testable import LightWork

final class JPEGWriterTests: XCTestCase {
    private let srgb = ICCProfile.embedded(for: .srgb)
    /// A small big-endian TIFF-structured EXIF block: one IFD with Make = "LW".
    private let exif = Data([0x4d, 0x4d, 0x00, 0x2a, 0, 0, 0, 8, 0, 1, 0x01, 0x0f, 0, 2, 0, 0, 0, 3, 0x4c, 0x57, 0, 0, 0, 0, 0, 0])

    private func psnr(_ a: [UInt16], _ b: [UInt16]) -> Double {
        var se = 0.0
        for i in a.indices { let d = Double(a[i]) - Double(b[i]); se += d * d }
        return 10 * log10(255 * 255 / (se / Double(a.count)))
    }

    func testRGBGradientReadsBackCloseWithProfileAndExif() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let pixels = TestImages.gradient8(width: 96, height: 64, channels: 3)
        let url = dir.appendingPathComponent("a.jpg")
        try JPEGWriter().write(pixels, settings: EncodeSettings(format: .jpeg, iccProfile: srgb, exif: exif), to: url)
        let file = try ImageFileReader.read(url)
        XCTAssertEqual(file.format, .jpeg)
        XCTAssertEqual([file.width, file.height, file.channels, file.bitDepth], [96, 64, 3, 8])
        XCTAssertEqual(file.iccProfile, srgb)
        XCTAssertEqual(file.exif, exif)
        let p = psnr(file.samples, TestImages.widened(pixels))
        XCTAssertGreaterThan(p, 40, "PSNR \(p) dB at quality 92")
        XCTAssertLessThanOrEqual(zip(file.samples, TestImages.widened(pixels)).map { abs(Int($0) - Int($1)) }.max()!, 12)

        // Marker order from the bytes: APP1 Exif straight after SOI (no JFIF), then APP2 ICC_PROFILE.
        let markers = FileStructure.jpegMarkers(try Data(contentsOf: url))
        XCTAssertEqual(markers.first?.marker, 0xe1)
        XCTAssertTrue(markers.first?.payload.starts(with: Data("Exif\0\0".utf8)) ?? false)
        XCTAssertEqual(markers.dropFirst().first?.marker, 0xe2)
        XCTAssertTrue(markers.dropFirst().first?.payload.starts(with: Data("ICC_PROFILE\0".utf8)) ?? false)
    }

    /// 4:4:4 at quality ≥ 90, 4:2:0 below: the luma sampling factors in the frame header say which.
    func testChromaSubsamplingFollowsQuality() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let pixels = TestImages.gradient8(width: 32, height: 32, channels: 3)
        for (quality, factor) in [(92, UInt8(0x11)), (90, 0x11), (89, 0x22), (75, 0x22)] {
            let url = dir.appendingPathComponent("q\(quality).jpg")
            try JPEGWriter().write(pixels, settings: EncodeSettings(format: .jpeg, jpegQuality: quality), to: url)
            let markers = FileStructure.jpegMarkers(try Data(contentsOf: url))
            let sof = try XCTUnwrap(markers.first { $0.marker == 0xc0 || $0.marker == 0xc1 }, "q\(quality)")
            // SOF payload: precision, height(2), width(2), count, then per component: id, HV, table.
            let bytes = [UInt8](sof.payload)
            XCTAssertEqual(bytes[5], 3)
            XCTAssertEqual(bytes[7], factor, "q\(quality) luma sampling")
            XCTAssertEqual(bytes[10], 0x11)
            // No EXIF asked: the usual JFIF header comes first.
            XCTAssertEqual(markers.first?.marker, 0xe0)
        }
    }

    func testGreyIsWrittenAsOneComponent() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let pixels = TestImages.gradient8(width: 40, height: 30, channels: 1)
        let url = dir.appendingPathComponent("g.jpg")
        try JPEGWriter().write(pixels, settings: EncodeSettings(format: .jpeg), to: url)
        let file = try ImageFileReader.read(url)
        XCTAssertEqual(file.channels, 1)
        XCTAssertNil(file.iccProfile)
        XCTAssertGreaterThan(psnr(file.samples, TestImages.widened(pixels)), 40)
    }

    func testAlphaAndSixteenBitAreRefusedClearly() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let url = dir.appendingPathComponent("x.jpg")
        for pixels in [TestImages.pattern(width: 8, height: 8, channels: 4, depth: .eight),
                       TestImages.pattern(width: 8, height: 8, channels: 2, depth: .eight),
                       TestImages.pattern(width: 8, height: 8, channels: 3, depth: .sixteen)] {
            XCTAssertThrowsError(try JPEGWriter().write(pixels, settings: EncodeSettings(format: .jpeg), to: url)) { error in
                guard case LightWorkError.writeFailed(let m)? = error as? LightWorkError else { return XCTFail("\(error)") }
                XCTAssertTrue(m.contains(pixels.channels == 3 ? "8-bit" : "alpha"), m)
            }
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), [])
    }

    func testSamePixelsGiveIdenticalBytes() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let pixels = TestImages.pattern(width: 33, height: 17, channels: 3, depth: .eight)
        let settings = EncodeSettings(format: .jpeg, iccProfile: srgb, exif: exif)
        let a = dir.appendingPathComponent("a.jpg"), b = dir.appendingPathComponent("b.jpg")
        try JPEGWriter().write(pixels, settings: settings, to: a)
        try JPEGWriter().write(pixels, settings: settings, to: b)
        XCTAssertEqual(try Data(contentsOf: a), try Data(contentsOf: b))
    }

    /// Optimised Huffman tables shrink the file and decode to the same pixels (the DCT is unchanged).
    func testOptimisedCodingIsSmallerWithIdenticalPixels() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let pixels = TestImages.pattern(width: 64, height: 48, channels: 3, depth: .eight)
        let a = dir.appendingPathComponent("opt.jpg"), b = dir.appendingPathComponent("plain.jpg")
        try JPEGWriter().write(pixels, settings: EncodeSettings(format: .jpeg), to: a)
        try JPEGWriter().write(pixels, settings: EncodeSettings(format: .jpeg, jpegOptimizeCoding: false), to: b)
        XCTAssertLessThan(try Data(contentsOf: a).count, try Data(contentsOf: b).count)
        XCTAssertEqual(try ImageFileReader.read(a).samples, try ImageFileReader.read(b).samples)
    }

    func testOversizedExifIsRefused() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let pixels = TestImages.gradient8(width: 8, height: 8, channels: 3)
        let settings = EncodeSettings(format: .jpeg, exif: Data(repeating: 0, count: 70_000))
        XCTAssertThrowsError(try JPEGWriter().write(pixels, settings: settings, to: dir.appendingPathComponent("x.jpg")))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), [])
    }
}
