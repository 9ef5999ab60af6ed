import CLibRaw
import Foundation
import XCTest
@testable import LightWork

/// Issue 19 item 2: no picture from missing data, for every format. RAW files cut at several lengths, and
/// metadata-only stubs of other formats (a valid header that makes LibRaw pick a real camera's loader, no data
/// behind it), must fail with a reason; complete files still decode and their loaders read no further than
/// the file's end (the measured overshoot is printed).
final class TruncationTests: XCTestCase {
    // MARK: files

    /// The shared camera samples (CRW ×2, KDC, lossy DNG).
    private func sharedRaws() throws -> [URL] {
        let dir = try TestPaths.sharedSamples("raw")
        return ["canon-eos-d30.crw", "canon-powershot-g2.crw", "kodak-dc50.kdc", "lg-g4-h815-lossy-linear.dng"].map { dir.appendingPathComponent($0) }
    }

    /// A generated DNG from lightwork-tools (`compression`: none or ljpeg).
    private static func makeDNG(_ url: URL, compression: String, width: Int = 512, height: Int = 384, seed: Int = 3) throws {
        let tools = CLIRunner.binary.deletingLastPathComponent().appendingPathComponent("lightwork-tools")
        let p = Process()
        p.executableURL = tools
        p.arguments = ["make-sample-dng", "-o", url.path, "--seed", String(seed), "--width", String(width), "--height", String(height),
                       "--compression", compression]
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0, "make-sample-dng --compression \(compression)")
    }

    private func generatedDNGs(_ dir: URL) throws -> [URL] {
        let plain = dir.appendingPathComponent("generated-uncompressed.dng"), ljpeg = dir.appendingPathComponent("generated-ljpeg.dng")
        try Self.makeDNG(plain, compression: "none")
        try Self.makeDNG(ljpeg, compression: "ljpeg")
        return [plain, ljpeg]
    }

    /// Decodes `data` as `name` on the default path; "converted WxH" or the error's one line.
    private func outcome(_ data: Data, name: String) -> (converted: Bool, text: String, error: LightWorkError?) {
        do {
            let d = try RawDecoder.decode(data: data, url: URL(fileURLWithPath: "/in/" + name), options: DecodeOptions())
            return (true, "converted \(d.image.width)x\(d.image.height)", nil)
        } catch let e as LightWorkError {
            return (false, e.description, e)
        } catch {
            return (false, "untyped error \(error)", nil)
        }
    }

    // MARK: tests

    /// LibRaw reads the lossless-JPEG DNG to exactly the raw values of the uncompressed one (an independent
    /// check of LosslessJPEG: the decoder is LibRaw's).
    func testLosslessJPEGDNGHasTheUncompressedRawValues() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let files = try generatedDNGs(dir)
        func rawValues(_ url: URL) throws -> (values: [UInt16], decoder: String, size: Int) {
            let lr = try XCTUnwrap(libraw_init(0))
            defer { libraw_close(lr) }
            XCTAssertEqual(libraw_open_file(lr, url.path), 0, url.lastPathComponent)
            XCTAssertEqual(libraw_unpack(lr), 0, url.lastPathComponent)
            let w = Int(lr.pointee.sizes.raw_width), h = Int(lr.pointee.sizes.raw_height)
            let raw = try XCTUnwrap(lr.pointee.rawdata.raw_image, url.lastPathComponent)
            let size = (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
            return (Array(UnsafeBufferPointer(start: raw, count: w * h)), String(cString: libraw_unpack_function_name(lr)), size)
        }
        let plain = try rawValues(files[0]), ljpeg = try rawValues(files[1])
        print("lossless-JPEG DNG: \(ljpeg.size) bytes (\(ljpeg.decoder)) vs uncompressed \(plain.size) bytes (\(plain.decoder)), \(plain.values.count) raw values")
        XCTAssertTrue(ljpeg.decoder.contains("lossless_dng"), ljpeg.decoder)
        XCTAssertLessThan(ljpeg.size, plain.size / 2, "the scene compresses")
        XCTAssertEqual(plain.values.count, 512 * 384)
        XCTAssertTrue(plain.values == ljpeg.values, "identical raw values; first difference at \(String(describing: zip(plain.values, ljpeg.values).enumerated().first { $0.element.0 != $0.element.1 }))")
    }

    /// Complete files decode, and their loaders ask for no byte past the end beyond RawDecoder's read-ahead
    /// allowance (the overshoot printed per file is what sets that allowance).
    func testCompleteFilesDecodeAndTheirLoadersStayInside() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        var worst = Int.min
        for url in try sharedRaws() + generatedDNGs(dir) {
            let data = try Data(contentsOf: url)
            for demosaic in [DecodeOptions.Demosaic.ahd, .linear] {
                var options = DecodeOptions()
                options.demosaic = demosaic
                let (furthest, size, decoder) = try data.withUnsafeBytes { raw in
                    let session = try RawDecoder.Session(url: url, data: raw, options: options)
                    _ = try session.decode()
                    return (session.furthestRead, session.size, session.details()["decoder"] ?? "?")
                }
                let overshoot = furthest - size
                worst = max(worst, overshoot)
                print(String(format: "complete %-34@ %-7@ %9d bytes, loader read to %9d (%+d past the end) %@", url.lastPathComponent as NSString,
                             demosaic.rawValue as NSString, size, furthest, overshoot, decoder as NSString))
                XCTAssertLessThanOrEqual(overshoot, RawDecoder.readAheadAllowance, url.lastPathComponent)
                // libjpeg reads a lossy DNG's tiles in place and reports only a run past the end, not how far it got.
                if !decoder.contains("lossy_dng") { XCTAssertGreaterThan(furthest, size / 2, "\(url.lastPathComponent): the loader read the image data") }
            }
        }
        print("largest overshoot of a complete file: \(worst) bytes (allowance \(RawDecoder.readAheadAllowance))")
    }

    /// Every file cut at 10, 50, 90 and 99 % and a few bytes short fails with a one-line reason; none
    /// produces an image.
    func testCutFilesFailWithAReason() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        var rows: [String] = []
        for url in try sharedRaws() + generatedDNGs(dir) {
            let data = try Data(contentsOf: url)
            let cuts: [(String, Int)] = [("10%", data.count / 10), ("50%", data.count / 2), ("90%", data.count * 9 / 10),
                                         ("99%", data.count * 99 / 100), ("-3 bytes", data.count - 3)]
            for (label, length) in cuts {
                let result = outcome(data.prefix(length), name: url.lastPathComponent)
                rows.append(String(format: "%-34@ %-9@ %@", url.lastPathComponent as NSString, label as NSString, result.text as NSString))
                XCTAssertFalse(result.converted, "\(url.lastPathComponent) cut to \(label): \(result.text)")
                XCTAssertNotNil(result.error, "\(url.lastPathComponent) cut to \(label): a typed error")
                XCTAssertFalse(result.text.contains("\n"), "one line")
            }
        }
        print("file                               cut       outcome\n" + rows.joined(separator: "\n"))
    }

    /// Metadata-only stubs of other formats: LibRaw identifies a real camera (and so picks its loader), then
    /// finds no data; each fails with a reason, never an image of whatever memory held.
    func testMetadataOnlyStubsOfOtherFormatsFail() throws {
        var rows: [String] = []
        for stub in RawStub.all {
            let data = stub.bytes
            let session = try data.withUnsafeBytes { try RawDecoder.Session(url: URL(fileURLWithPath: "/in/" + stub.name), data: $0, options: DecodeOptions()) }
            let (meta, details) = (session.metadata(), session.details())
            XCTAssertEqual(meta.model, stub.model, "\(stub.name): LibRaw identifies the camera")
            let result = outcome(data, name: stub.name)
            rows.append(String(format: "%-10@ %6d bytes  %-26@ %-24@ %@", stub.name as NSString, data.count, "\(meta.make ?? "?") \(meta.model ?? "?")" as NSString,
                               (details["decoder"] ?? "?") as NSString, result.text as NSString))
            XCTAssertFalse(result.converted, "\(stub.name): \(result.text)")
            // The loader asked past the end (recorded by RawDecoder's stream), or LibRaw itself saw the end of the data.
            switch result.error {
            case .truncated(let end, let needed)?:
                XCTAssertEqual(end, data.count)
                XCTAssertGreaterThan(needed, end, "\(stub.name): the loader asked past the end")
            case .decodeFailed(let reason)?:
                XCTAssertTrue(reason.contains("Input/output error") || reason.contains("data error"), "\(stub.name): \(reason)")
            default:
                XCTFail("\(stub.name): \(result.text)")
            }
            // Deterministic: the same outcome a second time in this process.
            XCTAssertEqual(outcome(data, name: stub.name).text, result.text, stub.name)
        }
        print("stub       size          camera                     decoder                  outcome\n" + rows.joined(separator: "\n"))
    }

    /// The same stub fails the same way alone, twice in a row in one process, and inside a batch (where it once
    /// failed with "Input/output error" and converted alone); the batch gives one line, a failed entry, exit 1,
    /// and converts the rest.
    func testATruncatedFileFailsTheSameAloneAndInABatch() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let input = dir.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        let stub = try XCTUnwrap(RawStub.all.first { $0.name.hasSuffix(".rw2") })
        let stubURL = input.appendingPathComponent(stub.name)
        try stub.bytes.write(to: stubURL)
        let alone = outcome(stub.bytes, name: stub.name), again = outcome(stub.bytes, name: stub.name)
        XCTAssertFalse(alone.converted)
        XCTAssertEqual(alone.text, again.text, "deterministic")
        try Self.makeDNG(input.appendingPathComponent("good1.dng"), compression: "ljpeg", seed: 5)
        try Self.makeDNG(input.appendingPathComponent("good2.dng"), compression: "none", seed: 6)
        let ljpeg = try Data(contentsOf: input.appendingPathComponent("good1.dng"))
        let cut = input.appendingPathComponent("cut.dng")
        try ljpeg.prefix(ljpeg.count * 9 / 10).write(to: cut)

        let out = dir.appendingPathComponent("out")
        let result = try CLIRunner.run(["convert", input.path, "-o", out.path, "--jobs", "2"])
        XCTAssertEqual(result.status, 1, result.stderr)
        let m = try BatchFixture.manifest(out.appendingPathComponent("manifest.json"))
        XCTAssertEqual(m.summary.converted, 2)
        XCTAssertEqual(m.summary.failed, 2)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        for bad in [stubURL, cut] {
            let entry = try XCTUnwrap(m.entries.first { $0.input.path.hasSuffix(bad.lastPathComponent) })
            XCTAssertEqual(entry.status, .failed)
            XCTAssertEqual(entry.reason?.contains("cut short"), true, entry.reason ?? "")
            XCTAssertEqual(entry.failureKind, .truncated)
            XCTAssertEqual(lines.filter { $0.contains(bad.lastPathComponent) }.count, 1, "one line: \(lines)")
            print("batch: \(bad.lastPathComponent): \(entry.reason ?? "")")
        }
        let batchReason = m.entries.first { $0.input.path.hasSuffix(stub.name) }?.reason ?? ""
        XCTAssertTrue(batchReason.contains(alone.text) || alone.text.contains(batchReason), "alone: \(alone.text); batch: \(batchReason)")
    }

    /// GoPro GPR is a DNG whose raw data is VC-5 (Compression 9): recognised by content whatever its name.
    func testGPRIsRecognisedByContentUnderAnyName() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let gpr = try Data(contentsOf: try BadInputs.gprLikeDNG(in: dir))
        for name in ["GOPR0001.dng", "clip", "IMG_0001.raw", "GOPR0001.GPR"] {
            let result = outcome(gpr, name: name)
            guard case .unsupportedFormat(let reason) = result.error else { XCTFail("\(name): \(result.text)"); continue }
            XCTAssertTrue(reason.contains("GoPro GPR"), "\(name): \(reason)")
            print("\(name): \(result.text)")
        }
    }
}

