import Foundation

/// Turns a recipe (file, `--set` overrides, film or LUT choice) into the look of a `ConvertSpec` and the chain
/// it runs: what convert, watch and verify share between a recipe and a conversion.
public struct LookSetup: Sendable {
    /// The recipe after ranges, catalog and entitlements were applied.
    public let resolved: ResolvedRecipe
    /// The look a `ConvertSpec` carries (filters, film or LUT by content hash, strength, interpolation).
    public let look: ConvertSpec.Look
    /// The chain, every filter in spec order (neutral ones are skipped by the engine), the film or LUT loaded.
    public let chain: [any Filter]

    /// Per filter name: UI value, resolved value, dual-zone flag (for the manifest).
    public var settings: [String: ResolvedSettings.FilterSetting] { look.filters }
    /// What the manifest calls the look: the film's lookupId and name, or the LUT file.
    public var filmLabel: String? { look.lookup?.label }

    /// Resolves `recipe` and loads its film or LUT. Fails before any file is touched, with the JSON path or
    /// the pack to unlock.
    public init(recipe: Recipe, ranges: FilterRanges, catalog: FilmCatalog?, entitlements: Entitlements?,
                interpolation: LUT3D.Interpolation = .tetrahedral) throws {
        try self.init(resolved: try recipe.resolve(ranges: ranges, catalog: catalog, entitlements: entitlements), interpolation: interpolation)
    }

    /// The look of an already resolved recipe, its film or LUT loaded.
    public init(resolved: ResolvedRecipe, interpolation: LUT3D.Interpolation = .tetrahedral) throws {
        self.resolved = resolved
        look = try ConvertSpec.Look(resolved: resolved, interpolation: interpolation)
        chain = try look.chain()
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
