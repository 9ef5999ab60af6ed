import CShims
import Foundation

/// `--sharpen AMOUNT[:RADIUS]`: capture sharpening after the demosaic — an unsharp mask on luminance in linear
/// light with halo control, so a blurred edge gets steeper without the bright and dark rims of a plain USM.
///
/// Linear light because the blur it undoes (lens, anti-aliasing filter, demosaic) acts on linear light; the
/// usual objection to linear USM (larger bright halos than dark ones) does not apply, since the result is clamped
/// to the 3×3 neighbourhood's range. Only luminance changes (the same linear delta on R, G and B), so colour edges
/// are not sharpened into fringes.
public enum Sharpen: DevelopModule {
    public enum Setting: DevelopSetting {
        /// `amount` (1 = add the full high-pass once) and the Gaussian `radius` (sigma, pixels) of the blur the
        /// mask subtracts; `off` changes nothing.
        case off
        case usm(amount: Double, radius: Double)

        /// The radius when only the amount is given: about the blur of a demosaiced Bayer image.
        public static let defaultRadius = 0.8

        public init(parsing text: String) throws {
            let t = text.trimmingCharacters(in: .whitespaces).lowercased()
            if t == "off" || t == "0" { self = .off; return }
            let parts = t.split(separator: ":", omittingEmptySubsequences: false)
            let amount = parts.count <= 2 ? Double(parts[0]) : nil
            let radius = parts.count == 2 ? Double(parts[1]) : Setting.defaultRadius
            guard let amount, let radius, amount.isFinite, radius.isFinite, (0...5).contains(amount), (0.3...3).contains(radius) else {
                throw LightWorkError.usage("--sharpen \(text): give off or AMOUNT[:RADIUS], AMOUNT 0…5 (e.g. 1), RADIUS 0.3…3 px (default \(Setting.defaultRadius)), e.g. 1:0.8")
            }
            self = amount == 0 ? .off : .usm(amount: amount, radius: radius)
        }

        public var text: String {
            switch self {
            case .off: return "off"
            case let .usm(amount, radius): return String(format: "%.2f:%.2f", amount, radius)
            }
        }

        public var isOff: Bool { self == .off }
    }

    public static let descriptor = DevelopDescriptor(
        name: "sharpen", flag: "sharpen", placeholder: "off|AMOUNT[:RADIUS]",
        help: "capture sharpening after the demosaic: luminance unsharp mask with halo control, e.g. 1:0.8 (default off)",
        placement: .scene)

    public static let defaultSetting = Setting.off

    public static func apply(_ setting: Setting, to image: PlanarImage, context: inout DevelopContext) throws -> PlanarImage {
        guard case let .usm(amount, radius) = setting else { return image }
        LuminanceSharpener.apply(image, amount: Float(amount), sigma: radius, engine: context.engine)
        context.decisions["sharpen"] = "luminance USM amount \(String(format: "%.2f", amount)), sigma \(String(format: "%.2f", radius)) px, halo clamp 3×3"
        return image
    }
}

/// The unsharp mask of `sharpen` and `outputSharpen`, in place on an image's luminance:
///
///     Y  = luminance of (R, G, B) (the primaries' Y row; its weights sum to 1)
///     Y' = Y + amount · (Y − Gauss_sigma(Y)),  clamped to [min, max] of Y over the 3×3 neighbourhood (halo control)
///     (R, G, B) += Y' − Y
///
/// Borders replicate the edge pixel. Rows are done in bands with their own scratch by the row kernels of
/// `lw_sharpen.h`, every sum in a fixed tap order, so the result is the same at any thread count and CPU.
enum LuminanceSharpener {
    /// Rows per band: the horizontally blurred band (plus its margins) stays in one worker's cache.
    static let bandRows = 32

    /// Normalised Gaussian taps for `sigma`, offsets −r…r with r = ⌈3·sigma⌉.
    static func gaussianTaps(sigma: Double) -> [Float] {
        let r = max(1, Int((3 * sigma).rounded(.up)))
        let raw = (-r...r).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let sum = raw.reduce(0, +)
        return raw.map { Float($0 / sum) }
    }

    /// Sharpens `image` in place; `haloControl: false` leaves out the clamp (a plain USM, for tests to compare).
    static func apply(_ image: PlanarImage, amount: Float, sigma: Double, engine: EngineConfiguration, haloControl: Bool = true) {
        let w = image.width, h = image.height
        let yRow = image.primaries.toXYZNative
        let kr = Float(yRow[1, 0]), kg = Float(yRow[1, 1]), kb = Float(yRow[1, 2])
        let taps = gaussianTaps(sigma: sigma)
        let r = taps.count / 2
        let luma = PlanarImage.allocatePlane(w * h)
        defer { PlanarImage.freePlane(luma) }
        let me = UncheckedSendable(image), lp = UncheckedSendable(luma)

        Parallel.forEach(h, workers: engine.workers(for: h)) { _, y in
            let o = y * w
            lw_usm_luma_row(me.value.r + o, me.value.g + o, me.value.b + o, Int32(w), kr, kg, kb, lp.value + o)
        }

        let bands = (h + bandRows - 1) / bandRows
        let workers = engine.workers(for: bands)
        let bandStride = (bandRows + 2 * r) * w
        let rowStride = w + 2 * r
        // Per worker: the band's horizontally blurred rows, one padded source row, the kernel's three rows of scratch.
        let perWorker = bandStride + rowStride + 3 * w
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: workers * perWorker)
        defer { scratch.deallocate() }
        let sp = UncheckedSendable(scratch)
        taps.withUnsafeBufferPointer { tapBuffer in
            let tp = UncheckedSendable(tapBuffer.baseAddress!)
            Parallel.forEach(bands, workers: workers) { worker, band in
                let k = tp.value, l = lp.value, img = me.value
                let base = sp.value + worker * perWorker
                let blurredRows = base, padded = base + bandStride, rowScratch = padded + rowStride
                let y0 = band * bandRows, y1 = min(h, y0 + bandRows)
                // Horizontal pass over the band and r rows either side (edge rows replicated).
                for yy in (y0 - r)..<(y1 + r) {
                    lw_usm_hblur_row(l + min(h - 1, max(0, yy)) * w, Int32(w), k, Int32(r), padded, blurredRows + (yy - (y0 - r)) * w)
                }
                var rows = [UnsafePointer<Float>?](repeating: nil, count: 2 * r + 1)
                for y in y0..<y1 {
                    // Vertical pass over rows y−r…y+r of the band, then the mask and its clamp.
                    for t in 0..<(2 * r + 1) { rows[t] = UnsafePointer(blurredRows + (y - y0 + t) * w) }
                    let o = y * w
                    lw_usm_apply_row(rows, k, Int32(r), l + max(0, y - 1) * w, l + o, l + min(h - 1, y + 1) * w, Int32(w),
                                     amount, haloControl ? 1 : 0, rowScratch, img.r + o, img.g + o, img.b + o)
                }
            }
        }
    }
}
