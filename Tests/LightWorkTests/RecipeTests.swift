import XCTest
@testable import LightWork

final class RecipeTests: XCTestCase {
    var ranges: FilterRanges!

    override func setUpWithError() throws {
        ranges = FilterRanges.standard
    }

    private func parse(_ json: String, base: URL? = nil) throws -> Recipe {
        try Recipe.parse(Data(json.utf8), file: "r.json", baseDirectory: base, ranges: ranges)
    }

    private func assertInvalid(_ json: String, path: String, contains words: String, base: URL? = nil, line: UInt = #line) {
        XCTAssertThrowsError(try parse(json, base: base), line: line) { error in
            guard case let LightWorkError.invalidDocument(file, p, reason) = error else { return XCTFail("\(error)", line: line) }
            XCTAssertEqual(file, "r.json", line: line)
            XCTAssertEqual(p, path, reason, line: line)
            XCTAssertTrue(reason.contains(words), reason, line: line)
        }
    }

    /// The shipped catalog in a scratch folder with stand-in lookup files (the images are rendered after merge).
    private func catalogWithImages() throws -> FilmCatalog {
        let dir = try TestPaths.temporaryDirectory(self)
        let data = try Data(contentsOf: TestPaths.repoRoot.appendingPathComponent("Profiles/films/catalog.json"))
        try data.write(to: dir.appendingPathComponent("catalog.json"))
        let catalog = try FilmCatalog.load(from: dir.appendingPathComponent("catalog.json"))
        for e in catalog.entries where !e.film.isNone {
            try Data([0x89, 0x50, 0x4E, 0x47]).write(to: dir.appendingPathComponent(e.film.lookupImageName))
        }
        return catalog
    }

    func testUIAndValueFormsResolveToTheManifestTriple() throws {
        let r = try parse("""
            {"version": 1, "name": "t", "filters": {
              "contrast": {"ui": 35},
              "brightness": {"value": -0.5, "useLeftRange": true},
              "fade": {"value": 0.15},
              "vignette.feather": {"ui": -40}
            }}
            """)
        let resolved = try r.resolve(ranges: ranges)
        let c = try XCTUnwrap(resolved["contrast"])
        XCTAssertEqual(c.ui, 35)
        XCTAssertEqual(c.value, 0.35 * ranges.parameter(named: "contrast")!.maxValue, accuracy: 1e-12)
        XCTAssertFalse(c.useLeftRange)
        let b = try XCTUnwrap(resolved["brightness"])
        XCTAssertEqual(b.value, -0.5)
        XCTAssertTrue(b.useLeftRange)
        XCTAssertEqual(b.ui, -100 * -0.5 / ranges.parameter(named: "brightness")!.minValue, accuracy: 1e-9)
        // useLeftRange left out: the half that reaches the value.
        XCTAssertEqual(resolved["fade"]?.useLeftRange, false)
        XCTAssertEqual(resolved["fade"]!.ui, 100 * 0.15 / ranges.parameter(named: "fade")!.maxValue, accuracy: 1e-9)
        let feather = ranges.parameter(named: "vignette.feather")!
        XCTAssertEqual(resolved["vignette.feather"]!.value, feather.defaultValue + 0.4 * (feather.minValue - feather.defaultValue), accuracy: 1e-12)
        // Untouched sliders are present at their defaults, in chain order.
        XCTAssertEqual(resolved.settings.map(\.name), ranges.parameterNames)
        XCTAssertEqual(resolved["saturation"], ResolvedSetting(name: "saturation", ui: 0, value: 0, useLeftRange: false))
        XCTAssertEqual(resolved["vignette.size"]?.value, ranges.parameter(named: "vignette.size")!.defaultValue)
        XCTAssertEqual(resolved.lookupMix, 0)
        // The manifest form round-trips through Codable.
        let back = try JSONDecoder().decode(ResolvedRecipe.self, from: JSONEncoder().encode(resolved))
        XCTAssertEqual(back, resolved)
    }

