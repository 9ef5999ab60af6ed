import Foundation

/// Runs a chain of filters over a WorkingImage: the *how* to the filters' *what*.
///
/// The chain is cut into passes at every filter that needs a blurred guide (clarity), since the guide is
/// a blur of the whole image as that filter receives it. Inside a pass consecutive filters are fused into
/// one sweep over bands of rows, with domain conversions only where the domain changes. A pass that
/// precedes a guided filter leaves its result in that filter's domain and collects the guide's
/// luminance while its bands are in cache, so a guide costs no pass of its own (only a chain that
/// starts with a guided filter reads the image once just for it). The last pass also performs the
/// output transform, so a neutral recipe costs a single sweep from half floats to output samples.
public struct Renderer: Sendable {
    /// The active (non-neutral) filters, in chain order.
    public let filters: [any Filter]

    public init(chain: [any Filter]) {
        filters = chain.filter { !$0.isNeutral }
    }

    /// Rows per band: about 8k pixels (a single row of a 24 MP frame), so the band's planes stay in the L2
    /// cache while each filter of the pass sweeps them; per-band tables are memoised (`ThreadTables`).
    static func bandRows(width: Int) -> Int { max(1, 8192 / max(1, width)) }

    /// Applies the chain and converts to the output; `image` is left in an unspecified state.
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

    /// One sweep over the image.
    struct Pass {
        /// Filters in order; empty for a guide-only pass or a neutral render.
        var filters: [any Filter]
        /// Whether the result is written back (false for a pass that only collects a guide).
        var writes: Bool
        /// The guided filter that starts the next pass: this pass collects its guide in its domain.
        var nextGuided: (any Filter)?
    }

    /// The passes for this chain: cut before every guided filter that does not start the chain, plus a
    /// read-only pass for the guide when the very first filter is guided.
    func passes() -> [Pass] {
        var segments: [[any Filter]] = [[]]
        for f in filters {
            if f.guideRadius != nil && !segments[segments.count - 1].isEmpty { segments.append([]) }
            segments[segments.count - 1].append(f)
        }
        var out: [Pass] = []
        if let first = filters.first, first.guideRadius != nil {
            out.append(Pass(filters: [], writes: false, nextGuided: first))
        }
        for (i, segment) in segments.enumerated() {
            out.append(Pass(filters: segment, writes: true, nextGuided: i + 1 < segments.count ? segments[i + 1][0] : nil))
        }
        return out
    }

    /// Runs every pass. With `finish` nil the last pass stores its result in the image's own space;
    /// otherwise `finish` receives each band in the space of the last filter and the image keeps whatever
    /// intermediate values the earlier passes stored (with `image.space` saying which).
    private func execute(_ image: WorkingImage, _ context: RenderContext, finish: ((PixelBand) -> Void)?, keepFinalSpace: Bool = false) {
        let original = image.space
        let w = image.width, h = image.height
        let rowsPerBand = Renderer.bandRows(width: w)
        let passes = self.passes()
        let scratch = (0..<Parallel.threads).map { _ in BandScratch(capacity: rowsPerBand * w) }
        var guide: GuidePlane?
        for (k, pass) in passes.enumerated() {
            let last = k == passes.count - 1
            let accumulator = pass.nextGuided.map { _ in GuideAccumulator(width: w, height: h) }
            // Where this pass leaves its values: the next guided filter's domain, the image's own space, or
            // (rendering) the last filter's domain, handed to the output transform.
            let end: WorkingSpace?
            if let next = pass.nextGuided {
                end = Renderer.space(for: next.domain, storage: original)
            } else {
                end = last && (finish != nil || keepFinalSpace) ? nil : original
            }
            run(pass, image, context, original: original, guide: guide, end: end, accumulator: accumulator,
                finish: last ? finish : nil, scratch: scratch, rowsPerBand: rowsPerBand)
            if pass.writes, let end { image.space = end }
            if last && keepFinalSpace { image.space = finalSpace(storage: original) }
            if let radius = pass.nextGuided?.guideRadius, let accumulator {
                guide = accumulator.plane(radiusFraction: radius)
            } else {
                guide = nil
            }
        }
    }

    /// One fused sweep: load, upsample the guide for a guided first filter, the filters (each after a
    /// conversion into its domain), the conversion to `end`, guide collection, then store or `finish`.
    private func run(_ pass: Pass, _ image: WorkingImage, _ context: RenderContext, original: WorkingSpace,
                     guide: GuidePlane?, end: WorkingSpace?, accumulator: GuideAccumulator?,
                     finish: ((PixelBand) -> Void)?, scratch: [BandScratch], rowsPerBand: Int) {
        var steps: [(SpaceConversion, any Filter)] = []
        var current = image.space
        for f in pass.filters {
            let target = Renderer.space(for: f.domain, storage: original)
            steps.append((SpaceConversion(from: current, to: target), f))
            current = target
        }
        let tail = SpaceConversion(from: current, to: end ?? current)
        let sampledGuide = pass.filters.first?.guideRadius != nil ? guide : nil
        let w = image.width, h = image.height
        let bandCount = (h + rowsPerBand - 1) / rowsPerBand
        let finishBox = UncheckedSendable(finish)
        Parallel.forEach(bandCount, workers: scratch.count) { worker, index in
            let s = scratch[worker]
            let y0 = index * rowsPerBand, rows = min(rowsPerBand, h - y0)
            BandIO.load(image, y0: y0, rows: rows, into: s)
            if let sampledGuide { sampledGuide.sample(y0: y0, rows: rows, into: s.guide) }
            let band = s.band(y0: y0, rows: rows, width: w, withGuide: sampledGuide != nil)
            for (conversion, filter) in steps {
                conversion.apply(r: band.r, g: band.g, b: band.b, count: band.count)
                filter.apply(band, context)
            }
            tail.apply(r: band.r, g: band.g, b: band.b, count: band.count)
            // The guide plane has served its filter: its memory now takes the luma for the next guide.
            accumulator?.add(band, luma: s.guide)
            if let finish = finishBox.value {
                finish(band)
            } else if pass.writes {
                BandIO.store(s, y0: y0, rows: rows, into: image)
            }
        }
    }
}
