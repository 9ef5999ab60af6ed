import Foundation
import XCTest
@testable import LightWork

/// Paid and bonus unlocks in a synced entitlement file need the catalog publisher's Ed25519 signature; one refused
/// entry refuses the whole file. Signatures are made here with libsodium and a fixed test seed (UnlockSigning).
final class UnlockSignatureTests: XCTestCase {
    var dir: URL!
    var storeURL: URL { dir.appendingPathComponent("lightwork/entitlements.json") }
    var syncURL: URL { dir.appendingPathComponent("synced.json") }

    override func setUpWithError() throws {
        dir = try TestPaths.temporaryDirectory(self)
    }

    /// Merges `entries` and expects the refusal of `packId` for `reason`, with nothing unlocked and nothing written.
    func assertRefused(_ entries: [Any], packId: String, reason: UnlockRefusal, catalog: FilmCatalog? = nil,
                       _ what: String, line: UInt = #line) throws {
        let catalog = try catalog ?? UnlockSigning.catalog()
        try UnlockSigning.writeSyncFile(entries, to: syncURL)
        var store = try Entitlements.load(from: storeURL)
        XCTAssertThrowsError(try store.merge(syncedFile: syncURL, catalog: catalog), what, line: line) { error in
            guard case let LightWorkError.unlockRefused(file, id, _, why) = error else { return XCTFail("\(what): \(error)", line: line) }
            XCTAssertEqual(file, syncURL.path, what, line: line)
            XCTAssertEqual(id, packId, what, line: line)
            XCTAssertEqual(why, reason, what, line: line)
            XCTAssertFalse("\(error)".contains("\n"), "one line: \(error)", line: line)
        }
        XCTAssertTrue(store.unlocks.isEmpty, what, line: line)
        XCTAssertFalse(FileManager.default.fileExists(atPath: storeURL.path), "\(what): nothing may be written", line: line)
    }

    func testSignedPaidAndBonusUnlocksAreAccepted() throws {
        let catalog = try UnlockSigning.catalog()
        var store = try Entitlements.load(from: storeURL)
        for id in ["0002001", "1004001"] {
            XCTAssertThrowsError(try catalog.requireAvailable(try XCTUnwrap(catalog.film(id: id)), entitlements: store), id)
        }
        try UnlockSigning.writeSyncFile([UnlockSigning.signedEntry("0002"), UnlockSigning.signedEntry("1004", holder: "Bob Q. Public"), "0003"], to: syncURL)
        XCTAssertEqual(try store.merge(syncedFile: syncURL, catalog: catalog), ["0002", "1004", "0003"])   // in the file's order
        let reloaded = try Entitlements.load(from: storeURL)
        XCTAssertEqual(reloaded.unlockedPackIds, ["0002", "0003", "1004"])
        let paid = try XCTUnwrap(reloaded.unlocks.first { $0.packId == "0002" })
        XCTAssertEqual(paid.source, "sync")
        XCTAssertEqual(paid.holder, "alice@example.com")
        XCTAssertEqual(paid.signature, UnlockSigning.signedEntry("0002")["signature"])
        for id in ["0002001", "1004001", "0003001"] {
            XCTAssertNoThrow(try catalog.requireAvailable(try XCTUnwrap(catalog.film(id: id)), entitlements: reloaded), id)
        }
        // The store keeps the signatures, so a copy of it syncs into another machine's store and passes the check there.
        var other = try Entitlements.load(from: dir.appendingPathComponent("other/entitlements.json"))
        XCTAssertEqual(try other.merge(syncedFile: storeURL, catalog: catalog), ["0002", "0003", "1004"])
    }

    /// The case: a hand-written file naming paid and bonus packs unlocks nothing, not even its free-unlock pack.
    func testUnsignedPaidOrBonusUnlockRefusesTheWholeFile() throws {
        try assertRefused(["0003", "0002"], packId: "0002", reason: .unsigned, "plain paid id")
        try assertRefused(["0003", ["packId": "1004", "source": "store", "holder": "alice"]], packId: "1004", reason: .unsigned, "bonus object, no signature")
        try assertRefused(["2001"], packId: "2001", reason: .unsigned, "a pack this catalog does not know")
        try UnlockSigning.writeSyncFile(["0003", "0002"], to: syncURL)
        var store = try Entitlements.load(from: storeURL)
        XCTAssertThrowsError(try store.merge(syncedFile: syncURL, catalog: try UnlockSigning.catalog())) { error in
            let line = "\(error)"
            print("refusal line: \(line)")
            XCTAssertTrue(line.contains("0002") && line.contains("Paid pack") && line.contains("paid") && line.contains("nothing unlocked"), line)
        }
    }

