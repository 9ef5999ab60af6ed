import Foundation

/// Turns a recipe (file, `--set` overrides, film or LUT choice) into what the engine runs: the filter chain in
/// spec order and the per-filter record the manifest keeps. Shared by convert, watch and verify.
public struct LookSetup: Sendable {
    /// The recipe after ranges, catalog and entitlements were applied.
    public let resolved: ResolvedRecipe
    /// The chain, every filter in spec order (neutral ones are skipped by the engine).
    public let chain: [any Filter]
    /// Per filter name: UI value, resolved value, dual-zone flag (for the manifest).
    public let settings: [String: ResolvedSettings.FilterSetting]
    /// What the manifest calls the look: the film's lookupId and name, or the LUT file.
    public let filmLabel: String?

    /// Resolves `recipe` and loads its film or LUT. Fails before any file is touched, with the JSON path or
    /// the pack to unlock.
    public init(recipe: Recipe, ranges: FilterRanges, catalog: FilmCatalog?, entitlements: Entitlements?,
                interpolation: LUT3D.Interpolation = .tetrahedral) throws {
        let resolved = try recipe.resolve(ranges: ranges, catalog: catalog, entitlements: entitlements)
        self.resolved = resolved
        var values: [String: Double] = [:]
        var settings: [String: ResolvedSettings.FilterSetting] = [:]
        for s in resolved.settings {
            values[s.name] = s.value
            settings[s.name] = ResolvedSettings.FilterSetting(ui: s.ui, value: s.value, useLeftRange: s.useLeftRange)
        }
        self.settings = settings
        var lookup: (any ColorLookup)?
        if let film = resolved.film {
            lookup = InterpolatedLUT(lut: try LUTFile.load(url: URL(fileURLWithPath: film.lookupImage), decodeImage: LookSetup.decodeLUTImage),
                                     interpolation: interpolation)
            filmLabel = "\(film.lookupId) \(film.name)"
        } else if let lut = resolved.lut {
            lookup = InterpolatedLUT(lut: try LUTFile.load(url: URL(fileURLWithPath: lut), decodeImage: LookSetup.decodeLUTImage),
                                     interpolation: interpolation)
            filmLabel = (lut as NSString).lastPathComponent
        } else {
            filmLabel = nil
        }
        chain = FilterChain.build(values: values, look: lookup, strength: resolved.lookupMix)
    }

    /// Lookup and HaldCLUT images are PNG, TIFF or JPEG files: read with the project's own reader.
    @Sendable public static func decodeLUTImage(_ url: URL) throws -> LUTImagePixels {
        let file = try ImageFileReader.read(url)
        return LUTImagePixels(width: file.width, height: file.height, channels: file.channels, samples: file.samples,
                              maxValue: file.bitDepth == 16 ? 65535 : 255)
    }
}

/// A LUT applied with a chosen interpolation (`--lut-interpolation`): tetrahedral by default, trilinear for
/// parity with the original app's GPU lookup.
public struct InterpolatedLUT: ColorLookup {
    public let lut: LUT3D
    public let interpolation: LUT3D.Interpolation

    public func apply(r: UnsafeMutablePointer<Float>, g: UnsafeMutablePointer<Float>, b: UnsafeMutablePointer<Float>, count: Int) {
        // Tetrahedral through LUT3D's ColorLookup (the vector kernel where the CPU has one; the same bits).
        if interpolation == .tetrahedral {
            (lut as any ColorLookup).apply(r: r, g: g, b: b, count: count)
        } else {
            lut.apply(r: r, g: g, b: b, count: count, interpolation: interpolation)
        }
    }

    public func mix(r: UnsafeMutablePointer<Float>, g: UnsafeMutablePointer<Float>, b: UnsafeMutablePointer<Float>, count: Int, strength: Float) {
        if interpolation == .tetrahedral {
            lut.mix(r: r, g: g, b: b, count: count, strength: strength)
        } else {
            mixThroughCopies(r: r, g: g, b: b, count: count, strength: strength)
        }
    }
}
