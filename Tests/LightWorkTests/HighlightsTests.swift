import Foundation
import XCTest
@testable import LightWork

/// `--highlights reconstruct` on generated DNGs whose bands are pushed past white (`lightwork-tools
/// make-highlight-dng`): red only, red and green, green and blue. The truth is the same scene exposed 2 EV darker
/// (nothing clips), decoded the same way and scaled back by 4. Compared in the linear working space (ProPhoto D50 →
/// CIELAB, white = the band's brightest truth), over the part of each band where every pixel has a channel past white.
final class HighlightsTests: XCTestCase {
    struct Band: Decodable { let name: String; let x, y, w, h, clippedFromX, unclippedToX: Int }
    struct Bands: Decodable { let truthStops: Double; let bands: [Band] }

    static let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lightwork-highlights-\(getpid())")

    /// The clipped file, the truth file and the bands (generated once per run).
    static func generated() throws -> (clipped: URL, truth: URL, bands: Bands) {
        let dir = directory
        let clipped = dir.appendingPathComponent("clipped.dng"), truth = dir.appendingPathComponent("truth.dng")
        let json = dir.appendingPathComponent("bands.json")
        if !FileManager.default.fileExists(atPath: json.path) {
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            let tools = CLIRunner.binary.deletingLastPathComponent().appendingPathComponent("lightwork-tools")
            XCTAssertTrue(FileManager.default.isExecutableFile(atPath: tools.path), "lightwork-tools not built at \(tools.path)")
            let p = Process()
            p.executableURL = tools
            p.arguments = ["make-highlight-dng", "-o", clipped.path, "--truth", truth.path, "--bands", json.path]
            try p.run()
            p.waitUntilExit()
            XCTAssertEqual(p.terminationStatus, 0, "make-highlight-dng")
        }
        return (clipped, truth, try JSONDecoder().decode(Bands.self, from: Data(contentsOf: json)))
    }

    static func decode(_ url: URL, _ highlights: Highlights.Setting, demosaic: DecodeOptions.Demosaic = .ahd, threads: Int = 2) throws -> DecodedImage {
        var options = DecodeOptions()
        options.demosaic = demosaic
        options.develop[Highlights.self] = highlights
        return try RawDecoder.decode(url: url, options: options, engine: EngineConfiguration(threads: threads))
    }

    /// Mean ΔE00 of `image` against `truth` × `gain` over the band's clipped part (6 px in from its edges).
    static func meanDeltaE(_ image: WorkingImage, truth: WorkingImage, gain: Float, band: Band) -> Double {
        let toXYZ = WorkingSpace.rawLinear.primaries.toXYZD50
        let (x0, x1, y0, y1) = (band.clippedFromX, band.x + band.w - 6, band.y + 6, band.y + band.h - 6)
        func xyz(_ p: SIMD4<Float>, _ g: Float) -> SIMD3<Double> {
            toXYZ * SIMD3(Double(p.x * g), Double(p.y * g), Double(p.z * g))
        }
        var white = 0.0
        for y in y0..<y1 { for x in x0..<x1 { white = max(white, xyz(truth.pixel(x: x, y: y), gain).y) } }
        let reference = CIE.d50 * white
        var sum = 0.0, n = 0.0
        for y in y0..<y1 { for x in x0..<x1 {
            let t = CIE.xyzToLab(xyz(truth.pixel(x: x, y: y), gain), white: reference)
            let v = CIE.xyzToLab(xyz(image.pixel(x: x, y: y), 1), white: reference)
            sum += CIE.deltaE2000(t, v)
            n += 1
        } }
        return sum / n
    }

    /// Whether rows y0..<y1, columns x0..<x1 hold the same half-float bytes in both images.
    static func sameBytes(_ a: WorkingImage, _ b: WorkingImage, x0: Int, x1: Int, y0: Int, y1: Int) -> Bool {
        (y0..<y1).allSatisfy { y in memcmp(a.row(y) + 4 * x0, b.row(y) + 4 * x0, 8 * (x1 - x0)) == 0 }
    }