/// Metadata-only RAW files: a TIFF-like header naming a real camera, its image data missing. Built here
/// from the formats' published layouts (LibRaw's identification is what the test then relies on).
struct RawStub {
    let name: String
    let model: String
    let bytes: Data

    /// A little-endian TIFF-like file: `magic` (42 for TIFF, 0x55 Panasonic, 0x4F52 Olympus), one IFD of
    /// `entries` (tag, type, values) after `prefix`, padded with zeros to `length`.
    enum Value { case ascii(String), shorts([UInt16]), longs([UInt32]), bytes([UInt8]) }
    static func tiff(magic: UInt16, prefix: [UInt8] = [], _ entries: [(UInt16, Value)], length: Int = 4096) -> [UInt8] {
        func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func le32(_ v: UInt32) -> [UInt8] { le16(UInt16(v & 0xFFFF)) + le16(UInt16(v >> 16)) }
        let ifd = 8 + prefix.count
        var out = [0x49, 0x49] + le16(magic) + le32(UInt32(ifd)) + prefix
        var extra: [UInt8] = []
        let extraStart = ifd + 2 + 12 * entries.count + 4
        out += le16(UInt16(entries.count))
        for (tag, value) in entries.sorted(by: { $0.0 < $1.0 }) {
            let (type, count, raw): (UInt16, Int, [UInt8])
            switch value {
            case .ascii(let s): (type, count, raw) = (2, s.utf8.count + 1, Array(s.utf8) + [0])
            case .shorts(let v): (type, count, raw) = (3, v.count, v.flatMap(le16))
            case .longs(let v): (type, count, raw) = (4, v.count, v.flatMap(le32))
            case .bytes(let v): (type, count, raw) = (7, v.count, v)
            }
            out += le16(tag) + le16(type) + le32(UInt32(count))
            if raw.count <= 4 { out += raw + [UInt8](repeating: 0, count: 4 - raw.count) } else {
                out += le32(UInt32(extraStart + extra.count))
                extra += raw + (raw.count % 2 == 1 ? [0] : [])
            }
        }
        out += le32(0) + extra
        return out + [UInt8](repeating: 0, count: max(0, length - out.count))
    }

