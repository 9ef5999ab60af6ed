import XCTest
@testable import LightWork

final class FilterRangesTests: XCTestCase {
    static var profiles: URL { TestPaths.repoRoot.appendingPathComponent("Profiles") }

    func testShippedTableDeclaresTheChainInOrder() throws {
        let ranges = FilterRanges.standard
        XCTAssertEqual(ranges.slots.map(\.name), FilterChain.build(values: [:], look: nil, strength: 0).map(\.name))
        XCTAssertEqual(ranges.parameterNames, FilterChain.valueNames)   // the names themselves: FilterChainTests
        for name in ["vignette.size", "vignette.feather", "grain.size", "dust.size"] {
            let p = try XCTUnwrap(ranges.parameter(named: name), name)
            XCTAssertTrue(p.defaultValue >= min(p.minValue, p.maxValue) && p.defaultValue <= max(p.minValue, p.maxValue))
            XCTAssertFalse(p.unit.isEmpty)
            XCTAssertEqual(FilterChain.defaults[name], p.defaultValue)
        }
        for slot in ranges.slots {
            for p in slot.parameters where !p.name.contains(".") {
                XCTAssertEqual(p.defaultValue, 0, p.name)
                XCTAssertFalse(p.description.isEmpty, p.name)
                XCTAssertNotEqual(p.minValue, p.maxValue, p.name)
            }
        }
        XCTAssertEqual(ranges.parameter(named: "saturation")?.minValue, -1)   // −1 = greyscale
        XCTAssertEqual(ranges.slot(owning: "dust")?.stage, .post)
        XCTAssertEqual(ranges.slot(owning: "postTint")?.stage, .post, "the second white-balance instance sits after the film")
        XCTAssertEqual(ranges.slot(owning: "tint")?.stage, .pre)
        XCTAssertEqual(ranges.slot(owning: "clarity2")?.declaredName(of: "clarity2"), "clarity")
        XCTAssertTrue(ranges.slots.contains { $0.name == "film" && $0.parameters.isEmpty }, "the film sits in the chain without a slider")
    }

    /// Each descriptor's domain and guide are what the engine reads from the filter it builds.
    func testDescriptorsAreWhatTheBuiltFiltersReport() {
        let chain = FilterChain.build(values: [:], look: nil, strength: 0)
        for (slot, filter) in zip(FilterChain.slots, chain) {
            XCTAssertEqual(filter.name, slot.name)
            XCTAssertEqual(filter.domain, slot.descriptor.domain, slot.name)
            XCTAssertEqual(filter.guideRadius, slot.descriptor.guideRadius, slot.name)
            XCTAssertEqual(ObjectIdentifier(type(of: filter)), ObjectIdentifier(slot.type), slot.name)
        }
        XCTAssertEqual(chain.compactMap(\.guideRadius).count, 2, "clarity and clarity2 need the blurred guide")
    }

    /// A sub-parameter's slider pivots on its default: UI 0 = default, ±100 = its ends.
    func testSubParameterMapsAroundItsDefault() throws {
        let size = try XCTUnwrap(FilterRanges.standard.parameter(named: "vignette.size"))
        XCTAssertEqual(size.value(forUI: 0), size.defaultValue)
        XCTAssertEqual(size.value(forUI: -100), size.minValue, accuracy: 1e-12)
        XCTAssertEqual(size.value(forUI: 100), size.maxValue, accuracy: 1e-12)
        let mid = (size.defaultValue + size.maxValue) / 2
        XCTAssertEqual(size.value(forUI: 50), mid, accuracy: 1e-12)
        XCTAssertEqual(size.ui(forValue: mid, useLeftRange: false), 50, accuracy: 1e-9)
    }

    func testTheListingNamesEverySlider() throws {
        let ranges = FilterRanges.standard
        let listing = ranges.listing()
        for name in ranges.parameterNames { XCTAssertTrue(listing.contains(name), name) }
        XCTAssertTrue(listing.contains("grain                post   n/a … 0 … 1"), listing)
    }

