import Foundation

/// Runs a chain of filters over a WorkingImage: the *how* to the filters' *what*.
///
/// The whole chain is one sweep over bands of rows: each band is loaded from half floats once, every filter
/// runs on it after a conversion into its domain (only where the domain changes), and the band is stored
/// or handed to the output transform, so a neutral recipe costs a single sweep from half floats to output
/// samples. Guided filters (clarity) get their blurred luminance from a reduced copy of the image run
/// through the chain's prefix (`guides(for:context:)`), which costs one read of the image for all guides.
public struct Renderer: Sendable {
    /// The active (non-neutral) filters, in chain order.
    public let filters: [any Filter]
    /// The threads every sweep runs on (the bytes are the same for any count).
    public let engine: EngineConfiguration

    public init(chain: [any Filter], engine: EngineConfiguration = .detected) {
        filters = chain.filter { !$0.isNeutral }
        self.engine = engine
    }

    /// Rows per band: about 8k pixels (a single row of a 24 MP frame), so the band's planes stay in the L2
    /// cache while each filter sweeps them; per-band tables are memoised (`ThreadTables`).
    static func bandRows(width: Int) -> Int { max(1, 8192 / max(1, width)) }

    /// Applies the chain and converts to the output; `image` itself is not modified.
    public func render(_ image: WorkingImage, context: RenderContext, output spec: OutputSpec) -> EncodedPixels {
        let output = OutputTransform(input: finalSpace(storage: image.space), space: spec.space, depth: spec.depth,
                                     hasAlpha: image.hasAlpha, keepAlpha: spec.keepAlpha, background: spec.background)
        return EncodedPixels(width: image.width, height: image.height, channels: output.channels, depth: output.depth,
                             fill8: { p in
                                 let out = UncheckedSendable(p)
                                 execute(image, context) { band in output.encode(band, into: out.value) }
                             },
                             fill16: { p in
                                 let out = UncheckedSendable(p)
                                 execute(image, context) { band in output.encode(band, into: out.value) }
                             })
    }

    /// Applies the chain in place (benchmarks, tests, resize). The result is left in the image's own space or,
    /// with `keepFinalSpace`, in the last filter's domain, where `render` hands it to the output transform
    /// (`image.space` then says which).
    public func apply(to image: WorkingImage, context: RenderContext, keepFinalSpace: Bool = false) {
        if filters.isEmpty { return }
        execute(image, context, finish: nil, keepFinalSpace: keepFinalSpace)
    }

    /// The space the values are in after the last filter (the output transform starts from there).
    public func finalSpace(storage: WorkingSpace) -> WorkingSpace {
        filters.last.map { Renderer.space(for: $0.domain, storage: storage) } ?? storage
    }

    /// The domain a filter computes in, as a concrete space for an image stored in `storage`.
    static func space(for domain: FilterDomain, storage: WorkingSpace) -> WorkingSpace {
        switch domain {
        case .linear: return WorkingSpace(primaries: storage.primaries, encoding: .linear)
        case .perceptual: return .deviceRGB
        }
    }

    /// The conversion into each filter's domain from the one before it (the first from `start`), for an image
    /// stored in `storage`; identities where the domain stays.
    func conversions(from start: WorkingSpace, storage: WorkingSpace) -> [SpaceConversion] {
        var current = start
        return filters.map { f in
            let target = Renderer.space(for: f.domain, storage: storage)
            defer { current = target }
            return SpaceConversion(from: current, to: target)
        }
    }

    /// The blurred luminance each guided filter sees (nil for the others), in chain order.
    ///
    /// A guide is a blur of the whole image as its filter receives it, so computing it at full resolution
    /// would cost one sweep of the image per guided filter. Since the blur is wide (a fraction of the frame),
    /// the engine instead reduces the image once to the guide grid (cell means) and runs the chain's prefix
    /// over that small copy: each guided filter's guide is the blurred luma of the prefix's result there,
    /// and the filter is applied to the copy with it before the prefix goes on. Like darktable's preview
    /// pipe, this approximates "blur of the filtered image" by "filtered blur of the image"; the two differ
    /// only where a nonlinear filter meets detail finer than a grid cell (12 pixels on a 24 MP frame), which
    /// the blur (15 cells) spreads thin.
    func guides(for image: WorkingImage, context: RenderContext) -> [GuidePlane?] {
        guard let last = filters.lastIndex(where: { $0.guideRadius != nil }) else {
            return Array(repeating: nil, count: filters.count)
        }
        let grid = GuideGrid(image, engine: engine)
        let gridContext = RenderContext(width: grid.width, height: grid.height, seed: context.seed)
        let conversions = self.conversions(from: image.space, storage: image.space)
        var planes: [GuidePlane?] = []
        for (k, f) in filters.enumerated() {
            let conversion = conversions[k]
            guard k <= last else { planes.append(nil); continue }
            guard let radius = f.guideRadius else {
                planes.append(nil)
                grid.forEachBand { band in
                    conversion.apply(r: band.r, g: band.g, b: band.b, count: band.count)
                    f.apply(band, gridContext)
                }
                continue
            }
            grid.forEachBand { conversion.apply(r: $0.r, g: $0.g, b: $0.b, count: $0.count) }
            let plane = GuidePlane(cellMeans: grid.luma(), imageWidth: image.width, imageHeight: image.height, radiusFraction: radius, engine: engine)
            planes.append(plane)
            if k < last {
                plane.grid.withUnsafeBufferPointer { p in grid.forEachBand(guide: p.baseAddress!) { f.apply($0, gridContext) } }
            }
        }
        return planes
    }

