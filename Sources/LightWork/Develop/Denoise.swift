import CShims
import Foundation

/// `--denoise off|STRENGTH|auto`: wavelet noise reduction in linear light, luminance and chroma apart.
///
/// The image goes to an opponent space (Y = mean of R, G, B; U, V two colour differences) and each channel is
/// split by an à-trous B3-spline decomposition into `scales` detail bands. Raw noise is Poisson-Gaussian (variance
/// a + b · signal), so rather than stabilising the variance and inverting (biased in the shadows) the threshold of
/// every coefficient follows the model at the local luminance: T² = k² (a + b · L). The model of every band and
/// channel is measured on the image itself (a low percentile of 16-pixel blocks' σ per luminance bin, fitted to a + b · L),
/// so demosaic-correlated noise and the colour matrix's mixing are what is measured, not assumed. Each detail
/// coefficient goes through a non-negative garrote (d − T²/d above T, 0 below), which keeps strong edges nearly
/// untouched; chroma is shrunk harder than luminance.
///
/// STRENGTH 1…100 scales the thresholds (50: T = the measured noise σ for luminance, 2.5 σ for chroma; 100:
/// twice that). `auto` picks 25…60 from the ISO and the measured luminance noise (see `autoStrength`).
public enum Denoise: DevelopModule {
    public enum Setting: DevelopSetting {
        case off
        /// 1…100, 50 thresholding at the measured noise.
        case strength(Int)
        /// From the ISO and the noise measured on the image.
        case auto

        public init(parsing text: String) throws {
            let t = text.trimmingCharacters(in: .whitespaces).lowercased()
            switch t {
            case "off": self = .off
            case "auto": self = .auto
            default:
                guard let v = Double(t), v.isFinite, (0...100).contains(v), v == v.rounded() else {
                    throw LightWorkError.usage("--denoise \(text): give off, auto or a strength 0…100 (50 removes the measured noise)")
                }
                self = v == 0 ? .off : .strength(Int(v))
            }
        }

        public var text: String {
            switch self {
            case .off: return "off"
            case .auto: return "auto"
            case .strength(let s): return String(s)
            }
        }

        public var isOff: Bool { self == .off }
    }

    public static let descriptor = DevelopDescriptor(
        name: "denoise", flag: "denoise", placeholder: "off|STRENGTH|auto",
        help: "wavelet noise reduction in linear light, chroma harder than luminance: 1…100 (50 removes the measured noise) or auto from ISO and measured noise (default off)",
        placement: .scene)

    public static let defaultSetting = Setting.off

    /// Detail bands (spacings 1, 2, 4, 8: coarse enough for chroma blotches).
    static let scales = 4
    /// Threshold in units of the measured noise σ at strength 50, for Y and for U, V.
    static let lumaThreshold: Float = 1.0
    static let chromaThreshold: Float = 2.5

    /// Noise variance of one band and channel as a function of the local luminance L: a + b · L.
    struct NoiseModel: Equatable {
        var a: Double
        var b: Double
        func sigma(at level: Double) -> Double { (max(0, a + b * max(level, 0))).squareRoot() }
    }

    /// `auto`'s rule, from the strength sweeps of DenoiseTests (the best PSNR at 50 from ISO 800 to 12800, SSIM
    /// rising a little further at 12800): the measured luminance noise-to-signal at mid grey (finest band) gives
    /// 25 at 1 % rising 12.5 a doubling, the ISO 25 at ISO 100 rising 5 a stop; the larger, within 25…60.
    static func autoStrength(iso: Double?, noiseToSignal: Double) -> Int {
        let fromNoise = noiseToSignal > 0 ? 25 + 12.5 * log2(noiseToSignal / 0.01) : 25
        let fromISO = iso.map { 25 + 5 * log2(max($0, 1) / 100) } ?? 25
        return Int(min(60, max(25, max(fromNoise, fromISO))).rounded())
    }

