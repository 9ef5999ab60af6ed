import Foundation

/// Runs a chain of filters over a WorkingImage: the *how* to the filters' *what*.
///
/// The chain is cut into segments at every filter that needs a blurred guide (clarity); inside a
/// segment consecutive point filters are fused into one pass over bands of rows, with domain
/// conversions inserted only where the domain changes. The last segment also performs the output
/// transform, so a neutral recipe costs a single pass from half floats to output samples.
public struct Renderer: Sendable {
    /// The active (non-neutral) filters, in chain order.
    public let filters: [any Filter]

    public init(chain: [any Filter]) {
        filters = chain.filter { !$0.isNeutral }
    }

    /// Rows per band: enough pixels to amortise per-band work, few enough to stay in cache.
    static func bandRows(width: Int) -> Int { max(1, 32768 / max(1, width)) }

    /// Applies the chain and converts to the output; `image` is left in an unspecified state.
    public func render(_ image: WorkingImage, context: RenderContext, output spec: OutputSpec) -> EncodedPixels {
        let output = OutputTransform(input: finalSpace(storage: image.space), space: spec.space, depth: spec.depth,
                                     hasAlpha: image.hasAlpha, keepAlpha: spec.keepAlpha, background: spec.background)
        var result = EncodedPixels(width: image.width, height: image.height, channels: output.channels, depth: output.depth)
        let segments = self.segments()
        for (i, seg) in segments.enumerated() {
            let last = i == segments.count - 1
            if last {
                switch output.depth {
                case .sixteen:
                    result.samples16.withUnsafeMutableBufferPointer { p in
                        let out = UncheckedSendable(p.baseAddress!)
                        run(seg, image, context) { band in output.encode(band, into: out.value) }
                    }
                case .eight:
                    result.samples8.withUnsafeMutableBufferPointer { p in
                        let out = UncheckedSendable(p.baseAddress!)
                        run(seg, image, context) { band in output.encode(band, into: out.value) }
                    }
                }
            } else {
                run(seg, image, context, finish: nil)
            }
        }
        return result
    }

    /// Applies the chain in place, leaving the result in the image's own space (benchmarks, tests, resize).
    public func apply(to image: WorkingImage, context: RenderContext) {
        for seg in segments() { run(seg, image, context, finish: nil) }
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

    private func segments() -> [[any Filter]] {
        var out: [[any Filter]] = [[]]
        for f in filters {
            if f.guideRadius != nil && !out[out.count - 1].isEmpty { out.append([]) }
            out[out.count - 1].append(f)
        }
        return out
    }

    /// One fused pass over the image. With `finish` nil the result is stored back as half floats in the
    /// image's own space; otherwise `finish` receives each band in the space of the last filter.
    private func run(_ segment: [any Filter], _ image: WorkingImage, _ context: RenderContext,
                     finish: ((PixelBand) -> Void)?) {
        let storage = image.space
        var steps: [(SpaceConversion, any Filter)] = []
        var current = storage
        for f in segment {
            let target = Renderer.space(for: f.domain, storage: storage)
            steps.append((SpaceConversion(from: current, to: target), f))
            current = target
        }
        let back = SpaceConversion(from: current, to: storage)
        let guide: GuidePlane? = segment.first.flatMap { f in
            f.guideRadius.map { GuidePlane(image: image, toDomain: SpaceConversion(from: storage, to: Renderer.space(for: f.domain, storage: storage)), radiusFraction: $0) }
        }
        let w = image.width, h = image.height
        let rowsPerBand = Renderer.bandRows(width: w)
        let bandCount = (h + rowsPerBand - 1) / rowsPerBand
        let scratch = (0..<Parallel.threads).map { _ in BandScratch(capacity: rowsPerBand * w) }
        let finishBox = UncheckedSendable(finish)
        Parallel.forEach(bandCount, workers: scratch.count) { worker, index in
            let s = scratch[worker]
            let y0 = index * rowsPerBand, rows = min(rowsPerBand, h - y0)
            BandIO.load(image, y0: y0, rows: rows, into: s)
            if let guide { guide.sample(y0: y0, rows: rows, into: s.guide) }
            let band = s.band(y0: y0, rows: rows, width: w, withGuide: guide != nil)
            for (conversion, filter) in steps {
                conversion.apply(r: band.r, g: band.g, b: band.b, count: band.count)
                filter.apply(band, context)
            }
            if let finish = finishBox.value {
                finish(band)
            } else {
                back.apply(r: band.r, g: band.g, b: band.b, count: band.count)
                BandIO.store(s, y0: y0, rows: rows, into: image)
            }
        }
    }
}
