import Foundation
import XCTest
@testable import LightWork

/// EXIFWriter's blocks, and the metadata FileConverter carries into JPEG, PNG and TIFF outputs.
final class EXIFWriterTests: XCTestCase {
    /// Every field LightWork records, with GPS south-west and below sea level, and a stale orientation.
    static var full: ImageMetadata {
        var m = ImageMetadata()
        m.make = "OLYMPUS IMAGING CORP."
        m.model = "E-P3"
        m.lens = "OLYMPUS M.17mm F1.8"
        m.exposureTime = 1.0 / 250
        m.fNumber = 5.6
        m.iso = 1600
        m.focalLength = 17
        m.dateTimeOriginal = "2013:08:27 19:45:23"
        m.gpsLatitude = -33.856_784_1
        m.gpsLongitude = -151.215_297_3
        m.gpsAltitude = -12.5
        m.orientation = 6
        m.pixelWidth = 8
        m.pixelHeight = 6
        m.colorSpaceIsSRGB = true
        return m
    }

    // MARK: The block

    func testBlobRoundTripsEveryFieldThroughEXIFReader() throws {
        var north = Self.full
        north.gpsLatitude = 48.858_222
        north.gpsLongitude = 2.294_5
        north.gpsAltitude = 330
        for m in [Self.full, north] {
            let blob = try XCTUnwrap(EXIFWriter.blob(for: m))
            XCTAssertTrue(blob.starts(with: [0x49, 0x49, 0x2A, 0x00]), "little-endian TIFF header")
            let r = try XCTUnwrap(EXIFReader.read(blob))
            XCTAssertEqual(r.make, m.make)
            XCTAssertEqual(r.model, m.model)
            XCTAssertEqual(r.lens, m.lens)
            XCTAssertEqual(r.exposureTime, 1.0 / 250, "1/250 is written as the exact fraction")
            XCTAssertEqual(r.fNumber, 5.6)
            XCTAssertEqual(r.iso, 1600)
            XCTAssertEqual(r.focalLength, 17)
            XCTAssertEqual(r.dateTimeOriginal, m.dateTimeOriginal)
            XCTAssertEqual(try XCTUnwrap(r.gpsLatitude), try XCTUnwrap(m.gpsLatitude), accuracy: 1e-6)
            XCTAssertEqual(try XCTUnwrap(r.gpsLongitude), try XCTUnwrap(m.gpsLongitude), accuracy: 1e-6)
            XCTAssertEqual(try XCTUnwrap(r.gpsAltitude), try XCTUnwrap(m.gpsAltitude), accuracy: 1e-6)
            XCTAssertEqual(r.orientation, 1, "outputs are upright: the input's orientation 6 must not survive")
            XCTAssertEqual(r.pixelWidth, 8)
            XCTAssertEqual(r.pixelHeight, 6)
            XCTAssertEqual(r.colorSpaceIsSRGB, true)
        }
        var p3 = Self.full
        p3.colorSpaceIsSRGB = false
        XCTAssertEqual(try XCTUnwrap(EXIFReader.read(try XCTUnwrap(EXIFWriter.blob(for: p3)))).colorSpaceIsSRGB, false, "0xFFFF: uncalibrated")
    }