    public static func apply(_ setting: Setting, to image: PlanarImage, context: inout DevelopContext) throws -> PlanarImage {
        guard !setting.isOff else { return image }
        let w = image.width, h = image.height, n = w * h
        let engine = context.engine
        let planes = [image.r, image.g, image.b]
        let across = w / block, down = h / block
        guard across > 0, down > 0 else {
            context.notes.append("denoise: image too small to measure its noise (\(w)×\(h)); left as it was")
            return image
        }
        let bands = (h + block - 1) / block
        let workers = engine.workers(for: bands)
        let level = PlanarImage.allocatePlane(n), s1 = PlanarImage.allocatePlane(n), acc = PlanarImage.allocatePlane(n)
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: w * max(workers, engine.workers(for: h)))
        let meanAbs = UnsafeMutablePointer<Float>.allocate(capacity: across * down)
        let meanLevel = UnsafeMutablePointer<Float>.allocate(capacity: across * down)
        defer { PlanarImage.freePlane(level); PlanarImage.freePlane(s1); PlanarImage.freePlane(acc); scratch.deallocate(); meanAbs.deallocate(); meanLevel.deallocate() }
        let P = UncheckedSendable((image.r, image.g, image.b, level, s1, acc, scratch, meanAbs, meanLevel))

        Parallel.forEach(h, workers: engine.workers(for: h)) { _, y in
            let o = y * w
            lw_rgb_to_opponent(P.value.0 + o, P.value.1 + o, P.value.2 + o, Int32(w))
        }
        // The luminance at the first smoothing is the level every threshold follows.
        smooth(planes[0], into: level, width: w, height: h, step: 1, workers: engine.workers(for: h), scratch: scratch)

