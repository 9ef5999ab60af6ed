import Foundation

/// One unlocked pack in the entitlement store.
public struct PackUnlock: Sendable, Hashable, Codable {
    public var packId: String
    /// `local` (unlocked here with `unlock(pack:)`) or `sync` (merged from a synced entitlement file).
    public var source: String
    /// ISO 8601 time of the unlock, when known.
    public var unlockedAt: String?
    /// Who the publisher issued a signed unlock to (part of the signed message).
    public var holder: String?
    /// The publisher's Ed25519 signature (base64) on `UnlockSignature.message(packId:holder:)`; kept in the store
    /// so that a copy of the store syncs into another machine's store and is checked there.
    public var signature: String?

    public init(packId: String, source: String, unlockedAt: String? = nil, holder: String? = nil, signature: String? = nil) {
        self.packId = packId
        self.source = source
        self.unlockedAt = unlockedAt
        self.holder = holder
        self.signature = signature
    }
}

/// The local store of unlocked film packs: the master of what is unlocked. Free packs need no unlock; every other
/// pack is usable exactly when the store holds it, whatever the catalog's `isAvailable` says. Kept at
/// `$XDG_CONFIG_HOME/lightwork/entitlements.json` (fallback `~/.config`).
///
/// Unlocks only ever accumulate: `unlock(pack:)` adds free-unlock packs, `merge(syncedFile:catalog:)` adds what a
/// synced entitlement file (written by another machine or a store) grants, ignoring duplicates, and nothing
/// removes an unlock. What enters from a synced file is checked first: a paid, bonus or unknown pack needs the
/// catalog publisher's signature (`UnlockSignature`), and one refused entry refuses the whole file. The store
/// itself is trusted local state: LightWork writes it only through those two doors. Saving re-reads the file and
/// writes the union atomically (temp file + rename), so two processes unlocking at once lose nothing and a
/// reader never sees half a file.
///
/// File format (store and synced files alike): `{"version": 1, "unlockedPacks": [{"packId": "0003",
/// "source": "sync", "unlockedAt": "…", "holder": "…", "signature": "…"}]}`; a synced file may also list plain
/// id strings (enough for free-unlock packs).
public struct Entitlements: Sendable, Hashable {
    public static let currentVersion = 1

    /// Where this store lives.
    public let url: URL
    /// Unlocked packs, sorted by id, one entry per pack.
    public private(set) var unlocks: [PackUnlock]

    /// An empty store at `url` (nothing written until `save`).
    public init(url: URL, unlocks: [PackUnlock] = []) {
        self.url = url
        self.unlocks = []
        _ = add(unlocks)
    }