    /// What a sweep over one image needs, prepared once: each filter's conversion and guide (the guides sample the
    /// whole image), the load table, the conversion after the last filter and each thread's scratch. `sweep` then
    /// runs any rows, in any grouping, with the same bytes: filters depend on coordinates, never on the bands.
    struct Sweep {
        fileprivate let steps: [(SpaceConversion, any Filter, GuidePlane?)]
        fileprivate let loadTable: UnsafePointer<Float>?
        fileprivate let tail: SpaceConversion
        fileprivate let scratch: [BandScratch]
        fileprivate let rowsPerBand: Int
        /// The space the values are in after the last filter.
        let last: WorkingSpace

        /// The same sweep with scratch of its own, so that it can run at the same time as this one (on other rows).
        func withOwnScratch() -> Sweep {
            Sweep(steps: steps, loadTable: loadTable, tail: tail,
                  scratch: scratch.map { BandScratch(capacity: $0.capacity) }, rowsPerBand: rowsPerBand, last: last)
        }
    }

    /// Prepares a sweep of `image`; `keepsLastDomain` leaves the values in the last filter's domain (for the output
    /// transform, or `apply`'s keepFinalSpace) instead of converting them back to the image's space.
    func prepare(_ image: WorkingImage, _ context: RenderContext, keepsLastDomain: Bool) -> Sweep {
        let original = image.space
        let rowsPerBand = Renderer.bandRows(width: image.width)
        let scratch = (0..<engine.threads).map { _ in BandScratch(capacity: rowsPerBand * image.width) }
        // When the first filter needs the stored values decoded, the load decodes them: one table lookup a
        // value (the same bits as the curve) instead of evaluating the curve on each.
        var loadTable: UnsafePointer<Float>?
        var loaded = original
        if let first = filters.first, original.encoding != .linear,
           Renderer.space(for: first.domain, storage: original) != original {
            loadTable = CurveCache.halfDecodeTable(original.encoding.transfer)
            loaded = WorkingSpace(primaries: original.primaries, encoding: .linear)
        }
        let conversions = self.conversions(from: loaded, storage: original), guides = self.guides(for: image, context: context)
        let last = finalSpace(storage: original)
        return Sweep(steps: filters.indices.map { (conversions[$0], filters[$0], guides[$0]) }, loadTable: loadTable,
                     tail: SpaceConversion(from: last, to: keepsLastDomain ? last : original), scratch: scratch,
                     rowsPerBand: rowsPerBand, last: last)
    }

    /// The sweep over `rows` of the image: per band (bands start at `rows.lowerBound`), load, then each filter after
    /// a conversion into its domain (a guided filter after sampling its guide), the tail conversion, then store, or
    /// hand the band to `finish` (the image is then left as it was).
    func sweep(_ s: Sweep, _ image: WorkingImage, _ context: RenderContext, rows: Range<Int>, finish: ((PixelBand) -> Void)?) {
        let w = image.width, rowsPerBand = s.rowsPerBand
        let bandCount = (rows.count + rowsPerBand - 1) / rowsPerBand
        let finishBox = UncheckedSendable(finish)
        Parallel.forEach(bandCount, workers: s.scratch.count) { worker, index in
            let scratch = s.scratch[worker]
            let y0 = rows.lowerBound + index * rowsPerBand, count = min(rowsPerBand, rows.upperBound - y0)
            BandIO.load(image, y0: y0, rows: count, into: scratch, mappedThrough: s.loadTable)
            for (conversion, filter, guide) in s.steps {
                conversion.apply(r: scratch.r, g: scratch.g, b: scratch.b, count: count * w)
                // One guide buffer serves every guided filter in turn.
                if let guide { guide.sample(y0: y0, rows: count, into: scratch.guide) }
                filter.apply(scratch.band(y0: y0, rows: count, width: w, withGuide: guide != nil), context)
            }
            s.tail.apply(r: scratch.r, g: scratch.g, b: scratch.b, count: count * w)
            if let finish = finishBox.value {
                finish(scratch.band(y0: y0, rows: count, width: w, withGuide: false))
            } else {
                BandIO.store(scratch, y0: y0, rows: count, into: image)
            }
        }
    }

    /// The one sweep over the whole image (`prepare`, then `sweep` of every row).
    private func execute(_ image: WorkingImage, _ context: RenderContext, finish: ((PixelBand) -> Void)?, keepFinalSpace: Bool = false) {
        let prepared = prepare(image, context, keepsLastDomain: finish != nil || keepFinalSpace)
        sweep(prepared, image, context, rows: 0..<image.height, finish: finish)
        if keepFinalSpace { image.space = prepared.last }
    }
}
