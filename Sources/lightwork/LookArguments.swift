import Foundation
import LightWork

/// The look-related flags every command that renders shares (--recipe, --set, --film, --strength, --lut,
/// --lut-interpolation, --sync-file), resolved into a spec's look (the film or LUT identified by its bytes) and
/// the recipe it came from (whose export block the caller applies).
enum LookArguments {
    static func look(_ p: ParsedArguments) throws -> (look: ConvertSpec.Look, recipe: ResolvedRecipe) {
        let profiles = try ProfilesDirectory.locate()
        let ranges = FilterRanges.standard
        var recipe = try p.value("recipe").map { try Recipe.load(from: URL(fileURLWithPath: $0), ranges: ranges) } ?? Recipe.neutral
        var overrides = try p.all("set").map(RecipeOverride.parse)
        if let film = p.value("film") { overrides.append(.film(film)) }
        if let strength = p.value("strength") {
            guard let s = Double(strength) else { throw LightWorkError.usage("--strength \(strength): strength is a number 0…100") }
            overrides.append(.strength(s))
        }
        if let lut = p.value("lut") {
            guard p.value("film") == nil else { throw LightWorkError.usage("--lut and --film exclude each other: choose one look") }
            guard FileManager.default.fileExists(atPath: lut) else { throw LightWorkError.usage("--lut \(lut): no such file") }
            recipe.film = nil
            recipe.lut = lut
            recipe.lutURL = URL(fileURLWithPath: lut)
        }
        recipe = try recipe.applying(overrides: overrides, ranges: ranges)
        var interpolation = LUT3D.Interpolation.tetrahedral
        if let i = p.value("lut-interpolation") {
            guard let v = LUT3D.Interpolation(rawValue: i) else {
                throw LightWorkError.usage("--lut-interpolation '\(i)' is not one of: \(LUT3D.Interpolation.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            interpolation = v
        }
        var catalog: FilmCatalog?
        var entitlements: Entitlements?
        if recipe.film != nil {
            let films = try FilmCatalog.bundled(profiles: profiles)
            var e = try Entitlements.loadDefault()
            if let sync = p.value("sync-file") {
                if !(try e.merge(syncedFile: URL(fileURLWithPath: sync), catalog: films)).isEmpty { try e.save() }
            }
            catalog = films
            entitlements = e
        }
        let resolved = try recipe.resolve(ranges: ranges, catalog: catalog, entitlements: entitlements)
        return (try ConvertSpec.Look(resolved: resolved, interpolation: interpolation), resolved)
    }
}
