import Foundation
import XCTest
@testable import LightWork

/// The codec registry: which codec every sample file goes to (by content), the formats and options it lists, and
/// that `--help` and the recipe checks say the same.
final class CodecRegistryTests: XCTestCase {
    private func decoderName(_ url: URL) throws -> String {
        let file = try XCTUnwrap(FileBytes(url), url.path)
        return CodecRegistry.decoder(for: file).name
    }

    func testEverySampleIsDetectedByContent() throws {
        var expected: [(URL, String, Bool)] = [   // file, codec, DNG
            (TestPaths.repoRoot.appendingPathComponent("Samples/scene.dng"), "raw", true),
            (TestPaths.repoRoot.appendingPathComponent("Samples/scene-tungsten.dng"), "raw", true),
            (TestPaths.repoRoot.appendingPathComponent("Samples/scene-srgb.png"), "png", false),
        ]
        for url in try TestPaths.sharedFiles("rgb") {
            expected.append((url, url.pathExtension == "jpg" ? "jpeg" : "png", false))
        }
        for url in try TestPaths.sharedFiles("raw") { expected.append((url, "raw", url.pathExtension == "dng")) }
        XCTAssertGreaterThanOrEqual(expected.count, 25)
        var counts: [String: Int] = [:]
        for (url, codec, dng) in expected {
            XCTAssertEqual(try decoderName(url), codec, url.lastPathComponent)
            XCTAssertEqual(RawCodec.isDNG(try XCTUnwrap(FileBytes(url))), dng, url.lastPathComponent)
            // The name does not decide: the same bytes under another extension go to the same codec.
            let renamed = try TestPaths.temporaryDirectory(self).appendingPathComponent("renamed.jpg")
            try FileManager.default.copyItem(at: url, to: renamed)
            XCTAssertEqual(try decoderName(renamed), codec, url.lastPathComponent + " renamed .jpg")
            counts[codec, default: 0] += 1
        }
        print("detected by content: \(counts.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", "))")
    }