    func testMistakesCarryTheirJSONPath() throws {
        assertInvalid(#"{"version": 1, "filters": {"contrast": {"ui": 140}}}"#, path: "$.filters.contrast.ui", contains: "outside −100…100")
        assertInvalid(#"{"version": 1, "filters": {"kontrast": {"ui": 10}}}"#, path: "$.filters.kontrast", contains: "unknown filter")
        assertInvalid(#"{"version": 1, "filters": {"contrast": {"value": 5, "useLeftRange": false}}}"#,
                      path: "$.filters.contrast.value", contains: "outside the right half")
        assertInvalid(#"{"version": 1, "filters": {"grain": {"value": 0.05, "useLeftRange": true}}}"#,
                      path: "$.filters.grain.value", contains: "left half")
        assertInvalid(#"{"version": 1, "filters": {"vignette.feather": {"ui": "x"}}}"#,
                      path: #"$.filters["vignette.feather"].ui"#, contains: "expected a number")
        assertInvalid(#"{"version": 1, "filters": {"contrast": {"ui": 10, "value": 0.1}}}"#, path: "$.filters.contrast.ui", contains: "not both")
        assertInvalid(#"{"version": 1, "filters": {"contrast": {"value": 0.1, "useLeftRange": 1}}}"#,
                      path: "$.filters.contrast.useLeftRange", contains: "true or false")
        assertInvalid(#"{"version": 2}"#, path: "$.version", contains: "unsupported recipe version 2")
        assertInvalid(#"{"name": "x"}"#, path: "$.version", contains: "missing")
        assertInvalid(#"{"version": 1, "filtres": {}}"#, path: "$.filtres", contains: "unknown key")
        assertInvalid(#"{"version": 1, "strength": 120}"#, path: "$.strength", contains: "0…100")
        // Quality is checked by the recipe's format when it names one (JPEG 1…100, WebP 0…100), else by any codec.
        assertInvalid(#"{"version": 1, "export": {"format": "jpeg", "quality": 0}}"#, path: "$.export.quality", contains: "quality takes 1-100, not '0'")
        assertInvalid(#"{"version": 1, "export": {"quality": 101}}"#, path: "$.export.quality", contains: "not '101'")
        XCTAssertEqual(try parse(#"{"version": 1, "export": {"format": "webp", "quality": 0}}"#).export?.quality, 0)
        XCTAssertEqual(try parse(#"{"version": 1, "export": {"quality": 0}}"#).export?.quality, 0)
        assertInvalid(#"{"version": 1, "export": {"colorspace": "cmyk"}}"#, path: "$.export.colorspace", contains: "unknown colour space")
        // Export values come from the codecs: one no codec declares is refused, naming those it does.
        assertInvalid(#"{"version": 1, "export": {"compression": "packbits"}}"#, path: "$.export.compression",
                      contains: "compression 'packbits' is not one of: none, deflate, lzw")
        let codecs = "(" + CodecRegistry.outputCodecNames.joined(separator: ", ") + ")"
        XCTAssertTrue(codecs.hasPrefix("(tiff, jpeg, png, "), codecs)
        assertInvalid(#"{"version": 1, "export": {"format": "gif"}}"#, path: "$.export.format", contains: "unknown format \"gif\" \(codecs)")
        assertInvalid(#"{"version": 1, "export": {"format": "raw"}}"#, path: "$.export.format", contains: codecs)
        assertInvalid(#"{"version": 1, "export": {"format": "jpeg", "bitDepth": 16}}"#, path: "$.export.bitDepth", contains: "jpeg is written at 8 bits")
        assertInvalid(#"{"version": 1, "export": {"bitDepth": 9}}"#, path: "$.export.bitDepth", contains: "8 or 10 or 12 or 16, found 9")
        assertInvalid("{\"version\": 1,\n \"filters\": {,}}", path: "$", contains: "line 2")
    }

    func testUnknownFilmIsRefusedAtItsPath() throws {
        let catalog = try catalogWithImages()
        let r = try parse(#"{"version": 1, "film": "Nonexistent Stock"}"#)
        XCTAssertThrowsError(try r.resolve(ranges: ranges, catalog: catalog)) { error in
            guard case let LightWorkError.invalidDocument(_, path, reason) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(path, "$.film")
            XCTAssertTrue(reason.contains("Nonexistent Stock"))
        }
    }

    func testLockedFilmIsRefused() throws {
        let catalog = try catalogWithImages()
        let store = Entitlements(url: try TestPaths.temporaryDirectory(self).appendingPathComponent("e.json"))
        let r = try parse(#"{"version": 1, "film": "0003001"}"#)
        XCTAssertThrowsError(try r.resolve(ranges: ranges, catalog: catalog, entitlements: store)) { error in
            guard case let LightWorkError.locked(message) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(message.contains("0003"), message)
            XCTAssertTrue(message.contains("paid"), message)
        }
    }

    func testSampleRecipesLoadAndResolve() throws {
        let catalog = try catalogWithImages()
        let folder = TestPaths.repoRoot.appendingPathComponent("Samples/recipes")
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil).filter { $0.pathExtension == "json" }
        XCTAssertGreaterThanOrEqual(files.count, 3)
        for file in files {
            let recipe = try Recipe.load(from: file, ranges: ranges)
            _ = try recipe.resolve(ranges: ranges, catalog: catalog)
        }
        let neutral = try Recipe.load(from: folder.appendingPathComponent("neutral.json"), ranges: ranges).resolve(ranges: ranges)
        XCTAssertTrue(neutral.settings.allSatisfy { $0.ui == 0 })
        XCTAssertNil(neutral.film)
        let silver = try Recipe.load(from: folder.appendingPathComponent("silver-grain.json"), ranges: ranges)
            .resolve(ranges: ranges, catalog: catalog)
        XCTAssertEqual(silver.film?.lookupId, "1001001")   // found by name
        XCTAssertEqual(silver.export?.bitDepth, 16)
        XCTAssertEqual(silver.lookupMix, 1)
    }

    func testSetOverrides() throws {
        let base = try parse(#"{"version": 1, "filters": {"contrast": {"value": 0.2, "useLeftRange": false}}}"#)
        let r = try base.applying(sets: ["contrast=-35", "vignette.feather=20", "strength=60"], ranges: ranges)
        XCTAssertEqual(r.filters["contrast"], .ui(-35))
        XCTAssertEqual(r.filters["vignette.feather"], .ui(20))
        XCTAssertEqual(r.strength, 60)
        let resolved = try r.resolve(ranges: ranges)
        XCTAssertEqual(resolved["contrast"]!.value, 0.35 * ranges.parameter(named: "contrast")!.minValue, accuracy: 1e-12)
        XCTAssertTrue(resolved["contrast"]!.useLeftRange)
        XCTAssertThrowsError(try base.applying(sets: ["contrast"], ranges: ranges))
        XCTAssertThrowsError(try base.applying(sets: ["contrast=abc"], ranges: ranges))
        XCTAssertThrowsError(try base.applying(sets: ["contrast=101"], ranges: ranges))
        XCTAssertThrowsError(try base.applying(sets: ["kontrast=1"], ranges: ranges)) { error in
            XCTAssertTrue("\(error)".contains("unknown filter"), "\(error)")
        }
        // Without the table, the unknown name is caught at resolve with its path.
        let late = try base.applying(sets: ["kontrast=1"])
        XCTAssertThrowsError(try late.resolve(ranges: ranges)) { error in
            guard case let LightWorkError.invalidDocument(_, path, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(path, "$.filters.kontrast")
        }
    }

    func testJSONRoundTrip() throws {
        let r = try parse(#"{"version": 1, "name": "rt", "filters": {"contrast": {"ui": 12.5}, "fade": {"value": -0.05, "useLeftRange": true}}, "film": "0001002", "strength": 40, "export": {"format": "png"}}"#)
        let again = try Recipe.parse(r.jsonData(), file: "r.json", ranges: ranges)
        XCTAssertEqual(again, r)
    }

    func testLUTMustStayInsideTheRecipeFolder() throws {
        let root = try TestPaths.temporaryDirectory(self)
        let recipes = root.appendingPathComponent("recipes")
        try FileManager.default.createDirectory(at: recipes.appendingPathComponent("luts"), withIntermediateDirectories: true)
        let cube = "LUT_3D_SIZE 2\n0 0 0\n1 0 0\n0 1 0\n1 1 0\n0 0 1\n1 0 1\n0 1 1\n1 1 1\n"
        try Data(cube.utf8).write(to: recipes.appendingPathComponent("luts/ok.cube"))
        try Data(cube.utf8).write(to: root.appendingPathComponent("outside.cube"))
        try FileManager.default.createSymbolicLink(at: recipes.appendingPathComponent("luts/link.cube"),
                                                   withDestinationURL: root.appendingPathComponent("outside.cube"))
        try FileManager.default.createSymbolicLink(at: recipes.appendingPathComponent("escape"), withDestinationURL: root)

        let ok = try parse(#"{"version": 1, "lut": "luts/ok.cube"}"#, base: recipes)
        XCTAssertEqual(ok.lutURL?.lastPathComponent, "ok.cube")
        XCTAssertEqual(try ok.resolve(ranges: ranges).lut, ok.lutURL?.path)
        for bad in ["../outside.cube", "../../etc/passwd", "/etc/passwd", "luts/link.cube", "escape/outside.cube", "luts/missing.cube"] {
            assertInvalid("{\"version\": 1, \"lut\": \"\(bad)\"}", path: "$.lut", contains: "LUT refused", base: recipes)
        }
        assertInvalid(#"{"version": 1, "film": "0001001", "lut": "luts/ok.cube"}"#, path: "$.lut", contains: "not both", base: recipes)
    }

    /// A value the filter cannot use is refused with its range, on every path: `--set`, a recipe's `ui`, and a
    /// recipe built in code. Grain and dust have no left half (their minimum is their default, 0).
    func testUnusableValuesAreRefusedWithTheirRange() throws {
        XCTAssertThrowsError(try Recipe.neutral.applying(sets: ["grain=-50"], ranges: ranges)) { error in
            guard case let LightWorkError.usage(message) = error else { return XCTFail("\(error)") }
            print("--set grain=-50 → \(message)")
            XCTAssertTrue(message.hasPrefix("--set grain=-50: "), message)
            XCTAssertTrue(message.contains("UI runs 0…100"), message)
            XCTAssertTrue(message.contains("values 0…1"), message)
        }
        XCTAssertThrowsError(try Recipe.neutral.applying(sets: ["dust=-0.5"], ranges: ranges)) { error in
            XCTAssertTrue("\(error)".contains("dust cannot go below 0"), "\(error)")
        }
        XCTAssertNoThrow(try Recipe.neutral.applying(sets: ["grain=0", "grain=50", "grain.size=-100", "saturation=-100"], ranges: ranges))
        assertInvalid(#"{"version": 1, "filters": {"grain": {"ui": -50}}}"#, path: "$.filters.grain.ui", contains: "UI runs 0…100")
        XCTAssertNoThrow(try parse(#"{"version": 1, "filters": {"grain": {"value": 0, "useLeftRange": true}}}"#), "value 0 is UI 0")
        let built = Recipe(name: "code", filters: ["dust": .ui(-10)])
        XCTAssertThrowsError(try built.resolve(ranges: ranges)) { error in
            guard case let LightWorkError.invalidDocument(_, path, reason) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(path, "$.filters.dust.ui")
            XCTAssertTrue(reason.contains("0…1"), reason)
        }
    }

    /// Typed overrides give the same recipe as the `--set` strings, and a number reaches the slider unchanged.
    func testTypedOverridesMatchTheSetStrings() throws {
        let typed = try Recipe.neutral.applying(overrides: [.slider(name: "contrast", ui: -35), .strength(60), .film("0001002")], ranges: ranges)
        XCTAssertEqual(typed, try Recipe.neutral.applying(sets: ["contrast=-35", "strength=60", "film=0001002"], ranges: ranges))
        let exact = 12.345678901234567
        XCTAssertEqual(try Recipe.neutral.applying(overrides: [.slider(name: "fade", ui: exact)], ranges: ranges).filters["fade"], .ui(exact))
        XCTAssertThrowsError(try Recipe.neutral.applying(overrides: [.strength(101)], ranges: ranges))
        XCTAssertThrowsError(try Recipe.neutral.applying(overrides: [.slider(name: "contrast", ui: .nan)], ranges: ranges))
        XCTAssertEqual(try RecipeOverride.parse("vignette.size = 20"), .slider(name: "vignette.size", ui: 20))
    }

    /// Recipes migrate through the filter's descriptor: a value written for version 1 of a filter whose meaning
    /// changed (test filter `rgrain`: version 1 stored 0…2, version 2 stores 0…1) is rewritten when read, for each
    /// instance of the type; a file for the current version is taken as is; unknown versions are refused.
    func testOldFilterVersionsMigrateThroughTheDescriptor() throws {
        let table = try FilterRanges(slots: [FilterSlot(RescaledGrain.self),
                                             FilterSlot(RescaledGrain.self, name: "rgrain2", summary: "second", renaming: ["rgrain": "rgrain2"])])
        func read(_ json: String) throws -> Recipe { try Recipe.parse(Data(json.utf8), file: "old.json", ranges: table) }
        let old = try read(#"{"version": 1, "filters": {"rgrain": {"value": 1.5}, "rgrain2": {"value": 0.4, "useLeftRange": false}, "rgrain.size": {"ui": 30}}}"#)
        XCTAssertEqual(old.filters["rgrain"], .value(0.75, useLeftRange: false))
        XCTAssertEqual(old.filters["rgrain2"], .value(0.2, useLeftRange: false))
        XCTAssertEqual(old.filters["rgrain.size"], .ui(30), "UI positions keep their meaning in this migration")
        XCTAssertEqual(try old.resolve(ranges: table)["rgrain"]?.ui ?? .nan, 75, accuracy: 1e-9)
        let current = try read(#"{"version": 1, "filterVersions": {"rgrain": 2}, "filters": {"rgrain": {"value": 0.75}}}"#)
        XCTAssertEqual(current.filters["rgrain"], .value(0.75, useLeftRange: false))
        // Written back, the file says which version its values are for, and reads back the same.
        let saved = try old.jsonData(ranges: table)
        XCTAssertTrue(String(decoding: saved, as: UTF8.self).contains(#""rgrain" : 2"#), String(decoding: saved, as: UTF8.self))
        XCTAssertEqual(try Recipe.parse(saved, file: "old.json", ranges: table).filters, old.filters)
        func refused(_ json: String, _ path: String, _ words: String, line: UInt = #line) {
            XCTAssertThrowsError(try read(json), line: line) { error in
                guard case let LightWorkError.invalidDocument(_, p, reason) = error else { return XCTFail("\(error)", line: line) }
                XCTAssertEqual(p, path, line: line)
                XCTAssertTrue(reason.contains(words), reason, line: line)
            }
        }
        refused(#"{"version": 1, "filterVersions": {"rgrain": 2}, "filters": {"rgrain": {"value": 1.5}}}"#, "$.filters.rgrain.value", "the right half covers 0.0…1.0")
        refused(#"{"version": 1, "filterVersions": {"rgrain": 3}}"#, "$.filterVersions.rgrain", "versions 1…2")
        refused(#"{"version": 1, "filterVersions": {"grain": 1}}"#, "$.filterVersions.grain", "unknown filter")
        refused(#"{"version": 1, "filters": {"rgrain": {"value": 5}}}"#, "$.filters", "cannot migrate its values from version 1")
        // Today's filters are all at version 1, so a saved recipe carries no filterVersions.
        XCTAssertFalse(String(decoding: try Recipe.neutral.jsonData(), as: UTF8.self).contains("filterVersions"))
    }
}

/// A filter whose values changed meaning once (version 1 stored strength 0…2; version 2 stores 0…1): the
/// migration test's subject.
private struct RescaledGrain: DescribedFilter {
    struct TooStrong: Error, CustomStringConvertible { let value: Double; var description: String { "strength \(value) above version 1's 2" } }
    static let descriptor = FilterDescriptor(
        name: "rgrain", version: 2, stage: .post, kind: .synthesis, domain: .perceptual, summary: "test grain",
        parameters: [FilterParameter(name: "rgrain", minValue: 0, maxValue: 1, unit: "strength", description: "strength"),
                     FilterParameter(name: "rgrain.size", minValue: 0, maxValue: 1, defaultValue: 0.5, unit: "fraction", description: "size")])
    static func migrate(from version: Int, settings: inout [String: FilterSetting]) throws {
        guard version == 1, case let .value(v, left)? = settings["rgrain"] else { return }
        guard v <= 2 else { throw TooStrong(value: v) }
        settings["rgrain"] = .value(v / 2, useLeftRange: left)
    }
    let name: String
    let amount: Double
    init(values: FilterValues) { name = values.name; amount = values["rgrain"] }
    var isNeutral: Bool { amount == 0 }
    func apply(_ band: PixelBand, _ context: RenderContext) {}
}