    /// The TIFF structure itself, walked without EXIFReader: ascending tags, even offsets inside the block,
    /// right counts, NUL-terminated ASCII, DateTime = DateTimeOriginal, Software, ExifVersion, GPS version.
    func testBlobIsAWellFormedTIFFStructure() throws {
        let blob = try XCTUnwrap(EXIFWriter.blob(for: Self.full, software: "LightWork 1.2"))
        let walk = try TIFFWalk(blob)
        let ifd0 = try walk.directory(at: walk.firstIFD)
        XCTAssertEqual(ifd0.map(\.tag), [0x010F, 0x0110, 0x0112, 0x011A, 0x011B, 0x0128, 0x0131, 0x0132, 0x8769, 0x8825])
        let exif = try walk.directory(at: Int(try XCTUnwrap(walk.long(ifd0, 0x8769))))
        XCTAssertEqual(exif.map(\.tag), [0x829A, 0x829D, 0x8827, 0x9000, 0x9003, 0x920A, 0xA000, 0xA001, 0xA002, 0xA003, 0xA434])
        XCTAssertEqual(walk.entry(exif, 0xA002)?.type, 4, "PixelXDimension is a LONG")
        XCTAssertEqual(walk.raw(exif, 0xA000), Array("0100".utf8))
        let gps = try walk.directory(at: Int(try XCTUnwrap(walk.long(ifd0, 0x8825))))
        XCTAssertEqual(gps.map(\.tag), [0, 1, 2, 3, 4, 5, 6])
        for entry in ifd0 + exif + gps {
            let label = String(format: "tag 0x%04X", entry.tag)
            XCTAssertEqual(entry.valueOffset % 2, 0, "\(label) value is word-aligned")
            if entry.type == 2 {
                XCTAssertEqual(walk.bytes[entry.valueOffset + entry.count - 1], 0, "\(label) is NUL-terminated")
                XCTAssertFalse(walk.bytes[entry.valueOffset..<(entry.valueOffset + entry.count - 1)].contains(0), label)
            }
        }
        XCTAssertEqual(walk.ascii(ifd0, 0x0131), "LightWork 1.2")
        XCTAssertEqual(walk.ascii(ifd0, 0x0132), "2013:08:27 19:45:23", "DateTime is the photo's, never the time of writing")
        XCTAssertEqual(walk.ascii(exif, 0x9003), "2013:08:27 19:45:23")
        XCTAssertEqual(walk.raw(exif, 0x9000), Array("0232".utf8))
        XCTAssertEqual(walk.raw(gps, 0x0000), [2, 3, 0, 0])
        XCTAssertEqual(walk.ascii(gps, 0x0001), "S")
        XCTAssertEqual(walk.ascii(gps, 0x0003), "W")
        XCTAssertEqual(walk.raw(gps, 0x0005), [1], "altitude below sea level")
        XCTAssertEqual(walk.entry(exif, 0x829A)?.type, 5)
        XCTAssertEqual(walk.entry(exif, 0x8827)?.type, 3)
        XCTAssertEqual(walk.entry(gps, 0x0002)?.count, 3, "latitude is degrees, minutes, seconds")
    }

    /// LibRaw reports exposure and aperture as 32-bit floats: they become the fractions the camera meant.
    func testFloatValuesBecomeTheIntendedFractions() throws {
        var m = ImageMetadata()
        m.exposureTime = Double(Float(1.0 / 250))
        m.fNumber = Double(Float(5.6))
        m.focalLength = Double(Float(17))
        let walk = try TIFFWalk(try XCTUnwrap(EXIFWriter.blob(for: m)))
        let exif = try walk.directory(at: Int(try XCTUnwrap(walk.long(try walk.directory(at: walk.firstIFD), 0x8769))))
        XCTAssertEqual(walk.rational(exif, 0x829A), [1, 250])
        XCTAssertEqual(walk.rational(exif, 0x829D), [28, 5])
        XCTAssertEqual(walk.rational(exif, 0x920A), [17, 1])
    }

    func testEmptyMetadataStillStatesOrientationAndSoftware() throws {
        let blob = try XCTUnwrap(EXIFWriter.blob(for: ImageMetadata()))
        let walk = try TIFFWalk(blob)
        let ifd0 = try walk.directory(at: walk.firstIFD)
        XCTAssertEqual(ifd0.map(\.tag), [0x0112, 0x011A, 0x011B, 0x0128, 0x0131, 0x8769], "no Make, Model, DateTime or GPS when unknown")
        XCTAssertEqual(walk.ascii(ifd0, 0x0131), "LightWork")
        let read = try XCTUnwrap(EXIFReader.read(blob))
        var expected = ImageMetadata()
        expected.orientation = 1
        XCTAssertEqual(read, expected)
    }

    func testOutOfRangeValuesAreClampedOrLeftOut() throws {
        var m = ImageMetadata()
        m.iso = 204_800
        m.exposureTime = -1
        m.fNumber = .nan
        m.dateTimeOriginal = "yesterday"
        m.gpsLatitude = 91
        m.gpsLongitude = 10
        m.make = "  \0 "
        let read = try XCTUnwrap(EXIFReader.read(try XCTUnwrap(EXIFWriter.blob(for: m))))
        XCTAssertEqual(read.iso, 65535, "ISO is a SHORT: clamped")
        XCTAssertNil(read.exposureTime)
        XCTAssertNil(read.fNumber)
        XCTAssertNil(read.dateTimeOriginal)
        XCTAssertNil(read.gpsLatitude)
        XCTAssertNil(read.gpsLongitude)
        XCTAssertNil(read.make)
    }

