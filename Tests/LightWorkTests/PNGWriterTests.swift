import Foundation
import XCTest
@testable import LightWork

final class PNGWriterTests: XCTestCase {
    private let srgb = ICCProfile.embedded(for: .srgb)
    private let exif = Data([0x49, 0x49, 0x2a, 0x00, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0])

    func testEveryDepthAndLayoutRoundTripsExactly() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        for depth in [EncodedPixels.Depth.eight, .sixteen] {
            for channels in 1...4 {
                let label = "\(depth.rawValue)-bit \(channels)ch"
                let pixels = TestImages.pattern(width: 41, height: 19, channels: channels, depth: depth)
                let url = dir.appendingPathComponent("\(depth.rawValue)-\(channels).png")
                let profile = TestImages.profile(channels: channels)
                let settings = EncodeSettings(format: depth == .eight ? .png : .png16, iccProfile: profile, exif: exif)
                try PNGWriter().write(pixels, settings: settings, to: url)
                let file = try ImageFileReader.read(url)
                XCTAssertEqual(file.format, .png, label)
                XCTAssertEqual([file.width, file.height, file.channels, file.bitDepth], [41, 19, channels, depth.rawValue], label)
                XCTAssertEqual(file.samples, TestImages.widened(pixels), label)
                XCTAssertEqual(file.iccProfile, profile, label)
                XCTAssertEqual(file.exif, exif, label)

                // From the chunk bytes: IHDR depth and colour type, iCCP keyword, no tIME.
                let chunks = FileStructure.pngChunks(try Data(contentsOf: url))
                let ihdr = [UInt8](try XCTUnwrap(chunks.first { $0.type == "IHDR" }).data)
                XCTAssertEqual(ihdr[8], UInt8(depth.rawValue), label)
                XCTAssertEqual(ihdr[9], [0, 4, 2, 6][channels - 1], label)
                let iccp = try XCTUnwrap(chunks.first { $0.type == "iCCP" }, label).data
                XCTAssertEqual(String(decoding: iccp.prefix { $0 != 0 }, as: UTF8.self),
                               channels <= 2 ? "gray built-in" : "LightWork sRGB IEC61966-2.1", label)  // LittleCMS names its grey profile so
                XCTAssertFalse(chunks.contains { $0.type == "tIME" }, label)
                XCTAssertEqual(chunks.last?.type, "IEND", label)
            }
        }
    }

    /// 16-bit samples are stored big-endian, as PNG requires: the first sample's bytes in the IDAT
    /// stream cannot be read without inflating, so check through a single-pixel uncompressed-ish image.
    func testSixteenBitSamplesAreBigEndianInTheFile() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        var pixels = EncodedPixels(width: 1, height: 1, channels: 1, depth: .sixteen)
        pixels.samples16[0] = 0x1234
        let url = dir.appendingPathComponent("one.png")
        try PNGWriter().write(pixels, settings: EncodeSettings(format: .png16, pngCompressionLevel: 0), to: url)
        // Level 0 stores the deflate block raw: filter byte, then the sample, high byte first.
        let idat = [UInt8](try XCTUnwrap(FileStructure.pngChunks(try Data(contentsOf: url)).first { $0.type == "IDAT" }).data)
        let row = Array(idat[(idat.count - 4 - 3)..<(idat.count - 4)])   // before the Adler-32
        XCTAssertEqual(row[1...], [0x12, 0x34])
        XCTAssertEqual(try ImageFileReader.read(url).samples, [0x1234])
    }

    func testSamePixelsGiveIdenticalBytes() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let pixels = TestImages.pattern(width: 60, height: 20, channels: 4, depth: .sixteen)
        let settings = EncodeSettings(format: .png16, iccProfile: srgb)
        let a = dir.appendingPathComponent("a.png"), b = dir.appendingPathComponent("b.png")
        try PNGWriter().write(pixels, settings: settings, to: a)
        try PNGWriter().write(pixels, settings: settings, to: b)
        XCTAssertEqual(try Data(contentsOf: a), try Data(contentsOf: b))
    }

    func testProfileNameComesFromTheDescription() {
        XCTAssertEqual(PNGWriter.profileName(ICCProfile.embedded(for: .adobeRGB)), "LightWork Compatible with Adobe RGB (1998)")
        XCTAssertEqual(PNGWriter.profileName(Data([1, 2, 3])), "ICC profile")
    }
}
