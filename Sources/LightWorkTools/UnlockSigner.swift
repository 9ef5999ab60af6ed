import CSodium
import Foundation
import LightWork

/// The catalog publisher's side of `UnlockSignature`: `unlock-keygen` makes a signing key, `sign-unlock` writes a
/// synced entitlement file whose paid and bonus unlocks `lightwork films sync` accepts. Kept in the developer
/// tools: the shipped `lightwork` binary only verifies.
///
/// The secret file holds the 32-byte Ed25519 seed in base64 on one line (mode 0600); it belongs with the
/// publisher, never in the repository. The catalog's `publisherKey` is the public half.
enum UnlockSigner {
    static let usage = """
          lightwork-tools unlock-keygen SECRET_FILE
                                          a new publisher key: the seed into SECRET_FILE (mode 0600, never
                                          overwritten), the public key (the catalog's "publisherKey") on stdout
          lightwork-tools sign-unlock --key SECRET_FILE --holder NAME --pack ID [--pack ID...] [--catalog FILE] [-o FILE]
                                          a synced entitlement file, one signed unlock per pack (stdout without -o);
                                          the key must be the catalog's publisherKey (default Profiles/films/catalog.json)
        """

    /// `unlock-keygen SECRET_FILE`.
    static func keygen(_ arguments: ArraySlice<String>) throws {
        guard arguments.count == 1, let path = arguments.first, !path.hasPrefix("-") else {
            throw LightWorkError.usage("unlock-keygen needs one SECRET_FILE\n\(usage)")
        }
        try ready()
        var seed = [UInt8](repeating: 0, count: Int(crypto_sign_seedbytes()))
        randombytes_buf(&seed, seed.count)
        let (publicKey, _) = try keyPair(seed: seed)
        // O_EXCL: an existing key is never replaced (losing it would orphan every unlock it signed).
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard fd >= 0 else { throw LightWorkError.writeFailed("\(path): \(String(cString: strerror(errno)))") }
        let line = Array((Data(seed).base64EncodedString() + "\n").utf8)
        let written = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd)
        close(fd)
        guard written == line.count, synced == 0 else { throw LightWorkError.writeFailed("\(path): short write") }
        print(Data(publicKey).base64EncodedString())
        FileHandle.standardError.write(Data("wrote the secret seed to \(path); the line above is the public key for the catalog's \"publisherKey\"\n".utf8))
    }

    /// `sign-unlock --key SECRET_FILE --holder NAME --pack ID… [--catalog FILE] [-o FILE]`.
    static func sign(_ arguments: ArraySlice<String>) throws {
        var keyFile: String?, holder: String?, packs: [String] = [], catalogFile: String?, output: String?
        var rest = arguments
        while let flag = rest.popFirst() {
            guard let value = rest.popFirst() else { throw LightWorkError.usage("\(flag) needs a value\n\(usage)") }
            switch flag {
            case "--key": keyFile = value
            case "--holder": holder = value
            case "--pack": packs.append(value)
            case "--catalog": catalogFile = value
            case "-o", "--output": output = value
            default: throw LightWorkError.usage("unknown option '\(flag)'\n\(usage)")
            }
        }
        guard let keyFile else { throw LightWorkError.usage("sign-unlock needs --key SECRET_FILE\n\(usage)") }
        guard let holder, UnlockSignature.isValidHolder(holder) else {
            throw LightWorkError.usage("sign-unlock needs --holder NAME (1…\(UnlockSignature.maxHolderBytes) bytes, no control characters)")
        }
        guard !packs.isEmpty else { throw LightWorkError.usage("sign-unlock needs at least one --pack ID\n\(usage)") }
        try ready()
        let (publicKey, secretKey) = try keyPair(seed: try readSeed(keyFile))

        let catalogURL = try catalogFile.map { URL(fileURLWithPath: $0) }
            ?? ProfilesDirectory.locate().appendingPathComponent("films/catalog.json")
        let catalog = try FilmCatalog.load(from: catalogURL)
        guard let declared = catalog.publisherPublicKey else {
            throw LightWorkError.usage("\(catalogURL.path) declares no publisherKey: add the key's public half first")
        }
        guard declared == publicKey else {
            throw LightWorkError.usage("\(keyFile) is not the key \(catalogURL.path) declares (its public key is \(Data(publicKey).base64EncodedString()))")
        }
        var entries: [[String: String]] = []
        for id in packs {
            guard let pack = catalog.pack(id: id) else { throw LightWorkError.usage("no pack \(id) in \(catalogURL.path)") }
            let message = UnlockSignature.message(packId: pack.packId, holder: holder)
            var signature = [UInt8](repeating: 0, count: UnlockSignature.signatureBytes)
            var length: UInt64 = 0
            guard crypto_sign_detached(&signature, &length, message, UInt64(message.count), secretKey) == 0,
                  length == UInt64(UnlockSignature.signatureBytes) else {
                throw LightWorkError.usage("libsodium could not sign pack \(id)")
            }
            entries.append(["packId": pack.packId, "source": "publisher", "holder": holder, "signature": Data(signature).base64EncodedString()])
        }
        let document: [String: Any] = ["version": Entitlements.currentVersion, "unlockedPacks": entries]
        let data = try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]) + Data("\n".utf8)
        if let output {
            try AtomicFile.write(data: data, to: URL(fileURLWithPath: output))
            FileHandle.standardError.write(Data("wrote \(output): \(packs.count) signed unlock(s) for \(holder)\n".utf8))
        } else {
            FileHandle.standardOutput.write(data)
        }
    }

    private static func ready() throws {
        guard sodium_init() >= 0 else { throw LightWorkError.usage("libsodium failed to initialise") }
    }

    /// The 32-byte seed in a secret file (base64, surrounding whitespace ignored).
    private static func readSeed(_ path: String) throws -> [UInt8] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw LightWorkError.missingInput(path) }
        guard let data = Data(base64Encoded: text.trimmingCharacters(in: .whitespacesAndNewlines)),
              data.count == Int(crypto_sign_seedbytes()) else {
            throw LightWorkError.usage("\(path) does not hold a \(crypto_sign_seedbytes())-byte seed in base64 (see unlock-keygen)")
        }
        return [UInt8](data)
    }

    private static func keyPair(seed: [UInt8]) throws -> (publicKey: [UInt8], secretKey: [UInt8]) {
        var publicKey = [UInt8](repeating: 0, count: Int(crypto_sign_publickeybytes()))
        var secretKey = [UInt8](repeating: 0, count: Int(crypto_sign_secretkeybytes()))
        guard crypto_sign_seed_keypair(&publicKey, &secretKey, seed) == 0 else { throw LightWorkError.usage("libsodium could not derive the key pair") }
        return (publicKey, secretKey)
    }
}