    func testBytesAreDeterministic() throws {
        let a = try XCTUnwrap(EXIFWriter.blob(for: Self.full))
        Thread.sleep(forTimeInterval: 1.1)   // a clock-dependent DateTime would differ now
        XCTAssertEqual(a, EXIFWriter.blob(for: Self.full))
    }

    // MARK: Writers

    /// A TIFF written with a block carries its fields through libtiff's reading of IFD0 and the Exif and GPS IFDs.
    func testTIFFWriterCarriesEveryFieldReadBackByLibtiff() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        for compression in [TIFFCompression.none, .deflate] {
            let url = dir.appendingPathComponent("\(compression).tif")
            let pixels = TestImages.pattern(width: 9, height: 7, channels: 3, depth: .sixteen)
            try TIFFWriter().write(pixels, settings: EncodeSettings(tiffCompression: compression, exif: EXIFWriter.blob(for: Self.full)), to: url)
            let file = try ImageFileReader.read(url)
            XCTAssertEqual(file.samples, TestImages.widened(pixels), "pixels unaffected")
            let m = try XCTUnwrap(file.metadata)
            assertCarriesFull(m, tolerance: 1e-6)
            XCTAssertEqual(file.tiff?.orientation, 1)
            XCTAssertEqual(file.tiff?.software, "LightWork")
            let tags = FileStructure.tiffTags(try Data(contentsOf: url))
            XCTAssertNotNil(tags[306], "DateTime from DateTimeOriginal")
        }
    }

    // MARK: FileConverter

    func testOlympusJPEGMetadataReachesJPEGPNGAndTIFF() throws {
        let input = try olympus()
        let source = try XCTUnwrap(ImageFileReader.read(input).metadata)
        for format in [OutputFormat.jpeg, .png, .tiff8] {
            let url = try convertedURL(input, to: format, in: try TestPaths.temporaryDirectory(self))
            let m = try XCTUnwrap(try ImageFileReader.read(url).metadata, "\(format)")
            if format == .png {
                let types = FileStructure.pngChunks(try Data(contentsOf: url)).map(\.type)
                XCTAssertLessThan(try XCTUnwrap(types.firstIndex(of: "eXIf")), try XCTUnwrap(types.firstIndex(of: "IDAT")),
                                  "eXIf before the image data, where readers look for it")
            }
            // exiftool's reading of the original: 1/60 s, f/1.8, ISO 1600, 17 mm.
            XCTAssertEqual(m.make, "OLYMPUS IMAGING CORP.", "\(format)")
            XCTAssertEqual(m.model, "E-P3", "\(format)")
            XCTAssertEqual(m.lens, source.lens, "\(format): the Olympus lens name is in maker notes, which are not carried")
            XCTAssertEqual(m.dateTimeOriginal, "2013:08:27 19:45:23", "\(format)")
            XCTAssertEqual(m.iso, 1600, "\(format)")
            XCTAssertEqual(try XCTUnwrap(m.exposureTime), 1.0 / 60, accuracy: 1e-8, "\(format)")
            XCTAssertEqual(try XCTUnwrap(m.fNumber), 1.8, accuracy: 1e-6, "\(format)")
            XCTAssertEqual(try XCTUnwrap(m.focalLength), 17, accuracy: 1e-6, "\(format)")
            XCTAssertEqual(m.orientation, 1, "\(format)")
            if format != .tiff8 {   // libtiff hands EXIF rationals back as floats
                XCTAssertEqual(m.exposureTime, source.exposureTime, "\(format)")
                XCTAssertEqual(m.fNumber, source.fNumber, "\(format)")
            }
        }
    }

    func testSceneDNGMakeAndModelReachJPEGPNGAndTIFF() throws {
        let input = SampleSceneTests.samples.appendingPathComponent("scene.dng")
        for format in [OutputFormat.jpeg, .png, .tiff16] {
            let m = try XCTUnwrap(try convert(input, to: format).metadata, "\(format)")
            XCTAssertEqual(m.make, "LightWork", "\(format)")
            XCTAssertEqual(m.model, "Synthetic", "\(format)")
            XCTAssertEqual(m.orientation, 1, "\(format)")
        }
    }

    func testStripMetadataWritesNoEXIF() throws {
        let input = try olympus()
        for format in [OutputFormat.jpeg, .png, .tiff8] {
            let dir = try TestPaths.temporaryDirectory(self)
            let url = try convertedURL(input, to: format, in: dir, strip: true)
            let data = try Data(contentsOf: url)
            let file = try ImageFileReader.read(url)
            XCTAssertNil(file.exif, "\(format)")
            switch format {
            case .jpeg:
                XCTAssertFalse(FileStructure.jpegMarkers(data).contains { $0.marker == 0xE1 && $0.payload.starts(with: EXIFReader.app1Prefix) })
                XCTAssertNil(file.metadata)
            case .png:
                XCTAssertFalse(FileStructure.pngChunks(data).contains { $0.type == "eXIf" })
                XCTAssertNil(file.metadata)
            default:
                let tags = FileStructure.tiffTags(data)
                for tag: UInt16 in [271, 272, 306, 34665, 34853] { XCTAssertNil(tags[tag], "TIFF tag \(tag) must not be written") }
                XCTAssertNil(file.metadata?.make)
                XCTAssertNil(file.metadata?.exposureTime)
                XCTAssertEqual(file.tiff?.orientation, 1, "the image IFD still states its orientation")
            }
        }
    }

    func testOrientation6InputBecomesUprightOutputTaggedOne() throws {
        let input = try TestPaths.sharedSamples("rgb").appendingPathComponent("orientation-6.jpg")
        let stored = try ImageFileReader.read(input)
        XCTAssertEqual(stored.metadata?.orientation, 6)
        for format in [OutputFormat.jpeg, .tiff8] {
            let file = try convert(input, to: format)
            XCTAssertEqual(file.width, stored.height, "\(format): rotated upright")
            XCTAssertEqual(file.height, stored.width, "\(format)")
            XCTAssertEqual(file.metadata?.orientation, 1, "\(format)")
        }
    }

    // MARK: exiftool

    /// An independent reader agrees. exiftool (Debian libimage-exiftool-perl) is installed by
    /// `scripts/ensure-deps.sh --test`, so its absence fails the test: this is the one EXIF check not written here.
    func testExiftoolReadsTheSameFieldsFromEveryFormat() throws {
        guard let exiftool = ["/usr/bin/exiftool", "/usr/local/bin/exiftool"].first(where: FileManager.default.isExecutableFile) else {
            return XCTFail("exiftool not installed: 'make test' installs it (scripts/ensure-deps.sh --test, Debian libimage-exiftool-perl)")
        }
        let dir = try TestPaths.temporaryDirectory(self)
        var urls: [URL] = []
        for format in [OutputFormat.jpeg, .png, .tiff8] {
            let url = dir.appendingPathComponent("out." + format.fileExtension)
            let pixels = TestImages.pattern(width: 8, height: 6, channels: 3, depth: format.depth)
            let blob = EXIFWriter.blob(for: Self.full, jpeg: format == .jpeg)
            try format.writer().write(pixels, settings: EncodeSettings(format: format, exif: blob), to: url)
            urls.append(url)
        }
        let records = try XCTUnwrap(try JSONSerialization.jsonObject(with: run(exiftool, ["-j", "-n", "-Make", "-Model", "-LensModel", "-ExposureTime",
            "-FNumber", "-ISO", "-FocalLength", "-DateTimeOriginal", "-ModifyDate", "-Orientation", "-Software", "-GPSLatitude",
            "-GPSLongitude", "-GPSAltitude", "-ColorSpace", "-ExifImageWidth", "-ExifImageHeight", "-FlashpixVersion", "-XResolution",
            "-ResolutionUnit"] + urls.map(\.path))) as? [[String: Any]])
        XCTAssertEqual(records.count, 3)
        for r in records {
            let label = r["SourceFile"] as? String ?? "?"
            XCTAssertEqual(r["Make"] as? String, "OLYMPUS IMAGING CORP.", label)
            XCTAssertEqual(r["Model"] as? String, "E-P3", label)
            XCTAssertEqual(r["LensModel"] as? String, "OLYMPUS M.17mm F1.8", label)
            XCTAssertEqual(r["DateTimeOriginal"] as? String, "2013:08:27 19:45:23", label)
            XCTAssertEqual(r["ModifyDate"] as? String, "2013:08:27 19:45:23", label)
            XCTAssertEqual(r["Software"] as? String, "LightWork", label)
            XCTAssertEqual(r["Orientation"] as? Int, 1, label)
            XCTAssertEqual(r["ISO"] as? Int, 1600, label)
            XCTAssertEqual(try XCTUnwrap(r["ExposureTime"] as? Double, label), 0.004, accuracy: 1e-12, label)
            XCTAssertEqual(try XCTUnwrap(r["FNumber"] as? Double, label), 5.6, accuracy: 1e-12, label)
            XCTAssertEqual(try XCTUnwrap(r["FocalLength"] as? Double, label), 17, accuracy: 1e-12, label)
            XCTAssertEqual(try XCTUnwrap(r["GPSLatitude"] as? Double, label), -33.856_784_1, accuracy: 1e-6, label)
            XCTAssertEqual(try XCTUnwrap(r["GPSLongitude"] as? Double, label), -151.215_297_3, accuracy: 1e-6, label)
            XCTAssertEqual(try XCTUnwrap(r["GPSAltitude"] as? Double, label), -12.5, accuracy: 1e-6, label)
            XCTAssertEqual(r["ColorSpace"] as? Int, 1, label)
            if !label.hasSuffix(".tif") {   // TIFF states its size in IFD0 (ImageWidth), which exiftool reports the same way
                XCTAssertEqual(r["ExifImageWidth"] as? Int, 8, label)
                XCTAssertEqual(r["ExifImageHeight"] as? Int, 6, label)
            }
            XCTAssertEqual("\(r["FlashpixVersion"] ?? "")", "0100", label)
            XCTAssertEqual(r["XResolution"] as? Int, 72, label)
            XCTAssertEqual(r["ResolutionUnit"] as? Int, 2, label)
        }
        // exiftool's validation finds nothing wrong with the structure and no required tag missing, but TIFF's
        // GPSProcessingMethod (the name of the positioning method, which LightWork does not know).
        for url in urls {
            let lines = String(decoding: try run(exiftool, ["-validate", "-warning", "-a", "-s3", url.path]), as: UTF8.self)
                .split(separator: "\n").map(String.init)
            let problems = lines.dropFirst().filter { !$0.contains("GPSProcessingMethod") }
            XCTAssertEqual(problems, [], "\(url.lastPathComponent): \(lines)")
        }
    }

    private func run(_ tool: String, _ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return output
    }

    // MARK: Helpers

    private func assertCarriesFull(_ m: ImageMetadata, tolerance: Double, file: StaticString = #filePath, line: UInt = #line) {
        let full = Self.full
        XCTAssertEqual(m.make, full.make, file: file, line: line)
        XCTAssertEqual(m.model, full.model, file: file, line: line)
        XCTAssertEqual(m.lens, full.lens, file: file, line: line)
        XCTAssertEqual(m.dateTimeOriginal, full.dateTimeOriginal, file: file, line: line)
        XCTAssertEqual(m.iso, full.iso, file: file, line: line)
        XCTAssertEqual(m.orientation, 1, file: file, line: line)
        let pairs: [(Double?, Double?)] = [(m.exposureTime, full.exposureTime), (m.fNumber, full.fNumber), (m.focalLength, full.focalLength),
                                           (m.gpsLatitude, full.gpsLatitude), (m.gpsLongitude, full.gpsLongitude), (m.gpsAltitude, full.gpsAltitude)]
        for (i, (got, want)) in pairs.enumerated() {
            guard let got, let want else { XCTFail("field \(i) missing", file: file, line: line); continue }
            XCTAssertEqual(got, want, accuracy: abs(want) * tolerance, "field \(i)", file: file, line: line)
        }
    }

    private func olympus() throws -> URL {
        try TestPaths.sharedSamples("rgb").appendingPathComponent("large-exif-olympus-pen-e-p3.jpg")
    }

    private func convertedURL(_ input: URL, to format: OutputFormat, in dir: URL, strip: Bool = false) throws -> URL {
        var spec = ConvertSpec(outputDirectory: dir)
        spec.export.format = format
        spec.export.stripMetadata = strip
        spec.decode.demosaic = .linear
        let name = input.lastPathComponent
        let entry = try FileConverter(spec: spec).convert(InputItem(url: input, displayPath: name, relativePath: name))
        XCTAssertEqual(entry.status, .converted, entry.reason ?? "")
        return dir.appendingPathComponent(try XCTUnwrap(entry.output?.path))
    }

    private func convert(_ input: URL, to format: OutputFormat) throws -> ImageFile {
        try ImageFileReader.read(try convertedURL(input, to: format, in: try TestPaths.temporaryDirectory(self)))
    }
}

