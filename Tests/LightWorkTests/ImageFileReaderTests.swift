import CShims
import CTIFF
import Foundation
import XCTest
@testable import LightWork

final class ImageFileReaderTests: XCTestCase {
    private func sample(_ name: String) throws -> URL {
        try TestPaths.sharedSamples("rgb").appendingPathComponent(name)
    }

    private func description(_ icc: Data?) -> String? { icc.flatMap { ICCProfile(data: $0)?.profileDescription } }

    func testDisplayP3JPEGFromACameraWorkflow() throws {
        let file = try ImageFileReader.read(try sample("display-p3-iceland.jpg"))
        XCTAssertEqual([file.width, file.height, file.channels, file.bitDepth], [600, 400, 3, 8])
        XCTAssertEqual(description(file.iccProfile), "Display P3")
        let exif = try XCTUnwrap(file.exif)
        XCTAssertTrue(exif.starts(with: [0x4d, 0x4d, 0x00, 0x2a]) || exif.starts(with: [0x49, 0x49, 0x2a, 0x00]))
        XCTAssertEqual(file.samples.count, 600 * 400 * 3)
        XCTAssertLessThanOrEqual(file.samples.max()!, 255)
    }

    func testGreyJPEGWithGreyProfile() throws {
        let file = try ImageFileReader.read(try sample("gray-gamma22-concert.jpg"))
        XCTAssertEqual([file.width, file.height, file.channels], [400, 267, 1])
        let icc = try XCTUnwrap(file.iccProfile)
        XCTAssertEqual(String(decoding: icc[16..<20], as: UTF8.self), "GRAY")
    }

    /// The profile spans several APP2 markers and the file is progressive.
    func testProgressiveJPEGWithMultiChunkProfile() throws {
        let url = try sample("progressive-big-icc.jpg")
        let file = try ImageFileReader.read(url)
        XCTAssertEqual([file.width, file.height], [425, 250])
        let app2 = FileStructure.jpegMarkers(try Data(contentsOf: url)).filter { $0.marker == 0xe2 }
        XCTAssertGreaterThan(app2.count, 1)
        // Each chunk: "ICC_PROFILE\0", sequence number, count, then its part of the profile.
        XCTAssertEqual(file.iccProfile?.count, app2.reduce(0) { $0 + $1.payload.count - 14 })
        XCTAssertNotNil(ICCProfile(data: file.iccProfile!))
    }

    func testCMYKJPEGIsRefused() throws {
        XCTAssertThrowsError(try ImageFileReader.read(try sample("cmyk-swop-profile.jpg"))) { error in
            guard case LightWorkError.decodeFailed(let m)? = error as? LightWorkError else { return XCTFail("\(error)") }
            XCTAssertTrue(m.contains("CMYK"), m)
        }
    }

    func testPNGWithAlphaAndProfile() throws {
        let file = try ImageFileReader.read(try sample("iccp-srgb.png"))
        XCTAssertEqual([file.width, file.height, file.channels, file.bitDepth], [57, 57, 4, 8])
        XCTAssertEqual(description(file.iccProfile), "sRGB IEC61966-2.1")
    }

    /// The 16-bit Dutch flag: red band on top, white middle, blue bottom.
    func testSixteenBitPNGKeepsSixteenBits() throws {
        let file = try ImageFileReader.read(try sample("rgb16-flag-gama-chrm.png"))
        XCTAssertEqual([file.width, file.height, file.channels, file.bitDepth], [900, 600, 3, 16])
        XCTAssertNil(file.iccProfile)
        let top = (0..<3).map { file.sample(x: 450, y: 10, channel: $0) }
        let middle = (0..<3).map { file.sample(x: 450, y: 300, channel: $0) }
        let bottom = (0..<3).map { file.sample(x: 450, y: 590, channel: $0) }
        XCTAssertGreaterThan(top[0], 30000)
        XCTAssertLessThan(top[1], 20000)
        XCTAssertEqual(middle, [65535, 65535, 65535])
        XCTAssertGreaterThan(bottom[2], bottom[0])
        XCTAssertGreaterThan(file.samples.filter { $0 & 0xff != 0 && $0 != 65535 }.count, 0, "low bytes are really used")
    }

