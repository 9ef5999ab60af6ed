import Foundation
import XCTest
@testable import LightWork

/// WebP in and out (issue 23, items 1 and 2). Inputs are made by libwebp's own cwebp and webpmux from PNG truth;
/// outputs are decoded by dwebp and compared with the TIFF render of the same input; chunks read back by webpmux
/// and exiftool.
final class WebPCodecTests: CodecFileTestCase {
    /// `png` through cwebp with `args`.
    func cwebp(_ png: URL, _ name: String, _ args: [String]) throws -> URL {
        try CodecTools.run("cwebp", ["-quiet"] + args + [png.path, "-o", url(name).path])
        return url(name)
    }

    func decode(_ u: URL) throws -> DecodedImage { try decode(u, as: WebPCodec.self) }

    // MARK: Input

    func testLosslessInputsAreExactAndProbesReadTheHeader() throws {
        for channels in [3, 4] {
            let truth = try CodecTools.png(CodecTools.picture(width: 97, height: 61, channels: channels), at: url("truth\(channels).png"))
            let webp = try cwebp(truth, "lossless\(channels).webp", ["-lossless", "-exact"])
            let decoded = try decode(webp), reference = try pngDecode(truth)
            XCTAssertEqual(decoded.image.hasAlpha, channels == 4)
            XCTAssertEqual(decoded.details["encoding"], "lossless (VP8L)")
            XCTAssertEqual(CodecTools.file(decoded.image).samples, CodecTools.file(reference.image).samples, "lossless WebP, \(channels) channels")
            let file = FileBytes(try Data(contentsOf: webp))
            XCTAssertEqual(WebPCodec().pixelCount(file), 97 * 61)
            XCTAssertEqual(WebPCodec().completeness(file), .complete)
        }
    }

    func testLossyInputsWithinDeltaEAndAlphaExact() throws {
        let truth = try CodecTools.png(CodecTools.picture(width: 256, height: 192, channels: 4), at: url("truth.png"))
        // cwebp keeps alpha losslessly by default (-alpha_q 100).
        let webp = try cwebp(truth, "lossy.webp", ["-q", "90"])
        let decoded = try decode(webp), reference = try pngDecode(truth)
        XCTAssertEqual(decoded.details["encoding"], "lossy (VP8)")
        let stats = try CodecTools.deltaE(CodecTools.file(reference.image), CodecTools.file(decoded.image), "cwebp -q 90 decoded")
        XCTAssertLessThan(stats.mean, 1.0)
        XCTAssertLessThan(stats.max, 6.0)
        XCTAssertEqual(CodecTools.maxDifference(CodecTools.file(reference.image), CodecTools.file(decoded.image), channel: 3), 0, "alpha")
        XCTAssertEqual(WebPCodec().pixelCount(FileBytes(try Data(contentsOf: webp))), 256 * 192)
    }

    func testICCChunkAndEXIFOrientationAreApplied() throws {
        // The same pixels as a PNG with the same profile and EXIF are the truth: the PNG path is tested on its own.
        let p3 = ICCProfile.embedded(for: .displayP3)
        var exif = EXIFBuilder()
        exif.ifd0 = [(0x0112, .short(6)), (0x010F, .ascii("Fujifilm")), (0x0110, .ascii("X-T5"))]
        exif.exif = [(0x9003, .ascii("2026:05:04 10:11:12"))]
        let exifBlock = exif.build()
        let pixels = CodecTools.picture(width: 40, height: 24, channels: 3)
        let plain = try CodecTools.png(pixels, at: url("plain.png"))
        let truth = try CodecTools.png(pixels, at: url("truth.png"), icc: p3, exif: exifBlock)
        let bare = try cwebp(plain, "bare.webp", ["-lossless", "-exact"])
        try exifBlock.write(to: url("exif.bin"))
        try p3.write(to: url("p3.icc"))
        try CodecTools.run("webpmux", ["-set", "icc", url("p3.icc").path, bare.path, "-o", url("icc.webp").path])
        try CodecTools.run("webpmux", ["-set", "exif", url("exif.bin").path, url("icc.webp").path, "-o", url("full.webp").path])
        let decoded = try decode(url("full.webp")), reference = try pngDecode(truth)
        XCTAssertEqual(decoded.image.width, 24, "orientation 6 turns the picture upright")
        XCTAssertEqual(decoded.sourceProfile, reference.sourceProfile)
        XCTAssertEqual(CodecTools.file(decoded.image).samples, CodecTools.file(reference.image).samples)
        XCTAssertEqual(decoded.metadata.model, "X-T5")
        let info = WebPCodec().captureInfo(FileBytes(try Data(contentsOf: url("full.webp"))))
        XCTAssertEqual(info?.make, "Fujifilm")
        XCTAssertEqual(info?.dateTimeOriginal, "2026:05:04 10:11:12")
    }

    func testBadFilesFailWithOneLine() throws {
        let truth = try CodecTools.png(CodecTools.picture(width: 64, height: 64, channels: 3), at: url("truth.png"))
        let good = try Data(contentsOf: try cwebp(truth, "good.webp", ["-q", "80"]))
        var corrupt = good
        for i in 40..<min(corrupt.count, 200) { corrupt[i] ^= 0x5A }
        let cases: [(String, Data)] = [("truncated", good.prefix(good.count / 2)), ("header only", good.prefix(30)), ("corrupt", corrupt)]
        for (name, data) in cases {
            XCTAssertTrue(WebPCodec().matches(FileBytes(data)), name)
            do {
                let d = try WebPCodec().decode(data: data, url: url(name), options: DecodeOptions(), engine: .detected)
                XCTFail("\(name) decoded as \(d.image.width)×\(d.image.height)")
            } catch let error as LightWorkError {
                XCTAssertFalse(error.description.contains("\n"), error.description)
                print("\(name): \(error.description)")
            }
        }
        XCTAssertNotEqual(WebPCodec().completeness(FileBytes(good.prefix(good.count / 2))), .complete)
    }