/// A little-endian TIFF structure walked with bounds checks that fail the test, independent of EXIFReader.
private struct TIFFWalk {
    struct Entry { let tag: UInt16; let type: UInt16; let count: Int; let valueOffset: Int }
    let bytes: [UInt8]
    let firstIFD: Int

    init(_ data: Data) throws {
        let b = [UInt8](data)
        guard b.count >= 8, Array(b[0..<4]) == [0x49, 0x49, 0x2A, 0x00] else { throw Failure("not a little-endian TIFF header") }
        bytes = b
        firstIFD = Int(b[4]) | Int(b[5]) << 8 | Int(b[6]) << 16 | Int(b[7]) << 24
    }

    struct Failure: Error, CustomStringConvertible { let description: String; init(_ d: String) { description = d } }

    func u16(_ o: Int) -> UInt16 { UInt16(bytes[o]) | UInt16(bytes[o + 1]) << 8 }
    func u32(_ o: Int) -> UInt32 { UInt32(u16(o)) | UInt32(u16(o + 2)) << 16 }

    /// The entries of the IFD at `offset`, checking ascending tags, in-bounds values and a zero next-IFD link.
    func directory(at offset: Int) throws -> [Entry] {
        guard offset % 2 == 0, offset + 2 <= bytes.count else { throw Failure("IFD offset \(offset) odd or outside") }
        let n = Int(u16(offset))
        guard offset + 2 + 12 * n + 4 <= bytes.count else { throw Failure("IFD at \(offset) runs past the end") }
        var out: [Entry] = []
        for i in 0..<n {
            let o = offset + 2 + 12 * i
            let type = u16(o + 2), count = Int(u32(o + 4))
            let size = [1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 7: 1][Int(type)]
            guard let size else { throw Failure("unexpected type \(type)") }
            let length = size * count
            let valueOffset = length <= 4 ? o + 8 : Int(u32(o + 8))
            guard valueOffset + length <= bytes.count else { throw Failure("value of tag \(u16(o)) outside the block") }
            if let last = out.last, last.tag >= u16(o) { throw Failure("tags not ascending at \(u16(o))") }
            out.append(Entry(tag: u16(o), type: type, count: count, valueOffset: valueOffset))
        }
        guard u32(offset + 2 + 12 * n) == 0 else { throw Failure("next-IFD link is not 0") }
        return out
    }

    func entry(_ d: [Entry], _ tag: UInt16) -> Entry? { d.first { $0.tag == tag } }
    func raw(_ d: [Entry], _ tag: UInt16) -> [UInt8]? { entry(d, tag).map { Array(bytes[$0.valueOffset..<($0.valueOffset + $0.count)]) } }
    func long(_ d: [Entry], _ tag: UInt16) -> UInt32? { entry(d, tag).flatMap { $0.type == 4 && $0.count == 1 ? u32($0.valueOffset) : nil } }
    func ascii(_ d: [Entry], _ tag: UInt16) -> String? {
        entry(d, tag).flatMap { $0.type == 2 ? String(decoding: bytes[$0.valueOffset..<($0.valueOffset + $0.count - 1)], as: UTF8.self) : nil }
    }
    func rational(_ d: [Entry], _ tag: UInt16) -> [UInt32]? {
        entry(d, tag).flatMap { $0.type == 5 ? [u32($0.valueOffset), u32($0.valueOffset + 4)] : nil }
    }
}
