import XCTest
@testable import LightWork

final class RecipeTests: XCTestCase {
    var ranges: FilterRanges!

    override func setUpWithError() throws {
        ranges = try FilterRanges.load(from: TestPaths.repoRoot.appendingPathComponent("Profiles/filters.json"))
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
        assertInvalid(#"{"version": 1, "export": {"quality": 0}}"#, path: "$.export.quality", contains: "1…100")
        assertInvalid(#"{"version": 1, "export": {"colorspace": "cmyk"}}"#, path: "$.export.colorspace", contains: "unknown colour space")
        // Export values come from the codecs: one no codec declares is refused, naming those it does.
        assertInvalid(#"{"version": 1, "export": {"compression": "packbits"}}"#, path: "$.export.compression",
                      contains: "unknown compression \"packbits\" (none, deflate, lzw)")
        assertInvalid(#"{"version": 1, "export": {"format": "gif"}}"#, path: "$.export.format", contains: "unknown format \"gif\" (tiff, jpeg, png)")
        assertInvalid(#"{"version": 1, "export": {"format": "raw"}}"#, path: "$.export.format", contains: "(tiff, jpeg, png)")
        assertInvalid(#"{"version": 1, "export": {"format": "jpeg", "bitDepth": 16}}"#, path: "$.export.bitDepth", contains: "jpeg is written at 8 bits")
        assertInvalid(#"{"version": 1, "export": {"bitDepth": 12}}"#, path: "$.export.bitDepth", contains: "8 or 16")
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
}