    /// `Profiles/filters.json` is generated (`lightwork filters --json`); this holds it equal to the descriptors.
    func testShippedFileIsTheGeneratedTable() throws {
        let url = Self.profiles.appendingPathComponent("filters.json")
        let shipped = try String(contentsOf: url, encoding: .utf8)
        let generated = FilterRanges.standard.json()
        XCTAssertEqual(shipped, generated, "Profiles/filters.json is stale: run `make filters`")
        // And it is valid JSON that lists every slider with its range, in chain order.
        let root = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(generated.utf8)) as? [String: Any])
        XCTAssertEqual(root["version"] as? Int, FilterRanges.fileVersion)
        let filters = try XCTUnwrap(root["filters"] as? [[String: Any]])
        XCTAssertEqual(filters.map { $0["name"] as? String }, FilterRanges.standard.slots.map(\.name))
        let sliders = filters.flatMap { ($0["parameters"] as? [[String: Any]]) ?? [] }
        XCTAssertEqual(sliders.map { $0["name"] as? String }, FilterRanges.standard.parameterNames)
        let grain = try XCTUnwrap(sliders.first { $0["name"] as? String == "grain" })
        XCTAssertEqual(grain["minValue"] as? Double, 0)
        XCTAssertEqual(grain["maxValue"] as? Double, 1)
        XCTAssertEqual(filters.first { $0["name"] as? String == "clarity2" }?["guideRadius"] as? Double, Clarity.radius)
        XCTAssertEqual(filters.first { $0["name"] as? String == "brightness" }?["domain"] as? String, "linear")
    }

    /// `lightwork filters` lists the descriptors, `--json` prints exactly the shipped file, and `--set grain=-50`
    /// fails before any file is read, naming grain's range.
    func testCommandsReadTheDescriptors() throws {
        let listing = try CLIRunner.run(["filters"])
        XCTAssertEqual(listing.status, 0, listing.stderr)
        XCTAssertEqual(listing.stdout, FilterRanges.standard.listing())
        let json = try CLIRunner.run(["filters", "--json"])
        XCTAssertEqual(json.status, 0, json.stderr)
        XCTAssertEqual(json.stdout, try String(contentsOf: Self.profiles.appendingPathComponent("filters.json"), encoding: .utf8))
        XCTAssertEqual(try CLIRunner.run(["filters", "--yaml"]).status, 2)
        let out = try TestPaths.temporaryDirectory(self)
        let refused = try CLIRunner.run(["convert", "--set", "grain=-50", SampleSceneTests.samples.appendingPathComponent("scene-srgb.png").path,
                                         "-o", out.path])
        XCTAssertEqual(refused.status, 2, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("--set grain=-50: grain cannot go below 0"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("UI runs 0…100 for values 0…1"), refused.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out.path), [], "refused before any output")
    }

    private func assertInvalid(_ slots: [FilterSlot], contains words: String, line: UInt = #line) {
        XCTAssertThrowsError(try FilterRanges(slots: slots), line: line) { error in
            guard case let LightWorkError.invalidDocument(_, _, reason) = error else { return XCTFail("\(error)", line: line) }
            XCTAssertTrue(reason.contains(words), reason, line: line)
        }
    }

    /// The checks a chain must pass (they were the filters.json parser's): names once, main defaults 0, defaults in
    /// range, sub-parameters after their main, stages in order.
    func testInvalidChainsNameTheMistake() throws {
        XCTAssertNoThrow(try FilterRanges(slots: [FilterSlot(Fade.self), FilterSlot(Grain.self)]))
        assertInvalid([FilterSlot(Fade.self), FilterSlot(Fade.self)], contains: "filter \"fade\" declared twice")
        assertInvalid([FilterSlot(Fade.self), FilterSlot(Grain.self, name: "grain2", summary: "", renaming: ["grain": "fade"])],
                      contains: "slider \"fade\" declared twice")
        assertInvalid([FilterSlot(Grain.self), FilterSlot(Contrast.self)], contains: "out of chain order")
        assertInvalid([FilterSlot(OffsetDefault.self)], contains: "offsets from neutral")
        assertInvalid([FilterSlot(OrphanSub.self)], contains: "after its main amount")
        assertInvalid([FilterSlot(DefaultOutside.self)], contains: "lies outside")
        assertInvalid([FilterSlot(EmptyRange.self)], contains: "no range")
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
        // An install under a prefix: PREFIX/bin/lightwork finds PREFIX/share/lightwork/Profiles.
        let prefix = tmp.appendingPathComponent("usr-local")
        let installed = prefix.appendingPathComponent("share/lightwork/Profiles")
        try FileManager.default.createDirectory(at: installed, withIntermediateDirectories: true)
        try Data("{}".utf8).write(to: installed.appendingPathComponent("filters.json"))
        XCTAssertEqual(try ProfilesDirectory.locate(environment: [:], executable: prefix.appendingPathComponent("bin/lightwork"),
                                                    currentDirectory: outside, systemLocation: nowhere).path, installed.path)
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

/// Filters that exist only to break a chain's rules (`testInvalidChainsNameTheMistake`).
private protocol RuleBreaker: DescribedFilter { init() }
private extension RuleBreaker {
    init(values: FilterValues) { self.init() }
    var name: String { Self.descriptor.name }
    var isNeutral: Bool { true }
    func apply(_ band: PixelBand, _ context: RenderContext) {}
}
private func breaker(_ name: String, _ parameters: [FilterParameter]) -> FilterDescriptor {
    FilterDescriptor(name: name, stage: .pre, kind: .point, domain: .perceptual, summary: name, parameters: parameters)
}
private struct OffsetDefault: RuleBreaker {
    static let descriptor = breaker("offset", [FilterParameter(name: "offset", minValue: -1, maxValue: 1, defaultValue: 0.5, unit: "x", description: "x")])
}
private struct OrphanSub: RuleBreaker {
    static let descriptor = breaker("orphan", [FilterParameter(name: "other.size", minValue: 0, maxValue: 1, defaultValue: 0.5, unit: "x", description: "x")])
}
private struct DefaultOutside: RuleBreaker {
    static let descriptor = breaker("outside", [FilterParameter(name: "outside", minValue: -1, maxValue: 1, unit: "x", description: "x"),
                                                FilterParameter(name: "outside.size", minValue: 0, maxValue: 1, defaultValue: 2, unit: "x", description: "x")])
}
private struct EmptyRange: RuleBreaker {
    static let descriptor = breaker("empty", [FilterParameter(name: "empty", minValue: 0, maxValue: 0, unit: "x", description: "x")])
}