    /// `$XDG_CONFIG_HOME/lightwork/entitlements.json`, else `$HOME/.config/lightwork/entitlements.json`.
    public static func defaultURL(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        let base: URL
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") {
            base = URL(fileURLWithPath: xdg)
        } else {
            let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
            base = URL(fileURLWithPath: home).appendingPathComponent(".config")
        }
        return base.appendingPathComponent("lightwork/entitlements.json")
    }

    /// The store at `url`; a missing file is an empty store.
    public static func load(from url: URL) throws -> Entitlements {
        guard FileManager.default.fileExists(atPath: url.path) else { return Entitlements(url: url) }
        return Entitlements(url: url, unlocks: try readUnlocks(url, defaultSource: "local"))
    }

    /// The store at the default location.
    public static func loadDefault(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Entitlements {
        try load(from: defaultURL(environment: environment))
    }

    public func isUnlocked(_ packId: String) -> Bool { unlocks.contains { $0.packId == packId } }

    public var unlockedPackIds: [String] { unlocks.map(\.packId) }

    /// Unlocks a free-unlock pack (availabilityType 2) and saves. Free packs need nothing (returns false);
    /// paid and bonus packs are refused: they arrive only through `merge(syncedFile:)`.
    /// Returns whether the pack was newly unlocked.
    @discardableResult
    public mutating func unlock(pack: FilmPack) throws -> Bool {
        switch pack.availabilityType {
        case .free:
            return false
        case .paid, .bonus:
            throw LightWorkError.usage("pack \"\(pack.displayName)\" (\(pack.packId)) is \(pack.availabilityType): it cannot be unlocked here; merge the entitlement file your purchase or grant produced with `lightwork films sync FILE`")
        case .freeUnlock:
            let added = add([PackUnlock(packId: pack.packId, source: "local", unlockedAt: Entitlements.now())])
            if !added.isEmpty { try save() }
            return !added.isEmpty
        }
    }

    /// Merges a synced entitlement file: packs it grants are added (source `sync`), duplicates ignored, nothing
    /// removed. Every entry is checked against `catalog` first (`refusal(of:in:)`); one refused entry throws
    /// `LightWorkError.unlockRefused` and nothing is added. Saves when something changed. Returns the newly
    /// unlocked pack ids.
    @discardableResult
    public mutating func merge(syncedFile: URL, catalog: FilmCatalog) throws -> [String] {
        guard FileManager.default.fileExists(atPath: syncedFile.path) else { throw LightWorkError.missingInput(syncedFile.path) }
        let entries = try Entitlements.readUnlocks(syncedFile, defaultSource: "sync")
        for entry in entries {
            if let reason = Entitlements.refusal(of: entry, in: catalog) {
                let label = catalog.pack(id: entry.packId).map { "\"\($0.displayName)\" (\($0.availabilityType))" } ?? "(not in this catalog)"
                throw LightWorkError.unlockRefused(file: syncedFile.path, packId: entry.packId, label: label, reason: reason)
            }
        }
        let incoming = entries.map {
            PackUnlock(packId: $0.packId, source: "sync", unlockedAt: $0.unlockedAt ?? Entitlements.now(), holder: $0.holder, signature: $0.signature)
        }
        let added = add(incoming)
        if !added.isEmpty { try save() }
        return added
    }

    /// Nil when a synced file may grant `unlock`, else why not. A signature, where given, must verify against the
    /// catalog's publisher key; paid, bonus and unknown packs (a later catalog may sell them) must carry one;
    /// free and free-unlock packs need none.
    public static func refusal(of unlock: PackUnlock, in catalog: FilmCatalog) -> UnlockRefusal? {
        if let signature = unlock.signature {
            return UnlockSignature.refusal(signature: signature, packId: unlock.packId, holder: unlock.holder,
                                           publicKey: catalog.publisherPublicKey)
        }
        switch catalog.pack(id: unlock.packId)?.availabilityType {
        case .free?, .freeUnlock?: return nil
        case .paid?, .bonus?, nil: return .unsigned
        }
    }

    /// Writes the store: the union of this store and whatever the file holds now, via a temp file and rename.
    public func save() throws {
        var merged = self
        if FileManager.default.fileExists(atPath: url.path) {
            _ = merged.add(try Entitlements.readUnlocks(url, defaultSource: "local"))
        }
        let folder = url.deletingLastPathComponent()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data: Data
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            data = try encoder.encode(StoreFile(version: Entitlements.currentVersion, unlockedPacks: merged.unlocks))
        } catch {
            throw LightWorkError.writeFailed("\(url.path): \(error.localizedDescription)")
        }
        try AtomicFile.write(data: data, to: url)
    }

    /// Adds unlocks not yet present (first one wins for a pack), keeps the list sorted; returns the added ids.
    private mutating func add(_ incoming: [PackUnlock]) -> [String] {
        var added: [String] = []
        for u in incoming where !isUnlocked(u.packId) {
            unlocks.append(u)
            added.append(u.packId)
        }
        unlocks.sort { $0.packId < $1.packId }
        return added
    }

    private struct StoreFile: Codable {
        var version: Int
        var unlockedPacks: [PackUnlock]
    }

    /// Reads a store or synced file; entries may be objects or plain pack-id strings. Errors carry the JSON path.
    private static func readUnlocks(_ url: URL, defaultSource: String) throws -> [PackUnlock] {
        let data: Data
        do { data = try Data(contentsOf: url) } catch { throw LightWorkError.missingInput(url.path) }
        let root = try JSONNode.parse(data, file: url.path)
        let top = try root.object()
        let versionNode = try top.required("version", in: root)
        let version = try versionNode.int()
        guard version == currentVersion else {
            throw versionNode.fail("unsupported entitlement file version \(version) (this LightWork reads \(currentVersion))")
        }
        var out: [PackUnlock] = []
        for item in try top.required("unlockedPacks", in: root).array() {
            let id: String, source: String, at: String?, holder: String?, signature: String?
            if item.value is String {
                id = try item.string(); source = defaultSource; at = nil; holder = nil; signature = nil
            } else {
                let o = try item.object()
                id = try o.required("packId", in: item).string()
                source = try o["source"]?.string() ?? defaultSource
                at = try o["unlockedAt"]?.string()
                holder = try o["holder"]?.string()
                signature = try o["signature"]?.string()
            }
            guard id.count == 4, id.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                throw LightWorkError.invalidDocument(file: url.path, path: item.path, reason: "a packId is 4 digits, found \"\(id)\"")
            }
            out.append(PackUnlock(packId: id, source: source, unlockedAt: at, holder: holder, signature: signature))
        }
        return out
    }

    private static func now() -> String { ISO8601DateFormatter().string(from: Date()) }
}