    /// Reconstructed bands land closer to the truth than `clip`, on LightWork's AHD and on LibRaw's demosaic (its
    /// highlight mode); figures printed per band.
    func testReconstructLandsCloserToTheTruthThanClip() throws {
        let (clippedURL, truthURL, bands) = try Self.generated()
        let truth = try Self.decode(truthURL, .clip).image
        let clip = try Self.decode(clippedURL, .clip)
        let rebuilt = try Self.decode(clippedURL, .reconstruct)
        let libRawClip = try Self.decode(clippedURL, .clip, demosaic: .vng)
        let libRaw = try Self.decode(clippedURL, .reconstruct, demosaic: .vng)
        let gain = Float(exp2(bands.truthStops))
        XCTAssertEqual(clip.decisions?["highlights"], nil)
        let note = try XCTUnwrap(rebuilt.decisions?["highlights"])
        XCTAssertTrue(note.hasPrefix("reconstruct (LightWork)"), note)
        XCTAssertEqual(libRaw.decisions?["highlights"], "reconstruct (LibRaw highlight mode \(Highlights.libRawMode))")
        print("highlights: \(note)")
        for band in bands.bands {
            let eClip = Self.meanDeltaE(clip.image, truth: truth, gain: gain, band: band)
            let eRebuilt = Self.meanDeltaE(rebuilt.image, truth: truth, gain: gain, band: band)
            let eLibRawClip = Self.meanDeltaE(libRawClip.image, truth: truth, gain: gain, band: band)
            let eLibRaw = Self.meanDeltaE(libRaw.image, truth: truth, gain: gain, band: band)
            print(String(format: "highlights %@: mean ΔE00 clip %.2f, reconstruct %.2f; LibRaw vng clip %.2f, mode %d %.2f",
                         band.name, eClip, eRebuilt, eLibRawClip, Highlights.libRawMode, eLibRaw))
            XCTAssertLessThan(eRebuilt, eClip, band.name)
            XCTAssertLessThan(eRebuilt, 0.5 * eClip, "\(band.name): reconstruct should at least halve the clip's error")
        }
    }

    /// Away from the clip `reconstruct` leaves the AHD's bytes exactly, and it is the same at any thread count.
    func testUnclippedPixelsKeepTheirBytesAndThreadsDoNotMatter() throws {
        let (clippedURL, _, bands) = try Self.generated()
        let clip = try Self.decode(clippedURL, .clip).image
        let one = try Self.decode(clippedURL, .reconstruct, threads: 1).image
        let three = try Self.decode(clippedURL, .reconstruct, threads: 3).image
        XCTAssertTrue(Self.sameBytes(one, three, x0: 0, x1: one.width, y0: 0, y1: one.height), "thread count changed the bytes")
        for band in bands.bands {
            XCTAssertTrue(Self.sameBytes(clip, one, x0: 0, x1: band.unclippedToX, y0: band.y, y1: band.y + band.h), band.name)
        }
        // The surround between the bands.
        XCTAssertTrue(Self.sameBytes(clip, one, x0: 0, x1: clip.width, y0: 0, y1: bands.bands[0].y - 6))
        XCTAssertFalse(Self.sameBytes(clip, one, x0: 0, x1: clip.width, y0: 0, y1: clip.height), "nothing was rebuilt")
    }

    /// On an encoded image there is no raw clip level: the module is skipped with its note.
    func testSkippedOnTheRGBPathWithANote() throws {
        var settings = DevelopSettings()
        try settings.set("highlights", text: "reconstruct")
        XCTAssertEqual(settings.record, ["highlights": "reconstruct"])
        XCTAssertThrowsError(try settings.set("highlights", text: "blend"))
        let rgb = WorkingImage(width: 2, height: 2, space: .deviceRGB)
        var context = DevelopContext(kind: .rgb, metadata: ImageMetadata(), engine: EngineConfiguration(threads: 2))
        XCTAssertNil(try DevelopStage.run(.scene, settings: settings, image: rgb, context: &context))
        XCTAssertEqual(context.notes.count, 1)
        XCTAssertTrue(context.notes[0].hasPrefix("highlights: needs the raw sensor data"), context.notes[0])
    }
}
