import XCTest
@testable import LightWork

final class FilterRangesTests: XCTestCase {
    static var profiles: URL { TestPaths.repoRoot.appendingPathComponent("Profiles") }

    func testShippedTableDeclaresTheChainInOrder() throws {
        let ranges = try FilterRanges.load(from: Self.profiles.appendingPathComponent("filters.json"))
        XCTAssertEqual(ranges.version, 1)
        XCTAssertEqual(ranges.filters.map(\.name), ["brightness", "clarity", "contrast", "warmth", "tint", "clarity2", "vignette",
                                                   "postWarmth", "postTint", "fade", "grain", "saturation", "dust"])
        for name in ["vignette.size", "vignette.feather", "grain.size", "dust.size"] {
            let p = try XCTUnwrap(ranges.parameter(named: name), name)
            XCTAssertTrue(p.defaultValue >= min(p.minValue, p.maxValue) && p.defaultValue <= max(p.minValue, p.maxValue))
            XCTAssertFalse(p.unit.isEmpty)
        }
        for f in ranges.filters {
            XCTAssertEqual(f.amount.defaultValue, 0, f.name)
            XCTAssertFalse(f.amount.description.isEmpty, f.name)
            XCTAssertNotEqual(f.minValue, f.maxValue, f.name)
        }
        XCTAssertEqual(ranges.filter(named: "saturation")?.minValue, -1)   // −1 = greyscale, per the file
        XCTAssertEqual(ranges.filter(named: "dust")?.stage, .post)
    }

    /// A sub-parameter's slider pivots on its default: UI 0 = default, ±100 = its ends.
    func testSubParameterMapsAroundItsDefault() throws {
        let ranges = try FilterRanges.load(from: Self.profiles.appendingPathComponent("filters.json"))
        let size = try XCTUnwrap(ranges.parameter(named: "vignette.size"))
        XCTAssertEqual(size.value(forUI: 0), size.defaultValue)
        XCTAssertEqual(size.value(forUI: -100), size.minValue, accuracy: 1e-12)
        XCTAssertEqual(size.value(forUI: 100), size.maxValue, accuracy: 1e-12)
        let mid = (size.defaultValue + size.maxValue) / 2
        XCTAssertEqual(size.value(forUI: 50), mid, accuracy: 1e-12)
        XCTAssertEqual(size.ui(forValue: mid, useLeftRange: false), 50, accuracy: 1e-9)
    }

    func testBundledFindsTheRepositoryProfiles() throws {
        let ranges = try FilterRanges.bundled(profiles: Self.profiles)
        XCTAssertEqual(ranges.parameterNames.first, "brightness")
        XCTAssertTrue(ranges.parameterNames.contains("dust.size"))
        let listing = ranges.listing()
        for name in ranges.parameterNames { XCTAssertTrue(listing.contains(name), name) }
    }

    private func variant(_ edit: (inout [String: Any]) -> Void) throws -> Data {
        let data = try Data(contentsOf: Self.profiles.appendingPathComponent("filters.json"))
        var root = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        edit(&root)
        return try JSONSerialization.data(withJSONObject: root)
    }

    private func assertInvalid(_ data: Data, path: String, contains words: String, line: UInt = #line) {
        XCTAssertThrowsError(try FilterRanges.parse(data, file: "filters.json"), line: line) { error in
            guard case let LightWorkError.invalidDocument(file, p, reason) = error else { return XCTFail("\(error)", line: line) }
            XCTAssertEqual(file, "filters.json", line: line)
            XCTAssertEqual(p, path, line: line)
            XCTAssertTrue(reason.contains(words), reason, line: line)
        }
    }

    func testInvalidTablesNameTheMistake() throws {
        assertInvalid(try variant { $0["version"] = 2 }, path: "$.version", contains: "version 2")
        assertInvalid(try variant { root in
            var list = root["filters"] as! [[String: Any]]
            list[2]["name"] = "kontrast"
            root["filters"] = list
        }, path: "$.filters[2].name", contains: "unknown filter")
        assertInvalid(try variant { root in
            var list = root["filters"] as! [[String: Any]]
            list[0]["default"] = 1
            root["filters"] = list
        }, path: "$.filters[0].default", contains: "offsets from neutral")
        assertInvalid(try variant { root in
            var list = root["filters"] as! [[String: Any]]
            list.removeLast()
            root["filters"] = list
        }, path: "$.filters", contains: "missing filter \"dust\"")
        assertInvalid(try variant { root in
            var list = root["filters"] as! [[String: Any]]
            list.swapAt(0, 1)
            root["filters"] = list
        }, path: "$.filters[0].name", contains: "out of chain order")
        assertInvalid(Data("{\"version\": 1, \"filters\": [".utf8), path: "$", contains: "malformed JSON")
    }

    func testProfilesDirectoryLookup() throws {
        let tmp = try TestPaths.temporaryDirectory(self)
        let profiles = tmp.appendingPathComponent("repo/Profiles")
        try FileManager.default.createDirectory(at: profiles, withIntermediateDirectories: true)
        try Data("{}".utf8).write(to: profiles.appendingPathComponent("filters.json"))
        let exe = tmp.appendingPathComponent("repo/.build/release/lightwork")
        try FileManager.default.createDirectory(at: exe.deletingLastPathComponent(), withIntermediateDirectories: true)
        let nowhere = URL(fileURLWithPath: "/nonexistent-lightwork")
        let outside = try TestPaths.temporaryDirectory(self)

        // Walking up from the executable.
        XCTAssertEqual(try ProfilesDirectory.locate(environment: [:], executable: exe, currentDirectory: outside, systemLocation: nowhere).path,
                       profiles.path)
        // From the current directory.
        XCTAssertEqual(try ProfilesDirectory.locate(environment: [:], executable: nil,
                                                    currentDirectory: tmp.appendingPathComponent("repo/.build"), systemLocation: nowhere).path,
                       profiles.path)
        // The environment wins, and must be valid.
        XCTAssertEqual(try ProfilesDirectory.locate(environment: ["LIGHTWORK_PROFILES": profiles.path], executable: nil,
                                                    currentDirectory: outside, systemLocation: nowhere).path, profiles.path)
        XCTAssertThrowsError(try ProfilesDirectory.locate(environment: ["LIGHTWORK_PROFILES": outside.path], executable: exe,
                                                          currentDirectory: outside, systemLocation: nowhere))
        // Nothing anywhere: a clear error.
        XCTAssertThrowsError(try ProfilesDirectory.locate(environment: [:], executable: nil, currentDirectory: outside,
                                                          systemLocation: nowhere)) { error in
            XCTAssertTrue("\(error)".contains("LIGHTWORK_PROFILES"), "\(error)")
        }
    }
}
