import Foundation

extension ConvertSpec.Look {
    /// The look of a resolved recipe: its filters, and its film or LUT identified by the file's current bytes.
    public init(resolved: ResolvedRecipe, interpolation: LUT3D.Interpolation = .tetrahedral) throws {
        var filters: [String: ResolvedSettings.FilterSetting] = [:]
        for s in resolved.settings { filters[s.name] = ResolvedSettings.FilterSetting(ui: s.ui, value: s.value, useLeftRange: s.useLeftRange) }
        var lookup: ConvertSpec.Lookup?
        if let film = resolved.film {
            lookup = try ConvertSpec.Lookup(film: .init(lookupId: film.lookupId, name: film.name), url: URL(fileURLWithPath: film.lookupImage))
        } else if let lut = resolved.lut {
            lookup = try ConvertSpec.Lookup(film: nil, url: URL(fileURLWithPath: lut))
        }
        self.init(recipeName: resolved.name, filters: filters, lookup: lookup, strength: resolved.strength, interpolation: interpolation)
    }

    /// The filter chain in spec order, with the film or LUT loaded. Throws `lookupChanged` when the file's bytes
    /// are not those the spec identifies (checked before and after loading, so a file replaced while it is read
    /// is refused too), or the reader's error for a file that cannot be read.
    public func chain() throws -> [any Filter] {
        FilterChain.build(values: filters.mapValues(\.value), look: try lookup.map { try $0.load(interpolation: interpolation) },
                          strength: lookupMix)
    }
}

extension ConvertSpec.Lookup {
    /// Loads the lookup image or LUT file, refusing bytes other than those `sha256` names.
    public func load(interpolation: LUT3D.Interpolation) throws -> InterpolatedLUT {
        let url = URL(fileURLWithPath: path)
        try checkContent(url)
        let lut = try LUTFile.load(url: url, decodeImage: LookSetup.decodeLUTImage)
        try checkContent(url)
        return InterpolatedLUT(lut: lut, interpolation: interpolation)
    }

    private func checkContent(_ url: URL) throws {
        let found: String
        do { found = try SHA256.hex(fileAt: url) } catch { throw LightWorkError.missingInput(path) }
        guard found == sha256 else { throw LightWorkError.lookupChanged(file: path, expected: sha256, found: found) }
    }
}
