import CLibRaw
import Foundation
import XCTest
@testable import LightWork

/// Issue 24 item 1: LightWork's own lossless-JPEG unpack (lw_ljpeg_decode, tile-parallel, in place of LibRaw's
/// lossless_dng_load_raw), and its parallel copy of uncompressed 16-bit samples (in place of packed_dng_load_raw).
/// Every mosaic they write is held bit for bit against the raw_image of a plain LibRaw handle (libraw_init / libraw_unpack, no LightWork code in the path), on generated DNGs of every layout the
/// generator writes; damaged streams must either give LibRaw's own result (LightWork's decoder declined) or fail.
final class LosslessJPEGUnpackTests: XCTestCase {
    /// A generated lossless-JPEG DNG (`ljpeg`: lightwork-tools' --ljpeg spec, nil for the default layout).
    private static func makeDNG(_ url: URL, ljpeg: String?, width: Int = 640, height: Int = 480, seed: Int = 3, compression: String = "ljpeg",
                                extra: [String] = []) throws {
        let tools = CLIRunner.binary.deletingLastPathComponent().appendingPathComponent("lightwork-tools")
        let p = Process()
        p.executableURL = tools
        p.arguments = ["make-sample-dng", "-o", url.path, "--seed", String(seed), "--width", String(width), "--height", String(height),
                       "--scene", "photo", "--iso", "800", "--compression", compression] + (ljpeg.map { ["--ljpeg", $0] } ?? []) + extra
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0, "make-sample-dng --ljpeg \(ljpeg ?? "default"): \(message)")
    }

    /// LibRaw's raw_image from a plain handle, or nil with LibRaw's reason when it fails or reports a data error.
    private static func libRawMosaic(_ data: Data) -> (values: [UInt16]?, failure: String?) {
        guard let lr = libraw_init(0) else { return (nil, "libraw_init") }
        defer { libraw_close(lr) }
        let flag = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
        defer { flag.deallocate() }
        flag.pointee = 0
        libraw_set_dataerror_handler(lr, { p, _, _ in p?.assumingMemoryBound(to: Int32.self).pointee = 1 }, flag)
        return data.withUnsafeBytes { raw -> ([UInt16]?, String?) in
            var rc = libraw_open_buffer(lr, UnsafeMutableRawPointer(mutating: raw.baseAddress), raw.count)
            if rc != 0 { return (nil, "open \(rc)") }
            rc = libraw_unpack(lr)
            if rc != 0 { return (nil, "unpack \(rc)") }
            if flag.pointee != 0 { return (nil, "data error") }
            guard let image = lr.pointee.rawdata.raw_image else { return (nil, "no raw_image") }
            let n = Int(lr.pointee.sizes.raw_width) * Int(lr.pointee.sizes.raw_height)
            return (Array(UnsafeBufferPointer(start: image, count: n)), nil)
        }
    }

    private static func firstDifference(_ a: [UInt16], _ b: [UInt16]) -> String {
        guard a.count == b.count else { return "\(a.count) vs \(b.count) values" }
        guard let i = zip(a, b).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset else { return "none" }
        return "index \(i): \(a[i]) vs \(b[i])"
    }

    /// Every layout: predictors 1–7, precision 16/14/12, point transforms, square and odd tile sizes whose edge
    /// tiles overhang the frame, one strip, one and two components per line.
    func testEveryGeneratedLayoutUnpacksToLibRawsMosaicBitForBit() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let cases: [(String?, Int, Int)] = [
            (nil, 512, 384),
            ("predictor=1,tile=256x256", 640, 480), ("predictor=2,tile=256x256", 640, 480), ("predictor=3,tile=256x256", 640, 480),
            ("predictor=4,tile=256x256", 640, 480), ("predictor=5,tile=256x256", 640, 480), ("predictor=6,tile=256x256", 640, 480),
            ("predictor=7,tile=256x256", 640, 480),
            ("predictor=4,bits=14,tile=128x128", 640, 480), ("predictor=6,bits=12,tile=128x96", 640, 480),
            ("predictor=1,bits=12,components=1,tile=96x80", 640, 480), ("predictor=5,components=1,tile=80x48", 642, 482),
            ("predictor=7,bits=14,components=2,tile=112x80", 642, 482),
            ("predictor=1,pt=1,tile=128x128", 640, 480), ("predictor=6,bits=14,pt=2,tile=160x112", 640, 480),
            ("strip", 640, 480), ("strip,components=1,predictor=3,bits=14", 642, 482), ("strip,predictor=7,bits=12", 640, 480),
        ]
        var rows: [String] = []
        for (index, (spec, w, h)) in cases.enumerated() {
            let url = dir.appendingPathComponent("layout-\(index).dng")
            try Self.makeDNG(url, ljpeg: spec, width: w, height: h, seed: index + 1)
            let label = "\(spec ?? "default") \(w)x\(h)"
            let reference = Self.libRawMosaic(try Data(contentsOf: url))
            let expected = try XCTUnwrap(reference.values, "\(label): LibRaw fails: \(reference.failure ?? "")")
            let ours = try RawDecoder.unpackMosaic(url: url, engine: EngineConfiguration(threads: 3))
            XCTAssertTrue(ours.own, "\(label): \(ours.unpacker)")
            XCTAssertTrue(ours.unpacker.hasPrefix("LightWork lossless JPEG"), ours.unpacker)
            XCTAssertTrue(ours.values == expected, "\(label): first difference \(Self.firstDifference(ours.values, expected))")
            // Each tile writes its own pixels: one thread gives the same mosaic.
            let single = try RawDecoder.unpackMosaic(url: url, engine: EngineConfiguration(threads: 1))
            XCTAssertTrue(single.values == ours.values, "\(label): 1 thread differs")
            // Not a trivially equal pair: the scene has texture and noise.
            XCTAssertGreaterThan(Set(expected).count, 500, label)
            rows.append(String(format: "%-44@ %8d values, %5d distinct: identical; %@", label as NSString, expected.count, Set(expected).count, ours.unpacker as NSString))
        }
        print("layout                                       mosaic vs LibRaw raw_image\n" + rows.joined(separator: "\n"))
    }

    /// The whole decode: the mosaic is the same, so the developed pixels are byte-identical to LibRaw's unpack,
    /// and the decisions say which unpacker ran (LightWork's for lossless JPEG; LibRaw's for the other DNGs).
    func testDecodeRecordsTheUnpackerAndKeepsThePixels() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let ljpeg = dir.appendingPathComponent("tiles.dng"), plain = dir.appendingPathComponent("plain.dng")
        try Self.makeDNG(ljpeg, ljpeg: "tile=256x256", width: 640, height: 480)
        try Self.makeDNG(plain, ljpeg: nil, width: 640, height: 480, compression: "none")
        func decode(_ url: URL, own: Bool, demosaic: DecodeOptions.Demosaic) throws -> DecodedImage {
            let data = try Data(contentsOf: url)
            var options = DecodeOptions()
            options.demosaic = demosaic
            return try data.withUnsafeBytes { raw in
                let session = try RawDecoder.Session(url: url, data: raw, options: options)
                session.ownUnpack = own
                return try session.decode()
            }
        }
        for demosaic in [DecodeOptions.Demosaic.ahd, .linear] {
            let ours = try decode(ljpeg, own: true, demosaic: demosaic), theirs = try decode(ljpeg, own: false, demosaic: demosaic)
            let decision = try XCTUnwrap(ours.decisions?["unpack"])
            print("\(demosaic.rawValue): unpack decision: \(decision) | without: \(theirs.decisions?["unpack"] ?? "-")")
            XCTAssertEqual(decision, "LightWork lossless JPEG (6 tiles, 16-bit, predictor 1, 2 components)")
            XCTAssertEqual(theirs.decisions?["unpack"], "LibRaw lossless_dng_load_raw")
            let n = 4 * ours.image.width * ours.image.height
            XCTAssertEqual(ours.image.width, theirs.image.width)
            XCTAssertTrue(memcmp(ours.image.storage, theirs.image.storage, n * 2) == 0, "\(demosaic.rawValue): developed pixels differ")
        }
        // The uncompressed DNG: LightWork's parallel copy, the developed pixels LibRaw's loader's to the byte.
        let plainOurs = try decode(plain, own: true, demosaic: .ahd), plainTheirs = try decode(plain, own: false, demosaic: .ahd)
        XCTAssertEqual(plainOurs.decisions?["unpack"], "LightWork uncompressed (16-bit, rows in parallel)")
        XCTAssertEqual(plainTheirs.decisions?["unpack"], "LibRaw packed_dng_load_raw")
        XCTAssertTrue(memcmp(plainOurs.image.storage, plainTheirs.image.storage, 4 * plainOurs.image.width * plainOurs.image.height * 2) == 0,
                      "uncompressed: developed pixels differ")
        // The shared real DNG (LG G4) is lossy JPEG: LibRaw's loader, LightWork's not asked.
        let lg = try TestPaths.sharedSamples("raw").appendingPathComponent("lg-g4-h815-lossy-linear.dng")
        let lgDecision = try RawDecoder.decode(url: lg, options: DecodeOptions()).decisions?["unpack"]
        print("LG G4 sample: \(lgDecision ?? "-")")
        XCTAssertEqual(lgDecision, "LibRaw lossy_dng_load_raw")
    }

    /// LightWork's uncompressed loader (a parallel copy in place of packed_dng_load_raw): Bayer and X-Trans, sizes
    /// whose rows are not whole bands, 1 and 3 threads, each mosaic LibRaw's raw_image bit for bit; a file cut short
    /// is left to LibRaw's loader, whose read past the end fails the unpack.
    func testUncompressedDNGsUnpackToLibRawsMosaicBitForBit() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        for (index, (w, h, cfa)) in [(640, 480, "RGGB"), (642, 482, "GBRG"), (250, 170, "BGGR"), (600, 396, "XTRANS")].enumerated() {
            let url = dir.appendingPathComponent("plain-\(index).dng")
            try Self.makeDNG(url, ljpeg: nil, width: w, height: h, seed: index + 1, compression: "none", extra: ["--cfa", cfa])
            let label = "\(w)x\(h) \(cfa)"
            let reference = Self.libRawMosaic(try Data(contentsOf: url))
            let expected = try XCTUnwrap(reference.values, "\(label): LibRaw fails: \(reference.failure ?? "")")
            for threads in [1, 3] {
                let ours = try RawDecoder.unpackMosaic(url: url, engine: EngineConfiguration(threads: threads))
                XCTAssertTrue(ours.own, "\(label): \(ours.unpacker)")
                XCTAssertEqual(ours.unpacker, "LightWork uncompressed (16-bit, rows in parallel)", label)
                XCTAssertTrue(ours.values == expected, "\(label), \(threads) threads: first difference \(Self.firstDifference(ours.values, expected))")
            }
            XCTAssertGreaterThan(Set(expected).count, min(500, w * h / 8), label)
        }
        // The samples moved to 1000 bytes before the end (the first StripOffsets value, where LibRaw's loader starts
        // reading one run; the generator puts the IFD after the samples): the header still reads, LightWork's loader
        // declines the run past the end, LibRaw's reads past it, and the unpack fails. (Cutting the file short instead
        // cut the IFD off, so LibRaw failed to identify it and neither loader ran.)
        var bytes = [UInt8](try Data(contentsOf: dir.appendingPathComponent("plain-0.dng")))
        func u32(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24 }
        let ifd = u32(4), entries = Int(bytes[ifd]) | Int(bytes[ifd + 1]) << 8
        let stripOffsets = try XCTUnwrap((0..<entries).map { ifd + 2 + 12 * $0 }.first { bytes[$0] == 0x11 && bytes[$0 + 1] == 0x01 },
                                         "no StripOffsets in IFD0")
        XCTAssertEqual([bytes[stripOffsets + 2], bytes[stripOffsets + 3]], [4, 0], "StripOffsets are LONGs")
        let firstStrip = u32(stripOffsets + 4) == 1 ? stripOffsets + 8 : u32(stripOffsets + 8)
        let moved = withUnsafeBytes(of: UInt32(bytes.count - 1000).littleEndian) { [UInt8]($0) }
        bytes.replaceSubrange(firstStrip..<(firstStrip + 4), with: moved)
        let pastEnd = dir.appendingPathComponent("past-end.dng")
        try Data(bytes).write(to: pastEnd)
        XCTAssertThrowsError(try RawDecoder.unpackMosaic(url: pastEnd)) { error in
            print("uncompressed, samples past the end: \(error)")
            XCTAssertTrue("\(error)".contains("cut short"), "\(error)")
        }
        XCTAssertThrowsError(try RawDecoder.unpackMosaic(url: pastEnd, lightWork: false))
        XCTAssertThrowsError(try RawDecoder.decode(url: pastEnd, options: DecodeOptions()))
    }

    /// The starts of the JPEG streams in a generated file (SOI, then the DHT the generator writes first).
    private static func streamStarts(_ bytes: [UInt8]) -> [Int] {
        (0..<(bytes.count - 4)).filter { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xD8 && bytes[$0 + 2] == 0xFF && bytes[$0 + 3] == 0xC4 }
    }

    /// Hostile streams: hundreds of single-byte changes in headers and entropy data of the tiles. Whenever
    /// LightWork's decoder writes the mosaic, it is LibRaw's bit for bit; when it declines, LibRaw's loader runs
    /// and the reason is recorded; when the unpack fails, the unpack with LibRaw's loader fails on the same bytes too.
    func testDamagedStreamsGiveLibRawsMosaicOrFail() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let url = dir.appendingPathComponent("small.dng")
        try Self.makeDNG(url, ljpeg: "tile=64x64,predictor=6", width: 256, height: 192)
        let original = [UInt8](try Data(contentsOf: url))
        let starts = Self.streamStarts(original)
        XCTAssertEqual(starts.count, 12, "4 × 3 tiles")
        var rng = SystemRandomNumberGenerator.seeded(24)
        var own = 0, declined = 0, failed = 0, rejected = 0
        var reasons: [String: Int] = [:]
        for trial in 0..<240 {
            var bytes = original
            let start = starts[trial % starts.count]
            // Half in the headers (the first 60 bytes), half in the entropy data; a third of those cut the data.
            let offset = trial % 2 == 0 ? Int(rng.next() % 60) : 60 + Int(rng.next() % 300)
            if trial % 6 == 1 {
                bytes[start + offset] = 0xFF
                bytes[start + offset + 1] = 0xD9
            } else {
                bytes[start + offset] = UInt8(truncatingIfNeeded: rng.next())
            }
            let file = dir.appendingPathComponent("damaged.dng")
            try Data(bytes).write(to: file)
            do {
                let ours = try RawDecoder.unpackMosaic(url: file)
                if ours.own {
                    own += 1
                    let reference = Self.libRawMosaic(Data(bytes))
                    XCTAssertNotNil(reference.values, "trial \(trial): LightWork decoded what LibRaw rejects (\(reference.failure ?? ""))")
                    if let values = reference.values {
                        XCTAssertTrue(values == ours.values, "trial \(trial): first difference \(Self.firstDifference(ours.values, values))")
                    }
                } else {
                    declined += 1
                    XCTAssertTrue(ours.unpacker.hasPrefix("LibRaw lossless_dng_load_raw (LightWork's lossless-JPEG decoder declined: stream "), ours.unpacker)
                    let reason = ours.unpacker.split(separator: ":").dropFirst(2).joined(separator: ":").trimmingCharacters(in: .whitespaces)
                    reasons[String(reason.prefix(40)), default: 0] += 1
                }
            } catch let error as LightWorkError {
                if error.description.contains("restart interval 0") {
                    // LibRaw would divide by the interval: its handle is not run on these bytes.
                    rejected += 1
                    continue
                }
                failed += 1
                // LibRaw's loader under LightWork's checks (a read past the end, a data error) fails on the same bytes.
                XCTAssertThrowsError(try RawDecoder.unpackMosaic(url: file, lightWork: false), "trial \(trial): LightWork failed (\(error)) where its LibRaw path reads the file")
            }
        }
        print("damaged streams: \(own) decoded by LightWork (identical to LibRaw), \(declined) declined to LibRaw, \(failed) failed as LibRaw does, \(rejected) rejected (restart interval 0)")
        print("reasons declined: " + reasons.sorted { $0.value > $1.value }.map { "\($0.value)× \($0.key)" }.joined(separator: "; "))
        XCTAssertGreaterThan(own, 0)
        XCTAssertGreaterThan(declined, 0)
        XCTAssertGreaterThan(failed, 0)
    }

    /// Named damage: a baseline frame header falls back to LibRaw with the reason; a restart interval of 0 (LibRaw's
    /// reader divides by it) fails with the reason; entropy data ended early fails as corrupt, as LibRaw reports it.
    func testNamedDamageFallsBackOrFailsWithAReason() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let url = dir.appendingPathComponent("small.dng")
        try Self.makeDNG(url, ljpeg: "tile=64x64", width: 256, height: 192)
        let original = [UInt8](try Data(contentsOf: url))
        let start = try XCTUnwrap(Self.streamStarts(original).last)
        func write(_ bytes: [UInt8], _ name: String) throws -> URL {
            let file = dir.appendingPathComponent(name)
            try Data(bytes).write(to: file)
            return file
        }
        // A tile wider than the frame: LibRaw folds its lines at the frame's width, so the decoder leaves it to LibRaw.
        let wide = dir.appendingPathComponent("wide-tile.dng")
        try Self.makeDNG(wide, ljpeg: "tile=1024x64", width: 640, height: 480)
        let folded = try RawDecoder.unpackMosaic(url: wide)
        print("tile wider than the frame: \(folded.unpacker)")
        XCTAssertFalse(folded.own)
        XCTAssertTrue(folded.unpacker.contains("overrun a tile"), folded.unpacker)

        // SOF3 → SOF0 in the last tile.
        var sof = original
        let sofAt = try XCTUnwrap((start..<(start + 200)).first { sof[$0] == 0xFF && sof[$0 + 1] == 0xC3 })
        sof[sofAt + 1] = 0xC0
        let baseline = try RawDecoder.unpackMosaic(url: try write(sof, "sof0.dng"))
        print("SOF0: \(baseline.unpacker)")
        XCTAssertFalse(baseline.own)
        XCTAssertTrue(baseline.unpacker.contains("stream 11: frame type 0xFFC0 is not lossless Huffman (SOF3)"), baseline.unpacker)

        // The DHT marker made a restart-interval segment whose interval is the table's first two bytes (0x00 0x00).
        var dri = original
        dri[start + 3] = 0xDD
        dri[start + 6] = 0
        dri[start + 7] = 0
        XCTAssertThrowsError(try RawDecoder.decode(url: try write(dri, "dri0.dng"), options: DecodeOptions())) { error in
            print("restart interval 0: \(error)")
            XCTAssertTrue("\(error)".contains("restart interval 0"), "\(error)")
        }

        // An end-of-image marker in the middle of the first tile's entropy data.
        var cut = original
        let first = try XCTUnwrap(Self.streamStarts(original).first)
        cut[first + 400] = 0xFF
        cut[first + 401] = 0xD9
        XCTAssertThrowsError(try RawDecoder.decode(url: try write(cut, "cut.dng"), options: DecodeOptions())) { error in
            print("entropy data cut: \(error)")
            XCTAssertTrue("\(error)".contains("corrupt"), "\(error)")
        }
        XCTAssertNil(Self.libRawMosaic(Data(cut)).values, "LibRaw reports the cut too")
    }
}

private extension SystemRandomNumberGenerator {
    /// A deterministic generator for the damage positions (the tests must run the same every time).
    static func seeded(_ seed: UInt64) -> SplitMix { SplitMix(state: seed) }
}

/// SplitMix64: a small deterministic generator.
private struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_E4B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
