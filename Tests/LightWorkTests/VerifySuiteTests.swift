import Foundation
import XCTest
@testable import LightWork

/// The suite file: versioned, strict about keys, and refusing what cannot be a colour regression case.
final class VerifySuiteTests: XCTestCase {
    func load(_ json: String) throws -> VerifySuite {
        let dir = try TestPaths.temporaryDirectory(self)
        let url = dir.appendingPathComponent("suite.json")
        try Data(json.utf8).write(to: url)
        return try VerifySuite.load(from: url)
    }

    func assertRefused(_ json: String, path: String, mentioning text: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try load(json), file: file, line: line) { error in
            guard case let LightWorkError.invalidDocument(_, p, reason) = error else {
                return XCTFail("not an invalidDocument error: \(error)", file: file, line: line)
            }
            XCTAssertEqual(p, path, reason, file: file, line: line)
            XCTAssertTrue(reason.contains(text), reason, file: file, line: line)
        }
    }

    func testTheRepositorySuiteLoads() throws {
        let suite = try VerifySuite.load(from: TestPaths.repoRoot.appendingPathComponent("Suites/lightwork.suite.json"))
        XCTAssertEqual(suite.version, 1)
        XCTAssertEqual(suite.thresholds, VerifyThresholds(max: 0, mean: 0), "goldens reproduce bit for bit (docs/test-limits.md)")
        XCTAssertEqual(suite.decodeHashes, "decode-hashes.json")
        // Every film of the catalog, every lossless format and every colour space appear.
        let catalog = try FilmCatalog.bundled(profiles: TestPaths.repoRoot.appendingPathComponent("Profiles"))
        let films = Set(catalog.entries.filter { !$0.film.isNone }.map(\.film.lookupId))
        XCTAssertEqual(Set(suite.cases.compactMap(\.film)), films)
        XCTAssertEqual(Set(suite.cases.compactMap(\.format)), Set(VerifyCase.losslessFormats))
        XCTAssertEqual(Set(suite.cases.compactMap(\.colorspace)), Set(OutputColorSpace.allCases))
        XCTAssertGreaterThanOrEqual(suite.cases.filter { $0.chart != nil }.count, 3)
        // Goldens exist for every case that names one, and are small.
        var bytes = 0
        for c in suite.cases {
            guard let golden = c.golden else { continue }
            let url = TestPaths.repoRoot.appendingPathComponent("Suites").appendingPathComponent(golden)
            let size = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int, golden)
            bytes += size
        }
        XCTAssertLessThan(bytes, 3 << 20, "goldens stay a few MB at most")
    }

    func testVersionIsRequiredAndChecked() {
        assertRefused(#"{"name": "x", "cases": []}"#, path: "$.version", mentioning: "missing")
        assertRefused(#"{"version": 2, "name": "x", "cases": []}"#, path: "$.version", mentioning: "unsupported suite version 2")
    }

    func testUnknownKeysAreRefusedWithTheirPath() {
        assertRefused(#"{"version": 1, "name": "x", "cases": [{"name": "a", "input": "i.dng", "golden": "g.tif", "colourspace": "srgb"}]}"#,
                      path: "$.cases[0]", mentioning: "unknown key \"colourspace\"")
        assertRefused(#"{"version": 1, "name": "x", "treshold": {}, "cases": []}"#, path: "$", mentioning: "unknown key \"treshold\"")
    }

    func testLossyFormatsAreRefused() {
        assertRefused(#"{"version": 1, "name": "x", "cases": [{"name": "a", "input": "i.dng", "golden": "g.png", "format": "jpeg"}]}"#,
                      path: "$.cases[0].format", mentioning: "lossy")
        assertRefused(#"{"version": 1, "name": "x", "cases": [{"name": "a", "input": "i.dng", "golden": "g.jpg"}]}"#,
                      path: "$.cases[0].golden", mentioning: "lossless")
    }

    func testACaseMustCompareWithSomething() {
        assertRefused(#"{"version": 1, "name": "x", "cases": [{"name": "a", "input": "i.dng"}]}"#,
                      path: "$.cases[0]", mentioning: "compares with nothing")
    }

    func testNamesAreUniqueAndFileSafe() {
        assertRefused(#"{"version": 1, "name": "x", "cases": [{"name": "a", "input": "i", "golden": "a.tif"}, {"name": "a", "input": "j", "golden": "b.tif"}]}"#,
                      path: "$.cases[1].name", mentioning: "names two cases")
        assertRefused(#"{"version": 1, "name": "x", "cases": [{"name": "../up", "input": "i", "golden": "a.tif"}]}"#,
                      path: "$.cases[0].name", mentioning: "letters, digits")
    }

    func testThresholdsAreCheckedAndLayered() throws {
        assertRefused(#"{"version": 1, "name": "x", "cases": [{"name": "a", "input": "i", "golden": "a.tif", "thresholds": {"shareAbove": 2}}]}"#,
                      path: "$.cases[0].thresholds.shareAbove", mentioning: "0…1")
        assertRefused(#"{"version": 1, "name": "x", "thresholds": {"max": -1}, "cases": [{"name": "a", "input": "i", "golden": "a.tif"}]}"#,
                      path: "$.thresholds.max", mentioning: "≥ 0")
        let suite = try load(#"{"version": 1, "name": "x", "thresholds": {"max": 1.5}, "cases": [{"name": "a", "input": "i", "golden": "a.tif", "thresholds": {"mean": 0.2}}]}"#)
        let layered = suite.cases[0].thresholds!.over(suite.thresholds).resolved
        XCTAssertEqual(layered, VerifyThresholds(max: 1.5, mean: 0.2, shareAbove: nil))
        XCTAssertEqual(VerifyThresholds().resolved, VerifyThresholds(max: 2.3, mean: 0.767))
    }

    func testBadValuesNameTheirPlace() {
        assertRefused(#"{"version": 1, "name": "x", "cases": [{"name": "a", "input": "i", "golden": "a.tif", "colorspace": "rec2020"}]}"#,
                      path: "$.cases[0].colorspace", mentioning: "rec2020")
        assertRefused(#"{"version": 1, "name": "x", "cases": [{"name": "a", "input": 3, "golden": "a.tif"}]}"#,
                      path: "$.cases[0].input", mentioning: "a string")
    }
}
