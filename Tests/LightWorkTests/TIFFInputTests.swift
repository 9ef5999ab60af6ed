import CLCMS2
import CShims
import CTIFF
import Foundation
import XCTest
@testable import LightWork

/// Deterministic test values (a 64-bit LCG): the same file every run.
struct TestNoise {
    private var state: UInt64
    init(_ seed: UInt64) { state = seed }
    mutating func next(_ bound: Int) -> Int {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return Int((state >> 33) % UInt64(bound))
    }
}

/// Converts generated files with no look through `FileConverter` and reads the output back with ImageMagick.
protocol LosslessConversion: XCTestCase {}

extension LosslessConversion {
    /// Converts `data` (named `name`) to `format` in `space`; returns the entry and the output's 16-bit RGBA as
    /// ImageMagick reads it.
    func convert(_ data: Data, name: String, format: OutputFormat, space: OutputColorSpace = .srgb,
                 adjust: (inout ConvertSpec) -> Void = { _ in }) throws -> (Manifest.Entry, [UInt16]) {
        let dir = try TestPaths.temporaryDirectory(self)
        let input = dir.appendingPathComponent(name)
        try data.write(to: input)
        var spec = ConvertSpec(outputDirectory: dir.appendingPathComponent("out"))
        spec.export.format = format
        spec.export.colorSpace = space
        adjust(&spec)
        let converter = try FileConverter(spec: spec)
        let item = InputItem(url: input, displayPath: name, relativePath: name)
        let entry = converter.convert(item)
        guard entry.status == .converted else { XCTFail("\(name): \(entry.reason ?? "")"); return (entry, []) }
        return (entry, try MagickReader.rgba16(spec.output.directory.appendingPathComponent(converter.relativeOutputPath(for: item))))
    }

    /// The largest difference between `got` and `expected` (RGBA16), failing on a size mismatch.
    func maxDifference(_ got: [UInt16], _ expected: [UInt16], channels: ClosedRange<Int> = 0...3, _ label: String) -> Int {
        guard got.count == expected.count else { XCTFail("\(label): \(got.count) samples read, \(expected.count) expected"); return Int.max }
        var worst = 0
        for i in got.indices where channels.contains(i % 4) { worst = max(worst, abs(Int(got[i]) - Int(expected[i]))) }
        return worst
    }
}

/// TIFF input: every layout the decoder takes, with known values, converted and read back by ImageMagick; RAWs
/// in TIFF structure stay LibRaw's; bad TIFFs fail alone with a reason.
final class TIFFInputTests: XCTestCase, LosslessConversion {
    /// Stored samples of `n` values below `top` (a ramp through both ends plus noise), deterministic.
    private func values(_ n: Int, top: Int, seed: UInt64) -> [Double] {
        var noise = TestNoise(seed)
        return (0..<n).map { i in i == 0 ? 0 : i == 1 ? Double(top - 1) : Double(noise.next(top)) }
    }

    /// RGBA16 truth from stored pixels: `colour(pixel)` gives R, G, B and alpha at 16 bits.
    private func truth(_ s: [Double], spp: Int, _ colour: ([Double]) -> [Int]) -> [UInt16] {
        stride(from: 0, to: s.count, by: spp).flatMap { i in colour(Array(s[i..<(i + spp)])).map { UInt16($0) } }
    }

    private static let opaque = 65535

