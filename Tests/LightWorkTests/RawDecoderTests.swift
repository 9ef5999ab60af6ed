import Foundation
import XCTest
@testable import LightWork

final class RawDecoderTests: XCTestCase {
    /// Dimensions and orientation from SOURCES.md (as dcraw_emu outputs them), per shared RAW file.
    static let expectedSizes: [String: (Int, Int)] = [
        "canon-powershot-g2.crw": (2312, 1720),
        "canon-eos-d30.crw": (2176, 1448),
        "kodak-dc50.kdc": (768, 512),
        "lg-g4-h815-lossy-linear.dng": (600, 338),
    ]

    func testEverySharedRawDecodesUprightAndNotBlank() throws {
        let files = try TestPaths.sharedFiles("raw")
        XCTAssertFalse(files.isEmpty)
        var options = DecodeOptions()
        options.demosaic = .linear   // fast in debug builds; the algorithm does not change size or orientation
        for url in files {
            let decoded = try RawDecoder.decode(url: url, options: options)
            let img = decoded.image
            if let (w, h) = Self.expectedSizes[url.lastPathComponent] {
                XCTAssertEqual(img.width, w, url.lastPathComponent)
                XCTAssertEqual(img.height, h, url.lastPathComponent)
            }
            XCTAssertEqual(decoded.kind, .raw)
            XCTAssertEqual(img.space, .rawLinear)
            // Not blank: a spread of values over a grid of probes, and no NaNs.
            var lum: [Float] = []
            for gy in 1..<8 { for gx in 1..<8 {
                let p = img.pixel(x: img.width * gx / 8, y: img.height * gy / 8)
                XCTAssertFalse(p.x.isNaN || p.y.isNaN || p.z.isNaN)
                XCTAssertEqual(p.w, 1, "alpha of a RAW is opaque")
                lum.append(0.3 * p.x + 0.6 * p.y + 0.1 * p.z)
            } }
            let mean = lum.reduce(0, +) / Float(lum.count)
            let sd = (lum.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Float(lum.count)).squareRoot()
            XCTAssertGreaterThan(mean, 0.005, "\(url.lastPathComponent) is nearly black")
            XCTAssertGreaterThan(sd, 0.002, "\(url.lastPathComponent) is flat")
            XCTAssertNotNil(decoded.metadata.make, url.lastPathComponent)
        }
    }

    func testMakeModelAndCFAAreReported() throws {
        let url = try TestPaths.sharedSamples("raw").appendingPathComponent("canon-powershot-g2.crw")
        let (meta, details) = try RawDecoder.inspect(url: url)
        XCTAssertEqual(meta.make, "Canon")
        XCTAssertEqual(meta.model, "PowerShot G2")
        XCTAssertEqual(details["cfa"], "RGGB")
        XCTAssertEqual(details["imageSize"], "2312x1720")
    }

    /// LibRaw's "Cannot unpack" on a truncated KDC: dcraw_emu prints it and still exits 0; LightWork fails the file.
    func testTruncatedRawFailsWithAReason() throws {
        try assertTruncatedFails("kodak-dc50.kdc", keeping: 0.5)
    }

    /// A truncated CRW loses its directory (at the end of the file): LibRaw cannot identify it.
    func testTruncatedCRWIsReportedAsDamagedNotForeign() throws {
        try assertTruncatedFails("canon-powershot-g2.crw", keeping: 0.5)
    }

    /// A lossy DNG cut in half: libjpeg inside LibRaw runs out of data and LibRaw reports it.
    func testTruncatedLossyDNGFails() throws {
        try assertTruncatedFails("lg-g4-h815-lossy-linear.dng", keeping: 0.5)
    }

    /// Cut at 90 %, the lossy DNG's missing tiles would decode as flat grey with no error from LibRaw: the
    /// strip/tile extents in its IFDs reveal the cut.
    func testLossyDNGCutShortIsCaughtByItsTileExtents() throws {
        try assertTruncatedFails("lg-g4-h815-lossy-linear.dng", keeping: 0.9, mentioning: "cut short")
    }

    /// The extents of a complete file lie inside it, and reach its image data's end.
    func testTIFFImageExtentsOfCompleteFiles() throws {
        let sample = TestPaths.repoRoot.appendingPathComponent("Samples/scene.dng")
        for url in [sample, try TestPaths.sharedSamples("raw").appendingPathComponent("lg-g4-h815-lossy-linear.dng")] {
            let data = try Data(contentsOf: url)
            let extents = try XCTUnwrap(data.withUnsafeBytes { TIFFImageExtents.read($0) }, url.lastPathComponent)
            XCTAssertLessThanOrEqual(extents.dataEnd, data.count, url.lastPathComponent)
            // The image data is most of a RAW file: its end lies in the file's last half.
            XCTAssertGreaterThan(extents.dataEnd, data.count / 2, url.lastPathComponent)
            XCTAssertGreaterThanOrEqual(extents.directories, 1)
        }
        // Not TIFF-structured: no extents.
        let png = try Data(contentsOf: TestPaths.repoRoot.appendingPathComponent("Samples/scene-srgb.png"))
        XCTAssertNil(png.withUnsafeBytes { TIFFImageExtents.read($0) })
    }

    private func assertTruncatedFails(_ name: String, keeping fraction: Double, mentioning word: String? = nil) throws {
        let src = try TestPaths.sharedSamples("raw").appendingPathComponent(name)
        let dir = try TestPaths.temporaryDirectory(self)
        let data = try Data(contentsOf: src)
        let cut = dir.appendingPathComponent("truncated-" + name)
        try data.prefix(Int(Double(data.count) * fraction)).write(to: cut)
        var options = DecodeOptions()
        options.demosaic = .linear
        XCTAssertThrowsError(try RawDecoder.decode(url: cut, options: options)) { error in
            guard let e = error as? LightWorkError else { return XCTFail("untyped error \(error)") }
            let reason: String
            switch e {
            case .decodeFailed(let r): reason = r
            case .truncated: reason = e.description
            default: return XCTFail("\(name): unexpected \(e)")
            }
            XCTAssertFalse(reason.contains("\n"), "one line")
            if let word { XCTAssertTrue(reason.contains(word), reason) }
        }
    }

    func testNonImageIsUnsupported() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let f = dir.appendingPathComponent("notes.txt")
        try Data("just some text, not a raw file at all\n".utf8).write(to: f)
        XCTAssertThrowsError(try RawDecoder.decode(url: f, options: DecodeOptions())) { error in
            guard case .unsupportedFormat = error as? LightWorkError else { return XCTFail("\(error)") }
        }
    }
}
