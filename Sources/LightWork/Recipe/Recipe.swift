import Foundation

/// How a recipe sets one slider: a UI position, or a filter value with the half it came from.
public enum FilterSetting: Sendable, Hashable {
    /// UI −100…100 (`{"ui": 35}`).
    case ui(Double)
    /// A filter value and its slider half (`{"value": -3, "useLeftRange": true}`); same-sign ranges need the flag.
    case value(Double, useLeftRange: Bool)
}

/// A development recipe (versioned JSON, version 1): filter settings, film or LUT, strength, export defaults.
///
/// ```json
/// { "version": 1, "name": "Warm fade",
///   "filters": { "contrast": {"ui": 35}, "fade": {"value": 0.05, "useLeftRange": false},
///                "vignette": {"ui": -30}, "vignette.feather": {"ui": 20} },
///   "film": "0001002", "strength": 80,
///   "export": { "format": "tiff", "colorspace": "srgb", "bitDepth": 16, "compression": "deflate" } }
/// ```
/// Sub-parameters are flat dotted keys inside `filters` (`"vignette.feather"`), the same names `--set` and
/// `Profiles/filters.json` use. `useLeftRange` may be left out: the half that reaches the value is taken
/// (the right one when both do). `film` is a 7-digit lookupId or a film name; `lut` is a .cube or LUT image
/// inside the recipe's own folder; a recipe names a film or a LUT, not both. `strength` (0…100, default 100)
/// is the film/LUT mix. Absent filters stay neutral. Every mistake is reported with its JSON path.
public struct Recipe: Sendable, Hashable {
    public static let currentVersion = 1

    public var name: String
    /// A sentence for people, kept as is.
    public var description: String?
    /// Settings by slider name (`contrast`, `vignette.size`); absent sliders stay at their default.
    public var filters: [String: FilterSetting]
    /// A film lookupId or name, as written.
    public var film: String?
    /// Film/LUT mix 0…100.
    public var strength: Double
    /// The LUT path as written (relative to the recipe's folder).
    public var lut: String?
    /// The LUT resolved inside the recipe's folder (set when the recipe is parsed).
    public var lutURL: URL?
    public var export: ExportSettings?
    /// The recipe's file, for messages.
    public var source: String

    public init(name: String, description: String? = nil, filters: [String: FilterSetting] = [:], film: String? = nil,
                strength: Double = 100, lut: String? = nil, lutURL: URL? = nil, export: ExportSettings? = nil,
                source: String = "recipe") {
        self.name = name
        self.description = description
        self.filters = filters
        self.film = film
        self.strength = strength
        self.lut = lut
        self.lutURL = lutURL
        self.export = export
        self.source = source
    }

    /// Every filter at neutral, no film.
    public static let neutral = Recipe(name: "neutral")

    /// Reads and validates a recipe file; a LUT it names must lie in the same folder (or below it).
    public static func load(from url: URL, ranges: FilterRanges) throws -> Recipe {
        let data: Data
        do { data = try Data(contentsOf: url) } catch { throw LightWorkError.missingInput(url.path) }
        guard !data.isEmpty else { throw LightWorkError.invalidDocument(file: url.path, path: "$", reason: "the file is empty") }
        return try parse(data, file: url.path, baseDirectory: url.deletingLastPathComponent(), ranges: ranges)
    }

    /// Parses and validates recipe JSON: version, known keys and filters, UI within ±100, values within their
    /// half's range, strength, export block, LUT containment. `baseDirectory` is where `lut` resolves
    /// (default: the current directory).
    public static func parse(_ data: Data, file: String, baseDirectory: URL? = nil, ranges: FilterRanges) throws -> Recipe {
        let root = try JSONNode.parse(data, file: file)
        let top = try root.object(allowing: ["version", "name", "description", "filters", "film", "strength", "lut", "export"])
        let versionNode = try top.required("version", in: root)
        let version = try versionNode.int()
        guard version == currentVersion else {
            throw versionNode.fail("unsupported recipe version \(version) (this LightWork reads version \(currentVersion))")
        }
        var recipe = Recipe(name: try top["name"]?.string() ?? ((file as NSString).lastPathComponent as NSString).deletingPathExtension,
                            source: file)
        recipe.description = try top["description"]?.string()
        if let filtersNode = top["filters"] {
            for (key, node) in try filtersNode.object().sorted(by: { $0.key < $1.key }) {
                recipe.filters[key] = try parseSetting(node, name: key, ranges: ranges)
            }
        }
        if let n = top["film"], !n.isNull {
            let s = try n.string()
            guard !s.trimmingCharacters(in: .whitespaces).isEmpty else { throw n.fail("empty film name") }
            recipe.film = s
        }
        if let n = top["strength"] {
            let s = try n.number()
            guard (0...100).contains(s) else { throw n.fail("strength \(s) outside 0…100") }
            recipe.strength = s
        }
        if let n = top["lut"], !n.isNull {
            let path = try n.string()
            if recipe.film != nil { throw n.fail("a recipe names a film or a LUT, not both") }
            let folder = baseDirectory ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
            do {
                recipe.lutURL = try ContainedPath.resolve(path, inside: folder)
            } catch {
                throw n.fail("LUT refused: \(error.reason) (a recipe's LUT must be inside the recipe's folder)")
            }
            recipe.lut = path
        }
        if let n = top["export"], !n.isNull { recipe.export = try ExportSettings.parse(n) }
        return recipe
    }

