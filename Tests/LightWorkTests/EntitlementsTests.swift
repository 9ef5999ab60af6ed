import XCTest
@testable import LightWork

final class EntitlementsTests: XCTestCase {
    var catalog: FilmCatalog!
    var dir: URL!
    var storeURL: URL { dir.appendingPathComponent("lightwork/entitlements.json") }

    override func setUpWithError() throws {
        // The notes' catalog with a bonus pack 1004 and the test publisher key (UnlockSigning).
        catalog = try UnlockSigning.catalog()
        dir = try TestPaths.temporaryDirectory(self)
    }

    func testDefaultLocationFollowsXDG() {
        XCTAssertEqual(Entitlements.defaultURL(environment: ["XDG_CONFIG_HOME": "/cfg", "HOME": "/home/u"]).path, "/cfg/lightwork/entitlements.json")
        XCTAssertEqual(Entitlements.defaultURL(environment: ["HOME": "/home/u"]).path, "/home/u/.config/lightwork/entitlements.json")
        // A relative XDG_CONFIG_HOME is invalid by the spec and ignored.
        XCTAssertEqual(Entitlements.defaultURL(environment: ["XDG_CONFIG_HOME": "rel", "HOME": "/home/u"]).path, "/home/u/.config/lightwork/entitlements.json")
    }

    func testUnlockingAFreeUnlockPackPersists() throws {
        var store = try Entitlements.load(from: storeURL)
        XCTAssertTrue(store.unlocks.isEmpty)
        let pack = try XCTUnwrap(catalog.pack(id: "0003"))
        XCTAssertFalse(catalog.isAvailable(pack, entitlements: store))
        XCTAssertTrue(try store.unlock(pack: pack))
        XCTAssertFalse(try store.unlock(pack: pack))   // already unlocked
        let reloaded = try Entitlements.load(from: storeURL)
        XCTAssertEqual(reloaded.unlockedPackIds, ["0003"])
        XCTAssertEqual(reloaded.unlocks.first?.source, "local")
        XCTAssertTrue(catalog.isAvailable(pack, entitlements: reloaded))
        XCTAssertNoThrow(try catalog.requireAvailable(try XCTUnwrap(catalog.film(id: "0003001")), entitlements: reloaded))
        // No temporary files left beside the store.
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: storeURL.deletingLastPathComponent().path), ["entitlements.json"])
    }

    func testPaidPackCannotBeUnlockedLocally() throws {
        var store = try Entitlements.load(from: storeURL)
        let paid = try XCTUnwrap(catalog.pack(id: "0002"))
        XCTAssertThrowsError(try store.unlock(pack: paid)) { error in
            XCTAssertTrue("\(error)".contains("paid"), "\(error)")
        }
        XCTAssertFalse(store.isUnlocked("0002"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: storeURL.path))
    }

    func testSyncedFileUnlocksPaidPackWithoutRemovingOrDuplicating() throws {
        var store = try Entitlements.load(from: storeURL)
        try store.unlock(pack: try XCTUnwrap(catalog.pack(id: "0003")))
        let synced = dir.appendingPathComponent("synced.json")
        var fromStore = UnlockSigning.signedEntry("0002")
        fromStore["source"] = "store"
        try UnlockSigning.writeSyncFile([fromStore, UnlockSigning.signedEntry("0002"), UnlockSigning.signedEntry("1004")], to: synced)
        XCTAssertEqual(try store.merge(syncedFile: synced, catalog: catalog), ["0002", "1004"])
        XCTAssertEqual(try store.merge(syncedFile: synced, catalog: catalog), [])   // duplicates ignored
        // A later synced file that lacks the local unlock removes nothing.
        try Data(#"{"version": 1, "unlockedPacks": []}"#.utf8).write(to: synced)
        XCTAssertEqual(try store.merge(syncedFile: synced, catalog: catalog), [])
        let reloaded = try Entitlements.load(from: storeURL)
        XCTAssertEqual(reloaded.unlockedPackIds, ["0002", "0003", "1004"])
        XCTAssertEqual(reloaded.unlocks.first { $0.packId == "0002" }?.source, "sync")
        XCTAssertNoThrow(try catalog.requireAvailable(try XCTUnwrap(catalog.film(named: "Paid One")), entitlements: reloaded))
    }

    /// Two stores saved one after the other from the same starting point both keep their unlocks.
    func testConcurrentWritersLoseNothing() throws {
        var a = try Entitlements.load(from: storeURL)
        var b = try Entitlements.load(from: storeURL)
        try a.unlock(pack: try XCTUnwrap(catalog.pack(id: "0003")))
        let synced = dir.appendingPathComponent("s.json")
        try UnlockSigning.writeSyncFile([UnlockSigning.signedEntry("0002")], to: synced)
        try b.merge(syncedFile: synced, catalog: catalog)
        XCTAssertEqual(try Entitlements.load(from: storeURL).unlockedPackIds, ["0002", "0003"])
    }

    func testMalformedSyncedFilesAreRefusedWithPaths() throws {
        var store = try Entitlements.load(from: storeURL)
        let synced = dir.appendingPathComponent("bad.json")
        try Data(#"{"version": 1, "unlockedPacks": ["12"]}"#.utf8).write(to: synced)
        XCTAssertThrowsError(try store.merge(syncedFile: synced, catalog: catalog)) { error in
            guard case let LightWorkError.invalidDocument(_, path, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(path, "$.unlockedPacks[0]")
        }
        try Data(#"{"version": 9, "unlockedPacks": []}"#.utf8).write(to: synced)
        XCTAssertThrowsError(try store.merge(syncedFile: synced, catalog: catalog))
        XCTAssertTrue(store.unlocks.isEmpty)
    }
}
