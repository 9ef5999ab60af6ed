import Foundation

/// How a recipe sets one slider: a UI position, or a filter value with the half it came from.
public enum FilterSetting: Sendable, Hashable {
    /// UI −100…100 (`{"ui": 35}`).
    case ui(Double)
    /// A filter value and its slider half (`{"value": -3, "useLeftRange": true}`); same-sign ranges need the flag.
    case value(Double, useLeftRange: Bool)
}

/// One change to a recipe, typed: what `--set` and a verify case's `set` give.
public enum RecipeOverride: Sendable, Hashable {
    /// A slider (`contrast`, `vignette.feather`) at a UI position −100…100.
    case slider(name: String, ui: Double)
    /// The film/LUT mix 0…100.
    case strength(Double)
    /// A film's lookupId or name.
    case film(String)

    /// Parses one `--set name=value` (`contrast=35`, `strength=60`, `film=0001002`).
    public static func parse(_ item: String) throws -> RecipeOverride {
        guard let eq = item.firstIndex(of: "=") else {
            throw LightWorkError.usage("--set \(item): expected name=value, e.g. --set contrast=35")
        }
        let name = item[..<eq].trimmingCharacters(in: .whitespaces)
        let raw = item[item.index(after: eq)...].trimmingCharacters(in: .whitespaces)
        switch name {
        case "film":
            return .film(raw)
        case "strength":
            guard let s = Double(raw) else { throw LightWorkError.usage("--set \(item): strength is a number 0…100") }
            return .strength(s)
        default:
            guard let ui = Double(raw), ui.isFinite else {
                throw LightWorkError.usage("--set \(item): \"\(raw)\" is not a number (UI −100…100)")
            }
            return .slider(name: name, ui: ui)
        }
    }
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
/// `filterVersions` (`{"grain": 2}`, by the filter's descriptor name; absent = 1) says which meaning of a filter's
/// values the file was written for: older ones are migrated by that filter's `migrate` when the file is read.
/// `develop` (`{"whiteBalance": "5200:+8", "exposure": 0.5, "tone": "standard"}`) sets the develop modules
/// (`DevelopStage`), each value a module's text (numbers are read as their text); `developVersions` does for them
/// what `filterVersions` does for filters. A recipe without a `develop` section leaves every module at its default.
/// `metadata` (`{"artist": "Ann Example", "copyright": "© 2026 Ann Example", "keywords": ["harbour", "night"]}`;
/// keywords may also be one comma-separated string) is the credit every output carries (`MetadataOverrides`); the
/// command line's `--artist`, `--copyright` and `--keywords` replace its fields one by one.
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
    /// The develop modules' settings (`develop` section), parsed and migrated.
    public var develop = DevelopSettings()
    /// The `metadata` section: credit written into every output; nil without one.
    public var metadata: MetadataOverrides?
    /// The `cameraProfile` section (`{"profile": "auto"|"embedded"|"matrix"|"FILE.dcp", "sha256": "…", "look": true,
    /// "tone": true}`): pins the RAW camera profile; a file lies inside the recipe's folder and, with `sha256`, must
    /// have those bytes. nil without one.
    public var cameraProfile: CameraProfilePin?
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
        let top = try root.object(allowing: ["version", "name", "description", "filterVersions", "filters", "film", "strength", "lut", "export",
                                                  "develop", "developVersions", "metadata", "cameraProfile"])
        let versionNode = try top.required("version", in: root)
        let version = try versionNode.int()
        guard version == currentVersion else {
            throw versionNode.fail("unsupported recipe version \(version) (this LightWork reads version \(currentVersion))")
        }
        var recipe = Recipe(name: try top["name"]?.string() ?? ((file as NSString).lastPathComponent as NSString).deletingPathExtension,
                            source: file)
        recipe.description = try top["description"]?.string()
        let versions = try filterVersions(top["filterVersions"], ranges: ranges)
        if let filtersNode = top["filters"] {
            var nodes: [String: JSONNode] = [:]
            var written: [String: FilterSetting] = [:]
            for (key, node) in try filtersNode.object().sorted(by: { $0.key < $1.key }) {
                guard ranges.parameter(named: key) != nil else {
                    throw node.fail("unknown filter \"\(key)\" (known: \(ranges.parameterNames.joined(separator: ", ")))")
                }
                nodes[key] = node
                written[key] = try parseSetting(node)
            }
            let current = try migrate(written, versions: versions, ranges: ranges, node: filtersNode)
            for (key, setting) in current.sorted(by: { $0.key < $1.key }) {
                let node = nodes[key] ?? filtersNode
                guard let parameter = ranges.parameter(named: key) else {
                    throw node.fail("the migration gave an unknown filter \"\(key)\"")
                }
                recipe.filters[key] = try check(setting, parameter, node)
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
        if let n = top["develop"], !n.isNull { recipe.develop = try parseDevelop(n, versions: top["developVersions"]) }
        if let n = top["metadata"], !n.isNull { recipe.metadata = try parseMetadata(n) }
        if let n = top["cameraProfile"], !n.isNull { recipe.cameraProfile = try CameraProfilePin.parse(n, baseDirectory: baseDirectory) }
        return recipe
    }

    /// The `metadata` section: artist and copyright (non-empty text), keywords (an array of text or one comma-separated
    /// string).
    private static func parseMetadata(_ node: JSONNode) throws -> MetadataOverrides? {
        let o = try node.object(allowing: ["artist", "copyright", "keywords"])
        func text(_ key: String) throws -> String? {
            guard let n = o[key], !n.isNull else { return nil }
            guard let s = DescriptiveMetadata.cleaned(try n.string()) else { throw n.fail("\(key) is empty") }
            return s
        }
        var m = MetadataOverrides(artist: try text("artist"), copyright: try text("copyright"))
        if let n = o["keywords"], !n.isNull {
            var list: [String] = []
            if n.value is String {
                list = MetadataOverrides.keywords(try n.string())
            } else {
                for k in try n.array() {
                    guard let s = DescriptiveMetadata.cleaned(try k.string()) else { throw k.fail("a keyword is empty") }
                    if !list.contains(s) { list.append(s) }
                }
            }
            m.keywords = list.isEmpty ? nil : list
        }
        return m.isEmpty ? nil : m
    }

    /// The `develop` section: module name → text (or number), each migrated from its `developVersions` entry and
    /// parsed by its module; a mistake names its JSON path.
    private static func parseDevelop(_ node: JSONNode, versions: JSONNode?) throws -> DevelopSettings {
        var written: [String: Int] = [:]
        if let versions {
            for (name, n) in try versions.object().sorted(by: { $0.key < $1.key }) {
                guard let module = DevelopStage.module(named: name) else {
                    throw n.fail("unknown develop module \"\(name)\" (known: \(DevelopStage.names.joined(separator: ", ")))")
                }
                let v = try n.int()
                guard v >= 1, v <= module.descriptor.version else {
                    throw n.fail("\(name) version \(v) unknown (this LightWork knows versions 1…\(module.descriptor.version) of it)")
                }
                written[name] = v
            }
        }
        var out = DevelopSettings()
        for (name, n) in try node.object().sorted(by: { $0.key < $1.key }) {
            guard let module = DevelopStage.module(named: name) else {
                throw n.fail("unknown develop module \"\(name)\" (known: \(DevelopStage.names.joined(separator: ", ")))")
            }
            var text = try n.isString ? n.string() : FilterParameter.format(n.number())
            for v in (written[name] ?? 1)..<module.descriptor.version {
                do { text = try module.migrate(from: v, text: text) } catch { throw n.fail("\(name): cannot migrate its value from version \(v): \(error)") }
            }
            do { try out.set(name, text: text) } catch { throw n.fail("\(error)") }
        }
        return out
    }

    /// The `filterVersions` block: descriptor name → the version the file's values were written for.
    private static func filterVersions(_ node: JSONNode?, ranges: FilterRanges) throws -> [String: Int] {
        guard let node else { return [:] }
        var descriptors: [String: FilterDescriptor] = [:]
        for slot in ranges.slots { descriptors[slot.descriptor.name] = slot.descriptor }
        var out: [String: Int] = [:]
        for (name, n) in try node.object().sorted(by: { $0.key < $1.key }) {
            guard let d = descriptors[name] else {
                throw n.fail("unknown filter \"\(name)\" (versioned filters: \(ranges.slots.map(\.descriptor.name).joined(separator: ", ")))")
            }
            let v = try n.int()
            guard v >= 1, v <= d.version else {
                throw n.fail("\(name) version \(v) unknown (this LightWork knows versions 1…\(d.version) of it)")
            }
            out[name] = v
        }
        return out
    }

    /// Settings written for older filter versions, rewritten by each filter's own `migrate` (in chain order,
    /// every instance of a type through its declared names).
    private static func migrate(_ written: [String: FilterSetting], versions: [String: Int], ranges: FilterRanges,
                                node: JSONNode) throws -> [String: FilterSetting] {
        var out = written
        for slot in ranges.slots {
            let d = slot.descriptor
            let from = versions[d.name] ?? 1
            guard from < d.version else { continue }
            var declared: [String: FilterSetting] = [:]
            for p in slot.parameters {
                if let s = out.removeValue(forKey: p.name) { declared[slot.declaredName(of: p.name)] = s }
            }
            for v in from..<d.version {
                do { try slot.type.migrate(from: v, settings: &declared) } catch {
                    throw node.fail("\(slot.name): cannot migrate its values from version \(v): \(error)")
                }
            }
            for p in slot.parameters {
                if let s = declared[slot.declaredName(of: p.name)] { out[p.name] = s }
            }
        }
        return out
    }

    /// One slider's `{"ui": …}` or `{"value": …, "useLeftRange": …}`, as written (ranges are checked after migration).
    private static func parseSetting(_ node: JSONNode) throws -> FilterSetting {
        let o = try node.object(allowing: ["ui", "value", "useLeftRange"])
        if let uiNode = o["ui"] {
            if o["value"] != nil || o["useLeftRange"] != nil {
                throw uiNode.fail("give either \"ui\" or \"value\" (with \"useLeftRange\"), not both")
            }
            return .ui(try uiNode.number())
        }
        guard let valueNode = o["value"] else { throw node.fail("expected {\"ui\": N} or {\"value\": V, \"useLeftRange\": B}") }
        let value = try valueNode.number()
        if let leftNode = o["useLeftRange"] { return .value(value, useLeftRange: try leftNode.bool()) }
        // useLeftRange left out: the right half for now; `check` takes the left one when only it reaches the value.
        return .value(value, useLeftRange: false)
    }

    /// A setting checked against its slider: a usable UI position, or a value its half reaches.
    private static func check(_ setting: FilterSetting, _ parameter: FilterParameter, _ node: JSONNode) throws -> FilterSetting {
        let o = try? node.object()
        switch setting {
        case .ui(let ui):
            if let reason = parameter.refusal(ui: ui) { throw (o?["ui"] ?? node).fail(reason) }
            return setting
        case let .value(value, left):
            let valueNode = o?["value"] ?? node
            let explicit = o?["useLeftRange"] != nil
            let half = explicit || parameter.contains(value: value, useLeftRange: left) ? left : !left
            guard parameter.contains(value: value, useLeftRange: half) else {
                throw valueNode.fail(rangeMessage(parameter, value: value, useLeftRange: half))
            }
            return .value(value, useLeftRange: half)
        }
    }

    private static func rangeMessage(_ p: FilterParameter, value: Double, useLeftRange: Bool) -> String {
        let half = p.values(useLeftRange: useLeftRange)
        let other = p.values(useLeftRange: !useLeftRange)
        return "value \(value) outside the \(useLeftRange ? "left" : "right") half of \(p.name) (\(half.lowerBound)…\(half.upperBound); "
            + "the \(useLeftRange ? "right" : "left") half covers \(other.lowerBound)…\(other.upperBound); unit: \(p.unit))"
    }

    /// Applies `--set name=UI` overrides (`contrast=35`, `vignette.feather=-20`), plus `strength=0…100` and
    /// `film=ID-or-name`: each item parsed once into a `RecipeOverride`.
    public func applying(sets: [String], ranges: FilterRanges? = nil) throws -> Recipe {
        try applying(overrides: sets.map(RecipeOverride.parse), ranges: ranges)
    }

    /// Applies typed overrides in order. With `ranges`, unknown names and unusable UI positions (outside ±100, or
    /// on a half that would do nothing, such as grain below 0) are refused at once; without, `resolve` refuses them.
    public func applying(overrides: [RecipeOverride], ranges: FilterRanges? = nil) throws -> Recipe {
        var out = self
        for item in overrides {
            switch item {
            case .film(let film):
                guard !film.isEmpty else { throw LightWorkError.usage("--set film=: give a film id or name") }
                if out.lut != nil { throw LightWorkError.usage("--set film=\(film): this recipe already names a LUT") }
                out.film = film
            case .strength(let s):
                guard (0...100).contains(s) else {
                    throw LightWorkError.usage("--set strength=\(FilterParameter.format(s)): strength is a number 0…100")
                }
                out.strength = s
            case let .slider(name, ui):
                let set = "--set \(name)=\(FilterParameter.format(ui))"
                if let ranges {
                    guard let parameter = ranges.parameter(named: name) else {
                        throw LightWorkError.usage("\(set): unknown filter \"\(name)\" (known: \(ranges.parameterNames.joined(separator: ", ")), strength, film)")
                    }
                    if let reason = parameter.refusal(ui: ui) { throw LightWorkError.usage("\(set): \(reason)") }
                } else {
                    guard ui.isFinite, DualZoneRange.uiRange.contains(ui) else {
                        throw LightWorkError.usage("\(set): UI value \(ui) outside −100…100")
                    }
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
                if let reason = p.refusal(ui: ui) {
                    throw LightWorkError.invalidDocument(file: source, path: path + ".ui", reason: reason)
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
        var resolved = ResolvedRecipe(version: Recipe.currentVersion, name: name, settings: settings, film: resolvedFilm,
                                      lut: lutURL?.path, strength: strength, export: export, develop: develop, metadata: metadata)
        resolved.cameraProfile = cameraProfile
        return resolved
    }

    /// The recipe as JSON in its file format (stable key order), e.g. to save what `--set` produced, for the
    /// filter versions of `ranges`.
    public func jsonData(ranges: FilterRanges = .standard) throws -> Data {
        var root: [String: Any] = ["version": Recipe.currentVersion, "name": name]
        // Versions above 1 only, so files for filters that never changed meaning stay as before.
        var versions: [String: Int] = [:]
        for slot in ranges.slots where slot.descriptor.version > 1 { versions[slot.descriptor.name] = slot.descriptor.version }
        if !versions.isEmpty { root["filterVersions"] = versions }
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
        var developTexts: [String: String] = [:]
        var developVersions: [String: Int] = [:]
        for module in DevelopStage.modules {
            let name = module.descriptor.name
            guard develop.text(name) != module.defaultText, let text = develop.text(name) else { continue }
            developTexts[name] = text
            if module.descriptor.version > 1 { developVersions[name] = module.descriptor.version }
        }
        if !developTexts.isEmpty { root["develop"] = developTexts }
        if !developVersions.isEmpty { root["developVersions"] = developVersions }
        if let export {
            let data = try JSONEncoder().encode(export)
            root["export"] = try JSONSerialization.jsonObject(with: data)
        }
        if let metadata {
            let data = try JSONEncoder().encode(metadata)
            root["metadata"] = try JSONSerialization.jsonObject(with: data)
        }
        if let cameraProfile {
            var pin: [String: Any] = ["profile": cameraProfile.profile, "look": cameraProfile.look, "tone": cameraProfile.tone]
            if let sha = cameraProfile.sha256 { pin["sha256"] = sha }
            root["cameraProfile"] = pin
        }
        return try JSONSerialization.data(withJSONObject: root, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    }
}

/// A recipe's `cameraProfile` section, as written and resolved.
public struct CameraProfilePin: Sendable, Hashable, Codable {
    /// auto, embedded, matrix or a .dcp path as written.
    public var profile: String
    /// The DCP resolved inside the recipe's folder (nil for auto, embedded, matrix).
    public var url: URL?
    /// The SHA-256 the DCP must have, when the recipe pins one.
    public var sha256: String?
    public var look = true
    public var tone = true

    static func parse(_ node: JSONNode, baseDirectory: URL?) throws -> CameraProfilePin {
        let o = try node.object(allowing: ["profile", "sha256", "look", "tone"])
        let profileNode = try o.required("profile", in: node)
        var pin = CameraProfilePin(profile: try profileNode.string())
        if !["auto", "embedded", "matrix"].contains(pin.profile) {
            let folder = baseDirectory ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
            do { pin.url = try ContainedPath.resolve(pin.profile, inside: folder) } catch {
                throw profileNode.fail("camera profile refused: \(error.reason) (a recipe's DCP must be inside the recipe's folder)")
            }
        }
        if let n = o["sha256"] {
            let sha = try n.string().lowercased()
            guard pin.url != nil, sha.count == 64, sha.allSatisfy(\.isHexDigit) else { throw n.fail("sha256 pins a DCP file by 64 hex digits") }
            pin.sha256 = sha
        }
        if let n = o["look"] { pin.look = try n.bool() }
        if let n = o["tone"] { pin.tone = try n.bool() }
        return pin
    }

    /// The setting it pins (the DCP read and hashed now; a pinned hash that differs fails).
    public func setting() throws -> CameraProfileSetting {
        var source: CameraProfileSetting.Source
        if let url {
            source = try CameraProfileSetting.source(parsing: url.path)
            if case let .file(_, found) = source, let sha256, found != sha256 {
                throw LightWorkError.lookupChanged(file: url.path, expected: sha256, found: found)
            }
        } else {
            source = try CameraProfileSetting.source(parsing: profile)
        }
        return CameraProfileSetting(source: source, look: look, tone: tone)
    }
}
