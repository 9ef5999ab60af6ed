import XCTest
@testable import LightWork

final class FilmCatalogTests: XCTestCase {
    /// The notes' updated catalog, as they give it (7-digit ids, per-device preview arrays), closed into valid JSON,
    /// with a paid and an unlock pack filled in the way the notes' placeholders describe, and one key the
    /// schema does not know (which must be ignored).
    static let notesCatalog = """
    {
    "rniFilmCategories":[
    {
    "filterCategory":0,
    "rniFilmPacks":[
    {
    "packId":"0001",
    "price":0.00,
    "availabilityType":1,
    "isAvailable":true,
    "unlockMessage":"",
    "name":"Free filter pack",
    "packDescription":"Free filter pack that comes with app",
    "colour":"",
    "packLockedImage":"",
    "packLockedImage6Plus":"",
    "packPreviews4_5":[{"slideName":""},{"slideName":""},{"slideName":""}],
    "packPreviews6":[{"slideName":""},{"slideName":""},{"slideName":""}],
    "packPreviews6Plus":[{"slideName":""},{"slideName":""},{"slideName":""}],
    "rniFilms":[
    {"isNone":true,"isFirstInPack":true,"filterName":"None","filterDescription":"None","lookupImageName":"","lookupId":"0000000"},
    {"isNone":false,"isFirstInPack":false,"filterName":"Agfa\\nOptima 100\\nE","filterDescription":"Agfa\\nOptima 100\\nE","lookupImageName":"Agfa_Optima-100_E.png","lookupId":"0001001"},
    {"isNone":false,"isFirstInPack":false,"filterName":"Agfa\\nOptima 100\\nG","filterDescription":"Agfa\\nOptima 100\\nG","lookupImageName":"Agfa_Optima-100_G.png","lookupId":"0001002"}
    ]
    },
    {
    "packId":"0002","price":1.99,"availabilityType":3,"isAvailable":false,"unlockMessage":"","name":"Paid pack",
    "packDescription":"A paid pack","colour":"#ff0000","packLockedImage":"lock","packLockedImage6Plus":"lock",
    "futureKey":{"anything":[1,2,3]},
    "rniFilms":[{"isNone":false,"isFirstInPack":true,"filterName":"Paid\\nOne","filterDescription":"","lookupImageName":"paid1.png","lookupId":"0002001"}]
    },
    {
    "packId":"0003","price":0.00,"availabilityType":2,"isAvailable":false,"unlockMessage":"Free","name":"Unlock pack",
    "packDescription":"Free after unlocking","colour":"","packLockedImage":"","packLockedImage6Plus":"",
    "rniFilms":[{"isNone":false,"isFirstInPack":true,"filterName":"Unlock One","filterDescription":"","lookupImageName":"unlock1.png","lookupId":"0003001"}]
    }
    ]
    }
    ]
    }
    """

    /// The notes' first example: 3-digit packId, 6-digit lookupIds, a single `packPreviews` array.
    static let legacyCatalog = """
    {"rniFilmCategories":[{"filterCategory":0,"rniFilmPacks":[{
      "packId": "001", "price": 0.00, "availabilityType": 1, "isAvailable":true, "unlockMessage":"",
      "name":"Free filter pack", "packDescription":"Free filter pack that comes with app", "colour":"", "packLockedImage":"",
      "packPreviews":[{"slideName":"preview1"},{"slideName":"preview2"},{"slideName":"preview3"}],
      "rniFilms":[
        {"isNone":true,"isFirstInPack":true,"filterName":"None","filterDescription":"None","lookupImageName":"","lookupId":"000000"},
        {"isNone":false,"isFirstInPack":false,"filterName":"Agfa\\nOptima 100\\nE","filterDescription":"Agfa\\nOptima 100\\nE","lookupImageName":"Agfa_Optima-100_E.png","lookupId":"001001"},
        {"isNone":false,"isFirstInPack":false,"filterName":"Agfa\\nOptima 100\\nH","filterDescription":"Agfa\\nOptima 100\\nH","lookupImageName":"Agfa_Optima-100_H.png","lookupId":"001003"}
      ]}]}]}
    """

