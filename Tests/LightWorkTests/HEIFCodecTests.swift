import CHeif
import Foundation
import XCTest
@testable import LightWork

/// HEIF/HEIC in and out (issue 23, items 1 and 2). Inputs are made by libheif's own heif-enc (and, for an irot
/// transform, by libheif's encoding API) from PNG truth; outputs are decoded by heif-convert and compared with the
/// TIFF render of the same input; the profile, nclx and EXIF read back by exiftool.
final class HEIFCodecTests: CodecFileTestCase {
    func heifEnc(_ png: URL, _ name: String, _ args: [String]) throws -> URL {
        try CodecTools.run("heif-enc", args + [png.path, "-o", url(name).path])
        return url(name)
    }

    func decode(_ u: URL) throws -> DecodedImage { try decode(u, as: HEIFCodec.self) }

    /// heif-convert's PNG of `heic`, read back.
    func heifConvert(_ heic: URL, _ name: String) throws -> ImageFile {
        try CodecTools.run("heif-convert", ["-q", "100", heic.path, url(name).path])
        return try ImageFileReader.read(url(name))
    }

    // MARK: Input

    func testEightTenBitAndAlphaInputsFromHeifEnc() throws {
        let truth = try CodecTools.png(CodecTools.picture(width: 128, height: 96, channels: 4), at: url("truth.png"))
        let reference = CodecTools.file(try pngDecode(truth).image)
        let heic = try heifEnc(truth, "rgba.heic", ["-q", "95"])
        let decoded = try decode(heic)
        XCTAssertEqual(decoded.details["bit depth"], "8")
        XCTAssertTrue(decoded.image.hasAlpha)
        let stats = try CodecTools.deltaE(reference, CodecTools.file(decoded.image), "heif-enc -q 95, 8-bit, decoded")
        XCTAssertLessThan(stats.mean, 1.5)
        XCTAssertLessThan(stats.p99, 4)
        let alpha = CodecTools.maxDifference(reference, CodecTools.file(decoded.image), channel: 3)
        print("heif-enc -q 95 alpha: largest difference \(alpha)/65535")
        XCTAssertLessThan(alpha, 8 * 257)
        XCTAssertEqual(HEIFCodec().pixelCount(FileBytes(try Data(contentsOf: heic))), 128 * 96)

        // 10 bits: a ramp of 1024 steps across keeps about 1024 levels, which an 8-bit path could not.
        var ramp = EncodedPixels(width: 1024, height: 16, channels: 3, depth: .sixteen)
        for y in 0..<16 { for x in 0..<1024 { for c in 0..<3 { ramp.samples16[(y * 1024 + x) * 3 + c] = UInt16(x * 64 + (c == 2 ? 32 : 0)) } } }
        let ramp16 = try CodecTools.png(ramp, at: url("ramp16.png"))
        let deep = try decode(try heifEnc(ramp16, "ramp10.heic", ["-b", "10", "-q", "98"]))
        XCTAssertEqual(deep.details["bit depth"], "10")
        let file = CodecTools.file(deep.image)
        let levels = Set((0..<1024).map { file.samples[(8 * 1024 + $0) * 3] }).count
        print("10-bit HEIF ramp of 1024 steps: \(levels) distinct levels decoded")
        XCTAssertGreaterThan(levels, 600)
        let deepStats = try CodecTools.deltaE(CodecTools.file(try pngDecode(ramp16).image), file, "heif-enc -b 10 -q 98 ramp")
        XCTAssertLessThan(deepStats.mean, 0.5)
    }

    func testICCAndNclxColourAreApplied() throws {
        let pixels = CodecTools.picture(width: 96, height: 64, channels: 3)
        let p3 = ICCProfile.embedded(for: .displayP3)
        let truthP3 = try CodecTools.png(pixels, at: url("p3.png"), icc: p3)
        let reference = try pngDecode(truthP3)
        // heif-enc copies the PNG's iCCP into a `prof` colr box.
        let icc = try decode(try heifEnc(truthP3, "icc.heic", ["-q", "95"]))
        XCTAssertTrue(icc.sourceProfile.contains("Display P3"), icc.sourceProfile)
        let s1 = try CodecTools.deltaE(CodecTools.file(reference.image), CodecTools.file(icc.image), "HEIC with a Display P3 ICC profile")
        XCTAssertLessThan(s1.mean, 2.5)
        // The same colours said by nclx code points 12/13/6 (Display P3 primaries, sRGB transfer) instead, written
        // by libheif's API (heif-enc 1.15 drops nclx: its macOS workaround).
        let plain = try CodecTools.png(pixels, at: url("plain.png"))
        try Self.encodeWithLibheif(pixels, nclx: (12, 13, 6), to: url("nclx.heic"))
        let nclx = try decode(url("nclx.heic"))
        XCTAssertEqual(nclx.details["colour"], "nclx 12/13/6 full range")
        let s2 = try CodecTools.deltaE(CodecTools.file(reference.image), CodecTools.file(nclx.image), "HEIC with nclx 12/13/6")
        XCTAssertLessThan(s2.mean, 1.5)
        // And far from reading them as sRGB, which the profile-less PNG is.
        let s3 = try CodecTools.deltaE(CodecTools.file(try pngDecode(plain).image), CodecTools.file(nclx.image), "nclx 12/13/6 against sRGB")
        XCTAssertGreaterThan(s3.mean, s2.mean + 1)
        // HDR transfers are refused, not guessed.
        try Self.encodeWithLibheif(pixels, nclx: (9, 16, 9), to: url("pq.heic"))
        XCTAssertThrowsError(try decode(url("pq.heic"))) { error in
            XCTAssertTrue("\(error)".contains("PQ"), "\(error)")
        }
    }