    /// A tiled TIFF (as other tools write) is read through libtiff's RGBA path.
    func testTiledTIFFFromAnotherWriter() throws {
        let url = try TestPaths.temporaryDirectory(self).appendingPathComponent("tiled.tif")
        lw_tiff_quiet()
        let tif = try XCTUnwrap(TIFFOpen(url.path, "w"))
        _ = lw_tiff_set_u32(tif, UInt32(TIFFTAG_IMAGEWIDTH), 32)
        _ = lw_tiff_set_u32(tif, UInt32(TIFFTAG_IMAGELENGTH), 32)
        _ = lw_tiff_set_u16(tif, UInt32(TIFFTAG_BITSPERSAMPLE), 8)
        _ = lw_tiff_set_u16(tif, UInt32(TIFFTAG_SAMPLESPERPIXEL), 3)
        _ = lw_tiff_set_u16(tif, UInt32(TIFFTAG_PHOTOMETRIC), UInt16(PHOTOMETRIC_RGB))
        _ = lw_tiff_set_u16(tif, UInt32(TIFFTAG_PLANARCONFIG), UInt16(PLANARCONFIG_CONTIG))
        _ = lw_tiff_set_u32(tif, UInt32(TIFFTAG_TILEWIDTH), 16)
        _ = lw_tiff_set_u32(tif, UInt32(TIFFTAG_TILELENGTH), 16)
        for tile in 0..<4 {
            var bytes = [UInt8](repeating: 0, count: 16 * 16 * 3)
            for i in 0..<(16 * 16) { bytes[i * 3] = UInt8(tile * 60); bytes[i * 3 + 1] = 7; bytes[i * 3 + 2] = 200 }
            XCTAssertGreaterThan(TIFFWriteEncodedTile(tif, UInt32(tile), &bytes, tmsize_t(bytes.count)), 0)
        }
        TIFFClose(tif)

        let file = try ImageFileReader.read(url)
        XCTAssertEqual(file.tiff?.readAsRGBA, true)
        XCTAssertEqual([file.width, file.height, file.channels, file.bitDepth], [32, 32, 4, 8])
        // Tiles are numbered row by row: tile 1 is top-right, tile 2 bottom-left.
        XCTAssertEqual((0..<4).map { file.sample(x: 20, y: 3, channel: $0) }, [60, 7, 200, 255])
        XCTAssertEqual((0..<4).map { file.sample(x: 3, y: 20, channel: $0) }, [120, 7, 200, 255])
    }

    func testNonImagesFailClearly() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let empty = dir.appendingPathComponent("empty.png")
        try Data().write(to: empty)
        XCTAssertThrowsError(try ImageFileReader.read(empty)) { XCTAssertEqual($0 as? LightWorkError, .emptyFile) }
        let text = dir.appendingPathComponent("notes.tif")
        try Data("hello".utf8).write(to: text)
        XCTAssertThrowsError(try ImageFileReader.read(text)) {
            guard case LightWorkError.unsupportedFormat? = $0 as? LightWorkError else { return XCTFail("\($0)") }
        }
        XCTAssertThrowsError(try ImageFileReader.read(dir.appendingPathComponent("absent.jpg"))) {
            guard case LightWorkError.missingInput? = $0 as? LightWorkError else { return XCTFail("\($0)") }
        }
        // A JPEG cut short (libjpeg alone would only warn and return grey).
        let jpeg = try Data(contentsOf: try sample("display-p3-iceland.jpg"))
        let cutJPEG = dir.appendingPathComponent("cut.jpg")
        try jpeg.prefix(jpeg.count * 2 / 3).write(to: cutJPEG)
        XCTAssertThrowsError(try ImageFileReader.read(cutJPEG)) {
            guard case LightWorkError.decodeFailed(let m)? = $0 as? LightWorkError else { return XCTFail("\($0)") }
            XCTAssertTrue(m.contains("libjpeg"), m)
        }
        // A PNG cut in the middle of its pixel data.
        let png = try Data(contentsOf: try sample("iccp-srgb.png"))
        let cut = dir.appendingPathComponent("cut.png")
        try png.prefix(png.count / 2).write(to: cut)
        XCTAssertThrowsError(try ImageFileReader.read(cut)) {
            guard case LightWorkError.decodeFailed(let m)? = $0 as? LightWorkError else { return XCTFail("\($0)") }
            XCTAssertTrue(m.contains("libpng"), m)
        }
    }
}