    func testEveryOutputFormatIsWrittenAndReadBackByItsCodec() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        XCTAssertEqual(CodecRegistry.formatNames, ["tiff16", "tiff8", "jpeg", "png", "png16", "webp", "avif", "avif10", "avif12", "jxl", "jxl16", "heif", "heif10"])
        for format in CodecRegistry.outputFormats {
            let pixels = TestImages.pattern(width: 9, height: 5, channels: 3, depth: format.depth)
            let url = dir.appendingPathComponent("out-\(format.rawValue).\(format.fileExtension)")
            try format.writer().write(pixels, settings: EncodeSettings(format: format), to: url)
            let data = try Data(contentsOf: url)
            XCTAssertEqual(CodecRegistry.reader(for: data)?.name, format.codecName, format.rawValue)
            let back = try ImageFileReader.read(url)
            XCTAssertEqual(back.format.rawValue, format.codecName)
            XCTAssertEqual(back.bitDepth, format.bitDepth, format.rawValue)
            XCTAssertEqual([back.width, back.height, back.channels], [9, 5, 3], format.rawValue)
            if format.isLossless { XCTAssertEqual(back.samples, TestImages.widened(pixels), format.rawValue) }
            // What LightWork writes is a plain TIFF: converted as TIFF (camera RAWs in TIFF structure go to LibRaw).
            XCTAssertEqual(CodecRegistry.decoder(for: data).name, format.codecName)
        }
        XCTAssertNil(CodecRegistry.reader(for: Data("not an image at all".utf8)))
    }

    func testInputExtensionsAndOptionsComeFromTheCodecs() throws {
        XCTAssertEqual(InputWalker.imageExtensions, RawCodec.extensions.union(["jpg", "jpeg", "jpe", "png", "tif", "tiff", "avif", "jxl", "webp", "heic", "heif", "hif"]))
        XCTAssertEqual(CodecRegistry.option("compression")?.values, .choice(["none", "deflate", "lzw"]))
        XCTAssertEqual(CodecRegistry.option("quality")?.values, .integer(1...100))
        XCTAssertNil(CodecRegistry.option("packbits"))
        XCTAssertEqual(TIFFCodec.compression.refusal("packbits", label: "--compression"), "--compression 'packbits' is not one of: none, deflate, lzw")
        XCTAssertEqual(JPEGCodec.quality.refusal("101", label: "--quality"), "--quality takes 1-100, not '101'")
        XCTAssertNil(JPEGCodec.quality.refusal("100"))
        // Recipe formats: the codec's first format unless a bit depth picks another.
        XCTAssertEqual(CodecRegistry.outputFormat(codec: "tiff", bitDepth: nil), .tiff16)
        XCTAssertEqual(CodecRegistry.outputFormat(codec: "TIF", bitDepth: 8), .tiff8)
        XCTAssertEqual(CodecRegistry.outputFormat(codec: "jpg", bitDepth: nil), .jpeg)
        XCTAssertEqual(CodecRegistry.outputFormat(codec: "png", bitDepth: 16), .png16)
        XCTAssertNil(CodecRegistry.outputFormat(codec: "jpeg", bitDepth: 16))
        XCTAssertNil(OutputFormat(rawValue: "gif"))
        XCTAssertThrowsError(try JSONDecoder().decode([OutputFormat].self, from: Data(#"["gif"]"#.utf8))) { error in
            XCTAssertTrue("\(error)".contains("tiff16, tiff8, jpeg, png, png16"), "\(error)")
        }
        XCTAssertEqual(try JSONDecoder().decode([OutputFormat].self, from: Data(#"["png16"]"#.utf8)), [.png16])
    }

    /// `--help`'s lists are the registry's, and the CLI refuses what the codecs do not declare.
    /// `--format` takes the codecs' names and aliases, with or without a bit depth; the format keeps its own name.
    func testFormatAliasesResolveToTheCodecsFormats() {
        let expected: [String: OutputFormat] = ["jpg": .jpeg, "JPG": .jpeg, "jpeg": .jpeg, "tif": .tiff16, "tiff": .tiff16, "tif8": .tiff8,
                                                "tif16": .tiff16, "tiff8": .tiff8, "png": .png, "png16": .png16]
        for (name, format) in expected {
            XCTAssertEqual(CodecRegistry.outputFormat(named: name), format, name)
        }
        for bad in ["jpg16", "tif12", "gif", "raw", "8", "", "tif-8", "jpg 8"] {
            XCTAssertNil(CodecRegistry.outputFormat(named: bad), bad)
        }
        XCTAssertEqual(CodecRegistry.outputFormat(named: "jpg")?.rawValue, "jpeg", "recorded by its own name")
    }

    func testHelpListsTheRegistrysFormatsAndOptions() throws {
        let help = try CLIRunner.run(["convert", "--help"])
        XCTAssertEqual(help.status, 0)
        func line(_ flag: String) throws -> String {
            try XCTUnwrap(help.stdout.split(separator: "\n").first { $0.contains("--\(flag) ") }.map(String.init), flag)
        }
        let formatLine = try line("format")
        let listed = try XCTUnwrap(formatLine.range(of: "FMT")).upperBound
        let parts = formatLine[listed...].split(separator: ";")
        let names = parts[0].split(separator: ",").map {
            $0.replacingOccurrences(of: "(default)", with: "").trimmingCharacters(in: .whitespaces)
        }
        XCTAssertEqual(names, CodecRegistry.formatNames, formatLine)
        XCTAssertEqual(parts.count, 2, formatLine)
        let aliases = parts[1].replacingOccurrences(of: "also", with: "").split(separator: ",").map {
            String($0.split(separator: "(")[0]).trimmingCharacters(in: .whitespaces)
        }
        XCTAssertEqual(Set(aliases), Set(CodecRegistry.codecs.filter { !$0.outputFormats.isEmpty }.flatMap(\.aliases)), formatLine)
        XCTAssertTrue(formatLine.contains("\(CodecRegistry.defaultFormat.rawValue) (default)"), formatLine)
        XCTAssertTrue(try line("compression").contains(TIFFCodec.compression.help))
        XCTAssertTrue(try line("quality").contains(JPEGCodec.quality.help))
        for name in CodecRegistry.optionNames {
            for d in CodecRegistry.declarations(of: name) {
                XCTAssertTrue(try line(name).contains(d.option.help), "--\(name)'s help names \(d.codec.name)'s")
            }
        }
        XCTAssertEqual(TIFFCodec.compression.help, "TIFF compression: none (default), deflate, lzw")

        let packbits = try CLIRunner.run(["convert", "x.dng", "-o", "/tmp/x", "--compression", "packbits"])
        XCTAssertEqual(packbits.status, 2)
        XCTAssertTrue(packbits.stderr.contains("none, deflate, lzw"), packbits.stderr)
        let quality = try CLIRunner.run(["convert", "x.dng", "-o", "/tmp/x", "--format", "jpeg", "--quality", "0"])
        XCTAssertEqual(quality.status, 2)
        XCTAssertTrue(quality.stderr.contains("--quality takes 1-100, not '0'"), quality.stderr)
        // An option the chosen format does not have is refused on the command line, not silently dropped.
        let misplaced = try CLIRunner.run(["convert", "x.dng", "-o", "/tmp/x", "--format", "png", "--quality", "80"])
        XCTAssertEqual(misplaced.status, 2)
        XCTAssertTrue(misplaced.stderr.contains("--quality is an option of jpeg"), misplaced.stderr)
        let format = try CLIRunner.run(["convert", "x.dng", "-o", "/tmp/x", "--format", "gif"])
        XCTAssertTrue(format.stderr.contains(CodecRegistry.formatNames.joined(separator: ", ")), format.stderr)
    }

    /// The manifest schema's format list and `verify --help`'s lossless list are the registry's.
    func testSchemaAndVerifyHelpListTheRegistrysFormats() throws {
        let schema = try String(contentsOf: TestPaths.repoRoot.appendingPathComponent("docs/manifest.schema.json"), encoding: .utf8)
        let listed = try XCTUnwrap(schema.range(of: #""format": {"enum": ["#)).upperBound
        let end = try XCTUnwrap(schema[listed...].firstIndex(of: "]"))
        let names = schema[listed..<end].split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\" ")) }
        XCTAssertEqual(names, CodecRegistry.formatNames)
        let help = try CLIRunner.run(["verify", "--help"])
        XCTAssertTrue(help.stdout.contains("lossless formats only: tiff16, tiff8, png, png16"), help.stdout)
        XCTAssertEqual(VerifyCase.losslessFormats.map(\.rawValue), ["tiff16", "tiff8", "png", "png16"])
    }

    func testRecipeExportBlocksPickTheCodecsFormats() throws {
        let folder = TestPaths.repoRoot.appendingPathComponent("Samples/recipes")
        let ranges = FilterRanges.standard
        for (name, format, compression) in [("silver-grain.json", OutputFormat.tiff16, TIFFCompression.deflate), ("harbour-evening.json", .jpeg, .none)] {
            let recipe = try Recipe.load(from: folder.appendingPathComponent(name), ranges: ranges)
            var encode = EncodeSettings()
            var space = OutputColorSpace.srgb
            let export = try XCTUnwrap(recipe.export)
            export.apply(to: &encode, colorSpace: &space)
            try encode.setOptions(export.optionValues, from: .recipe)
            XCTAssertEqual(encode.format, format, name)
            XCTAssertEqual(encode.tiffCompression, compression, name)
        }
    }
}

/// The one TIFF structure reader: loops end, offsets outside the bytes read as absent, never a trap.
final class TIFFStructureTests: XCTestCase {
    /// Little-endian TIFF bytes: the header, then the IFDs given as (entries, next offset) laid out from byte 8,
    /// each entry (tag, type, count, value field).
    private func tiff(_ ifds: [([(UInt16, UInt16, UInt32, UInt32)], UInt32)], firstIFD: UInt32 = 8) -> [UInt8] {
        func u16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) } }
        var b: [UInt8] = [0x49, 0x49, 42, 0] + u32(firstIFD)
        for (entries, next) in ifds {
            b += u16(UInt16(entries.count))
            for (tag, type, count, value) in entries { b += u16(tag) + u16(type) + u32(count) + u32(value) }
            b += u32(next)
        }
        return b
    }

    func testLoopsAreWalkedOnce() throws {
        // IFD0 at 8 (30 bytes) → IFD1 at 38 → IFD0 again; IFD1 also names itself as a SubIFD.
        let bytes = tiff([([(256, 3, 1, 40), (257, 3, 1, 30)], 38),
                          ([(256, 4, 1, 50), (257, 4, 1, 20), (330, 4, 1, 38)], 8)])
        let t = try XCTUnwrap(TIFFStructure(bytes))
        var visits: [Int] = []
        let count = t.walk(from: [t.firstDirectory], limit: 100) { ifd in
            visits.append(ifd.offset)
            return ifd.entries.filter { $0.tag == 330 }.flatMap { t.integers($0) } + [ifd.next ?? 0]
        }
        XCTAssertEqual(count, 2)
        XCTAssertEqual(visits, [8, 38])
        let extents = try XCTUnwrap(bytes.withUnsafeBytes { TIFFImageExtents.read($0) })
        XCTAssertEqual(extents.directories, 2)
        XCTAssertEqual(extents.dataEnd, bytes.count)
        XCTAssertEqual(RawCodec().pixelCount(FileBytes(Data(bytes))), 1200, "the largest of 40×30 and 50×20")
        XCTAssertNotNil(EXIFReader.read(Data(bytes)))
        // A directory naming itself as its next one.
        let selfLoop = tiff([([(256, 3, 1, 7)], 8)])
        XCTAssertEqual(try XCTUnwrap(TIFFStructure(selfLoop)).walk(from: [8], limit: 100) { [$0.next ?? 0] }, 1)
    }

    func testOffsetsOutsideTheBytesReadAsAbsent() throws {
        // IFD0: Make ASCII at an offset far past the end, a LONG array of 2^32-1 values, an EXIF IFD past the end;
        // next IFD past the end.
        let bytes = tiff([([(0x010F, 2, 20, 1_000_000), (273, 4, 0xFFFF_FFFF, 8), (0x8769, 4, 1, 0x7FFF_FFF0)], 0xFFFF_FF00)])
        let t = try XCTUnwrap(TIFFStructure(bytes))
        let ifd0 = try XCTUnwrap(t.directory(at: 8))
        XCTAssertTrue(ifd0.isWhole)
        XCTAssertEqual(ifd0.entries.count, 3)
        let make = try XCTUnwrap(ifd0[0x010F])
        XCTAssertFalse(t.valueIsInside(make))
        XCTAssertNil(t.valueBytes(make))
        XCTAssertNil(t.ascii(make))
        XCTAssertEqual(t.integers(try XCTUnwrap(ifd0[273])), [], "a count past any limit reads nothing")
        XCTAssertNil(t.integer(try XCTUnwrap(ifd0[273])), "its values lie outside the bytes")
        XCTAssertNil(t.directory(at: try XCTUnwrap(t.integer(try XCTUnwrap(ifd0[0x8769])))))
        XCTAssertNil(t.directory(at: 0xFFFF_FF00))
        XCTAssertNil(t.directory(at: -4))
        XCTAssertNil(EXIFReader.read(Data(bytes))?.make)
        // The extent counts what the structure points at, so a reader of a cut file knows it is cut.
        let extents = try XCTUnwrap(bytes.withUnsafeBytes { TIFFImageExtents.read($0) })
        XCTAssertGreaterThan(extents.dataEnd, bytes.count)
        // An IFD whose declared entries run past the end: the whole entries before it are read, and it is not whole.
        var cut = tiff([([(256, 3, 1, 7), (257, 3, 1, 9)], 0)])
        cut.removeLast(10)
        let partial = try XCTUnwrap(TIFFStructure(cut)?.directory(at: 8))
        XCTAssertEqual(partial.declaredCount, 2)
        XCTAssertEqual(partial.entries.map(\.tag), [256])
        XCTAssertFalse(partial.isWhole)
        // Headers: not TIFF, or an IFD offset inside the header (skipped by the walk).
        XCTAssertNil(TIFFStructure([0x49, 0x49, 42]))
        XCTAssertNil(TIFFStructure([0x49, 0x49, 0x55, 0, 8, 0, 0, 0]), "RW2's magic only where asked for")
        XCTAssertNotNil(TIFFStructure(magic: .withMakerVariants, [0x49, 0x49, 0x55, 0, 8, 0, 0, 0]))
        let inHeader = tiff([], firstIFD: 4)
        XCTAssertEqual(try XCTUnwrap(TIFFStructure(inHeader)).walk(from: [4], limit: 10) { _ in XCTFail("visited"); return [] }, 0)
    }

    func testEveryPrefixOfARealDNGReadsWithoutTrapping() throws {
        let data = try Data(contentsOf: TestPaths.repoRoot.appendingPathComponent("Samples/scene.dng"))
        let bytes = [UInt8](data)
        var whole = 0
        // Cuts every few bytes through the header and IFD0, then through the rest of the file.
        let ifd0 = Int(bytes[4]) | Int(bytes[5]) << 8 | Int(bytes[6]) << 16 | Int(bytes[7]) << 24
        let cuts = Array(stride(from: 0, to: 64, by: 1)) + Array(stride(from: ifd0, to: min(bytes.count, ifd0 + 2048), by: 5))
            + Array(stride(from: 0, through: bytes.count, by: max(1, bytes.count / 97))) + [bytes.count]
        for n in cuts {
            let prefix = Array(bytes.prefix(n))
            guard let t = TIFFStructure(prefix) else { continue }
            t.walk(from: [t.firstDirectory], limit: 64) { ifd in
                if ifd.isWhole { whole += 1 }
                for e in ifd.entries { _ = t.integers(e); _ = t.ascii(e); _ = t.rationals(e) }
                return ifd.entries.filter { $0.tag == 330 || $0.tag == 34665 }.flatMap { t.integers($0) } + [ifd.next ?? 0]
            }
        }
        print("TIFF structure of \(cuts.count) cuts of scene.dng: \(whole) IFDs read whole")
        XCTAssertGreaterThan(whole, 0, "the uncut file's IFDs read whole")
    }

    /// A recipe is written for any format: its JPEG quality is left out of a PNG export, and the settings of the
    /// formats written before codec options were generic keep their digest (no `codecOptions`).
    func testRecipeOptionsFollowTheFormat() throws {
        var encode = EncodeSettings(format: .png)
        try encode.setOptions(["quality": "80", "compression": "lzw"], from: .recipe)
        XCTAssertEqual(encode.jpegQuality, JPEGCodec.defaultQuality)
        XCTAssertEqual(encode.tiffCompression, .none)
        XCTAssertTrue(encode.options.isEmpty)
        encode.format = .jpeg
        try encode.setOptions(["quality": "80"], from: .recipe)
        XCTAssertEqual(encode.jpegQuality, 80)
        XCTAssertThrowsError(try encode.setOptions(["quality": "0"], from: .recipe))
        for format in [OutputFormat.tiff16, .tiff8, .jpeg, .png, .png16] {
            let spec = ConvertSpec(export: ConvertSpec.Export(format: format), output: ConvertSpec.Output(directory: URL(fileURLWithPath: "/tmp")))
            XCTAssertNil(spec.settings.codecOptions, format.rawValue)
        }
    }
}
