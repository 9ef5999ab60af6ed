import Foundation
import XCTest
@testable import LightWork
import LightWorkFuzzBodies

/// The fuzz targets' bodies (`FuzzTarget`, the same code `make fuzz` runs under libFuzzer) replayed in the
/// ordinary test build over every committed seed (`Fuzz/corpus/TARGET/`) and every input that once crashed
/// a target (`Fuzz/regressions/TARGET/`); plus one named test per crash found, asserting the fixed behaviour.
final class FuzzRegressionTests: XCTestCase {
    private let root = TestPaths.repoRoot.appendingPathComponent("Fuzz")

    private func files(_ folder: String, _ target: FuzzTarget) -> [URL] {
        let dir = root.appendingPathComponent(folder).appendingPathComponent(target.rawValue)
        return ((try? FileManager.default.contentsOfDirectory(at: dir, includingPropertiesForKeys: nil)) ?? [])
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    /// A crash here ends the test process: that is the failure this test exists for.
    func testEverySeedAndRegressionInputRunsThroughItsTarget() throws {
        var seeds = 0, regressions = 0
        for target in FuzzTarget.allCases {
            let corpus = files("corpus", target)
            XCTAssertFalse(corpus.isEmpty, "\(target.rawValue) has no seed corpus")
            for url in corpus { target.run(try Data(contentsOf: url)); seeds += 1 }
            for url in files("regressions", target) { target.run(try Data(contentsOf: url)); regressions += 1 }
        }
        XCTAssertGreaterThanOrEqual(regressions, 5)
        print("fuzz replay: \(seeds) seeds and \(regressions) regression inputs over \(FuzzTarget.allCases.count) targets")
    }

    /// Seeds named `valid-*` are real documents: they must parse, or the fuzzer starts from nothing useful.
    func testValidSeedsParse() throws {
        let ranges = FilterRanges.standard
        let scratch = FuzzBodies.scratch
        func valid(_ t: FuzzTarget) -> [(String, Data)] {
            files("corpus", t).filter { $0.lastPathComponent.hasPrefix("valid-") }.compactMap { u in (try? Data(contentsOf: u)).map { (u.lastPathComponent, $0) } }
        }
        for (name, d) in valid(.cube) { XCTAssertNoThrow(try CubeLUTReader.parse(d, file: name), name) }
        for (name, d) in valid(.catalog) { XCTAssertNoThrow(try FilmCatalog.decode(d, file: name, folder: scratch), name) }
        for (name, d) in valid(.recipe) { XCTAssertNoThrow(try Recipe.parse(d, file: name, baseDirectory: scratch, ranges: ranges), name) }
        for (name, d) in valid(.manifest) { XCTAssertNoThrow(try Manifest.decode(d), name) }
        for (name, d) in valid(.workerReply) { XCTAssertNoThrow(try WorkerLine.decode(WorkerReply.self, from: d), name) }
        for (name, d) in valid(.ljpeg) { XCTAssertEqual(FuzzBodies.ljpeg(d), 0, name) }
        for (name, d) in valid(.webp) + valid(.heif) { XCTAssertNoThrow(try RGBDecoder.decode(data: d, options: DecodeOptions()), name) }
        for (name, d) in valid(.exif) {
            XCTAssertTrue(EXIFReader.read(d) != nil || CaptureInfoProbe.read(header: [UInt8](d)) != nil, name)
        }
        // The CIFF seed (built like a CRW's heaps, with the EOS D30 sample's records) reads back its own values,
        // so the exif target starts the CRW reader from a real heap rather than from nothing.
        let ciff = try Data(contentsOf: root.appendingPathComponent("corpus/exif/valid-crw-ciff.bin"))
        let meta = try XCTUnwrap(CaptureInfoProbe.read(header: [UInt8](ciff)))
        XCTAssertEqual(meta.make, "Canon")
        XCTAssertEqual(meta.model, "Canon EOS D30")
        XCTAssertEqual(meta.dateTimeOriginal, "2018:01:01 13:03:32")
        for (name, d) in valid(.fileCompleteness) {
            let url = scratch.appendingPathComponent(name)
            try d.write(to: url)
            XCTAssertEqual(FileCompleteness.check(url), .complete, name)
        }
        for (name, d) in valid(.icc) { XCTAssertNotNil(ICCProfile(data: d), name) }
        for (name, d) in valid(.cameraProfile) { XCTAssertNoThrow(try CameraProfile.read([UInt8](d), file: name), name) }
        for (name, d) in valid(.jpeg) + valid(.png) + valid(.tiff) { XCTAssertNoThrow(try RGBDecoder.decode(data: d, options: DecodeOptions()), name) }
        for (name, d) in valid(.lutFile) {
            let url = scratch.appendingPathComponent(name)
            try d.write(to: url)
            if name.hasSuffix(".cube") || name.contains("hald") {
                XCTAssertNoThrow(try LUTFile.load(url: url, decodeImage: LookSetup.decodeLUTImage), name)
            } else {
                XCTAssertNoThrow(try LookSetup.decodeLUTImage(url), name)   // an image that is no LUT: decodes, then is refused as a LUT
            }
        }
    }

    /// libFuzzer's lut-file target: a 1,371-byte JPEG whose header claims 62744×33552 pixels made `--lut` (through
    /// `ImageFileReader`) allocate 6.3 GB. Every read-back now checks its header against the decode limit first.
    func testAReadBackRefusesAHeaderClaimingBillionsOfPixels() throws {
        let url = root.appendingPathComponent("regressions/lut-file/huge-jpeg-header.jpg")
        for read in [{ _ = try ImageFileReader.read(url) }, { _ = try LookSetup.decodeLUTImage(url) }] {
            XCTAssertThrowsError(try read()) { error in
                guard case let LightWorkError.tooManyPixels(w, h, limit) = error else { return XCTFail("\(error)") }
                XCTAssertEqual([w, h, limit], [62744, 33552, 200_000_000])
            }
        }
        // The size probe (the memory budget's) finds the same frame libjpeg does, past the 12 stray bytes before it.
        XCTAssertEqual(JPEGCodec().pixelCount(try XCTUnwrap(FileBytes(url))), 62744 * 33552)
    }

    /// Found while writing the manifest target: a shard count below 1 made `manifest merge` build `0..<count`
    /// and trap. It is now refused as a usage error (exit 2), as is an index outside the count.
    func testMergeRefusesShardsThatAreNoShards() throws {
        for name in ["shard-count-negative.json", "shard-index-outside.json"] {
            let m = try Manifest.decode(Data(contentsOf: root.appendingPathComponent("regressions/manifest/\(name)")))
            XCTAssertThrowsError(try ManifestMerge.merge([("a.json", m)]), name) { error in
                guard case LightWorkError.usage(let message) = error else { return XCTFail("\(error)") }
                XCTAssertTrue(message.contains("is not a shard"), message)
            }
        }
        let dir = try TestPaths.temporaryDirectory(self)
        let r = try CLIRunner.run(["manifest", "merge", root.appendingPathComponent("regressions/manifest/shard-count-negative.json").path,
                                   "-o", dir.appendingPathComponent("all.json").path])
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("0/-1 is not a shard"), r.stderr)
    }

    /// Found while writing the worker-reply target: the parent summed its workers' reported peaks with `+`, so a
    /// worker (running a crafted file) reporting Int.max would trap the batch parent. Peaks are now clamped.
    func testWorkerMemoryReportsCannotOverflowTheParent() {
        XCTAssertEqual(WorkerPool.acceptedRSS(Int.max, previous: 10), 1 << 40)
        XCTAssertEqual(WorkerPool.acceptedRSS(-5, previous: 10), 10)
        XCTAssertEqual(WorkerPool.acceptedRSS(300, previous: 10), 300)
        XCTAssertEqual(WorkerPool.summedRSS([Int.max, Int.max, -1]), Int.max)
        XCTAssertEqual(WorkerPool.summedRSS([100, 200, -50]), 300)
    }
}