    /// A HEIC with an irot of 90° (libheif's own encoder writes it) and an EXIF orientation of 6 saying the same:
    /// turned once, as heif-convert turns it.
    func testIrotIsAppliedOnceAndEXIFIsRead() throws {
        let pixels = CodecTools.picture(width: 64, height: 40, channels: 3)
        var exif = EXIFBuilder()
        exif.ifd0 = [(0x0112, .short(6)), (0x010F, .ascii("Apple")), (0x0110, .ascii("iPhone 15 Pro"))]
        exif.exif = [(0x9003, .ascii("2026:06:07 08:09:10"))]
        let heic = url("irot.heic")
        try Self.encodeWithLibheif(pixels, orientation: heif_orientation_rotate_90_cw, exif: exif.build(), to: heic)
        let decoded = try decode(heic)
        XCTAssertEqual([decoded.image.width, decoded.image.height], [40, 64])
        XCTAssertEqual(decoded.details["transforms"], "irot/imir applied by libheif; EXIF orientation 6 not applied again")
        XCTAssertEqual(decoded.metadata.model, "iPhone 15 Pro")
        let theirs = try heifConvert(heic, "irot.png")
        XCTAssertEqual([theirs.width, theirs.height], [40, 64])
        let stats = try CodecTools.deltaE(theirs, CodecTools.file(decoded.image), "irot HEIC: LightWork against heif-convert")
        XCTAssertLessThan(stats.max, 0.5)
        let info = HEIFCodec().captureInfo(FileBytes(try Data(contentsOf: heic)))
        XCTAssertEqual(info?.make, "Apple")
        XCTAssertEqual(info?.dateTimeOriginal, "2026:06:07 08:09:10")
        XCTAssertEqual(HEIFCodec().pixelCount(FileBytes(try Data(contentsOf: heic))), 64 * 40)
    }

    /// Writes `pixels` (8-bit RGB) as HEIC with libheif's API, with an irot/imir for `orientation`, `exif`, and an
    /// nclx box of (primaries, transfer, matrix) when given.
    static func encodeWithLibheif(_ pixels: EncodedPixels, orientation: heif_orientation = heif_orientation_normal, exif: Data? = nil,
                                  nclx: (Int, Int, Int)? = nil, to url: URL) throws {
        let ctx = heif_context_alloc()
        defer { heif_context_free(ctx) }
        var encoder: OpaquePointer?
        XCTAssertEqual(heif_context_get_encoder_for_format(ctx, heif_compression_HEVC, &encoder).code, heif_error_Ok)
        defer { heif_encoder_release(encoder) }
        heif_encoder_set_lossy_quality(encoder, 98)
        var image: OpaquePointer?
        heif_image_create(Int32(pixels.width), Int32(pixels.height), heif_colorspace_RGB, heif_chroma_interleaved_RGB, &image)
        defer { heif_image_release(image) }
        heif_image_add_plane(image, heif_channel_interleaved, Int32(pixels.width), Int32(pixels.height), 8)
        var stride: Int32 = 0
        let plane = heif_image_get_plane(image, heif_channel_interleaved, &stride)!
        for y in 0..<pixels.height { for i in 0..<(3 * pixels.width) { plane[y * Int(stride) + i] = pixels.samples8[y * 3 * pixels.width + i] } }
        let options = heif_encoding_options_alloc()!
        defer { heif_encoding_options_free(options) }
        options.pointee.image_orientation = orientation
        let profile = heif_nclx_color_profile_alloc()!
        defer { heif_nclx_color_profile_free(profile) }
        if let (p, t, m) = nclx {
            _ = heif_nclx_color_profile_set_color_primaries(profile, UInt16(p))
            _ = heif_nclx_color_profile_set_transfer_characteristics(profile, UInt16(t))
            _ = heif_nclx_color_profile_set_matrix_coefficients(profile, UInt16(m))
            profile.pointee.full_range_flag = 1
            XCTAssertEqual(heif_image_set_nclx_color_profile(image, profile).code, heif_error_Ok)
            options.pointee.output_nclx_profile = profile
            options.pointee.macOS_compatibility_workaround_no_nclx_profile = 0
        }
        var handle: OpaquePointer?
        XCTAssertEqual(heif_context_encode_image(ctx, image, encoder, options, &handle).code, heif_error_Ok)
        defer { heif_image_handle_release(handle) }
        if let exif { _ = exif.withUnsafeBytes { heif_context_add_exif_metadata(ctx, handle, $0.baseAddress, Int32($0.count)) } }
        XCTAssertEqual(heif_context_write_to_file(ctx, url.path).code, heif_error_Ok)
    }

