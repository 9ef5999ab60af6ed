import Foundation

/// How a film pack becomes available (the app's `availabilityType`).
public enum PackAvailability: Int, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    case free = 1
    /// Free, but the user unlocks it once (`Entitlements.unlock(pack:)`).
    case freeUnlock = 2
    /// Bought; arrives through a synced entitlement file.
    case paid = 3
    /// Granted; arrives through a synced entitlement file.
    case bonus = 4

    public var description: String {
        switch self {
        case .free: return "free"
        case .freeUnlock: return "free unlock"
        case .paid: return "paid"
        case .bonus: return "bonus"
        }
    }
}

/// One preview slide of a pack (`{"slideName": …}`).
public struct PackPreview: Sendable, Hashable, Codable {
    public var slideName: String
    public init(slideName: String) { self.slideName = slideName }
}

/// One film (look) of a pack, in the app's schema.
public struct Film: Sendable, Hashable, Codable {
    public var isNone: Bool
    public var isFirstInPack: Bool
    /// Display name; may contain `\n` line breaks (the app wrapped names on its buttons).
    public var filterName: String
    public var filterDescription: String
    /// The lookup image, relative to the catalog's folder ("" for None).
    public var lookupImageName: String
    /// Seven digits: category (1) + pack (3) + film (3); `0000000` is the None film.
    public var lookupId: String

    public init(isNone: Bool = false, isFirstInPack: Bool = false, filterName: String, filterDescription: String,
                lookupImageName: String, lookupId: String) {
        self.isNone = isNone
        self.isFirstInPack = isFirstInPack
        self.filterName = filterName
        self.filterDescription = filterDescription
        self.lookupImageName = lookupImageName
        self.lookupId = lookupId
    }

    /// The name on one line (`\n` and runs of spaces become one space).
    public var displayName: String { FilmCatalog.normalisedName(filterName, lowercase: false) }

    enum CodingKeys: String, CodingKey {
        case isNone, isFirstInPack, filterName, filterDescription, lookupImageName, lookupId
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        isNone = try c.decodeIfPresent(Bool.self, forKey: .isNone) ?? false
        isFirstInPack = try c.decodeIfPresent(Bool.self, forKey: .isFirstInPack) ?? false
        filterName = try c.decode(String.self, forKey: .filterName)
        filterDescription = try c.decodeIfPresent(String.self, forKey: .filterDescription) ?? ""
        lookupImageName = try c.decodeIfPresent(String.self, forKey: .lookupImageName) ?? ""
        lookupId = try FilmCatalog.decodeDigits(c, .lookupId)
    }
}

/// A pack of films, in the app's schema (unknown keys are ignored; absent optional keys get empty defaults).
public struct FilmPack: Sendable, Hashable, Codable {
    /// Four digits: category (1) + pack number (3), e.g. `0001`.
    public var packId: String
    public var price: Double
    public var availabilityType: PackAvailability
    /// The app's display flag, kept so a catalog round-trips; it never grants anything: free packs are always
    /// usable and every other pack only through the entitlement store (`FilmCatalog.isAvailable`).
    public var isAvailable: Bool
    public var unlockMessage: String
    public var name: String
    public var packDescription: String
    public var colour: String
    public var packLockedImage: String
    public var packLockedImage6Plus: String?
    public var packPreviews: [PackPreview]?
    public var packPreviews4_5: [PackPreview]?
    public var packPreviews6: [PackPreview]?
    public var packPreviews6Plus: [PackPreview]?
    public var films: [Film]

    public init(packId: String, price: Double = 0, availabilityType: PackAvailability, isAvailable: Bool,
                unlockMessage: String = "", name: String, packDescription: String, colour: String = "",
                packLockedImage: String = "", packLockedImage6Plus: String? = "", packPreviews: [PackPreview]? = nil,
                packPreviews4_5: [PackPreview]? = nil, packPreviews6: [PackPreview]? = nil,
                packPreviews6Plus: [PackPreview]? = nil, films: [Film]) {
        self.packId = packId
        self.price = price
        self.availabilityType = availabilityType
        self.isAvailable = isAvailable
        self.unlockMessage = unlockMessage
        self.name = name
        self.packDescription = packDescription
        self.colour = colour
        self.packLockedImage = packLockedImage
        self.packLockedImage6Plus = packLockedImage6Plus
        self.packPreviews = packPreviews
        self.packPreviews4_5 = packPreviews4_5
        self.packPreviews6 = packPreviews6
        self.packPreviews6Plus = packPreviews6Plus
        self.films = films
    }