    func testEveryIntegerLayoutComesBackExactly() throws {
        let w = 37, h = 21
        struct Layout { let name: String; var b: TIFFBuilder; let top: Int; let map: ([Double]) -> [Int] }
        func b(_ bits: Int, _ photometric: Int32, _ spp: Int, extras: [UInt16] = [], tile: (Int, Int)? = nil,
               compression: Int32 = COMPRESSION_NONE, predictor: UInt16? = nil, bigEndian: Bool = false) -> TIFFBuilder {
            var t = TIFFBuilder(width: w, height: h)
            t.bits = bits; t.photometric = photometric; t.samplesPerPixel = spp; t.extraSamples = extras; t.tile = tile
            t.compression = compression; t.predictor = predictor; t.bigEndian = bigEndian
            return t
        }
        let x8 = { (v: Double) in Int(v) * 257 }, x16 = { (v: Double) in Int(v) }
        let layouts = [
            Layout(name: "rgb8-strips", b: b(8, PHOTOMETRIC_RGB, 3), top: 256) { [x8($0[0]), x8($0[1]), x8($0[2]), Self.opaque] },
            Layout(name: "rgb8-lzw-predictor", b: b(8, PHOTOMETRIC_RGB, 3, compression: COMPRESSION_LZW, predictor: 2), top: 256) {
                [x8($0[0]), x8($0[1]), x8($0[2]), Self.opaque] },
            Layout(name: "rgb16-tiles", b: b(16, PHOTOMETRIC_RGB, 3, tile: (16, 16)), top: 65536) { [x16($0[0]), x16($0[1]), x16($0[2]), Self.opaque] },
            Layout(name: "rgb16-big-endian-deflate", b: b(16, PHOTOMETRIC_RGB, 3, compression: COMPRESSION_ADOBE_DEFLATE, bigEndian: true), top: 65536) {
                [x16($0[0]), x16($0[1]), x16($0[2]), Self.opaque] },
            Layout(name: "rgba8-unassociated", b: b(8, PHOTOMETRIC_RGB, 4, extras: [UInt16(EXTRASAMPLE_UNASSALPHA)]), top: 256) {
                [x8($0[0]), x8($0[1]), x8($0[2]), x8($0[3])] },
            Layout(name: "rgba16-unassociated-tiles", b: b(16, PHOTOMETRIC_RGB, 4, extras: [UInt16(EXTRASAMPLE_UNASSALPHA)], tile: (32, 16)), top: 65536) {
                [x16($0[0]), x16($0[1]), x16($0[2]), x16($0[3])] },
            Layout(name: "grey8", b: b(8, PHOTOMETRIC_MINISBLACK, 1), top: 256) { [x8($0[0]), x8($0[0]), x8($0[0]), Self.opaque] },
            Layout(name: "grey16-min-is-white", b: b(16, PHOTOMETRIC_MINISWHITE, 1), top: 65536) {
                [65535 - x16($0[0]), 65535 - x16($0[0]), 65535 - x16($0[0]), Self.opaque] },
            Layout(name: "grey-alpha8-tiles", b: b(8, PHOTOMETRIC_MINISBLACK, 2, extras: [UInt16(EXTRASAMPLE_UNASSALPHA)], tile: (16, 16)), top: 256) {
                [x8($0[0]), x8($0[0]), x8($0[0]), x8($0[1])] },
            Layout(name: "grey-alpha16", b: b(16, PHOTOMETRIC_MINISBLACK, 2, extras: [UInt16(EXTRASAMPLE_UNASSALPHA)]), top: 65536) {
                [x16($0[0]), x16($0[0]), x16($0[0]), x16($0[1])] },
            Layout(name: "rgb8-plus-unspecified-extra", b: b(8, PHOTOMETRIC_RGB, 4, extras: [UInt16(EXTRASAMPLE_UNSPECIFIED)]), top: 256) {
                [x8($0[0]), x8($0[1]), x8($0[2]), Self.opaque] },
        ]
        for (k, layout) in layouts.enumerated() {
            let spp = layout.b.samplesPerPixel
            let stored = values(w * h * spp, top: layout.top, seed: UInt64(k + 1))
            let data = try layout.b.build(stored)
            XCTAssertEqual(CodecRegistry.decoder(for: data).name, "tiff", layout.name)
            for format in [OutputFormat.png16, .tiff16] + (layout.top == 256 ? [OutputFormat.png, .tiff8] : []) {
                let (entry, got) = try convert(data, name: "\(layout.name).tif", format: format)
                XCTAssertEqual(entry.input.decisions?["pixels"]?.hasPrefix("passed through"), true, "\(layout.name) \(format.rawValue): \(entry.input.decisions ?? [:])")
                let difference = maxDifference(got, truth(stored, spp: spp, layout.map), "\(layout.name) → \(format.rawValue)")
                print("TIFF \(layout.name) → \(format.rawValue): max difference \(difference)/65535")
                XCTAssertEqual(difference, 0, "\(layout.name) → \(format.rawValue)")
            }
        }
    }

