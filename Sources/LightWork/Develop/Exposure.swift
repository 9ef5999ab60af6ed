import Foundation

/// `--exposure EV`: a gain of 2^EV in linear light, before the base tone and the film chain (the chain's own
/// `brightness` is a look control with a highlight shoulder; this is the photographer's exposure correction).
/// `--exposure auto` chooses the EV by `autoEV`'s percentile rule.
public enum Exposure: PointDevelopModule {
    public enum Setting: DevelopSetting {
        /// A fixed change in stops (0 = off).
        case ev(Double)
        /// Chosen from the image (`Exposure.autoEV`).
        case auto

        public init(parsing text: String) throws {
            let t = text.trimmingCharacters(in: .whitespaces)
            if t.lowercased() == "auto" { self = .auto; return }
            guard let v = Double(t), v.isFinite, (-10...10).contains(v) else {
                throw LightWorkError.usage("--exposure \(text): give a change in stops between -10 and +10, e.g. +0.5, or auto")
            }
            self = .ev(v)
        }

        public var text: String {
            switch self {
            case .ev(let v): return String(format: "%+.2f", v)
            case .auto: return "auto"
            }
        }

        public var isOff: Bool {
            switch self {
            case .ev(let v): return v == 0
            case .auto: return false
            }
        }
    }

    /// `auto`'s targets: the median luminance lands on 18 % grey, unless that would lift the 99th percentile above
    /// `autoCeiling` (then the 99th percentile lands there). Highlights smaller than 1 % of the frame (speculars,
    /// lamps) are above the 99th percentile and do not count; the EV is held within ±`autoLimit`.
    public static let autoMidGrey = 0.18
    public static let autoCeiling = 1.0
    public static let autoHighPercentile = 0.99
    public static let autoLimit = 6.0

    /// The EV `auto` chooses for `image` (nil when it has no lit pixel), from a luminance histogram of every second
    /// pixel of every second row in 1/64-stop bins (integer counts: the same at any thread count).
    public static func autoEV(_ image: PlanarImage, engine: EngineConfiguration) -> Double? {
        let weights = image.primaries.toXYZD50.m[3...5].map { Float($0) }
        let binsPerStop: Float = 64, lowest: Float = -24, bins = Int(32 * binsPerStop)
        let rows = (image.height + 1) / 2, n = image.width
        let workers = engine.workers(for: rows)
        var counts = [Int](repeating: 0, count: workers * bins)
        let me = UncheckedSendable(image)
        counts.withUnsafeMutableBufferPointer { buffer in
            let h = UncheckedSendable(buffer.baseAddress!)
            Parallel.forEach(rows, workers: workers) { worker, half in
                let o = 2 * half * n, hist = h.value + worker * bins
                let r = me.value.r + o, g = me.value.g + o, b = me.value.b + o
                for x in Swift.stride(from: 0, to: n, by: 2) {
                    let y = weights[0] * r[x] + weights[1] * g[x] + weights[2] * b[x]
                    let bin = y > 0 ? Int(((log2(y) - lowest) * binsPerStop).rounded(.down)) : 0
                    hist[min(max(bin, 0), bins - 1)] += 1
                }
            }
        }
        var total = [Int](repeating: 0, count: bins)
        for k in 0..<workers { for i in 0..<bins { total[i] += counts[k * bins + i] } }
        let count = total.reduce(0, +)
        guard count > 0, total[0] < count else { return nil }
        // The luminance below which `q` of the samples lie (the bin's middle).
        func percentile(_ q: Double) -> Double {
            let target = Int((q * Double(count)).rounded(.up))
            var seen = 0
            for (i, c) in total.enumerated() {
                seen += c
                if seen >= max(1, target) { return Double(exp2((Float(i) + 0.5) / binsPerStop + lowest)) }
            }
            return Double(exp2(Float(bins) / binsPerStop + lowest))
        }
        let median = percentile(0.5), high = percentile(autoHighPercentile)
        let ev = min(log2(autoMidGrey / median), log2(autoCeiling / high))
        return min(max(ev, -autoLimit), autoLimit)
    }

    public static let descriptor = DevelopDescriptor(
        name: "exposure", flag: "exposure", placeholder: "EV|auto",
        help: "exposure change in stops, in linear light before the look, or auto (median to 18 % grey, 99th percentile kept below white; default 0)", placement: .scene)

    public static let defaultSetting = Setting.ev(0)

    public static func apply(_ setting: Setting, to image: PlanarImage, context: inout DevelopContext) throws -> PlanarImage {
        var ev: Double
        switch setting {
        case .ev(let v): ev = v
        case .auto:
            guard let chosen = autoEV(image, engine: context.engine) else {
                context.notes.append("exposure auto: the image has no lit pixel, left unchanged")
                return image
            }
            ev = chosen
        }
        context.decisions["exposure"] = decision(setting, ev: ev)
        return gain(ev).run(on: image, engine: context.engine)
    }

    /// A fixed EV is per pixel; `auto` reads the whole image first.
    public static func pointOperation(_ setting: Setting, context: inout DevelopContext) -> PointOperation? {
        guard case .ev(let ev) = setting else { return nil }
        context.decisions["exposure"] = decision(setting, ev: ev)
        return gain(ev)
    }

    /// The gain of 2^`ev` on every channel.
    static func gain(_ ev: Double) -> PointOperation {
        let gain = Float(exp2(ev))
        return PointOperation { r, g, b, n in
            for x in 0..<n { r[x] *= gain }
            for x in 0..<n { g[x] *= gain }
            for x in 0..<n { b[x] *= gain }
        }
    }

    static func decision(_ setting: Setting, ev: Double) -> String {
        setting == .auto ? String(format: "auto: %+.2f EV (median to %.0f %% grey, 99th percentile at most %.2f)", ev, autoMidGrey * 100, autoCeiling)
            : setting.text + " EV"
    }
}