    func testNotesCatalogLoadsUnchanged() throws {
        let catalog = try FilmCatalog.decode(Data(Self.notesCatalog.utf8), file: "notes.json", folder: nil)
        XCTAssertEqual(catalog.categories.count, 1)
        XCTAssertEqual(catalog.packs.map(\.packId), ["0001", "0002", "0003"])
        XCTAssertEqual(catalog.packs.map(\.availabilityType), [.free, .paid, .freeUnlock])
        XCTAssertEqual(catalog.packs[0].packPreviews6Plus?.count, 3)
        XCTAssertEqual(catalog.packs[1].price, 1.99)
        let g = try XCTUnwrap(catalog.film(id: "0001002"))
        XCTAssertEqual(g.film.filterName, "Agfa\nOptima 100\nG")
        XCTAssertEqual(g.film.displayName, "Agfa Optima 100 G")
        XCTAssertEqual(g.pack.packId, "0001")
        XCTAssertEqual(catalog.film(named: "agfa optima 100 g")?.film.lookupId, "0001002")
        XCTAssertEqual(catalog.film(named: "AGFA\nOptima  100 E")?.film.lookupId, "0001001")
        XCTAssertEqual(catalog.film(matching: "0001001")?.film.lookupImageName, "Agfa_Optima-100_E.png")
        XCTAssertEqual(catalog.film(id: FilmCatalog.noneId)?.film.isNone, true)
        XCTAssertNil(catalog.film(named: "Agfa Optima 100 Z"))
        XCTAssertNil(catalog.film(id: "0009009"))
    }

    func testLegacySixDigitIdsAreNormalised() throws {
        let catalog = try FilmCatalog.decode(Data(Self.legacyCatalog.utf8), file: "legacy.json", folder: nil)
        XCTAssertEqual(catalog.packs.first?.packId, "0001")
        XCTAssertEqual(catalog.entries.map(\.film.lookupId), ["0000000", "0001001", "0001003"])
        XCTAssertEqual(catalog.packs.first?.packPreviews?.map(\.slideName), ["preview1", "preview2", "preview3"])
        XCTAssertEqual(catalog.film(id: "001003")?.film.displayName, "Agfa Optima 100 H")
    }

    func testInvalidCatalogsNameThePath() {
        func check(_ json: String, _ path: String, _ words: String, line: UInt = #line) {
            XCTAssertThrowsError(try FilmCatalog.decode(Data(json.utf8), file: "c.json", folder: nil), line: line) { error in
                guard case let LightWorkError.invalidDocument(_, p, reason) = error else { return XCTFail("\(error)", line: line) }
                XCTAssertEqual(p, path, reason, line: line)
                XCTAssertTrue(reason.contains(words), reason, line: line)
            }
        }
        let badType = Self.notesCatalog.replacingOccurrences(of: "\"availabilityType\":3", with: "\"availabilityType\":7")
        check(badType, "$.rniFilmCategories[0].rniFilmPacks[1].availabilityType", "availabilityType 7")
        let dup = Self.notesCatalog.replacingOccurrences(of: "\"lookupId\":\"0001002\"", with: "\"lookupId\":\"0001001\"")
        check(dup, "$.rniFilmCategories[0].rniFilmPacks[0].rniFilms[2].lookupId", "already used")
        let short = Self.notesCatalog.replacingOccurrences(of: "\"lookupId\":\"0002001\"", with: "\"lookupId\":\"21\"")
        check(short, "$.rniFilmCategories[0].rniFilmPacks[1].rniFilms[0].lookupId", "7 digits")
        let noName = Self.notesCatalog.replacingOccurrences(of: "\"filterName\":\"Unlock One\",", with: "")
        check(noName, "$.rniFilmCategories[0].rniFilmPacks[2].rniFilms[0].filterName", "missing")
    }

    func testLockedFilmIsRefusedWithItsPackNamed() throws {
        let catalog = try FilmCatalog.decode(Data(Self.notesCatalog.utf8), file: "notes.json", folder: nil)
        let store = Entitlements(url: try TestPaths.temporaryDirectory(self).appendingPathComponent("e.json"))
        let paid = try XCTUnwrap(catalog.film(named: "Paid One"))
        XCTAssertThrowsError(try catalog.requireAvailable(paid, entitlements: store)) { error in
            guard case let LightWorkError.locked(message) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(message.contains("Paid pack"), message)
            XCTAssertTrue(message.contains("0002"), message)
            XCTAssertTrue(message.contains("(paid)") || message.contains("paid)"), message)
            XCTAssertTrue(message.contains("sync"), message)
        }
        let unlock = try XCTUnwrap(catalog.film(id: "0003001"))
        XCTAssertThrowsError(try catalog.requireAvailable(unlock, entitlements: store)) { error in
            XCTAssertTrue("\(error)".contains("unlock 0003"), "\(error)")
        }
        XCTAssertNoThrow(try catalog.requireAvailable(try XCTUnwrap(catalog.film(id: "0001001")), entitlements: store))
        XCTAssertNoThrow(try catalog.requireAvailable(try XCTUnwrap(catalog.film(id: "0001001")), entitlements: nil))
    }

