import Foundation
import XCTest
@testable import LightWork

/// The structure check that keeps half-uploaded files from being converted, on real files cut short.
final class FileCompletenessTests: XCTestCase {
    private func verdicts(of data: Data, cuts: [Int], in dir: URL, name: String) throws -> [FileCompleteness.Verdict] {
        try cuts.map { cut in
            let url = dir.appendingPathComponent("\(cut)-\(name)")
            try data.prefix(cut).write(to: url)
            return FileCompleteness.check(url)
        }
    }

    private func assertAllIncomplete(_ verdicts: [FileCompleteness.Verdict], _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        for (i, v) in verdicts.enumerated() {
            XCTAssertFalse(v.allowsConversion, "\(what) cut #\(i): \(v)", file: file, line: line)
        }
    }

    func testDNGIsCompleteOnlyWhole() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let url = SampleSceneTests.samples.appendingPathComponent("scene.dng")
        XCTAssertEqual(FileCompleteness.check(url), .complete)
        let data = try Data(contentsOf: url)
        let cuts = [8, data.count / 10, data.count / 2, data.count * 9 / 10, data.count - 1]
        assertAllIncomplete(try verdicts(of: data, cuts: cuts, in: dir, name: "scene.dng"), "scene.dng")
    }

    func testRealCameraDNGIsCompleteOnlyWhole() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let url = try TestPaths.sharedSamples("raw").appendingPathComponent("lg-g4-h815-lossy-linear.dng")
        XCTAssertEqual(FileCompleteness.check(url), .complete)
        let data = try Data(contentsOf: url)
        assertAllIncomplete(try verdicts(of: data, cuts: [data.count / 3, data.count - 100], in: dir, name: "lg.dng"), "lg-g4 DNG")
    }

    func testPNGNeedsItsEndChunk() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let url = SampleSceneTests.samples.appendingPathComponent("scene-srgb.png")
        XCTAssertEqual(FileCompleteness.check(url), .complete)
        let data = try Data(contentsOf: url)
        assertAllIncomplete(try verdicts(of: data, cuts: [20, data.count / 2, data.count - 1], in: dir, name: "s.png"), "PNG")
    }

    func testJPEGNeedsItsEndMarkerPaddingAllowed() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let samples = (0..<(32 * 24 * 3)).map { UInt8(($0 * 7) & 0xFF) }
        let jpeg = JPEGBuilder.encode(width: 32, height: 24, components: 3, samples: samples)
        let whole = dir.appendingPathComponent("whole.jpg")
        try jpeg.write(to: whole)
        XCTAssertEqual(FileCompleteness.check(whole), .complete)
        let padded = dir.appendingPathComponent("padded.jpg")
        try (jpeg + Data(repeating: 0, count: 300)).write(to: padded)
        XCTAssertEqual(FileCompleteness.check(padded), .complete, "cameras pad after the end marker")
        assertAllIncomplete(try verdicts(of: jpeg, cuts: [3, jpeg.count / 2, jpeg.count - 1], in: dir, name: "j.jpg"), "JPEG")
    }

    /// CR3 and other ISO-box files: the top-level boxes must end exactly at the end of the file.
    func testISOBoxFileNeedsItsLastBoxWhole() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        func box(_ type: String, _ payload: Int) -> Data {
            var d = Data([UInt8((payload + 8) >> 24), UInt8((payload + 8) >> 16 & 0xFF), UInt8((payload + 8) >> 8 & 0xFF), UInt8((payload + 8) & 0xFF)])
            d += Data(type.utf8) + Data(repeating: 0x5A, count: payload)
            return d
        }
        let file = box("ftyp", 16) + box("moov", 400) + box("mdat", 5000)
        let url = dir.appendingPathComponent("x.cr3")
        try file.write(to: url)
        XCTAssertEqual(FileCompleteness.check(url), .complete)
        assertAllIncomplete(try verdicts(of: file, cuts: [30, 500, file.count - 1], in: dir, name: "x.cr3"), "CR3")
    }

    func testUnknownFormatsCannotBeJudged() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let url = dir.appendingPathComponent("x.crw")
        try Data("II\u{1A}\0\0\0HEAPCCDR and then some bytes".utf8).write(to: url)
        XCTAssertEqual(FileCompleteness.check(url), .unknown)
        XCTAssertTrue(FileCompleteness.check(url).allowsConversion)
        let empty = dir.appendingPathComponent("empty.dng")
        try Data().write(to: empty)
        XCTAssertFalse(FileCompleteness.check(empty).allowsConversion)
    }
}