    /// One slider's `{"ui": …}` or `{"value": …, "useLeftRange": …}`, validated against its range.
    private static func parseSetting(_ node: JSONNode, name: String, ranges: FilterRanges) throws -> FilterSetting {
        guard let parameter = ranges.parameter(named: name) else {
            throw node.fail("unknown filter \"\(name)\" (known: \(ranges.parameterNames.joined(separator: ", ")))")
        }
        let o = try node.object(allowing: ["ui", "value", "useLeftRange"])
        if let uiNode = o["ui"] {
            if o["value"] != nil || o["useLeftRange"] != nil {
                throw uiNode.fail("give either \"ui\" or \"value\" (with \"useLeftRange\"), not both")
            }
            let ui = try uiNode.number()
            guard DualZoneRange.uiRange.contains(ui) else { throw uiNode.fail("UI value \(ui) outside −100…100") }
            return .ui(ui)
        }
        guard let valueNode = o["value"] else { throw node.fail("expected {\"ui\": N} or {\"value\": V, \"useLeftRange\": B}") }
        let value = try valueNode.number()
        let left: Bool
        if let leftNode = o["useLeftRange"] {
            left = try leftNode.bool()
        } else if parameter.contains(value: value, useLeftRange: false) {
            left = false
        } else {
            left = true
        }
        guard parameter.contains(value: value, useLeftRange: left) else {
            throw valueNode.fail(rangeMessage(parameter, value: value, useLeftRange: left))
        }
        return .value(value, useLeftRange: left)
    }

    private static func rangeMessage(_ p: FilterParameter, value: Double, useLeftRange: Bool) -> String {
        let half = p.values(useLeftRange: useLeftRange)
        let other = p.values(useLeftRange: !useLeftRange)
        return "value \(value) outside the \(useLeftRange ? "left" : "right") half of \(p.name) (\(half.lowerBound)…\(half.upperBound); "
            + "the \(useLeftRange ? "right" : "left") half covers \(other.lowerBound)…\(other.upperBound); unit: \(p.unit))"
    }

    /// Applies `--set name=UI` overrides (`contrast=35`, `vignette.feather=-20`), plus `strength=0…100` and
    /// `film=ID-or-name`. With `ranges`, unknown names are refused at once; without, `resolve` refuses them.
    public func applying(sets: [String], ranges: FilterRanges? = nil) throws -> Recipe {
        var out = self
        for item in sets {
            guard let eq = item.firstIndex(of: "=") else {
                throw LightWorkError.usage("--set \(item): expected name=value, e.g. --set contrast=35")
            }
            let name = item[..<eq].trimmingCharacters(in: .whitespaces)
            let raw = item[item.index(after: eq)...].trimmingCharacters(in: .whitespaces)
            switch name {
            case "film":
                guard !raw.isEmpty else { throw LightWorkError.usage("--set film=: give a film id or name") }
                if out.lut != nil { throw LightWorkError.usage("--set film=\(raw): this recipe already names a LUT") }
                out.film = raw
            case "strength":
                guard let s = Double(raw), (0...100).contains(s) else {
                    throw LightWorkError.usage("--set \(item): strength is a number 0…100")
                }
                out.strength = s
            default:
                if let ranges, ranges.parameter(named: name) == nil {
                    throw LightWorkError.usage("--set \(item): unknown filter \"\(name)\" (known: \(ranges.parameterNames.joined(separator: ", ")), strength, film)")
                }
                guard let ui = Double(raw), ui.isFinite else {
                    throw LightWorkError.usage("--set \(item): \"\(raw)\" is not a number (UI −100…100)")
                }
                guard DualZoneRange.uiRange.contains(ui) else {
                    throw LightWorkError.usage("--set \(item): UI value \(ui) outside −100…100")
                }
                out.filters[name] = .ui(ui)
            }
        }
        return out
    }