    // MARK: Output

    /// scene.dng rendered to TIFF (8-bit) and WebP (lossy default, lossy q 95, lossless), each WebP decoded by dwebp.
    func testOutputsDecodedByDwebpMatchTheTIFFRender() throws {
        let tiff = try convertSample("scene.dng") { $0.export.format = .tiff8 }
        let golden = try ImageFileReader.read(tiff)
        var sizes: [String] = []
        for (label, options) in [("lossy default", [:]), ("lossy q95", ["quality": "95"]), ("lossless", ["lossless": "true"])] as [(String, [String: String])] {
            let out = try convertSample("scene.dng") { spec in
                spec.export.format = .webp
                spec.export.options = CodecOptionValues(options)
            }
            XCTAssertEqual(WebPCodec().matches(FileBytes(try Data(contentsOf: out))), true)
            try CodecTools.run("dwebp", ["-quiet", out.path, "-o", url("\(label).png").path])
            let decoded = try ImageFileReader.read(url("\(label).png"))
            XCTAssertEqual(decoded.width, golden.width)
            let whole = try CodecTools.deltaE(golden, decoded, "WebP \(label) (dwebp) vs TIFF, whole frame")
            let chart = try CodecTools.deltaE(CodecTools.left(golden), CodecTools.left(decoded), "WebP \(label) (dwebp) vs TIFF, chart")
            if label == "lossless" {
                XCTAssertEqual(decoded.samples, golden.samples, "lossless WebP holds the 8-bit render exactly")
            } else {
                XCTAssertLessThan(whole.mean, 4)
                // Measured (mean / p99): default 0.59 / 5.8, q95 0.55 / 5.4; the p99 is 4:2:0 chroma at the patches' edges.
                XCTAssertLessThan(chart.mean, 1.2)
                XCTAssertLessThan(chart.p99, 9)
            }
            // The profile and EXIF chunks, read back by libwebp's muxer and by exiftool.
            try CodecTools.run("webpmux", ["-get", "icc", out.path, "-o", url("\(label).icc").path])
            XCTAssertEqual(try Data(contentsOf: url("\(label).icc")), ICCProfile.embedded(for: .srgb))
            let tags = try CodecTools.run("exiftool", ["-s3", "-n", "-Orientation", "-ProfileDescription", out.path])
            XCTAssertEqual(tags.split(separator: "\n").map(String.init), ["1", OutputColorSpace.srgb.profileDescription])
            let readBack = try ImageFileReader.read(out)
            XCTAssertEqual(readBack.iccProfile, ICCProfile.embedded(for: .srgb))
            XCTAssertEqual(readBack.metadata?.orientation, 1)
            sizes.append("\(label) \(try Data(contentsOf: out).count) bytes")
        }
        print("WebP sizes of scene.dng (\(golden.width)×\(golden.height)): \(sizes.joined(separator: ", "))")
    }

    func testAlphaOutputsAndDeterminism() throws {
        let pixels = CodecTools.picture(width: 120, height: 80, channels: 4)
        var settings = EncodeSettings(format: .webp, iccProfile: ICCProfile.embedded(for: .srgb), exif: EXIFWriter.blob(for: ImageMetadata()))
        for lossless in [true, false] {
            settings.options = CodecOptionValues(["lossless": String(lossless)])
            let one = url("a-\(lossless)-1.webp"), two = url("a-\(lossless)-2.webp")
            try WebPWriter(engine: EngineConfiguration(threads: 1)).write(pixels, settings: settings, to: one)
            try WebPWriter(engine: EngineConfiguration(threads: 2)).write(pixels, settings: settings, to: two)
            XCTAssertEqual(try Data(contentsOf: one), try Data(contentsOf: two), "the same bytes at 1 and 2 threads")
            try CodecTools.run("dwebp", ["-quiet", one.path, "-o", url("a.png").path])
            let decoded = try ImageFileReader.read(url("a.png"))
            let truth = ImageFile(format: .png, width: 120, height: 80, channels: 4, bitDepth: 8, iccProfile: nil, exif: nil,
                                  samples: pixels.samples8.map(UInt16.init))
            XCTAssertEqual(decoded.channels, 4)
            XCTAssertEqual(CodecTools.maxDifference(truth, decoded, channel: 3), 0, "alpha is lossless (lossless: \(lossless))")
            if lossless { XCTAssertEqual(decoded.samples, truth.samples) }
        }
    }

    func testOptionsAreTheCodecsOwn() throws {
        var settings = EncodeSettings(format: .webp)
        XCTAssertThrowsError(try settings.setOptions(["quality": "101"], from: .commandLine))
        XCTAssertThrowsError(try settings.setOptions(["lossless": "maybe"], from: .commandLine))
        try settings.setOptions(["quality": "0", "lossless": "true"], from: .commandLine)
        XCTAssertEqual(settings.options.int(WebPCodec.quality), 0)
        XCTAssertTrue(settings.options.flag(WebPCodec.lossless))
        var jpeg = EncodeSettings(format: .jpeg)
        XCTAssertThrowsError(try jpeg.setOptions(["lossless": "true"], from: .commandLine))
        XCTAssertEqual(CodecRegistry.outputFormat(named: "webp"), .webp)
    }
}
