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
        let workers = engine.workers(for: h)
        let planes = [image.r, image.g, image.b]
        let level = UnsafeMutablePointer<Float>.allocate(capacity: n)
        let s1 = UnsafeMutablePointer<Float>.allocate(capacity: n)
        let acc = UnsafeMutablePointer<Float>.allocate(capacity: n)
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: w * workers)
        defer { level.deallocate(); s1.deallocate(); acc.deallocate(); scratch.deallocate() }
        let P = UncheckedSendable((image.r, image.g, image.b, level, s1, acc, scratch))

        Parallel.forEach(h, workers: workers) { _, y in
            let o = y * w
            lw_rgb_to_opponent(P.value.0 + o, P.value.1 + o, P.value.2 + o, Int32(w))
        }
        // The luminance at the first smoothing is the level every threshold follows.
        smooth(planes[0], into: level, width: w, height: h, step: 1, workers: workers, scratch: scratch)

        var strength = 0
        var decided = ""
        for c in 0..<3 {
            let x = planes[c]
            var previous: NoiseModel?
            for j in 0..<scales {
                // Fine and coarse alternate between the channel's plane and s1; the shrunk details add up in acc.
                let (fine, coarse) = j % 2 == 0 ? (x, s1) : (s1, x)
                if c == 0 && j == 0 { coarse.update(from: level, count: n) } else {
                    smooth(fine, into: coarse, width: w, height: h, step: 1 << j, workers: workers, scratch: scratch)
                }
                guard var model = measure(fine: fine, coarse: coarse, level: level, width: w, height: h, workers: workers) else {
                    context.notes.append("denoise: image too small to measure its noise (\(w)×\(h)); left as it was")
                    Parallel.forEach(h, workers: workers) { _, y in
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
                let a = Float(model.a), b = Float(model.b), k2 = k * k, first: Int32 = j == 0 ? 0 : 1
                Parallel.forEach(h, workers: workers) { _, y in
                    let o = y * w
                    lw_garrote_row(fine + o, coarse + o, P.value.3 + o, Int32(w), a, b, k2, P.value.5 + o, first)
                }
            }
            // The coarsest approximation plus the shrunk details.
            let last = scales % 2 == 0 ? x : s1
            Parallel.forEach(h, workers: workers) { _, y in
                let o = y * w
                for i in o..<(o + w) { x[i] = last[i] + P.value.5[i] }
            }
        }
        Parallel.forEach(h, workers: workers) { _, y in
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

    /// The noise model of the band fine − coarse. Over blocks of 16 × 16 pixels, each block's mean |detail| read
    /// as a Gaussian σ (× √(π/2)); per luminance bin (16, on √L) the 20th percentile of the blocks' σ, so that
    /// flat blocks speak and blocks holding edges or texture do not; then a + b · L fitted by least squares
    /// weighted by the bins' block counts. Each block is summed by one thread in a fixed order, so the result does
    /// not depend on the thread count. Nil when the image has no bin of 8 blocks.
    static func measure(fine: UnsafeMutablePointer<Float>, coarse: UnsafeMutablePointer<Float>, level: UnsafeMutablePointer<Float>,
                        width w: Int, height h: Int, workers: Int) -> NoiseModel? {
        let across = w / block, down = h / block
        guard across > 0, down > 0 else { return nil }
        let meanAbs = UnsafeMutablePointer<Float>.allocate(capacity: across * down)
        let meanLevel = UnsafeMutablePointer<Float>.allocate(capacity: across * down)
        defer { meanAbs.deallocate(); meanLevel.deallocate() }
        let P = UncheckedSendable((fine, coarse, level, meanAbs, meanLevel))
        Parallel.forEach(down, workers: max(1, min(workers, down))) { _, row in
            lw_dn_block_stats(P.value.0, P.value.1, P.value.2, Int32(w), Int32(row * block), Int32(block),
                              P.value.3 + row * across, P.value.4 + row * across)
        }
        let levels = 16
        var sigmas = [[Double]](repeating: [], count: levels)
        for i in 0..<(across * down) {
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
