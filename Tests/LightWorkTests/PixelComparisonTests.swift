import Foundation
import XCTest
@testable import LightWork

/// Golden against candidate, per pixel by CIEDE2000 through each file's own profile, on the suite's real goldens.
final class PixelComparisonTests: XCTestCase {
    static let goldens = TestPaths.repoRoot.appendingPathComponent("Suites/goldens")

    func golden(_ name: String) throws -> ImageFile { try ImageFileReader.read(Self.goldens.appendingPathComponent(name)) }

    /// The same file with `change` applied to its samples (the profile and layout kept).
    func altered(_ file: ImageFile, _ change: (inout [UInt16]) -> Void) -> ImageFile {
        var samples = file.samples
        change(&samples)
        return ImageFile(format: file.format, width: file.width, height: file.height, channels: file.channels, bitDepth: file.bitDepth,
                         iccProfile: file.iccProfile, exif: file.exif, samples: samples)
    }

    func testGoldenComparedWithItselfPassesWithMaxZero() throws {
        for name in ["format-png.png", "scene-dng.tif", "colorspace-prophoto.png"] {
            let file = try golden(name)
            let cmp = try PixelComparison(golden: file, candidate: file, threshold: VerifyThresholds.defaultMax)
            XCTAssertEqual(cmp.statistics.max, 0, name)
            XCTAssertEqual(cmp.statistics.mean, 0, name)
            XCTAssertEqual(cmp.statistics.countAbove, 0, name)
            XCTAssertEqual(cmp.statistics.count, file.width * file.height, name)
            XCTAssertTrue(cmp.identicalSamples, name)
            XCTAssertEqual(cmp.maxSampleDifference, 0, name)
            XCTAssertEqual(VerifyThresholds().failures(cmp.statistics), [], name)
        }
    }

    /// +2 code values in one 8-bit channel is a visible shift: the default limits catch it, whichever the channel.
    func testTwoCodeValueShiftInOneChannelFails() throws {
        let file = try golden("format-png.png")
        XCTAssertEqual(file.bitDepth, 8)
        for channel in 0..<3 {
            let shifted = altered(file) { s in
                for i in stride(from: channel, to: s.count, by: file.channels) { s[i] = min(s[i] + 2, 255) }
            }
            let cmp = try PixelComparison(golden: file, candidate: shifted, threshold: VerifyThresholds.defaultMax)
            XCTAssertFalse(cmp.identicalSamples)
            XCTAssertEqual(cmp.maxSampleDifference, 2)
            XCTAssertGreaterThan(cmp.statistics.mean, 0.1, "channel \(channel)")
            // Which limit breaks depends on the channel (the shadows' max or the whole image's mean); one always does.
            let failures = VerifyThresholds().failures(cmp.statistics)
            XCTAssertFalse(failures.isEmpty, "channel \(channel): max \(cmp.statistics.max), mean \(cmp.statistics.mean)")
        }
    }

    func testOnePixelDefectFailsOnMaxButPassesOnMean() throws {
        let file = try golden("scene-dng.tif")
        XCTAssertEqual(file.bitDepth, 16)
        let (x, y) = (37, 21)
        let defect = altered(file) { s in
            let i = (y * file.width + x) * file.channels
            s[i] = 65535; s[i + 1] = 0; s[i + 2] = 65535   // one magenta pixel
        }
        let cmp = try PixelComparison(golden: file, candidate: defect, threshold: VerifyThresholds.defaultMax)
        XCTAssertEqual(cmp.statistics.countAbove, 1)
        XCTAssertEqual(cmp.statistics.worstIndex, y * file.width + x)
        XCTAssertGreaterThan(cmp.statistics.max, 20)
        XCTAssertLessThan(cmp.statistics.mean, VerifyThresholds.defaultMean)
        let failures = VerifyThresholds().failures(cmp.statistics)
        XCTAssertEqual(failures.count, 1, "\(failures)")
        XCTAssertTrue(failures[0].hasPrefix("max ΔE00"), failures[0])
        // A case that tolerates a share of pixels above the limit lets it through.
        XCTAssertEqual(VerifyThresholds(shareAbove: 0.001).failures(cmp.statistics), [])
        XCTAssertEqual(cmp.statistics.shareAbove, 1 / Double(file.width * file.height), accuracy: 1e-15)
    }

    /// Lab comes from each file's own profile: the same render in ProPhoto and in sRGB compares as nearly the
    /// same colours although nearly every sample differs.
    func testFilesInDifferentSpacesCompareAsColours() throws {
        let srgb = try golden("format-png16.png"), prophoto = try golden("colorspace-prophoto.png")
        XCTAssertNotEqual(srgb.iccProfile, prophoto.iccProfile)
        let cmp = try PixelComparison(golden: srgb, candidate: prophoto, threshold: VerifyThresholds.defaultMax)
        XCTAssertGreaterThan(cmp.maxSampleDifference, 5000, "the numbers are far apart")
        XCTAssertTrue(cmp.notes.contains { $0.hasPrefix("profiles differ") }, "\(cmp.notes)")
        print(String(format: "sRGB vs ProPhoto render: ΔE00 mean %.4f, max %.4f, share above %.1f: %.4f", cmp.statistics.mean, cmp.statistics.max, VerifyThresholds.defaultMax, cmp.statistics.shareAbove))
        // In-gamut colours agree; sRGB clips the chart's cyan and a few saturated edges, which stay a small share.
        XCTAssertLessThan(cmp.statistics.mean, 0.3)
        XCTAssertLessThan(cmp.statistics.shareAbove, 0.05)
    }

    func testImagesOfAnotherSizeAreAMismatch() throws {
        let file = try golden("format-png.png")
        let cropped = ImageFile(format: file.format, width: file.width - 1, height: file.height, channels: file.channels,
                                bitDepth: file.bitDepth, iccProfile: file.iccProfile, exif: nil,
                                samples: Array(file.samples.prefix((file.width - 1) * file.height * file.channels)))
        XCTAssertThrowsError(try PixelComparison(golden: file, candidate: cropped, threshold: 2.3)) { error in
            XCTAssertTrue("\(error)".contains("size differs"), "\(error)")
        }
    }

    func testStatisticsCountAgainstTheThreshold() {
        let s = DeltaEStatistics([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], threshold: 2.3)
        XCTAssertEqual(s.max, 9)
        XCTAssertEqual(s.mean, 4.5)
        XCTAssertEqual(s.countAbove, 7)
        XCTAssertEqual(s.shareAbove, 0.7, accuracy: 1e-12)
        XCTAssertEqual(s.p99, 9)
        XCTAssertEqual(s.worstIndex, 9)
        XCTAssertEqual(VerifyThresholds(max: 10, mean: 5).failures(s), [])
        XCTAssertEqual(VerifyThresholds(max: 10, mean: 4).failures(s), ["mean ΔE00 4.500 > 4"])
    }
}