    /// A 16-bit film scan (smooth gradients, grain, deflate with the horizontal predictor, 1200×800): bit-exact.
    func testSixteenBitFilmScanComesBackExactly() throws {
        let w = 1200, h = 800
        var noise = TestNoise(42)
        var stored: [Double] = []
        stored.reserveCapacity(w * h * 3)
        for y in 0..<h {
            for x in 0..<w {
                let base = [Double(x) / Double(w - 1), Double(y) / Double(h - 1), Double(x + y) / Double(w + h - 2)]
                for c in 0..<3 { stored.append(Double(min(65535, max(0, Int(base[c] * 60000) + 2000 + noise.next(2001) - 1000)))) }
            }
        }
        var b = TIFFBuilder(width: w, height: h)
        b.bits = 16; b.rowsPerStrip = 64; b.compression = COMPRESSION_ADOBE_DEFLATE; b.predictor = 2
        b.strings = [(UInt32(TIFFTAG_MAKE), "Nikon"), (UInt32(TIFFTAG_MODEL), "LS-5000")]   // a film scanner names itself too
        let data = try b.build(stored)
        XCTAssertEqual(CodecRegistry.decoder(for: data).name, "tiff")
        let (entry, got) = try convert(data, name: "scan.tif", format: .tiff16)
        XCTAssertEqual(entry.input.make, "Nikon")
        let difference = maxDifference(got, truth(stored, spp: 3) { [Int($0[0]), Int($0[1]), Int($0[2]), 65535] }, "film scan")
        print("TIFF 16-bit film scan 1200×800 → tiff16: max difference \(difference)/65535, decode \(entry.timings["decode"] ?? 0) s")
        XCTAssertEqual(difference, 0)
    }

    func testFloatSamplesAreClippedAndQuantisedTo16Bits() throws {
        let w = 19, h = 11
        var noise = TestNoise(7)
        for (name, spp, photometric, tile) in [("float-rgb", 3, PHOTOMETRIC_RGB, nil as (Int, Int)?), ("float-grey-tiles", 1, PHOTOMETRIC_MINISBLACK, (16, 16))] {
            let stored = (0..<(w * h * spp)).map { _ in Double(noise.next(14001)) / 10000 - 0.2 }   // −0.2…1.2
            var b = TIFFBuilder(width: w, height: h)
            b.bits = 32; b.photometric = photometric; b.samplesPerPixel = spp; b.tile = tile
            let (entry, got) = try convert(try b.build(stored), name: "\(name).tif", format: .png16)
            let q = { (v: Double) in Int((min(1, max(0, Double(Float(v)))) * 65535).rounded()) }
            let expected = truth(stored, spp: spp) { spp == 1 ? [q($0[0]), q($0[0]), q($0[0]), 65535] : [q($0[0]), q($0[1]), q($0[2]), 65535] }
            let difference = maxDifference(got, expected, name)
            print("TIFF \(name) → png16: max difference \(difference)/65535")
            XCTAssertEqual(difference, 0, name)
            XCTAssertTrue(entry.notes.contains { $0.contains("outside 0…1 clipped") }, "\(entry.notes)")
        }
    }

    /// Associated alpha is divided out (the output's alpha is unassociated): colour round(c·65535/a), alpha exact.
    func testAssociatedAlphaIsDividedOut() throws {
        let w = 23, h = 9
        var noise = TestNoise(3)
        var stored: [Double] = []
        for _ in 0..<(w * h) {
            let a = noise.next(256)
            stored += [Double(noise.next(a + 1)), Double(noise.next(a + 1)), Double(noise.next(a + 1)), Double(a)]
        }
        var b = TIFFBuilder(width: w, height: h)
        b.samplesPerPixel = 4; b.extraSamples = [UInt16(EXTRASAMPLE_ASSOCALPHA)]
        let (_, got) = try convert(try b.build(stored), name: "premultiplied.tif", format: .png16)
        let expected = truth(stored, spp: 4) { p in
            p[0..<3].map { p[3] == 0 ? 0 : Int(($0 * 65535 / p[3]).rounded()) } + [Int(p[3]) * 257]
        }
        XCTAssertEqual(maxDifference(got, expected, channels: 3...3, "alpha"), 0)
        let colour = maxDifference(got, expected, channels: 0...2, "colour")
        print("TIFF associated alpha → png16: colour max difference \(colour)/65535 (integer rounding), alpha exact")
        XCTAssertLessThanOrEqual(colour, 1)
    }

