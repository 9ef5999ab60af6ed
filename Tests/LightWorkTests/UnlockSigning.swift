import CSodium
import Foundation
import XCTest
@testable import LightWork

/// Test keys and signatures made with libsodium directly (not through LightWork), over the unlock message as
/// README's "Signed unlocks" spells it out, and the notes' catalog carrying a test publisher key.
enum UnlockSigning {
    struct KeyPair {
        let publicKey: [UInt8]
        let secretKey: [UInt8]
        var publicKeyBase64: String { Data(publicKey).base64EncodedString() }
    }

    /// A key pair from a fixed 32-byte seed (every byte `seedByte`), so failures reproduce.
    static func keyPair(seedByte: UInt8) -> KeyPair {
        precondition(sodium_init() >= 0, "libsodium failed to initialise")
        var publicKey = [UInt8](repeating: 0, count: 32), secretKey = [UInt8](repeating: 0, count: 64)
        let seed = [UInt8](repeating: seedByte, count: 32)
        precondition(crypto_sign_seed_keypair(&publicKey, &secretKey, seed) == 0)
        return KeyPair(publicKey: publicKey, secretKey: secretKey)
    }

    static let publisher = keyPair(seedByte: 0x4C)
    static let stranger = keyPair(seedByte: 0x99)

    /// The documented signed text, written out here rather than taken from `UnlockSignature.message`.
    static func documentedMessage(pack: String, holder: String) -> String {
        "lightwork-unlock-v1\npack=\(pack)\nholder=\(holder)\n"
    }

    /// The raw 64-byte Ed25519 signature of `text`.
    static func signatureBytes(_ text: String, with key: KeyPair = publisher) -> [UInt8] {
        let message = Array(text.utf8)
        var signature = [UInt8](repeating: 0, count: 64)
        var length: UInt64 = 0
        precondition(crypto_sign_detached(&signature, &length, message, UInt64(message.count), key.secretKey) == 0 && length == 64)
        return signature
    }

    /// A synced-file entry for `pack` issued to `holder`, signed by `key` over the documented message.
    static func signedEntry(_ pack: String, holder: String = "alice@example.com", key: KeyPair = publisher) -> [String: String] {
        let signature = signatureBytes(documentedMessage(pack: pack, holder: holder), with: key)
        return ["packId": pack, "holder": holder, "signature": Data(signature).base64EncodedString()]
    }

    /// The notes' catalog (0001 free, 0002 paid, 0003 free unlock) plus a bonus pack 1004 in category 1, with
    /// `publisherKey` set to `key` (none when nil).
    static func catalog(publisherKey: String? = publisher.publicKeyBase64) throws -> FilmCatalog {
        let bonus = #"{"filterCategory":1,"rniFilmPacks":[{"packId":"1004","availabilityType":4,"isAvailable":false,"name":"Bonus pack","#
            + #""rniFilms":[{"filterName":"Bonus One","lookupImageName":"bonus1.png","lookupId":"1004001"}]}]},"#
        let key = publisherKey.map { "\"publisherKey\":\"\($0)\"," } ?? ""
        let json = FilmCatalogTests.notesCatalog.replacingOccurrences(of: "\"rniFilmCategories\":[", with: key + "\"rniFilmCategories\":[" + bonus)
        let catalog = try FilmCatalog.decode(Data(json.utf8), file: "signed-notes.json", folder: nil)
        precondition(catalog.pack(id: "1004")?.availabilityType == .bonus && catalog.publisherKey == publisherKey)
        return catalog
    }

    /// Writes a synced entitlement file listing `entries` (objects, or plain id strings).
    static func writeSyncFile(_ entries: [Any], to url: URL) throws {
        let data = try JSONSerialization.data(withJSONObject: ["version": 1, "unlockedPacks": entries], options: [.sortedKeys])
        try data.write(to: url)
    }
}
