import Foundation

/// Renders verify cases exactly as `lightwork convert` would render the same input and settings: each case becomes
/// a `ConvertSpec` built the way convert builds one (defaults, the recipe's export block, then the case's fields)
/// and the file goes through the one `FileConverter` made from it.
public struct CaseRenderer: Sendable {
    /// Where the suite's relative paths start.
    public let suiteDirectory: URL
    private let profiles: URL
    private let ranges: FilterRanges
    private let entitlements: Entitlements?

    /// `entitlementsFile` (the suite's) unlocks its packs for these renders only, in memory; without it the
    /// user's own store decides, as in convert.
    public init(suiteDirectory: URL, entitlementsFile: URL? = nil) throws {
        self.suiteDirectory = suiteDirectory
        profiles = try ProfilesDirectory.locate()
        ranges = FilterRanges.standard
        if let entitlementsFile {
            guard FileManager.default.fileExists(atPath: entitlementsFile.path) else { throw LightWorkError.missingInput(entitlementsFile.path) }
            entitlements = try Entitlements.load(from: entitlementsFile)
        } else {
            entitlements = nil
        }
    }

    /// A suite path: absolute as given, relative from the suite's folder.
    public func resolve(_ path: String) -> URL {
        CaseRenderer.resolvePath(path, from: suiteDirectory)
    }

    /// The conversion spec for `c`, writing into `outputDirectory`. Throws for a bad recipe, an unknown or locked
    /// film, a lossy format.
    public func spec(for c: VerifyCase, outputDirectory: URL) throws -> ConvertSpec {
        var recipe = try c.recipe.map { try Recipe.load(from: resolve($0), ranges: ranges) } ?? Recipe.neutral
        var overrides = (c.set ?? [:]).sorted { $0.key < $1.key }.map { RecipeOverride.slider(name: $0.key, ui: $0.value) }
        if let film = c.film { overrides.append(.film(film)) }
        if let strength = c.strength { overrides.append(.strength(strength)) }
        recipe = try recipe.applying(overrides: overrides, ranges: ranges)
        var catalog: FilmCatalog?
        var store: Entitlements?
        if recipe.film != nil {
            catalog = try FilmCatalog.bundled(profiles: profiles)
            store = try entitlements ?? Entitlements.loadDefault()
        }
        let resolved = try recipe.resolve(ranges: ranges, catalog: catalog, entitlements: store)

        var encode = EncodeSettings()
        var colorSpace = OutputColorSpace.srgb
        resolved.export?.apply(to: &encode, colorSpace: &colorSpace)
        if let f = c.format { encode.format = f }
        if let cs = c.colorspace { colorSpace = cs }
        try encode.setOptions(resolved.export?.optionValues ?? [:], from: .recipe)
        if let compression = c.compression { encode.tiffCompression = compression }
        guard VerifyCase.losslessFormats.contains(encode.format) else {
            throw LightWorkError.usage("case \"\(c.name)\": the recipe asks for \(encode.format.rawValue), which is lossy; give the case a \"format\" (\(VerifyCase.losslessFormats.map(\.rawValue).joined(separator: ", ")))")
        }
        var decode = ConvertSpec.Decode()
        if let m = c.colorModel { decode.colorModel = m }
        if let d = c.demosaic { decode.demosaic = d }
        let export = ConvertSpec.Export(format: encode.format, quality: encode.jpegQuality, compression: encode.tiffCompression,
                                        colorSpace: colorSpace, resize: try c.longEdge.map { try ResizeSpec(.longEdge($0)) },
                                        options: encode.options)
        // Verify's suites are colorimetric whatever tone exports default to.
        var develop = DevelopSettings()
        develop[Tone.self] = .linear
        return ConvertSpec(look: try ConvertSpec.Look(resolved: resolved), decode: decode, develop: develop, export: export,
                           output: ConvertSpec.Output(directory: outputDirectory))
    }

    /// Renders `c` with `spec` (from `spec(for:outputDirectory:)`) into its output folder as `<name>.<ext>` and
    /// returns the file. Throws `RenderFailure` with the converter's reason when the input cannot be decoded or
    /// written, `missingInput` when it is not there, the converter's error when the film or LUT cannot be loaded.
    public func render(_ c: VerifyCase, spec: ConvertSpec, engine: EngineConfiguration = .detected) throws -> URL {
        let directory = spec.output.directory
        let input = resolve(c.input)
        guard FileManager.default.fileExists(atPath: input.path) else { throw LightWorkError.missingInput(input.path) }
        let relative = "\(c.name).\(spec.export.format.fileExtension)"
        let entry = try FileConverter(spec: spec, engine: engine).convert(InputItem(url: input, displayPath: c.input, relativePath: relative), to: relative)
        guard entry.status == .converted else { throw RenderFailure(description: entry.reason ?? "conversion failed") }
        return directory.appendingPathComponent(relative)
    }

    /// The converter's one-line reason a render failed (it already names the stage: "cannot decode: …").
    public struct RenderFailure: Error, CustomStringConvertible, Sendable {
        public let description: String
    }
}
