import Foundation
import LightWork

/// `lightwork films`: the film catalog with what is unlocked; `films unlock PACK`; `films sync FILE`.
enum FilmsCommand {
    static let specs: [OptionSpec] = [
        OptionSpec(name: "json", value: nil, help: "print JSON (categories, packs, films, availability)"),
        OptionSpec(name: "help", value: nil, help: "this text", short: "h"),
    ]

    static let help = """
    Usage: lightwork films [--json]
           lightwork films unlock PACK_ID       unlock a free-unlock pack (availability 2)
           lightwork films sync FILE            merge a synced entitlement file (paid and bonus packs,
                                                signed by the catalog's publisher)

    Lists the film catalog (Profiles/films/catalog.json): categories, packs with their availability
    (1 free, 2 free unlock, 3 paid, 4 bonus) and whether each is usable here, and every film with its
    7-digit lookupId (category + pack + film; 0000000 is None). Unlocks are kept in
    $XDG_CONFIG_HOME/lightwork/entitlements.json (default ~/.config/lightwork), which is the master of
    what is unlocked: free packs are always usable, every other pack only once the store holds it (the
    catalog's isAvailable flag unlocks nothing). A sync only ever adds, and only what the catalog's
    publisher signed: one unsigned or badly signed paid or bonus unlock refuses the whole file.

    Use a film with: lightwork convert IN -o OUT --film 0001001 --strength 80   (or --film "Harbour Negative 160")

    Options:
    \(CommandLineParser.help(specs))
    """

    static func run(_ args: [String]) -> Int32 {
        do {
            let parsed = try CommandLineParser.parse(args, specs: specs)
            if parsed.has("help") { print(help); return 0 }
            let catalog = try FilmCatalog.bundled(profiles: try ProfilesDirectory.locate())
            var entitlements = try Entitlements.loadDefault()
            switch parsed.positionals.first {
            case nil:
                try list(catalog, entitlements, json: parsed.has("json"))
            case "unlock":
                guard parsed.positionals.count == 2 else { throw LightWorkError.usage("films unlock needs one PACK_ID (see 'lightwork films')") }
                let id = parsed.positionals[1]
                guard let pack = catalog.pack(id: id) ?? catalog.packs.first(where: { $0.displayName.lowercased() == id.lowercased() }) else {
                    throw LightWorkError.usage("no pack \(id) in the catalog (see 'lightwork films')")
                }
                let added = try entitlements.unlock(pack: pack)
                print(added ? "unlocked \(pack.packId) \(pack.displayName)" : "\(pack.packId) \(pack.displayName) was already available")
            case "sync":
                guard parsed.positionals.count == 2 else { throw LightWorkError.usage("films sync needs the entitlement FILE") }
                let added = try entitlements.merge(syncedFile: URL(fileURLWithPath: parsed.positionals[1]), catalog: catalog)
                print(added.isEmpty ? "nothing new to unlock" : "unlocked \(added.joined(separator: ", "))")
            case let other?:
                throw LightWorkError.usage("unknown films subcommand '\(other)' (list, unlock, sync)")
            }
            return 0
        } catch let e as LightWorkError {
            FileHandle.standardError.write(Data("lightwork films: \(e)\n".utf8))
            if case .usage = e { return 2 }
            return 1
        } catch {
            FileHandle.standardError.write(Data("lightwork films: \(error)\n".utf8))
            return 1
        }
    }

    static func list(_ catalog: FilmCatalog, _ entitlements: Entitlements, json: Bool) throws {
        if json {
            let doc: [[String: Any]] = catalog.categories.map { category in
                ["filterCategory": category.filterCategory,
                 "packs": category.packs.map { pack -> [String: Any] in
                    ["packId": pack.packId, "name": pack.displayName, "availabilityType": pack.availabilityType.rawValue,
                     "availability": "\(pack.availabilityType)", "available": catalog.isAvailable(pack, entitlements: entitlements),
                     "films": pack.films.map { ["lookupId": $0.lookupId, "name": $0.displayName, "isNone": $0.isNone] }]
                 }]
            }
            let data = try JSONSerialization.data(withJSONObject: ["categories": doc], options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
            print(String(decoding: data, as: UTF8.self))
            return
        }
        for category in catalog.categories {
            print("Category \(category.filterCategory)")
            for pack in category.packs {
                let available = catalog.isAvailable(pack, entitlements: entitlements)
                print("  pack \(pack.packId)  \(pack.displayName)  [\(pack.availabilityType)\(available ? ", available" : ", locked")]")
                for film in pack.films where !film.isNone {
                    print("    \(film.lookupId)  \(film.displayName)")
                }
            }
        }
    }
}