    func testDetectionLeavesAVIFAlone() {
        func ftyp(_ major: String, _ compatible: [String]) -> FileBytes {
            let body = Array(major.utf8) + [0, 0, 0, 0] + compatible.flatMap { Array($0.utf8) }
            let size = 8 + body.count
            return FileBytes(Data([0, 0, 0, UInt8(size)] + Array("ftyp".utf8) + body + [UInt8](repeating: 0, count: 32)))
        }
        XCTAssertTrue(HEIFCodec().matches(ftyp("heic", ["mif1", "heic"])))
        XCTAssertTrue(HEIFCodec().matches(ftyp("mif1", ["mif1", "heic", "miaf"])))
        XCTAssertTrue(HEIFCodec().matches(ftyp("heix", ["mif1", "heix"])))
        XCTAssertFalse(HEIFCodec().matches(ftyp("avif", ["mif1", "avif", "miaf"])))
        XCTAssertFalse(HEIFCodec().matches(ftyp("mif1", ["mif1", "avif", "miaf"])))
        XCTAssertFalse(HEIFCodec().matches(ftyp("avis", ["msf1", "avis"])))
        XCTAssertFalse(HEIFCodec().matches(ftyp("isom", ["isom", "mp42"])))
    }

    func testBadFilesFailWithOneLine() throws {
        let truth = try CodecTools.png(CodecTools.picture(width: 64, height: 64, channels: 3), at: url("truth.png"))
        let good = try Data(contentsOf: try heifEnc(truth, "good.heic", ["-q", "80"]))
        let cases: [(String, Data)] = [("truncated", good.prefix(good.count * 2 / 3)), ("header only", good.prefix(40)),
                                       ("no image data", good.prefix(good.count / 3))]
        for (name, data) in cases {
            XCTAssertTrue(HEIFCodec().matches(FileBytes(data)), name)
            do {
                let d = try HEIFCodec().decode(data: data, url: url(name), options: DecodeOptions(), engine: .detected)
                XCTFail("\(name) decoded as \(d.image.width)×\(d.image.height)")
            } catch let error as LightWorkError {
                XCTAssertFalse(error.description.contains("\n"), error.description)
                print("\(name): \(error.description)")
            }
        }
    }

    // MARK: Output