    /// Resolves every slider (UI, value, half) in chain order and the film: unknown names, out-of-range values,
    /// unknown films and locked packs are refused here, before any image is touched.
    public func resolve(ranges: FilterRanges, catalog: FilmCatalog? = nil, entitlements: Entitlements? = nil) throws -> ResolvedRecipe {
        for name in filters.keys.sorted() where ranges.parameter(named: name) == nil {
            throw LightWorkError.invalidDocument(file: source, path: JSONNode.memberPath("$.filters", name),
                                                 reason: "unknown filter \"\(name)\" (known: \(ranges.parameterNames.joined(separator: ", ")))")
        }
        var settings: [ResolvedSetting] = []
        for name in ranges.parameterNames {
            let p = ranges.parameter(named: name)!
            let path = JSONNode.memberPath("$.filters", name)
            switch filters[name] {
            case nil:
                settings.append(ResolvedSetting(name: name, ui: 0, value: p.defaultValue, useLeftRange: false))
            case .ui(let ui)?:
                guard DualZoneRange.uiRange.contains(ui) else {
                    throw LightWorkError.invalidDocument(file: source, path: path + ".ui", reason: "UI value \(ui) outside −100…100")
                }
                settings.append(ResolvedSetting(name: name, ui: ui, value: p.value(forUI: ui), useLeftRange: p.zone.useLeftRange(forUI: ui)))
            case let .value(v, left)?:
                guard p.contains(value: v, useLeftRange: left) else {
                    throw LightWorkError.invalidDocument(file: source, path: path + ".value", reason: Recipe.rangeMessage(p, value: v, useLeftRange: left))
                }
                settings.append(ResolvedSetting(name: name, ui: p.ui(forValue: v, useLeftRange: left), value: v, useLeftRange: left))
            }
        }
        guard (0...100).contains(strength) else {
            throw LightWorkError.invalidDocument(file: source, path: "$.strength", reason: "strength \(strength) outside 0…100")
        }
        var resolvedFilm: ResolvedFilm?
        if let film {
            guard let catalog else {
                throw LightWorkError.usage("\(source): the recipe names film \"\(film)\" but no film catalog is loaded")
            }
            guard let entry = catalog.film(matching: film) else {
                let names = catalog.entries.filter { !$0.film.isNone }.prefix(8).map { "\($0.film.lookupId) \($0.film.displayName)" }
                throw LightWorkError.invalidDocument(file: source, path: "$.film",
                                                     reason: "unknown film \"\(film)\" (try `lightwork films`; e.g. \(names.joined(separator: ", ")))")
            }
            if !entry.film.isNone {
                try catalog.requireAvailable(entry, entitlements: entitlements)
                let image = try catalog.lookupImageURL(for: entry.film)
                resolvedFilm = ResolvedFilm(lookupId: entry.film.lookupId, name: entry.film.displayName,
                                            packId: entry.pack.packId, lookupImage: image.path)
            }
        }
        return ResolvedRecipe(version: Recipe.currentVersion, name: name, settings: settings, film: resolvedFilm,
                              lut: lutURL?.path, strength: strength, export: export)
    }

    /// The recipe as JSON in its file format (stable key order), e.g. to save what `--set` produced.
    public func jsonData() throws -> Data {
        var root: [String: Any] = ["version": Recipe.currentVersion, "name": name]
        if let description { root["description"] = description }
        var f: [String: Any] = [:]
        for (k, s) in filters {
            switch s {
            case .ui(let ui): f[k] = ["ui": ui]
            case let .value(v, left): f[k] = ["value": v, "useLeftRange": left]
            }
        }
        root["filters"] = f
        if let film { root["film"] = film }
        if let lut { root["lut"] = lut }
        if film != nil || lut != nil || strength != 100 { root["strength"] = strength }
        if let export {
            let data = try JSONEncoder().encode(export)
            root["export"] = try JSONSerialization.jsonObject(with: data)
        }
        return try JSONSerialization.data(withJSONObject: root, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    }
}
