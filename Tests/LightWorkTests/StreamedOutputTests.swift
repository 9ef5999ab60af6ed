import Foundation
import XCTest
@testable import LightWork

/// The streamed output (`RenderedRows`, `TIFFWriter.encode(rows:)`) against the finished render it replaces
/// (`Renderer.render`, `TIFFWriter.encode`): the same samples for any grouping of rows, and the same file bytes for
/// every TIFF depth and compression, on 1 and 3 threads, through the Samples recipes' chains (clarity guides, grain,
/// dust, vignette, a film) on images that are not whole bands or strips. And the decoder's early release of the
/// input (`InputBytes`) leaves the recorded input hash that of the file.
final class StreamedOutputTests: XCTestCase {
    /// Each Samples recipe's chain (silver-grain: clarity, grain, dust, vignette, a film; harbour-evening: a film).
    func chains() throws -> [(String, [any Filter])] {
        let ranges = FilterRanges.standard
        let catalog = try FilmCatalog.bundled(profiles: TestPaths.repoRoot.appendingPathComponent("Profiles"))
        let entitlements = Entitlements(url: try TestPaths.temporaryDirectory(self).appendingPathComponent("entitlements.json"))
        return try ["silver-grain.json", "harbour-evening.json"].map { name in
            let recipe = try Recipe.load(from: SampleRecipeTests.folder.appendingPathComponent(name), ranges: ranges)
            return (name, try LookSetup(recipe: recipe, ranges: ranges, catalog: catalog, entitlements: entitlements).chain)
        }
    }

    func testRowsInAnyGroupingAreTheFinishedRender() throws {
        for (name, chain) in try chains() {
            for space in [WorkingSpace.deviceRGB, .rawLinear] {
                let scene = FilterTestSupport.scene(width: 301, height: 217), values = FilterTestSupport.pixels(scene)
                let image = space == .deviceRGB ? scene : FilterTestSupport.image(width: 301, height: 217, space: space) { x, y in
                    values[y * 301 + x] * 0.8
                }
                for depth in [EncodedPixels.Depth.eight, .sixteen] {
                    let renderer = Renderer(chain: chain, engine: EngineConfiguration(threads: 3))
                    let context = RenderContext(width: image.width, height: image.height, seed: 9)
                    let output = OutputSpec(space: .adobeRGB, depth: depth, keepAlpha: false)
                    let finished = renderer.render(image, context: context, output: output)
                    let rows = renderer.rows(image, context: context, output: output)
                    XCTAssertEqual([rows.width, rows.height, rows.channels], [finished.width, finished.height, finished.channels])
                    // Runs of 1, 7, 64 and 13 rows in turn, the last cut short by the image's end: each run differs from
                    // the one `RenderedRows` rendered ahead (the next run of the same size), which is then put aside.
                    var streamed = [UInt8](), y = 0, k = 0
                    while y < image.height {
                        let count = min([1, 7, 64, 13][k % 4], image.height - y)
                        try rows.withRows(y..<(y + count)) { streamed += UnsafeRawBufferPointer(start: $0, count: count * rows.rowBytes) }
                        y += count
                        k += 1
                    }
                    let whole = finished.withRawBytes { [UInt8]($0) }
                    XCTAssertEqual(streamed.count, whole.count)
                    XCTAssertTrue(streamed == whole, "\(name) \(space) \(depth): streamed rows differ from the finished render")
                }
            }
        }
    }

    /// A 2000 × 1500 16-bit render is 18 MB, so the uncompressed and LZW writes take several runs of strips from
    /// the source (`TIFFWriter.runBytes`) and Deflate several windows.
    func testStreamedTIFFIsTheFinishedTIFFByteForByte() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let image = FilterTestSupport.scene(width: 2000, height: 1500)
        let (name, chain) = try chains()[0]
        for threads in [1, 3] {
            let engine = EngineConfiguration(threads: threads)
            let renderer = Renderer(chain: chain, engine: engine)
            let context = RenderContext(width: image.width, height: image.height, seed: 4)
            for depth in [EncodedPixels.Depth.eight, .sixteen] {
                let output = OutputSpec(space: .srgb, depth: depth, keepAlpha: false)
                let finished = renderer.render(image, context: context, output: output)
                for compression in TIFFCompression.allCases {
                    var settings = EncodeSettings(format: depth == .eight ? .tiff8 : .tiff16)
                    settings.tiffCompression = compression
                    settings.iccProfile = ICCProfile.embedded(for: .srgb)
                    let a = dir.appendingPathComponent("finished-\(threads)-\(depth)-\(compression).tif")
                    let b = dir.appendingPathComponent("streamed-\(threads)-\(depth)-\(compression).tif")
                    let writer = TIFFWriter(engine: engine)
                    let written = try writer.write(finished, settings: settings, to: a)
                    let streamed = try writer.write(rows: renderer.rows(image, context: context, output: output), settings: settings, to: b)
                    XCTAssertEqual(written.sha256, streamed.sha256, "\(name), \(threads) threads, \(depth), \(compression)")
                    XCTAssertEqual(try Data(contentsOf: a), try Data(contentsOf: b))
                }
            }
        }
    }

    /// A RAW the decoder demosaics itself gives its bytes back after the unpack (`inputDone` runs once); a file
    /// LibRaw processes keeps them to the end (never called). Through the converter, the recorded input hash is the
    /// file's, and the output is that of a decode that kept its bytes.
    func testTheInputGoesBackOnlyAfterTheUnpackAndItsHashIsTheFiles() throws {
        let dng = SampleSceneTests.samples.appendingPathComponent("scene.dng")
        let bytes = try Data(contentsOf: dng)
        let calls = LockedBox(0)
        let released = try RawDecoder.decode(data: bytes, url: dng, options: DecodeOptions(), inputDone: { calls.withLock { $0 += 1 } })
        XCTAssertEqual(calls.withLock { $0 }, 1)
        let kept = try RawDecoder.decode(data: bytes, url: dng, options: DecodeOptions())
        XCTAssertEqual(RCDDemosaicTests.hash(released.image), RCDDemosaicTests.hash(kept.image))
        var libraw = DecodeOptions()
        libraw.demosaic = .libRawAHD
        _ = try RawDecoder.decode(data: bytes, url: dng, options: libraw, inputDone: { calls.withLock { $0 += 1 } })
        XCTAssertEqual(calls.withLock { $0 }, 1, "LibRaw's processing may read the file: its bytes must not go back")

        let dir = try TestPaths.temporaryDirectory(self)
        let item = InputItem(url: dng, displayPath: "scene.dng", relativePath: "scene.dng")
        let entry = try FileConverter(spec: ConvertSpec(outputDirectory: dir)).convert(item)
        XCTAssertEqual(entry.status, .converted, entry.reason ?? "")
        XCTAssertEqual(entry.input.sha256, SHA256.hex(bytes))
        XCTAssertEqual(entry.input.size, bytes.count)
    }
}