    /// The entitlement store is the master: a catalog's `isAvailable` is the app's display default, never an
    /// unlock. Free packs are usable whatever the flag says; every other pack only through the store.
    func testCatalogIsAvailableIsNotAnUnlock() throws {
        let json = Self.notesCatalog
            .replacingOccurrences(of: #""availabilityType":3,"isAvailable":false"#, with: #""availabilityType":3,"isAvailable":true"#)
            .replacingOccurrences(of: #""availabilityType":2,"isAvailable":false"#, with: #""availabilityType":2,"isAvailable":true"#)
            .replacingOccurrences(of: "\"availabilityType\":1,\n\"isAvailable\":true", with: "\"availabilityType\":1,\n\"isAvailable\":false")
        let catalog = try FilmCatalog.decode(Data(json.utf8), file: "flags.json", folder: nil)
        XCTAssertEqual(catalog.packs.map(\.isAvailable), [false, true, true], "the edited flags must have taken")
        let empty = Entitlements(url: try TestPaths.temporaryDirectory(self).appendingPathComponent("e.json"))
        for id in ["0002001", "0003001"] {
            let entry = try XCTUnwrap(catalog.film(id: id))
            XCTAssertFalse(catalog.isAvailable(entry.pack, entitlements: empty), id)
            XCTAssertFalse(catalog.isAvailable(entry.pack, entitlements: nil), id)
            XCTAssertThrowsError(try catalog.requireAvailable(entry, entitlements: empty), id) { error in
                guard case LightWorkError.locked = error else { return XCTFail("\(error)") }
            }
        }
        // A free pack shipped with isAvailable false is still usable, with or without a store.
        let free = try XCTUnwrap(catalog.film(id: "0001001"))
        XCTAssertTrue(catalog.isAvailable(free.pack, entitlements: nil))
        XCTAssertNoThrow(try catalog.requireAvailable(free, entitlements: empty))
        // The store's unlock is what makes the free-unlock pack usable.
        var store = empty
        XCTAssertTrue(try store.unlock(pack: try XCTUnwrap(catalog.pack(id: "0003"))))
        XCTAssertNoThrow(try catalog.requireAvailable(try XCTUnwrap(catalog.film(id: "0003001")), entitlements: store))
    }

    func testLookupImagesResolveInsideTheCatalogFolderOnly() throws {
        let root = try TestPaths.temporaryDirectory(self)
        let films = root.appendingPathComponent("films")
        try FileManager.default.createDirectory(at: films, withIntermediateDirectories: true)
        try Data([1]).write(to: films.appendingPathComponent("inside.png"))
        try Data([1]).write(to: root.appendingPathComponent("outside.png"))
        try FileManager.default.createSymbolicLink(at: films.appendingPathComponent("link.png"), withDestinationURL: root.appendingPathComponent("outside.png"))
        let catalog = FilmCatalog(categories: [], folder: films)
        func film(_ image: String) -> Film {
            Film(filterName: "x", filterDescription: "", lookupImageName: image, lookupId: "0001001")
        }
        XCTAssertEqual(try catalog.lookupImageURL(for: film("inside.png")).lastPathComponent, "inside.png")
        for bad in ["../outside.png", "../../etc/passwd", "/etc/passwd", "link.png", "missing.png"] {
            XCTAssertThrowsError(try catalog.lookupImageURL(for: film(bad)), bad) { error in
                guard case LightWorkError.invalidDocument = error else { return XCTFail("\(error)") }
            }
        }
    }

    /// Profiles/films/catalog.json is the design's catalog (regenerate with LIGHTWORK_WRITE_CATALOG=1).
    func testShippedCatalogMatchesTheDesign() throws {
        let url = TestPaths.repoRoot.appendingPathComponent("Profiles/films/catalog.json")
        if ProcessInfo.processInfo.environment["LIGHTWORK_WRITE_CATALOG"] == "1" {
            try FilmLookDesign.catalogJSON().write(to: url)
        }
        let shipped = try FilmCatalog.load(from: url)
        XCTAssertEqual(shipped.categories, FilmLookDesign.catalog().categories)
        XCTAssertEqual(shipped.publisherKey, FilmLookDesign.publisherKey)
        XCTAssertGreaterThanOrEqual(shipped.categories.count, 2)
        XCTAssertGreaterThanOrEqual(shipped.packs.count, 4)
        XCTAssertEqual(Set(shipped.packs.map(\.availabilityType)), Set(PackAvailability.allCases))
        XCTAssertGreaterThanOrEqual(shipped.entries.filter { !$0.film.isNone }.count, 12)
        for e in shipped.entries where !e.film.isNone {
            XCTAssertTrue(e.film.lookupId.hasPrefix(e.pack.packId), e.film.lookupId)
            XCTAssertTrue(e.film.lookupImageName.hasPrefix("LW_") && e.film.lookupImageName.hasSuffix(".png"))
        }
        // Only free packs ship available.
        for p in shipped.packs { XCTAssertEqual(p.isAvailable, p.availabilityType == .free, p.packId) }
    }
}