        var strength = 0
        var decided = ""
        for c in 0..<3 {
            let x = planes[c]
            var previous: NoiseModel?
            // The shrink of band j − 1 waiting for the pass of band j (its threshold needs the whole band measured).
            var pending: (a: Float, b: Float, k2: Float, first: Int32)?
            for j in 0..<scales {
                // Fine and coarse alternate between the channel's plane and s1; the shrunk details add up in acc.
                let (fine, coarse) = j % 2 == 0 ? (x, s1) : (s1, x)
                let copyLevel = c == 0 && j == 0, step = Int32(1 << j), shrink = pending
                // One pass per band of `block` rows: the previous band's shrink (it reads the rows this smoothing
                // is about to overwrite: coarse is the previous fine), this band's smoothing, and its noise
                // statistics while the rows are in cache. Same values as separate passes, in the same order.
                let Q = UncheckedSendable((fine, coarse))
                Parallel.forEach(bands, workers: workers) { worker, band in
                    let (fine, coarse) = Q.value
                    let y0 = band * block, y1 = min(h, y0 + block)
                    for y in y0..<y1 {
                        let o = y * w
                        if let t = shrink { lw_garrote_row(coarse + o, fine + o, P.value.3 + o, Int32(w), t.a, t.b, t.k2, P.value.5 + o, t.first) }
                        if copyLevel { (coarse + o).update(from: P.value.3 + o, count: w) } else {
                            lw_atrous_row(fine, Int32(w), Int32(h), Int32(y), step, P.value.6 + worker * w, coarse + o)
                        }
                    }
                    if band < down {
                        lw_dn_block_stats(fine, coarse, P.value.3, Int32(w), Int32(y0), Int32(block), P.value.7 + band * across, P.value.8 + band * across)
                    }
                }
                guard var model = fit(meanAbs: meanAbs, meanLevel: meanLevel, count: across * down) else {
                    // Only the first band can fail (every band has the same blocks per level bin): nothing is
                    // overwritten yet but the opponent conversion.
                    context.notes.append("denoise: image too small to measure its noise (\(w)×\(h)); left as it was")
                    Parallel.forEach(h, workers: engine.workers(for: h)) { _, y in
                        let o = y * w
                        lw_opponent_to_rgb(P.value.0 + o, P.value.1 + o, P.value.2 + o, Int32(w))
                    }
                    return image
                }
                // Noise power falls with scale; more measured at a coarse band is structure, not noise.
                if let p = previous { model = NoiseModel(a: min(model.a, p.a), b: min(model.b, p.b)) }
                previous = model
                if c == 0 && j == 0 {
                    let nsr = model.sigma(at: 0.18) / 0.18
                    switch setting {
                    case .strength(let s): strength = s; decided = "strength \(s)"
                    case .auto:
                        strength = autoStrength(iso: context.metadata.iso, noiseToSignal: nsr)
                        decided = "strength \(strength) (auto from " + (context.metadata.iso.map { "ISO \(Int($0)), " } ?? "") + "measured noise)"
                    case .off: strength = 0
                    }
                    decided += String(format: "; luminance noise σ %.2f %% of mid grey", 100 * nsr)
                }
                let k = Float(strength) / 50 * (c == 0 ? lumaThreshold : chromaThreshold)
                pending = (Float(model.a), Float(model.b), k * k, j == 0 ? 0 : 1)
            }
            // The last band's shrink, and the coarsest approximation plus the shrunk details.
            let t = pending!
            let (fine, last) = scales % 2 == 0 ? (s1, x) : (x, s1)
            Parallel.forEach(h, workers: engine.workers(for: h)) { _, y in
                let o = y * w
                lw_garrote_row(fine + o, last + o, P.value.3 + o, Int32(w), t.a, t.b, t.k2, P.value.5 + o, t.first)
                for i in o..<(o + w) { x[i] = last[i] + P.value.5[i] }
            }
        }
        Parallel.forEach(h, workers: engine.workers(for: h)) { _, y in
            let o = y * w
            lw_opponent_to_rgb(P.value.0 + o, P.value.1 + o, P.value.2 + o, Int32(w))
        }
        context.decisions["denoise"] = decided
        return image
    }

    /// One à-trous smoothing of a whole plane at spacing `step`.
    static func smooth(_ source: UnsafeMutablePointer<Float>, into destination: UnsafeMutablePointer<Float>,
                       width w: Int, height h: Int, step: Int, workers: Int, scratch: UnsafeMutablePointer<Float>) {
        let P = UncheckedSendable((source, destination, scratch))
        Parallel.forEach(h, workers: workers) { worker, y in
            lw_atrous_row(P.value.0, Int32(w), Int32(h), Int32(y), Int32(step), P.value.2 + worker * w, P.value.1 + y * w)
        }
    }

    /// Side of the blocks the noise is measured on.
    static let block = 16

    /// The noise model of a band from its blocks' statistics (`lw_dn_block_stats`: each 16 × 16 block's mean
    /// |detail| and mean level). Each block's mean |detail| is read as a Gaussian σ (× √(π/2)); per luminance bin
    /// (16, on √L) the 20th percentile of the blocks' σ, so that flat blocks speak and blocks holding edges or
    /// texture do not; then a + b · L fitted by least squares weighted by the bins' block counts. Each block is
    /// summed by one thread in a fixed order, so the result does not depend on the thread count. Nil when the
    /// image has no bin of 8 blocks.
    static func fit(meanAbs: UnsafeMutablePointer<Float>, meanLevel: UnsafeMutablePointer<Float>, count: Int) -> NoiseModel? {
        let levels = 16
        var sigmas = [[Double]](repeating: [], count: levels)
        for i in 0..<count {
            let l = min(max(Double(meanLevel[i]), 0), 1)
            sigmas[min(levels - 1, Int(l.squareRoot() * Double(levels)))].append(Double(meanAbs[i]) * (Double.pi / 2).squareRoot())
        }
        var sw = 0.0, sl = 0.0, sv = 0.0, sll = 0.0, slv = 0.0
        for (lb, values) in sigmas.enumerated() where values.count >= 8 {
            let sigma = values.sorted()[values.count / 5]
            let centre = (Double(lb) + 0.5) / Double(levels)
            let l = centre * centre, v = sigma * sigma, wt = Double(values.count)
            sw += wt; sl += wt * l; sv += wt * v; sll += wt * l * l; slv += wt * l * v
        }
        guard sw > 0 else { return nil }
        let det = sw * sll - sl * sl
        var a = sv / sw, b = 0.0
        if det > 1e-12 * sw * sw {
            b = (sw * slv - sl * sv) / det
            a = (sv - b * sl) / sw
        }
        // Physical models only: a negative term means the other explains the data alone.
        if b < 0 { b = 0; a = sv / sw }
        if a < 0 { a = 0; b = sll > 0 ? slv / sll : 0 }
        return NoiseModel(a: a, b: b)
    }
}