    /// scene.dng rendered to TIFF and HEIC (8-bit at two qualities, 10-bit), each decoded by heif-convert. Measured
    /// on the chart (ΔE00 mean / p99): default 0.50 / 5.9, q95 0.50 / 5.9, heif10 0.29 / 5.9; the p99 is the 4:2:0
    /// chroma at the patches' edges, whatever the quality.
    func testOutputsDecodedByHeifConvertMatchTheTIFFRender() throws {
        let tiff8 = try ImageFileReader.read(try convertSample("scene.dng") { $0.export.format = .tiff8 })
        let tiff16 = try ImageFileReader.read(try convertSample("scene.dng") { $0.export.format = .tiff16 })
        var sizes: [String] = []
        for (label, format, quality, meanLimit, p99Limit) in [("heif default", OutputFormat.heif, nil, 1.0, 9), ("heif q95", .heif, "95", 1.0, 9),
                                                              ("heif10 default", .heif10, nil, 0.8, 9)] as [(String, OutputFormat, String?, Double, Double)] {
            let out = try convertSample("scene.dng") { spec in
                spec.export.format = format
                spec.export.options = CodecOptionValues(quality.map { ["quality": $0] } ?? [:])
            }
            XCTAssertEqual(out.pathExtension, "heic")
            let decoded = try heifConvert(out, "\(label).png")
            let golden = format == .heif10 ? tiff16 : tiff8
            XCTAssertEqual([decoded.width, decoded.height], [golden.width, golden.height])
            if format == .heif10 { XCTAssertEqual(decoded.bitDepth, 16, "heif-convert writes a 10-bit HEIC as 16-bit PNG") }
            let whole = try CodecTools.deltaE(golden, decoded, "HEIC \(label) (heif-convert) vs TIFF, whole frame")
            let chart = try CodecTools.deltaE(CodecTools.left(golden), CodecTools.left(decoded), "HEIC \(label) (heif-convert) vs TIFF, chart")
            XCTAssertLessThan(whole.mean, 4)
            XCTAssertLessThan(chart.mean, meanLimit)
            XCTAssertLessThan(chart.p99, p99Limit)
            let tags = try CodecTools.run("exiftool", ["-s", "-n", "-Orientation", "-ProfileDescription", "-ColorProfiles",
                                                       "-ColorPrimaries", "-TransferCharacteristics", "-MatrixCoefficients", "-BitDepthLuma", out.path])
            print("\(label): \(tags.split(separator: "\n").joined(separator: "; "))")
            XCTAssertTrue(tags.contains("ProfileDescription              : \(OutputColorSpace.srgb.profileDescription)"), tags)
            XCTAssertTrue(tags.contains("Orientation                     : 1"), tags)
            XCTAssertTrue(tags.contains("ColorPrimaries                  : 1"), tags)
            XCTAssertTrue(tags.contains("TransferCharacteristics         : 13"), tags)
            XCTAssertTrue(tags.contains("MatrixCoefficients              : 6"), tags)
            XCTAssertTrue(tags.contains("BitDepthLuma                    : \(format.bitDepth)"), tags)
            let readBack = try ImageFileReader.read(out)
            XCTAssertEqual(readBack.iccProfile, ICCProfile.embedded(for: .srgb))
            XCTAssertEqual(readBack.metadata?.orientation, 1)
            sizes.append("\(label) \(try Data(contentsOf: out).count) bytes")
        }
        print("HEIC sizes of scene.dng (\(tiff8.width)×\(tiff8.height)): \(sizes.joined(separator: ", "))")
    }

    func testDisplayP3AlphaOutputAndDeterminism() throws {
        let pixels = CodecTools.picture(width: 120, height: 80, channels: 4)
        let settings = EncodeSettings(format: .heif, iccProfile: ICCProfile.embedded(for: .displayP3), exif: EXIFWriter.blob(for: ImageMetadata()))
        let one = url("one.heic"), two = url("two.heic")
        try HEIFWriter(engine: EngineConfiguration(threads: 1)).write(pixels, settings: settings, to: one)
        try HEIFWriter(engine: EngineConfiguration(threads: 2)).write(pixels, settings: settings, to: two)
        XCTAssertEqual(try Data(contentsOf: one), try Data(contentsOf: two), "the same bytes at 1 and 2 threads")
        let theirs = try heifConvert(one, "one.png")
        XCTAssertEqual(theirs.channels, 4)
        let truth = ImageFile(format: .png, width: 120, height: 80, channels: 4, bitDepth: 8, iccProfile: ICCProfile.embedded(for: .displayP3),
                              exif: nil, samples: pixels.samples8.map(UInt16.init))
        let alpha = CodecTools.maxDifference(truth, theirs, channel: 3)
        print("HEIC alpha (q 80): largest difference \(alpha)/255")
        XCTAssertLessThan(alpha, 8)
        XCTAssertEqual(theirs.iccProfile, ICCProfile.embedded(for: .displayP3), "heif-convert carries the profile into its PNG")
        let stats = try CodecTools.deltaE(truth, theirs, "Display P3 HEIC with alpha (heif-convert)")
        XCTAssertLessThan(stats.mean, 2.5)
        let tags = try CodecTools.run("exiftool", ["-s3", "-n", "-ColorPrimaries", "-TransferCharacteristics", one.path])
        XCTAssertEqual(tags.split(separator: "\n").map(String.init), ["12", "13"])
    }

    func testOptionsAndFormats() throws {
        XCTAssertEqual(CodecRegistry.outputFormat(named: "heif"), .heif)
        XCTAssertEqual(CodecRegistry.outputFormat(named: "heic10"), .heif10)
        XCTAssertEqual(OutputFormat.heif10.bitDepth, 10)
        XCTAssertNil(CodecRegistry.outputFormat(named: "heif12"))
        var settings = EncodeSettings(format: .heif)
        XCTAssertThrowsError(try settings.setOptions(["quality": "101"], from: .commandLine))
        XCTAssertThrowsError(try settings.setOptions(["lossless": "true"], from: .commandLine))
        try settings.setOptions(["quality": "0"], from: .commandLine)
        XCTAssertEqual(settings.options.int(HEIFCodec.quality), 0)
    }
}
