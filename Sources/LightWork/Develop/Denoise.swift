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
        // Each band's noise model needs the whole band measured before its shrink, and the smoothings do not depend
        // on the shrinks: so one pass measures every band of a channel and, once the models are fitted, a second
        // shrinks them all, each pass cascading the four smoothings over strips of rows in cache
        // (`lw_dn_cascade`) instead of a whole-plane pass per band. The same values as band by band.
        let strips = (h + stripRows - 1) / stripRows
        let workers = engine.workers(for: strips)
        let ringFloats = lw_dn_cascade_scratch(Int32(w), Int32(scales))
        let level = PlanarImage.allocatePlane(n), yOut = PlanarImage.allocatePlane(n)
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: ringFloats * workers)
        let blocks = across * down
        let meanAbs = UnsafeMutablePointer<Float>.allocate(capacity: 3 * scales * blocks)
        let meanLevel = UnsafeMutablePointer<Float>.allocate(capacity: blocks)
        defer { PlanarImage.freePlane(level); PlanarImage.freePlane(yOut); scratch.deallocate(); meanAbs.deallocate(); meanLevel.deallocate() }
        let P = UncheckedSendable((image.r, image.g, image.b, level, yOut, scratch, meanAbs, meanLevel))

        Parallel.forEach(h, workers: engine.workers(for: h)) { _, y in
            let o = y * w
            lw_rgb_to_opponent(P.value.0 + o, P.value.1 + o, P.value.2 + o, Int32(w))
        }
        // Measure: every band of every channel; the luminance's first smoothing is written out as the level
        // every threshold follows.
        for c in 0..<3 {
            let x = UncheckedSendable(planes[c])
            Parallel.forEach(strips, workers: workers) { worker, strip in
                let y0 = strip * stripRows, y1 = min(h, y0 + stripRows)
                var bands = (0..<scales).map { Optional(P.value.6 + (c * scales + $0) * blocks) }
                lw_dn_cascade(x.value, P.value.3, Int32(w), Int32(h), Int32(y0), Int32(y1), Int32(scales), P.value.5 + worker * ringFloats,
                              Int32(block), &bands, c == 0 ? P.value.7 : nil, c == 0 ? P.value.3 : nil, nil, nil, nil, nil)
            }
        }
        var strength = 0
        var decided = ""
        var models: [[(a: Float, b: Float, k2: Float)]] = []
        for c in 0..<3 {
            var previous: NoiseModel?
            var channel: [(a: Float, b: Float, k2: Float)] = []
            for j in 0..<scales {
                guard var model = fit(meanAbs: meanAbs + (c * scales + j) * blocks, meanLevel: meanLevel, count: blocks) else {
                    // Every band has the same blocks per level bin, so the first fails when any does: nothing
                    // is overwritten yet but the opponent conversion.
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
                channel.append((Float(model.a), Float(model.b), 0))
            }
            let k = Float(strength) / 50 * (c == 0 ? lumaThreshold : chromaThreshold)
            models.append(channel.map { ($0.a, $0.b, k * k) })
        }
        // Shrink: each channel's result into a plane already read (Y into the spare, U into Y's, V into U's), as
        // a strip still reads its neighbours' rows of the channel.
        let outputs = [yOut, image.r, image.g]
        for c in 0..<3 {
            let m = models[c]
            let a = m.map(\.a), b = m.map(\.b), k2 = m.map(\.k2)
            let io = UncheckedSendable((planes[c], outputs[c]))
            Parallel.forEach(strips, workers: workers) { worker, strip in
                let y0 = strip * stripRows, y1 = min(h, y0 + stripRows)
                lw_dn_cascade(io.value.0, P.value.3, Int32(w), Int32(h), Int32(y0), Int32(y1), Int32(scales), P.value.5 + worker * ringFloats,
                              Int32(block), nil, nil, nil, a, b, k2, io.value.1)
            }
        }
        Parallel.forEach(h, workers: engine.workers(for: h)) { _, y in
            let o = y * w
            lw_opponent_to_rgb_into(P.value.4 + o, P.value.0 + o, P.value.1 + o, P.value.0 + o, P.value.1 + o, P.value.2 + o, Int32(w))
        }
        context.decisions["denoise"] = decided
        return image
    }

    /// Rows of the strips `lw_dn_cascade` works on (a multiple of `block`): its rings of rows stay in the shared
    /// cache, and the rows it recomputes above each strip (28 of the first smoothing, fewer of the later) cost ~10 %.
    static let stripRows = 256

    /// Side of the blocks the noise is measured on.
    static let block = 16

    /// The k-th smallest of `values` (0-based), as `values.sorted()[k]` but by selection (Hoare's partition with
    /// the middle element as pivot): the fits run on one thread between the passes, and sorting ~94 000 blocks'
    /// figures twelve times was 2 % of the stage. The value, not the order, is the result: the same on any path.
    static func smallest(_ k: Int, of values: [Double]) -> Double {
        precondition(k >= 0 && k < values.count)
        var a = values, lo = 0, hi = a.count - 1
        while lo < hi {
            let pivot = a[(lo + hi) / 2]
            var i = lo, j = hi
            while i <= j {
                while a[i] < pivot { i += 1 }
                while pivot < a[j] { j -= 1 }
                if i <= j { a.swapAt(i, j); i += 1; j -= 1 }
            }
            if k <= j { hi = j } else if k >= i { lo = i } else { return a[k] }
        }
        return a[k]
    }

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
            let sigma = smallest(values.count / 5, of: values)
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