    func testOrientationSixAndPalette() throws {
        let w = 5, h = 3
        let stored = values(w * h * 3, top: 256, seed: 11)
        var b = TIFFBuilder(width: w, height: h)
        b.orientation = 6
        let (entry, got) = try convert(try b.build(stored), name: "turned.tif", format: .png16)
        // Orientation 6: the stored rows are the picture's columns, read right to left: shown (x, y) = stored (y, h−1−x).
        var expected: [UInt16] = []
        for y in 0..<w { for x in 0..<h { let i = 3 * ((h - 1 - x) * w + y); expected += [0, 1, 2].map { UInt16(stored[i + $0]) * 257 } + [65535] } }
        XCTAssertEqual(got, expected)
        XCTAssertEqual([entry.input.width, entry.input.height], [3, 5])

        var palette = TIFFBuilder(width: 4, height: 4)
        palette.photometric = PHOTOMETRIC_PALETTE; palette.samplesPerPixel = 1
        let map: [UInt16] = (0..<768).map { UInt16(($0 * 8191) % 65536) }
        palette.colormap = map
        let indices = (0..<16).map { Double(($0 * 37) % 256) }
        let (_, paletteGot) = try convert(try palette.build(indices), name: "palette.tif", format: .png16)
        XCTAssertEqual(paletteGot, indices.flatMap { i in [map[Int(i)], map[256 + Int(i)], map[512 + Int(i)], 65535] })
    }