    /// A CFA IFD for a TIFF-based RAW: image data from byte 2048 of the 4096-byte stub, no StripByteCounts (the
    /// size is LibRaw's to infer from the camera, so only its loader can notice the data is missing).
    static func cfaIFD(width: UInt32, height: UInt32, bits: UInt16, compression: UInt16, make: String, model: String) -> [(UInt16, Value)] {
        [(0xFE, .longs([0])), (0x100, .longs([width])), (0x101, .longs([height])), (0x102, .shorts([bits])),
         (0x103, .shorts([compression])), (0x106, .shorts([32803])), (0x10F, .ascii(make)), (0x110, .ascii(model)),
         (0x111, .longs([2048])), (0x115, .shorts([1])), (0x116, .longs([height])), (0x828D, .shorts([2, 2])),
         (0x828E, .bytes([0, 1, 1, 2]))]
    }

    static let all: [RawStub] = [
        // Panasonic RW2 (magic 0x55): sensor size and borders in tags 2-7, RawDataOffset 0x118 (panasonic_load_raw).
        RawStub(name: "stub.rw2", model: "DMC-GH4", bytes: Data(tiff(magic: 0x55, [
            (0x01, .bytes(Array("0310".utf8))), (0x02, .shorts([4608])), (0x03, .shorts([3456])), (0x04, .shorts([0])), (0x05, .shorts([0])),
            (0x06, .shorts([3456])), (0x07, .shorts([4608])), (0x09, .shorts([1])), (0x0A, .shorts([12])), (0x10F, .ascii("Panasonic")),
            (0x110, .ascii("DMC-GH4")), (0x112, .shorts([1])), (0x118, .longs([0x2008])), (0x111, .longs([0x2008]))]))),
        RawStub(name: "stub.nef", model: "D700", bytes: Data(tiff(magic: 42, cfaIFD(width: 4288, height: 2844, bits: 14, compression: 1,
                                                                                     make: "NIKON CORPORATION", model: "NIKON D700")))),
        RawStub(name: "stub.arw", model: "ILCE-7", bytes: Data(tiff(magic: 42, cfaIFD(width: 6048, height: 4024, bits: 12, compression: 32767,
                                                                                       make: "SONY", model: "ILCE-7")))),
        RawStub(name: "stub.pef", model: "K-5", bytes: Data(tiff(magic: 42, cfaIFD(width: 4992, height: 3284, bits: 12, compression: 1,
                                                                                    make: "PENTAX Corporation", model: "PENTAX K-5")))),
        // Olympus ORF: magic "RO".
        RawStub(name: "stub.orf", model: "E-M5", bytes: Data(tiff(magic: 0x4F52, cfaIFD(width: 4640, height: 3472, bits: 12, compression: 1,
                                                                                         make: "OLYMPUS IMAGING CORP.", model: "E-M5")))),
        RawStub(name: "stub.cr2", model: "EOS 5D Mark II", bytes: Data(canonCR2())),
    ]

