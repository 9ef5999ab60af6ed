import Foundation

/// The looks the monitor page offers: the films usable here (the catalog less locked packs) and the recipes
/// in the data folder's `Samples/recipes` plus the watch's own `--recipe`. The page names them; the server only
/// ever accepts names from this list (a request never carries a path).
public struct MonitorCatalog: Codable, Sendable, Equatable {
    public struct FilmChoice: Codable, Sendable, Equatable {
        public var id: String
        public var name: String
        public var pack: String
    }
    public struct RecipeChoice: Codable, Sendable, Equatable {
        public var name: String
        /// Where it is read from (shown, never taken from a request).
        public var file: String
    }
    public var films: [FilmChoice]
    public var recipes: [RecipeChoice]

    public init(films: [FilmChoice], recipes: [RecipeChoice]) {
        self.films = films
        self.recipes = recipes
    }

    /// The bundled catalog's available films and the recipes found beside the profiles; `ownRecipe` (the
    /// watch's `--recipe`) comes first.
    public static func load(profiles: URL, ownRecipe: URL?) -> MonitorCatalog {
        var films: [FilmChoice] = []
        if let catalog = try? FilmCatalog.bundled(profiles: profiles) {
            let entitlements = try? Entitlements.loadDefault()
            for pack in catalog.packs where catalog.isAvailable(pack, entitlements: entitlements) {
                for film in pack.films where !film.isNone {
                    films.append(FilmChoice(id: film.lookupId, name: film.displayName, pack: pack.displayName))
                }
            }
        }
        var recipes: [RecipeChoice] = []
        var files: [URL] = ownRecipe.map { [$0.standardizedFileURL] } ?? []
        let samples = profiles.deletingLastPathComponent().appendingPathComponent("Samples/recipes")
        let found = (try? FileManager.default.contentsOfDirectory(at: samples, includingPropertiesForKeys: nil)) ?? []
        files += found.filter { $0.pathExtension == "json" }.sorted { $0.lastPathComponent < $1.lastPathComponent }
        for file in files {
            let name = file.deletingPathExtension().lastPathComponent
            guard !recipes.contains(where: { $0.name == name }) else { continue }
            recipes.append(RecipeChoice(name: name, file: file.path))
        }
        return MonitorCatalog(films: films, recipes: recipes)
    }

    /// The recipe file of `name`, nil when the catalog has none of that name.
    public func recipeFile(named name: String) -> URL? {
        recipes.first { $0.name == name }.map { URL(fileURLWithPath: $0.file) }
    }

    /// Why `change` cannot be applied (names not in the catalog, a strength out of range), nil when it can.
    public func problem(with change: LookChange) -> String? {
        if let r = change.recipe, !r.isEmpty, recipeFile(named: r) == nil { return "no recipe named '\(r)' in the monitor's catalog" }
        if let f = change.film, !f.isEmpty, !films.contains(where: { $0.id == f }) { return "no available film '\(f)' in the catalog" }
        if let s = change.strength, !(s.isFinite && (0...100).contains(s)) { return "strength is a percentage 0…100, not \(s)" }
        if change.recipe == nil && change.film == nil && change.strength == nil { return "nothing to change: give recipe, film or strength" }
        return nil
    }
}
