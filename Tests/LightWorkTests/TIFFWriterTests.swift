import CShims
import CTIFF
import Foundation
import XCTest
@testable import LightWork

final class TIFFWriterTests: XCTestCase {
    private let srgb = ICCProfile.embedded(for: .srgb)

    /// Every depth, channel layout and compression reads back sample for sample, with the tags asked for.
    func testEveryLayoutAndCompressionRoundTripsExactly() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        for depth in [EncodedPixels.Depth.eight, .sixteen] {
            for channels in 1...4 {
                for compression in TIFFCompression.allCases {
                    let label = "\(depth.rawValue)-bit \(channels)ch \(compression)"
                    let pixels = TestImages.pattern(width: 37, height: 23, channels: channels, depth: depth)
                    let url = dir.appendingPathComponent("\(depth.rawValue)-\(channels)-\(compression).tif")
                    let profile = TestImages.profile(channels: channels)
                    let settings = EncodeSettings(format: depth == .eight ? .tiff8 : .tiff16, tiffCompression: compression, iccProfile: profile)
                    try TIFFWriter().write(pixels, settings: settings, to: url)

                    let file = try ImageFileReader.read(url)
                    XCTAssertEqual(file.format, .tiff, label)
                    XCTAssertEqual(file.width, 37, label)
                    XCTAssertEqual(file.height, 23, label)
                    XCTAssertEqual(file.channels, channels, label)
                    XCTAssertEqual(file.bitDepth, depth.rawValue, label)
                    XCTAssertEqual(file.samples, TestImages.widened(pixels), label)
                    XCTAssertEqual(file.iccProfile, profile, label)
                    let info = try XCTUnwrap(file.tiff)
                    XCTAssertFalse(info.readAsRGBA, label)
                    XCTAssertEqual(info.compression, compression.tagValue, label)
                    XCTAssertEqual(info.predictor ?? 1, compression == .none ? 1 : 2, label)
                    XCTAssertEqual(info.orientation, 1, label)
                    XCTAssertEqual(info.software, "LightWork", label)
                    XCTAssertFalse(info.hasDateTime, label)
                    XCTAssertEqual(info.extraSamples, channels == 2 || channels == 4 ? [2] : [], label)

                    // The same facts straight from the IFD bytes, without libtiff.
                    let tags = FileStructure.tiffTags(try Data(contentsOf: url))
                    XCTAssertEqual(tags[259]?.value, UInt32(compression.tagValue), label)   // Compression
                    XCTAssertEqual(tags[262]?.value, channels >= 3 ? 2 : 1, label)          // Photometric RGB / BlackIsZero
                    XCTAssertEqual(tags[274]?.value, 1, label)                               // Orientation
                    XCTAssertEqual(tags[34675]?.count, UInt32(profile.count), label)            // ICC profile
                    XCTAssertNil(tags[306], "DateTime must not be written (\(label))")
                }
            }
        }
    }

    /// Deflate of several strips decodes to the same samples as the uncompressed file, and is smaller.
    func testDeflateMatchesUncompressedOverManyStrips() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let pixels = TestImages.pattern(width: 700, height: 300, channels: 3, depth: .sixteen)
        let plain = dir.appendingPathComponent("plain.tif")
        let deflate = dir.appendingPathComponent("deflate.tif")
        try TIFFWriter().write(pixels, settings: EncodeSettings(tiffCompression: .none), to: plain)
        try TIFFWriter().write(pixels, settings: EncodeSettings(tiffCompression: .deflate), to: deflate)
        let a = try ImageFileReader.read(plain)
        let b = try ImageFileReader.read(deflate)
        let rowsPerStrip = try XCTUnwrap(b.tiff?.rowsPerStrip)
        XCTAssertLessThan(Int(rowsPerStrip), 300, "the image should span several strips")
        XCTAssertTrue((256 * 1024...1024 * 1024).contains(Int(rowsPerStrip) * 700 * 6), "strip of \(rowsPerStrip) rows")
        XCTAssertEqual(a.samples, b.samples)
        XCTAssertEqual(b.samples, pixels.samples16)
        let plainSize = try FileManager.default.attributesOfItem(atPath: plain.path)[.size] as! Int
        let deflateSize = try FileManager.default.attributesOfItem(atPath: deflate.path)[.size] as! Int
        XCTAssertGreaterThanOrEqual(plainSize, 700 * 300 * 6)
        XCTAssertLessThan(deflateSize, plainSize / 2, "the regular pattern compresses well with the predictor")
    }

    /// Deflate strips are compressed on every thread outside libtiff: each must be the very strip libtiff's own
    /// codec makes from the same rows (predictor 2, libdeflate at the same level), in 8 and 16 bits, for noisy data.
    func testParallelDeflateStripsAreLibTIFFsOwnBytes() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        var random = SeededRandom(seed: 7)
        for depth in [EncodedPixels.Depth.eight, .sixteen] {
            var pixels = TestImages.pattern(width: 523, height: 1111, channels: 3, depth: depth)
            // Noise in every third sample, so that strips compress differently and to realistic sizes.
            for i in stride(from: 0, to: pixels.samples8.count, by: 3) { pixels.samples8[i] = UInt8(truncatingIfNeeded: random.next()) }
            for i in stride(from: 0, to: pixels.samples16.count, by: 3) { pixels.samples16[i] = UInt16(truncatingIfNeeded: random.next()) }
            let ours = dir.appendingPathComponent("ours-\(depth.rawValue).tif")
            try TIFFWriter().write(pixels, settings: EncodeSettings(tiffCompression: .deflate), to: ours)

            // The same rows through TIFFWriteEncodedStrip, with the strip height LightWork chose.
            let reference = dir.appendingPathComponent("libtiff-\(depth.rawValue).tif")
            let read = try XCTUnwrap(TIFFOpen(ours.path, "r"))
            defer { TIFFClose(read) }
            var rowsPerStrip: UInt32 = 0
            XCTAssertEqual(lw_tiff_get_u32(read, UInt32(TIFFTAG_ROWSPERSTRIP), &rowsPerStrip), 1)
            let out = try XCTUnwrap(TIFFOpen(reference.path, "w"))
            let rowBytes = 523 * 3 * (depth == .eight ? 1 : 2)
            var ok = lw_tiff_set_u32(out, UInt32(TIFFTAG_IMAGEWIDTH), 523) != 0 && lw_tiff_set_u32(out, UInt32(TIFFTAG_IMAGELENGTH), 1111) != 0
            ok = ok && lw_tiff_set_u16(out, UInt32(TIFFTAG_BITSPERSAMPLE), UInt16(depth.rawValue)) != 0
            ok = ok && lw_tiff_set_u16(out, UInt32(TIFFTAG_SAMPLESPERPIXEL), 3) != 0
            ok = ok && lw_tiff_set_u16(out, UInt32(TIFFTAG_PHOTOMETRIC), UInt16(PHOTOMETRIC_RGB)) != 0
            ok = ok && lw_tiff_set_u16(out, UInt32(TIFFTAG_PLANARCONFIG), UInt16(PLANARCONFIG_CONTIG)) != 0
            ok = ok && lw_tiff_set_u32(out, UInt32(TIFFTAG_ROWSPERSTRIP), rowsPerStrip) != 0
            ok = ok && lw_tiff_set_u16(out, UInt32(TIFFTAG_COMPRESSION), UInt16(COMPRESSION_ADOBE_DEFLATE)) != 0
            ok = ok && lw_tiff_set_u16(out, UInt32(TIFFTAG_PREDICTOR), UInt16(PREDICTOR_HORIZONTAL)) != 0
            ok = ok && lw_tiff_set_u32(out, UInt32(TIFFTAG_ZIPQUALITY), TIFFWriter.deflateLevel) != 0
            XCTAssertTrue(ok)
            let strips = (1111 + Int(rowsPerStrip) - 1) / Int(rowsPerStrip)
            XCTAssertGreaterThan(strips, 2)
            pixels.withRawBytes { raw in
                for strip in 0..<strips {
                    let start = strip * Int(rowsPerStrip) * rowBytes, count = min(Int(rowsPerStrip) * rowBytes, raw.count - start)
                    var copy = [UInt8](raw[start..<(start + count)])
                    XCTAssertGreaterThan(TIFFWriteEncodedStrip(out, UInt32(strip), &copy, tmsize_t(count)), 0)
                }
            }
            TIFFClose(out)
            let check = try XCTUnwrap(TIFFOpen(reference.path, "r"))
            defer { TIFFClose(check) }
            for strip in 0..<UInt32(strips) {
                let size = Int(TIFFRawStripSize(read, strip))
                XCTAssertEqual(size, Int(TIFFRawStripSize(check, strip)), "strip \(strip), \(depth.rawValue)-bit")
                var a = [UInt8](repeating: 0, count: size), b = [UInt8](repeating: 0, count: size)
                XCTAssertEqual(TIFFReadRawStrip(read, strip, &a, tmsize_t(size)), tmsize_t(size))
                XCTAssertEqual(TIFFReadRawStrip(check, strip, &b, tmsize_t(size)), tmsize_t(size))
                XCTAssertEqual(a, b, "strip \(strip), \(depth.rawValue)-bit")
            }
            XCTAssertEqual(try ImageFileReader.read(ours).samples, try ImageFileReader.read(reference).samples)
        }
    }

    /// The writer must not change the caller's pixels (libtiff's predictor works in place).
    func testCompressionLeavesInputUntouched() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let pixels = TestImages.pattern(width: 64, height: 16, channels: 4, depth: .sixteen)
        let copy = pixels.samples16
        try TIFFWriter().write(pixels, settings: EncodeSettings(tiffCompression: .lzw), to: dir.appendingPathComponent("a.tif"))
        XCTAssertEqual(pixels.samples16, copy)
    }

    func testSamePixelsGiveIdenticalBytes() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let pixels = TestImages.pattern(width: 50, height: 40, channels: 4, depth: .sixteen)
        for compression in TIFFCompression.allCases {
            let settings = EncodeSettings(tiffCompression: compression, iccProfile: srgb)
            let a = dir.appendingPathComponent("a-\(compression).tif")
            let b = dir.appendingPathComponent("b-\(compression).tif")
            try TIFFWriter().write(pixels, settings: settings, to: a)
            try TIFFWriter().write(pixels, settings: settings, to: b)
            XCTAssertEqual(try Data(contentsOf: a), try Data(contentsOf: b), "\(compression)")
        }
    }

    func testProfileOfTheWrongColourSpaceIsRefused() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let grey = TestImages.pattern(width: 4, height: 4, channels: 1, depth: .sixteen)
        let url = dir.appendingPathComponent("g.tif")
        XCTAssertThrowsError(try TIFFWriter().write(grey, settings: EncodeSettings(iccProfile: srgb), to: url)) { error in
            XCTAssertEqual(error as? LightWorkError, .writeFailed("the ICC profile is for 'RGB' but the image is grey"))
        }
        let rgb = TestImages.pattern(width: 4, height: 4, channels: 3, depth: .sixteen)
        XCTAssertThrowsError(try TIFFWriter().write(rgb, settings: EncodeSettings(iccProfile: TestImages.greyProfile), to: url))
        XCTAssertFalse(FileManager.default.fileExists(atPath: url.path))
    }

    func testMismatchedBufferIsRefusedWithoutAFile() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        var pixels = TestImages.pattern(width: 10, height: 10, channels: 3, depth: .eight)
        pixels.samples8.removeLast()
        let url = dir.appendingPathComponent("bad.tif")
        XCTAssertThrowsError(try TIFFWriter().write(pixels, settings: EncodeSettings(), to: url)) { error in
            guard case LightWorkError.writeFailed(let m)? = error as? LightWorkError else { return XCTFail("\(error)") }
            XCTAssertTrue(m.contains("299 samples"), m)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), [])
    }
}