    func testWrongKeyTamperedAndBadLengthSignaturesAreRefused() throws {
        let good = UnlockSigning.signedEntry("0002")
        let goodBytes = try XCTUnwrap(Data(base64Encoded: try XCTUnwrap(good["signature"])))
        func with(_ entry: [String: String], _ key: String, _ value: String?) -> [String: String] {
            var e = entry
            e[key] = value
            return e
        }
        var flipped = [UInt8](goodBytes)
        flipped[17] ^= 0x04
        let undomained = UnlockSigning.signatureBytes("pack=0002\nholder=alice@example.com\n")

        try assertRefused([UnlockSigning.signedEntry("0002", key: UnlockSigning.stranger)], packId: "0002", reason: .badSignature, "signed with another key")
        try assertRefused([with(good, "packId", "1004")], packId: "1004", reason: .badSignature, "0002's signature on another pack")
        try assertRefused([with(good, "holder", "mallory@example.com")], packId: "0002", reason: .badSignature, "another holder")
        try assertRefused([with(good, "signature", Data(flipped).base64EncodedString())], packId: "0002", reason: .badSignature, "one bit flipped")
        try assertRefused([with(good, "signature", Data(undomained).base64EncodedString())], packId: "0002", reason: .badSignature, "no domain line")
        try assertRefused([with(good, "signature", goodBytes.prefix(63).base64EncodedString())], packId: "0002", reason: .badLength(63), "63 bytes")
        try assertRefused([with(good, "signature", (goodBytes + Data([0])).base64EncodedString())], packId: "0002", reason: .badLength(65), "65 bytes")
        try assertRefused([with(good, "signature", "")], packId: "0002", reason: .badLength(0), "empty")
        try assertRefused([with(good, "signature", "not base64!")], packId: "0002", reason: .notBase64, "not base64")
        try assertRefused([with(good, "holder", nil)], packId: "0002", reason: .badHolder, "no holder")
        let forged = UnlockSigning.signedEntry("0002", holder: "alice\npack=1004")
        try assertRefused([forged], packId: "0002", reason: .badHolder, "a holder with a line break")
        // A valid free-unlock entry in front does not carry a bad one through.
        try assertRefused(["0003", UnlockSigning.signedEntry("1004"), with(good, "packId", "1004")], packId: "1004", reason: .badSignature, "good then bad")
    }

    func testFreeUnlockNeedsNoSignature() throws {
        // A catalog without a publisher key takes no paid unlock, and (below) still takes free-unlock packs.
        let keyless = try UnlockSigning.catalog(publisherKey: nil)
        try assertRefused([UnlockSigning.signedEntry("0002")], packId: "0002", reason: .noPublisherKey, catalog: keyless, "no publisher key")
        let catalog = try UnlockSigning.catalog()
        try UnlockSigning.writeSyncFile(["0003", ["packId": "0001", "source": "store"]], to: syncURL)
        var store = try Entitlements.load(from: storeURL)
        XCTAssertEqual(try store.merge(syncedFile: syncURL, catalog: catalog), ["0003", "0001"])
        XCTAssertNoThrow(try catalog.requireAvailable(try XCTUnwrap(catalog.film(id: "0003001")), entitlements: store))
        var second = try Entitlements.load(from: dir.appendingPathComponent("second/entitlements.json"))
        try UnlockSigning.writeSyncFile(["0003"], to: syncURL)
        XCTAssertEqual(try second.merge(syncedFile: syncURL, catalog: keyless), ["0003"])
    }

    func testMalformedPublisherKeyIsRefusedWithItsPath() throws {
        for bad in ["abc", Data(repeating: 1, count: 31).base64EncodedString(), Data(repeating: 1, count: 33).base64EncodedString()] {
            XCTAssertThrowsError(try UnlockSigning.catalog(publisherKey: bad), bad) { error in
                guard case let LightWorkError.invalidDocument(_, path, _) = error else { return XCTFail("\(error)") }
                XCTAssertEqual(path, "$.publisherKey")
            }
        }
    }

    /// The shipped catalog loads, declares the publisher's key once (FilmLookDesign) and takes no test-key unlock.
    func testShippedCatalogCarriesThePublisherKey() throws {
        let shipped = try FilmCatalog.bundled(profiles: TestPaths.repoRoot.appendingPathComponent("Profiles"))
        XCTAssertEqual(shipped.publisherKey, FilmLookDesign.publisherKey)
        XCTAssertEqual(shipped.publisherPublicKey?.count, 32)
        XCTAssertNotEqual(shipped.publisherKey, UnlockSigning.publisher.publicKeyBase64)
        let paid = try XCTUnwrap(shipped.packs.first { $0.availabilityType == .paid })
        try assertRefused([paid.packId], packId: paid.packId, reason: .unsigned, catalog: shipped, "shipped paid pack, unsigned")
        try assertRefused([UnlockSigning.signedEntry(paid.packId)], packId: paid.packId, reason: .badSignature, catalog: shipped, "shipped paid pack, test key")
    }

    // MARK: - Through the binaries