    /// A two-page TIFF (ImageMagick's, an independent writer) converts its first page, with a note naming the count.
    func testMultiPageTIFFConvertsPageOneAndSaysSo() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let file = dir.appendingPathComponent("pages.tif")
        _ = try CodecTools.run("convert", ["-size", "4x4", "xc:#ff0000", "xc:#0000ff", "-depth", "8", "-compress", "none", file.path])
        let (entry, got) = try convert(try Data(contentsOf: file), name: "pages.tif", format: .png16)
        XCTAssertEqual(Array(got.prefix(4)), [65535, 0, 0, 65535], "page 1 is the red one")
        XCTAssertTrue(entry.notes.contains("multi-page TIFF: page 1 of 2 converted, the other pages left out"), "\(entry.notes)")
    }

    /// CMYK through LittleCMS with the embedded SWOP profile, against LittleCMS in double precision; without a
    /// profile the naive conversion with its note, as for JPEG.
    func testCMYKWithAndWithoutAProfile() throws {
        let jpeg = try Data(contentsOf: try TestPaths.sharedSamples("rgb").appendingPathComponent("cmyk-swop-profile.jpg"))
        let swop = try XCTUnwrap(ReferenceReaders.jpegICC(jpeg))
        let w = 16, h = 8
        var noise = TestNoise(12)
        for bits in [8, 16] {
            let top = bits == 8 ? 256 : 65536
            // Printable colours: total ink at most 280% (SWOP's limit is 300%; beyond it the profile's table is not
            // defined by measurements and LittleCMS's grid and an exact evaluation part ways).
            let stored = stride(from: 0, to: w * h * 4, by: 4).flatMap { _ -> [Double] in
                let pixel = (0..<4).map { _ in Double(noise.next(top)) }
                let ink = pixel.reduce(0, +) / Double(top - 1)
                return ink > 2.8 ? pixel.map { ($0 * 2.8 / ink).rounded(.down) } : pixel
            }
            var b = TIFFBuilder(width: w, height: h)
            b.bits = bits; b.photometric = PHOTOMETRIC_SEPARATED; b.samplesPerPixel = 4; b.icc = swop
            let (entry, got) = try convert(try b.build(stored), name: "cmyk\(bits).tif", format: .png16)
            XCTAssertEqual(entry.input.decisions?["pixels"]?.hasPrefix("rendered"), true)
            let profile = try XCTUnwrap(swop.withUnsafeBytes { cmsOpenProfileFromMem($0.baseAddress, cmsUInt32Number(swop.count)) })
            defer { cmsCloseProfile(profile) }
            let scale = Double(top - 1)
            let cmyk = stride(from: 0, to: stored.count, by: 4).map { i in stored[i..<(i + 4)].map { $0 / scale * 100 } }
            let reference = ReferenceReaders.toSRGB(cmyk, profile: profile, format: ReferenceReaders.cmykDouble)
            let expected = reference.flatMap { $0.map { UInt16(($0 * 65535).rounded()) } + [65535] }
            let difference = maxDifference(got, expected, "cmyk\(bits)")
            let over = zip(got, expected).enumerated().filter { $0.offset % 4 != 3 && abs(Int($0.element.0) - Int($0.element.1)) > 257 }.count
            let share = Double(over) / Double(3 * w * h)
            print("TIFF CMYK \(bits)-bit + SWOP profile → png16: max difference \(difference)/65535 against LittleCMS in double precision, \(over) of \(3 * w * h) values beyond 1/255")
            // LittleCMS's CLUT grid against an exact evaluation (DeviceRGBConverter): measured max 404 (8-bit) and 924 (16-bit).
            XCTAssertLessThanOrEqual(difference, 2000, "cmyk\(bits)")
            XCTAssertLessThanOrEqual(share, 0.06, "cmyk\(bits)")   // measured 1.0% (8-bit), 2.9% (16-bit)

            b.icc = nil
            let (naiveEntry, naive) = try convert(try b.build(stored), name: "cmyk\(bits)-no-profile.tif", format: .png16)
            XCTAssertTrue(naiveEntry.notes.contains(ICCInput.naiveCMYKNote), "\(naiveEntry.notes)")
            let naiveTruth = truth(stored, spp: 4) { p in
                let k = 1 - p[3] / scale
                return p[0..<3].map { Int(((1 - $0 / scale) * k * 65535).rounded()) } + [65535]
            }
            let naiveDifference = maxDifference(naive, naiveTruth, "naive cmyk\(bits)")
            print("TIFF CMYK \(bits)-bit, no profile (naive) → png16: max difference \(naiveDifference)/65535 (half-float working image)")
            XCTAssertLessThanOrEqual(naiveDifference, 16)
        }
    }

    /// An embedded profile equal to the output's passes the samples through; into another space LittleCMS converts.
    func testEmbeddedProfileDecidesTheLosslessPath() throws {
        let w = 13, h = 7
        let stored = values(w * h * 3, top: 65536, seed: 5)
        var b = TIFFBuilder(width: w, height: h)
        b.bits = 16; b.icc = ICCProfile.embedded(for: .displayP3)
        let data = try b.build(stored)
        let (same, got) = try convert(data, name: "p3.tif", format: .tiff16, space: .displayP3)
        XCTAssertEqual(same.input.decisions?["pixels"]?.hasPrefix("passed through"), true, "\(same.input.decisions ?? [:])")
        XCTAssertEqual(maxDifference(got, truth(stored, spp: 3) { [Int($0[0]), Int($0[1]), Int($0[2]), 65535] }, "p3 → p3"), 0)
        let (other, _) = try convert(data, name: "p3.tif", format: .tiff16, space: .srgb)
        XCTAssertEqual(other.input.decisions?["pixels"], "rendered: the input's ICC profile is not the output's (srgb)")
    }

    // MARK: What is a plain TIFF

    /// Every RAW sample (TIFF-structured or not) and the repository's DNGs still go to LibRaw and convert.
    func testCameraRawsInTIFFStructureStayLibRaws() throws {
        var files = try TestPaths.sharedFiles("raw")
        files += ["scene.dng", "scene-tungsten.dng"].map { SampleSceneTests.samples.appendingPathComponent($0) }
        XCTAssertGreaterThanOrEqual(files.count, 6)
        for url in files {
            let data = try Data(contentsOf: url)
            XCTAssertEqual(CodecRegistry.decoder(for: data).name, "raw", url.lastPathComponent)
            XCTAssertFalse(TIFFCodec.isPlainTIFF(FileBytes(data)), url.lastPathComponent)
        }
        // The markers one at a time, on an otherwise plain TIFF.
        let stored = values(8 * 8 * 3, top: 256, seed: 9)
        var plain = TIFFBuilder(width: 8, height: 8)
        plain.strings = [(UInt32(TIFFTAG_MAKE), "Canon")]
        XCTAssertTrue(TIFFCodec.isPlainTIFF(FileBytes(try plain.build(stored))))
        var thumbnail = plain
        thumbnail.longs = [(UInt32(TIFFTAG_SUBFILETYPE), UInt32(FILETYPE_REDUCEDIMAGE))]
        XCTAssertFalse(TIFFCodec.isPlainTIFF(FileBytes(try thumbnail.build(stored))), "reduced-resolution IFD0 (NEF, KDC)")
        var cfa = plain
        cfa.photometric = 32803; cfa.samplesPerPixel = 1
        XCTAssertFalse(TIFFCodec.isPlainTIFF(FileBytes(try cfa.build(values(64, top: 256, seed: 1)))), "CFA data")
        var dng = plain
        dng.dngVersion = true
        XCTAssertEqual(CodecRegistry.decoder(for: try dng.build(stored)).name, "raw", "DNGVersion")
    }

    func testProbesReadTheHeaderInSwift() throws {
        var b = TIFFBuilder(width: 300, height: 200)
        b.rowsPerStrip = 50
        b.strings = [(UInt32(TIFFTAG_MAKE), "Epson"), (UInt32(TIFFTAG_MODEL), "Perfection V850")]
        let data = try b.build(values(300 * 200 * 3, top: 256, seed: 2))
        let codec = LightWork.TIFFCodec()
        XCTAssertEqual(codec.pixelCount(FileBytes(data)), 60_000)
        XCTAssertEqual(codec.captureInfo(FileBytes(data))?.model, "Perfection V850")
        if case .complete = codec.completeness(FileBytes(data)) {} else { XCTFail("a whole TIFF is complete") }
        if case .incomplete = codec.completeness(FileBytes(data.prefix(data.count / 2))) {} else { XCTFail("a cut TIFF is incomplete") }
    }

    // MARK: Bad files

    /// Truncated, unsupported and corrupt TIFFs each fail alone with one line and a typed kind; the batch carries on.
    func testBadTIFFsFailAloneWithAReason() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let good = try TIFFBuilder(width: 40, height: 30).build(values(40 * 30 * 3, top: 256, seed: 4))
        var big = TIFFBuilder(width: 64, height: 64)
        big.rowsPerStrip = 8
        let whole = try big.build(values(64 * 64 * 3, top: 256, seed: 6))
        var lab = TIFFBuilder(width: 16, height: 4)
        lab.photometric = PHOTOMETRIC_CIELAB
        var cases: [(String, Data, FailureKind)] = [
            ("truncated.tif", whole.prefix(whole.count / 2), .truncated),
            ("lab.tif", try lab.build(values(16 * 4 * 3, top: 256, seed: 8)), .unsupportedFormat),
        ]
        var corrupt = [UInt8](good)
        corrupt.replaceSubrange(4..<8, with: [0xF0, 0xFF, 0xFF, 0x0F])   // IFD0 far past the end
        cases.append(("corrupt.tif", Data(corrupt), .decodeFailed))
        var files = [dir.appendingPathComponent("good.tif")]
        try good.write(to: files[0])
        for (name, data, _) in cases {
            files.append(dir.appendingPathComponent(name))
            try data.write(to: files.last!)
        }
        let out = dir.appendingPathComponent("out")
        let run = try CLIRunner.run(["convert"] + files.map(\.path) + ["-o", out.path, "--format", "png16"])
        XCTAssertEqual(run.status, 1, run.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: out.appendingPathComponent("good.png").path), run.stderr)
        let manifest = try JSONDecoder().decode(Manifest.self, from: Data(contentsOf: out.appendingPathComponent("manifest.json")))
        for (name, _, kind) in cases {
            let entry = try XCTUnwrap(manifest.entries.first { $0.input.path.hasSuffix(name) }, name)
            XCTAssertEqual(entry.status, .failed, name)
            print("bad TIFF \(name): \(entry.failureKind?.rawValue ?? "-"): \(entry.reason ?? "")")
            XCTAssertEqual(run.stderr.components(separatedBy: "\n").filter { $0.contains(name) }.count, 1, run.stderr)
            if name != "corrupt.tif" { XCTAssertEqual(entry.failureKind, kind, "\(name): \(entry.reason ?? "")") }
        }
    }
}
