import Foundation
import XCTest
@testable import LightWork

/// `DecodeOptions.developInDecode`: a RAW decode that runs the develop stage's per-pixel modules (base tone, a fixed
/// exposure) on each row inside its colour conversion gives the bits of decoding first and running `DevelopStage`
/// after, for Bayer and X-Trans mosaics, every demosaic, turned orientations and both placement sets; and it
/// develops nothing when a module there needs more than a pixel, or highlights are rebuilt.
final class DevelopInDecodeTests: XCTestCase {
    private static func makeDNG(_ url: URL, seed: Int, extra: [String]) throws {
        let p = Process()
        p.executableURL = CLIRunner.binary.deletingLastPathComponent().appendingPathComponent("lightwork-tools")
        p.arguments = ["make-sample-dng", "-o", url.path, "--seed", String(seed), "--width", "480", "--height", "324",
                       "--scene", "photo", "--iso", "400"] + extra
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0, "make-sample-dng \(extra)")
    }

    private static func decode(_ url: URL, _ settings: DevelopSettings, demosaic: DecodeOptions.Demosaic,
                               placements: Set<DevelopPlacement>?) throws -> DecodedImage {
        var options = DecodeOptions()
        options.develop = settings
        options.demosaic = demosaic
        options.developInDecode = placements
        return try RawDecoder.decode(url: url, options: options, engine: EngineConfiguration(threads: 3))
    }

    private static func settings(_ pairs: [(String, String)]) throws -> DevelopSettings {
        var s = DevelopSettings()
        for (name, text) in pairs { try s.set(name, text: text) }
        return s
    }

    func testRowDevelopInTheDecodeIsTheDevelopStagesBits() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let files: [(String, [String], DecodeOptions.Demosaic)] = [
            ("rggb-up", ["--cfa", "RGGB"], .dual), ("gbrg-right", ["--cfa", "GBRG", "--orientation", "6"], .rcd),
            ("bggr-down", ["--cfa", "BGGR", "--orientation", "3"], .ahd), ("xtrans-left", ["--cfa", "XTRANS", "--orientation", "8"], .dual),
        ]
        let looks: [[(String, String)]] = [[("tone", "standard")], [("exposure", "+0.7"), ("tone", "filmic")]]
        for (index, (name, extra, demosaic)) in files.enumerated() {
            let url = dir.appendingPathComponent("\(name).dng")
            try Self.makeDNG(url, seed: index + 2, extra: extra)
            for look in looks {
                let settings = try Self.settings(look)
                for placements: Set<DevelopPlacement> in [[.scene, .output], [.scene]] {
                    let label = "\(name) \(look) \(placements.map(\.rawValue).sorted())"
                    let fused = try Self.decode(url, settings, demosaic: demosaic, placements: placements)
                    let plain = try Self.decode(url, settings, demosaic: demosaic, placements: nil)
                    let context = try XCTUnwrap(fused.developContext, "\(label): not developed in the decode")
                    XCTAssertNil(plain.developContext, label)
                    var separate = DevelopContext(kind: .raw, metadata: plain.metadata, details: plain.details, engine: EngineConfiguration(threads: 2))
                    let developed = try XCTUnwrap(try DevelopStage.run(placements, settings: settings, image: plain.image, overwriting: true,
                                                                       context: &separate), label)
                    XCTAssertEqual([fused.image.width, fused.image.height], [developed.width, developed.height], label)
                    XCTAssertTrue(memcmp(fused.image.storage, developed.storage, 8 * developed.width * developed.height) == 0, "\(label): pixels differ")
                    XCTAssertEqual(context.decisions, separate.decisions, label)
                    XCTAssertEqual(context.notes, separate.notes, label)
                    // Not a trivial pair: the modules changed the decode.
                    XCTAssertFalse(memcmp(fused.image.storage, try Self.decode(url, DevelopSettings(), demosaic: demosaic, placements: nil).image.storage,
                                          8 * developed.width * developed.height) == 0, label)
                }
            }
        }
    }

    func testNothingIsDevelopedInTheDecodeWhenAModuleNeedsMoreThanAPixel() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let url = dir.appendingPathComponent("plain.dng")
        try Self.makeDNG(url, seed: 7, extra: [])
        let cases: [([(String, String)], Set<DevelopPlacement>, Bool)] = [
            ([("tone", "standard"), ("exposure", "auto")], [.scene, .output], false),    // auto looks at the whole image
            ([("tone", "standard"), ("denoise", "auto")], [.scene, .output], false),
            ([("tone", "standard"), ("outputSharpen", "0.6")], [.scene, .output], false),
            ([("tone", "standard"), ("outputSharpen", "0.6")], [.scene], true),          // sharpening comes after the resize
            ([("tone", "standard"), ("highlights", "reconstruct")], [.scene, .output], false),
            ([("tone", "linear")], [.scene, .output], false),                             // nothing to run
        ]
        for (look, placements, expected) in cases {
            let decoded = try Self.decode(url, try Self.settings(look), demosaic: .dual, placements: placements)
            XCTAssertEqual(decoded.developContext != nil, expected, "\(look) \(placements)")
        }
    }
}