    enum CodingKeys: String, CodingKey {
        case packId, price, availabilityType, isAvailable, unlockMessage, name, packDescription, colour
        case packLockedImage, packLockedImage6Plus, packPreviews, packPreviews4_5, packPreviews6, packPreviews6Plus
        case films = "rniFilms"
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        packId = try FilmCatalog.decodeDigits(c, .packId)
        if let p = try? c.decodeIfPresent(Double.self, forKey: .price) {
            price = p
        } else if let s = try c.decodeIfPresent(String.self, forKey: .price) {
            guard let p = Double(s) else {
                throw DecodingError.dataCorruptedError(forKey: .price, in: c, debugDescription: "price \"\(s)\" is not a number")
            }
            price = p
        } else {
            price = 0
        }
        let type = try c.decode(Int.self, forKey: .availabilityType)
        guard let availability = PackAvailability(rawValue: type) else {
            throw DecodingError.dataCorruptedError(forKey: .availabilityType, in: c,
                                                   debugDescription: "availabilityType \(type) is not 1 (free), 2 (free unlock), 3 (paid) or 4 (bonus)")
        }
        availabilityType = availability
        isAvailable = try c.decodeIfPresent(Bool.self, forKey: .isAvailable) ?? (availability == .free)
        unlockMessage = try c.decodeIfPresent(String.self, forKey: .unlockMessage) ?? ""
        name = try c.decodeIfPresent(String.self, forKey: .name) ?? ""
        packDescription = try c.decodeIfPresent(String.self, forKey: .packDescription) ?? ""
        colour = try c.decodeIfPresent(String.self, forKey: .colour) ?? ""
        packLockedImage = try c.decodeIfPresent(String.self, forKey: .packLockedImage) ?? ""
        packLockedImage6Plus = try c.decodeIfPresent(String.self, forKey: .packLockedImage6Plus)
        packPreviews = try c.decodeIfPresent([PackPreview].self, forKey: .packPreviews)
        packPreviews4_5 = try c.decodeIfPresent([PackPreview].self, forKey: .packPreviews4_5)
        packPreviews6 = try c.decodeIfPresent([PackPreview].self, forKey: .packPreviews6)
        packPreviews6Plus = try c.decodeIfPresent([PackPreview].self, forKey: .packPreviews6Plus)
        films = try c.decodeIfPresent([Film].self, forKey: .films) ?? []
    }

    /// The pack's name for messages: `name`, else its description, else its id.
    public var displayName: String {
        let n = FilmCatalog.normalisedName(name, lowercase: false)
        if !n.isEmpty { return n }
        let d = FilmCatalog.normalisedName(packDescription, lowercase: false)
        return d.isEmpty ? packId : d
    }
}

/// A category of packs (`filterCategory` is its single digit).
public struct FilmCategory: Sendable, Hashable, Codable {
    public var filterCategory: Int
    public var packs: [FilmPack]

    public init(filterCategory: Int, packs: [FilmPack]) {
        self.filterCategory = filterCategory
        self.packs = packs
    }

    enum CodingKeys: String, CodingKey {
        case filterCategory
        case packs = "rniFilmPacks"
    }
}

/// A film together with the pack and category it belongs to.
public struct FilmEntry: Sendable, Hashable {
    public let category: Int
    public let pack: FilmPack
    public let film: Film
}

/// The film catalog in the original app's schema: `rniFilmCategories → rniFilmPacks → rniFilms`.
///
/// A catalog written for the app loads unchanged: unknown keys are ignored, absent optional keys get empty
/// defaults, and the notes' older ids are normalised on load: a 3-digit `packId` gains its category digit in
/// front (`001` in category 0 → `0001`) and a 6-digit `lookupId` likewise (`001001` → `0001001`, `000000` →
/// `0000000`). Ids are then validated: packs 4 digits, films 7, non-None film ids unique.
///
/// LightWork's one addition to the schema is the top-level `publisherKey`: the catalog publisher's Ed25519 public
/// key (32 bytes, base64), which paid and bonus unlocks in a synced entitlement file must be signed with
/// (`UnlockSignature`). The app ignores the key as it ignores every key it does not know.
public struct FilmCatalog: Sendable, Hashable, Codable {
    public var categories: [FilmCategory]
    /// The publisher's Ed25519 public key, base64; nil when the catalog has none (then no paid or bonus pack can be synced).
    public var publisherKey: String?
    /// The folder lookup images are resolved in (the catalog file's folder); nil for an in-memory catalog.
    public var folder: URL?

    enum CodingKeys: String, CodingKey { case categories = "rniFilmCategories", publisherKey }

    public init(categories: [FilmCategory], publisherKey: String? = nil, folder: URL? = nil) {
        self.categories = categories
        self.publisherKey = publisherKey
        self.folder = folder
    }

    public static let noneId = "0000000"