    /// `lightwork films sync` of a hand-written file: refused in one line naming the pack, nothing stored.
    func testFilmsSyncOfAHandWrittenFileUnlocksNothing() throws {
        let shipped = try FilmCatalog.bundled(profiles: TestPaths.repoRoot.appendingPathComponent("Profiles"))
        let locked = shipped.packs.filter { $0.availabilityType != .free }.map(\.packId)
        try UnlockSigning.writeSyncFile(locked, to: syncURL)
        let env = ["XDG_CONFIG_HOME": dir.path, "LIGHTWORK_PROFILES": TestPaths.repoRoot.appendingPathComponent("Profiles").path]
        let r = try CLIRunner.run(["films", "sync", syncURL.path], environment: env)
        print("films sync exit \(r.status): \(r.stderr)")
        XCTAssertEqual(r.status, 1, r.stdout + r.stderr)
        let lines = r.stderr.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("refused") && r.stderr.contains("signature"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: storeURL.path))
        let list = try CLIRunner.run(["films", "--json"], environment: env)
        XCTAssertEqual(list.status, 0, list.stderr)
        let doc = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String: Any])
        let packs = (doc["categories"] as? [[String: Any]] ?? []).flatMap { $0["packs"] as? [[String: Any]] ?? [] }
        let available = Dictionary(uniqueKeysWithValues: packs.compactMap { p in (p["packId"] as? String).map { ($0, p["available"] as? Bool) } })
        for id in locked { XCTAssertEqual(available[id], false, id) }
    }

    /// The publisher's round trip: `lightwork-tools unlock-keygen` and `sign-unlock`, then `lightwork films sync`.
    func testToolsSignAnUnlockThatFilmsSyncAccepts() throws {
        let tools = CLIRunner.binary.deletingLastPathComponent().appendingPathComponent("lightwork-tools")
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: tools.path), "lightwork-tools not built at \(tools.path)")
        func runTools(_ args: [String]) throws -> CLIRunner.Result {
            let p = Process()
            p.executableURL = tools
            p.arguments = args
            let out = Pipe(), err = Pipe()
            p.standardOutput = out
            p.standardError = err
            try p.run()
            let o = out.fileHandleForReading.readDataToEndOfFile(), e = err.fileHandleForReading.readDataToEndOfFile()
            p.waitUntilExit()
            return CLIRunner.Result(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
        }
        let secret = dir.appendingPathComponent("publisher.key")
        let keygen = try runTools(["unlock-keygen", secret.path])
        XCTAssertEqual(keygen.status, 0, keygen.stderr)
        let publicKey = keygen.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual(Data(base64Encoded: publicKey)?.count, 32, publicKey)
        let mode = try FileManager.default.attributesOfItem(atPath: secret.path)[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o600)
        XCTAssertNotEqual(try runTools(["unlock-keygen", secret.path]).status, 0, "an existing key is never overwritten")

        // A Profiles folder whose catalog is the shipped one with the new key.
        let profiles = dir.appendingPathComponent("Profiles")
        try FileManager.default.createDirectory(at: profiles.appendingPathComponent("films"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: TestPaths.repoRoot.appendingPathComponent("Profiles/filters.json"), to: profiles.appendingPathComponent("filters.json"))
        var catalog = try FilmCatalog.bundled(profiles: TestPaths.repoRoot.appendingPathComponent("Profiles"))
        catalog.publisherKey = publicKey
        let catalogURL = profiles.appendingPathComponent("films/catalog.json")
        try catalog.jsonData().write(to: catalogURL)
        let paid = try XCTUnwrap(catalog.packs.first { $0.availabilityType == .paid }).packId
        let bonus = try XCTUnwrap(catalog.packs.first { $0.availabilityType == .bonus }).packId

        // The shipped catalog's key is another one: signing against it is refused.
        XCTAssertNotEqual(try runTools(["sign-unlock", "--key", secret.path, "--holder", "t", "--pack", paid,
                                        "--catalog", TestPaths.repoRoot.appendingPathComponent("Profiles/films/catalog.json").path]).status, 0)
        let signed = try runTools(["sign-unlock", "--key", secret.path, "--holder", "Test Holder", "--pack", paid, "--pack", bonus,
                                   "--catalog", catalogURL.path, "-o", syncURL.path])
        XCTAssertEqual(signed.status, 0, signed.stderr)
        let env = ["XDG_CONFIG_HOME": dir.path, "LIGHTWORK_PROFILES": profiles.path]
        let sync = try CLIRunner.run(["films", "sync", syncURL.path], environment: env)
        XCTAssertEqual(sync.status, 0, sync.stderr)
        XCTAssertEqual(sync.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "unlocked \([paid, bonus].sorted().joined(separator: ", "))")
        XCTAssertEqual(try Entitlements.load(from: storeURL).unlocks.map(\.holder), ["Test Holder", "Test Holder"])
        // The same file against the shipped catalog (another publisher key) unlocks nothing.
        let elsewhere = try CLIRunner.run(["films", "sync", syncURL.path],
                                          environment: ["XDG_CONFIG_HOME": dir.appendingPathComponent("elsewhere").path,
                                                        "LIGHTWORK_PROFILES": TestPaths.repoRoot.appendingPathComponent("Profiles").path])
        XCTAssertEqual(elsewhere.status, 1, elsewhere.stdout)
        XCTAssertTrue(elsewhere.stderr.contains("does not verify"), elsewhere.stderr)
    }
}
