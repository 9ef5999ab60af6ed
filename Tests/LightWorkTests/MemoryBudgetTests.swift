import Foundation
import XCTest
@testable import LightWork

/// The memory budget: sizes on the command line, header probes against the decoders, dispatch rule.
final class MemoryBudgetTests: XCTestCase {
    func testParsesSizesAndPercentages() throws {
        XCTAssertEqual(try MemoryBudget.parse("8G").limit, 8 << 30)
        XCTAssertEqual(try MemoryBudget.parse("512M").limit, 512 << 20)
        XCTAssertEqual(try MemoryBudget.parse("1.5GiB").limit, 3 << 29)
        XCTAssertEqual(try MemoryBudget.parse("2097152").limit, 2 << 20)
        let physical = try XCTUnwrap(MemoryBudget.physicalMemory())
        XCTAssertEqual(Double(try MemoryBudget.parse("25%").limit), Double(physical) / 4, accuracy: 2)
        for bad in ["", "0", "-1G", "12X", "150%", "100"] { XCTAssertThrowsError(try MemoryBudget.parse(bad), bad) }
    }

    /// /proc/meminfo's MemTotal is what `free` reports; the default is half of it (or of a cgroup limit).
    func testPhysicalMemoryMatchesSysconf() throws {
        let pages = sysconf(Int32(_SC_PHYS_PAGES)), size = sysconf(Int32(_SC_PAGESIZE))
        let physical = try XCTUnwrap(MemoryBudget.physicalMemory())
        XCTAssertLessThanOrEqual(physical, pages * size + 4096)
        XCTAssertEqual(MemoryBudget.defaultBudget().limit, max(256 << 20, physical / 2))
    }

    /// The header probe gives the pixel count the decoders find (DNG, JPEG, PNG), without decoding.
    func testHeaderProbeAgreesWithTheDecoders() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let dng = dir.appendingPathComponent("probe.dng")
        try BatchFixture.makeDNG(dng, seed: 5, width: 640, height: 480)
        var files = [dng, SampleSceneTests.samples.appendingPathComponent("scene.dng"), SampleSceneTests.samples.appendingPathComponent("scene-srgb.png")]
        let rgb = try TestPaths.sharedSamples("rgb")
        files += ["adobe-rgb-canon-eos-7d.jpg", "display-p3-iceland.jpg", "large-exif-olympus-pen-e-p3.jpg", "iccp-srgb.png"].map { rgb.appendingPathComponent($0) }
        let converter = try FileConverter(spec: ConvertSpec(outputDirectory: dir))
        for url in files {
            let decoded = try converter.decode(data: Data(contentsOf: url), url: url)
            XCTAssertEqual(ImageSizeProbe.pixels(at: url), decoded.image.width * decoded.image.height, url.lastPathComponent)
        }
        XCTAssertNil(ImageSizeProbe.pixels(at: dir.appendingPathComponent("missing.dng")))
        let junk = dir.appendingPathComponent("junk.nef")
        try Data(repeating: 0x49, count: 100).write(to: junk)
        XCTAssertNil(ImageSizeProbe.pixels(at: junk))
        // A RAW the probe cannot read is estimated from its size (one pixel per byte).
        let crw = try TestPaths.sharedSamples("raw").appendingPathComponent("canon-eos-d30.crw")
        let size = try XCTUnwrap(ResumeIndex.fileSize(crw.path))
        XCTAssertEqual(MemoryBudget.estimate(for: crw), MemoryBudget.baseBytes + size + size * MemoryBudget.bytesPerPixel)
    }

    func testAlwaysAllowsOneFileAndOtherwiseKeepsTheLimit() {
        let budget = MemoryBudget(limit: 1000)
        XCTAssertTrue(budget.allows(5000, inFlight: 0, filesInFlight: 0), "one file always runs")
        XCTAssertTrue(budget.allows(400, inFlight: 600, filesInFlight: 1))
        XCTAssertFalse(budget.allows(401, inFlight: 600, filesInFlight: 1))
    }
}