    /// Reads `catalog.json`; lookup images then resolve inside its folder.
    public static func load(from url: URL) throws -> FilmCatalog {
        let data: Data
        do { data = try Data(contentsOf: url) } catch { throw LightWorkError.missingInput(url.path) }
        return try decode(data, file: url.path, folder: url.deletingLastPathComponent())
    }

    /// The catalog shipped in a Profiles folder (`films/catalog.json`).
    public static func bundled(profiles: URL? = nil) throws -> FilmCatalog {
        try load(from: (profiles ?? ProfilesDirectory.locate()).appendingPathComponent("films/catalog.json"))
    }

    /// Decodes, normalises legacy ids and validates; errors carry the JSON path (`$.rniFilmCategories[0]…`).
    public static func decode(_ data: Data, file: String, folder: URL?) throws -> FilmCatalog {
        var catalog: FilmCatalog
        do {
            catalog = try JSONDecoder().decode(FilmCatalog.self, from: data)
        } catch let error as DecodingError {
            throw FilmCatalog.describe(error, file: file)
        } catch {
            throw LightWorkError.invalidDocument(file: file, path: "$", reason: "malformed JSON: \(error)")
        }
        catalog.folder = folder
        try catalog.normaliseAndValidate(file: file)
        return catalog
    }

    /// The catalog as JSON in the app's schema (pretty-printed, stable key order).
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    private mutating func normaliseAndValidate(file: String) throws {
        if let key = publisherKey, UnlockSignature.publicKey(base64: key) == nil {
            throw LightWorkError.invalidDocument(file: file, path: "$.publisherKey",
                                                 reason: "a publisherKey is an Ed25519 public key: \(UnlockSignature.publicKeyBytes) bytes in base64")
        }
        var seen: [String: String] = [:]
        for ci in categories.indices {
            let cat = categories[ci].filterCategory
            let cpath = "$.rniFilmCategories[\(ci)]"
            guard (0...9).contains(cat) else {
                throw LightWorkError.invalidDocument(file: file, path: cpath + ".filterCategory", reason: "a category is one digit 0…9, found \(cat)")
            }
            for pi in categories[ci].packs.indices {
                let ppath = "\(cpath).rniFilmPacks[\(pi)]"
                var pack = categories[ci].packs[pi]
                if pack.packId.count == 3 { pack.packId = "\(cat)\(pack.packId)" }
                guard pack.packId.count == 4 else {
                    throw LightWorkError.invalidDocument(file: file, path: ppath + ".packId",
                                                         reason: "a packId is 4 digits (category + 3), found \"\(pack.packId)\"")
                }
                for fi in pack.films.indices {
                    let fpath = "\(ppath).rniFilms[\(fi)].lookupId"
                    var film = pack.films[fi]
                    if film.lookupId.count == 6 {
                        film.lookupId = film.lookupId == "000000" ? FilmCatalog.noneId : "\(cat)\(film.lookupId)"
                    }
                    guard film.lookupId.count == 7 else {
                        throw LightWorkError.invalidDocument(file: file, path: fpath,
                                                             reason: "a lookupId is 7 digits (category 1 + pack 3 + film 3), found \"\(film.lookupId)\"")
                    }
                    if film.isNone != (film.lookupId == FilmCatalog.noneId) {
                        throw LightWorkError.invalidDocument(file: file, path: fpath,
                                                             reason: film.isNone ? "the None film's id is 0000000" : "0000000 is reserved for the None film")
                    }
                    if !film.isNone {
                        if let first = seen[film.lookupId] {
                            throw LightWorkError.invalidDocument(file: file, path: fpath, reason: "lookupId \(film.lookupId) already used at \(first)")
                        }
                        seen[film.lookupId] = fpath
                    }
                    pack.films[fi] = film
                }
                categories[ci].packs[pi] = pack
            }
        }
    }

    /// Every film with its pack and category, in catalog order.
    public var entries: [FilmEntry] {
        categories.flatMap { c in c.packs.flatMap { p in p.films.map { FilmEntry(category: c.filterCategory, pack: p, film: $0) } } }
    }

    public var packs: [FilmPack] { categories.flatMap(\.packs) }

    public func pack(id: String) -> FilmPack? { packs.first { $0.packId == id } }

    /// The film with this id (7 digits; a legacy 6-digit id matches a film whose id ends with it in category 0).
    public func film(id: String) -> FilmEntry? {
        let wanted = id.count == 6 ? (id == "000000" ? FilmCatalog.noneId : "0" + id) : id
        return entries.first { $0.film.lookupId == wanted }
    }

    /// The first film whose name matches, case-insensitively, with `\n` and runs of whitespace treated as one space.
    public func film(named name: String) -> FilmEntry? {
        let wanted = FilmCatalog.normalisedName(name, lowercase: true)
        return entries.first { FilmCatalog.normalisedName($0.film.filterName, lowercase: true) == wanted }
    }