    /// A Canon CR2: "CR" 2.0 after the TIFF header, IFD0 naming the camera, then the raw IFD (Compression 6)
    /// whose strip starts with a lossless-JPEG header (SOI, DHT, SOF3 5792/4 × 3804 × 4 components, SOS) and stops.
    static func canonCR2() -> [UInt8] {
        func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
        func segment(_ marker: UInt8, _ body: [UInt8]) -> [UInt8] { [0xFF, marker] + be16(body.count + 2) + body }
        let lengths: [UInt8] = [0, 0, 0, 15, 2] + [UInt8](repeating: 0, count: 11)      // 17 categories: a full prefix code
        let dht = segment(0xC4, [0] + lengths + (0..<17).map { UInt8($0) })
        let sof = segment(0xC3, [14] + be16(3804) + be16(5792 / 4) + [4] + (1...4).flatMap { [UInt8($0), 0x11, 0] })
        let sos = segment(0xDA, [4] + (1...4).flatMap { [UInt8($0), 0] } + [1, 0, 0])
        let jpegOffset = 1024
        var head = tiff(magic: 42, prefix: Array("CR".utf8) + [2, 0] + [0, 0, 0, 0],
                        [(0x10F, .ascii("Canon")), (0x110, .ascii("Canon EOS 5D Mark II")), (0x112, .shorts([1]))], length: 512)
        // IFD0's next-IFD link and the CR2 header's raw-IFD pointer both lead to the raw IFD at 512.
        let next = 16 + 2 + 12 * 3
        head.replaceSubrange(next..<(next + 4), with: [0, 2, 0, 0])
        head.replaceSubrange(12..<16, with: [0, 2, 0, 0])
        let rawIFD = tiff(magic: 42, [(0x103, .shorts([6])), (0x111, .longs([UInt32(jpegOffset)])), (0xC640, .shorts([1, 2896, 2896]))])
        // tiff() starts its IFD at byte 8 of its own buffer: shift its out-of-line offsets by 504 to sit at 512.
        var ifd = Array(rawIFD[8..<(8 + 2 + 12 * 3 + 4 + 6)])
        let slices = 8 + 2 + 12 * 3 + 4 + 504
        ifd.replaceSubrange((2 + 12 * 2 + 8)..<(2 + 12 * 2 + 12), with: [UInt8(slices & 0xFF), UInt8(slices >> 8), 0, 0])
        var out = head + ifd
        out += [UInt8](repeating: 0, count: jpegOffset - out.count)
        return out + [0xFF, 0xD8] + dht + sof + sos
    }
}