    /// A recipe's `film`: an id when it is all digits, else a name.
    public func film(matching reference: String) -> FilmEntry? {
        let trimmed = reference.trimmingCharacters(in: .whitespaces)
        if !trimmed.isEmpty, trimmed.allSatisfy({ $0.isASCII && $0.isNumber }) { return film(id: trimmed) }
        return film(named: trimmed)
    }

    /// Free packs always; every other pack exactly when the entitlement store holds its unlock (the store is the
    /// master; the catalog's `isAvailable` flag is not an unlock).
    public func isAvailable(_ pack: FilmPack, entitlements: Entitlements?) -> Bool {
        pack.availabilityType == .free || (entitlements?.isUnlocked(pack.packId) ?? false)
    }

    /// The publisher's public key bytes, nil when the catalog declares none (a declared key was validated on load).
    public var publisherPublicKey: [UInt8]? { publisherKey.flatMap(UnlockSignature.publicKey(base64:)) }

    /// Throws `LightWorkError.locked` naming the film, its pack and how to unlock it, unless the pack is available.
    public func requireAvailable(_ entry: FilmEntry, entitlements: Entitlements?) throws {
        if entry.film.isNone || isAvailable(entry.pack, entitlements: entitlements) { return }
        let how: String
        switch entry.pack.availabilityType {
        case .freeUnlock: how = "it is free: unlock it with `lightwork films unlock \(entry.pack.packId)`"
        case .paid: how = "buy it, then merge the store's entitlement file with `lightwork films sync FILE`"
        case .bonus: how = "bonus packs arrive with a synced entitlement file: `lightwork films sync FILE`"
        case .free: how = ""
        }
        throw LightWorkError.locked("film \"\(entry.film.displayName)\" (\(entry.film.lookupId)) is in pack \"\(entry.pack.displayName)\" (\(entry.pack.packId), \(entry.pack.availabilityType)), which is locked: \(how)")
    }

    /// The film's lookup image inside the catalog's folder; refuses `..`, absolute paths and symlinks out.
    public func lookupImageURL(for film: Film) throws -> URL {
        let file = folder?.appendingPathComponent("catalog.json").path ?? "catalog"
        guard !film.isNone, !film.lookupImageName.isEmpty else {
            throw LightWorkError.invalidDocument(file: file, path: "lookupId \(film.lookupId)", reason: "film \"\(film.displayName)\" has no lookup image")
        }
        guard let folder else {
            throw LightWorkError.usage("the catalog was not loaded from a folder, so its lookup images cannot be found")
        }
        do {
            return try ContainedPath.resolve(film.lookupImageName, inside: folder)
        } catch {
            throw LightWorkError.invalidDocument(file: file, path: "lookupId \(film.lookupId).lookupImageName", reason: error.reason)
        }
    }

    /// Lower-cased (optionally) with `\n` and whitespace runs collapsed to single spaces, trimmed.
    static func normalisedName(_ s: String, lowercase: Bool) -> String {
        let joined = s.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
        return lowercase ? joined.lowercased() : joined
    }

    /// Ids are strings in the schema; tolerate a number (the notes' zero-padded ids only survive as strings).
    static func decodeDigits<K: CodingKey>(_ c: KeyedDecodingContainer<K>, _ key: K) throws -> String {
        let s: String
        if let str = try? c.decode(String.self, forKey: key) { s = str } else { s = String(try c.decode(Int.self, forKey: key)) }
        guard !s.isEmpty, s.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "\"\(s)\" is not a string of digits")
        }
        return s
    }

    /// A decoding error as an invalid-document error with its JSON path.
    static func describe(_ error: DecodingError, file: String) -> LightWorkError {
        func path(_ keys: [CodingKey]) -> String {
            keys.reduce("$") { p, k in k.intValue.map { "\(p)[\($0)]" } ?? JSONNode.memberPath(p, k.stringValue) }
        }
        switch error {
        case let .keyNotFound(key, ctx):
            return .invalidDocument(file: file, path: path(ctx.codingPath + [key]), reason: "missing")
        case let .typeMismatch(type, ctx):
            return .invalidDocument(file: file, path: path(ctx.codingPath), reason: "expected \(type): \(ctx.debugDescription)")
        case let .valueNotFound(type, ctx):
            return .invalidDocument(file: file, path: path(ctx.codingPath), reason: "expected \(type), found null")
        case let .dataCorrupted(ctx):
            let underlying = (ctx.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
            return .invalidDocument(file: file, path: path(ctx.codingPath), reason: underlying.map { "malformed JSON: \($0)" } ?? ctx.debugDescription)
        @unknown default:
            return .invalidDocument(file: file, path: "$", reason: "\(error)")
        }
    }
}
