import CLibRaw
import CShims
import Foundation

/// `--wb`: the white the picture is balanced for. `camera` (the default) keeps the file's as-shot balance, byte for
/// byte; a preset or `K[:tint]` names the light's white point; `auto` estimates it from the data; `spot:X,Y,W,H`
/// takes it from a neutral region (fractions of the upright frame).
///
/// RAW: the white becomes the camera neutral (through the DNG colour model's temperature-interpolated matrices, or
/// LibRaw's camera matrix), whose inverse is the multipliers the demosaic applies; the DNG colour model then
/// re-interpolates its matrices for that neutral. JPEG/PNG: a von Kries adaptation in Bradford cone space, in linear
/// light, from the chosen white to the image's own (D65) white.
public enum WhiteBalance: DevelopModule {
    /// A named light, each the chromaticity of a CIE standard illuminant (flash: 5500 K on the Planckian locus).
    public enum Preset: String, Sendable, CaseIterable {
        case daylight, cloudy, shade, tungsten, fluorescent, flash

        /// The light's white point (CIE 1931 xy, 2° observer).
        public var white: SIMD2<Double> {
            switch self {
            case .daylight: return SIMD2(0.33242, 0.34743)            // D55
            case .cloudy: return SIMD2(0.31271, 0.32902)              // D65
            case .shade: return SIMD2(0.29902, 0.31485)               // D75
            case .tungsten: return SIMD2(0.44757, 0.40745)            // illuminant A
            case .fluorescent: return SIMD2(0.37208, 0.37529)         // F2, cool white fluorescent
            case .flash: return ColorTemperature(kelvin: 5500).xy     // xenon flash, 5500 K, tint 0
            }
        }

        /// What the white is, for the manifest and docs.
        public var illuminant: String {
            switch self {
            case .daylight: return "CIE D55"
            case .cloudy: return "CIE D65"
            case .shade: return "CIE D75"
            case .tungsten: return "CIE A"
            case .fluorescent: return "CIE F2"
            case .flash: return "5500 K"
            }
        }
    }

    /// A region of the upright frame, in fractions of its width and height.
    public struct Region: Sendable, Equatable {
        public var x, y, w, h: Double
        public init(x: Double, y: Double, w: Double, h: Double) { (self.x, self.y, self.w, self.h) = (x, y, w, h) }
    }

    public enum Setting: DevelopSetting {
        /// The file's as-shot balance (RAW) or nothing (JPEG/PNG).
        case camera
        /// Estimated from the data (`WhiteBalance.estimateNeutral`).
        case auto
        case preset(Preset)
        /// Correlated colour temperature and tint (the DNG SDK's and Lightroom's: + is magenta, − green).
        case temperature(kelvin: Double, tint: Double)
        /// The mean of the unclipped pixels of a region taken as neutral.
        case spot(Region)

        public static let kelvinRange = 2000.0...25000.0
        public static let tintRange = -150.0...150.0

        public init(parsing text: String) throws {
            let t = text.trimmingCharacters(in: .whitespaces).lowercased()
            func bad(_ why: String) -> LightWorkError {
                .usage("--wb \(text): \(why) (give camera, auto, \(Preset.allCases.map(\.rawValue).joined(separator: ", ")), K[:tint] e.g. 5200:+8, or spot:X,Y,W,H in fractions of the frame)")
            }
            if t == "camera" { self = .camera; return }
            if t == "auto" { self = .auto; return }
            if let p = Preset(rawValue: t) { self = .preset(p); return }
            if t.hasPrefix("spot:") {
                let v = t.dropFirst(5).split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
                guard v.count == 4, let x = v[0], let y = v[1], let w = v[2], let h = v[3], [x, y, w, h].allSatisfy(\.isFinite) else {
                    throw bad("a spot is four fractions X,Y,W,H")
                }
                guard x >= 0, y >= 0, w > 0, h > 0, x + w <= 1 + 1e-9, y + h <= 1 + 1e-9 else {
                    throw bad("the spot must lie inside the frame (X, Y ≥ 0, W, H > 0, X+W ≤ 1, Y+H ≤ 1)")
                }
                self = .spot(Region(x: x, y: y, w: w, h: h)); return
            }
            let parts = t.split(separator: ":", omittingEmptySubsequences: false)
            guard (1...2).contains(parts.count), let k = Double(parts[0].replacingOccurrences(of: "k", with: "")), k.isFinite else {
                throw bad("not a white balance")
            }
            guard Setting.kelvinRange.contains(k) else { throw bad("a temperature between 2000 and 25000 K") }
            var tint = 0.0
            if parts.count == 2 {
                guard let v = Double(parts[1]), v.isFinite, Setting.tintRange.contains(v) else { throw bad("a tint between -150 and +150") }
                tint = v
            }
            self = .temperature(kelvin: k, tint: tint)
        }

        public var text: String {
            switch self {
            case .camera: return "camera"
            case .auto: return "auto"
            case .preset(let p): return p.rawValue
            case .temperature(let k, let tint):
                return WhiteBalance.number(k) + (tint == 0 ? "" : ":" + (tint > 0 ? "+" : "") + WhiteBalance.number(tint))
            case .spot(let r): return "spot:" + [r.x, r.y, r.w, r.h].map(WhiteBalance.number).joined(separator: ",")
            }
        }

        public var isOff: Bool { self == .camera }

        /// The white point a preset or temperature names (nil for camera, auto and spot, which come from the data).
        public var namedWhite: SIMD2<Double>? {
            switch self {
            case .preset(let p): return p.white
            case .temperature(let k, let tint): return ColorTemperature(kelvin: k, tint: tint).xy
            default: return nil
            }
        }
    }

    public static let descriptor = DevelopDescriptor(
        name: "whiteBalance", flag: "wb", placeholder: "camera|auto|daylight|cloudy|shade|tungsten|fluorescent|flash|K[:tint]|spot:X,Y,W,H",
        help: "white balance: the file's as-shot (camera, default), estimated (auto), a preset, a temperature in K with a Lightroom tint, or a neutral region in fractions of the frame",
        placement: .decode)

    public static let defaultSetting = Setting.camera

    /// A number in its shortest exact-enough form (up to 4 decimals, no trailing zeros).
    static func number(_ v: Double) -> String {
        var s = String(format: "%.4f", v)
        while s.hasSuffix("0") { s.removeLast() }
        if s.hasSuffix(".") { s.removeLast() }
        return s == "-0" ? "0" : s
    }

    /// "K tint" of a white point, for the manifest.
    static func describe(_ xy: SIMD2<Double>) -> String {
        let t = ColorTemperature(xy: xy)
        return String(format: "%.0f K tint %+.1f (x %.4f y %.4f)", t.kelvin, t.tint, xy.x, xy.y)
    }

    // MARK: - The estimate

    /// Clipped: any channel at or above this fraction of its clipping level (demosaicing spreads a clipped sample).
    static let clipFraction: Float = 0.97
    /// Dark: the brightest channel below this fraction of the clipping level (noise decides its colour there).
    static let darkFraction: Float = 0.005
    /// How far (natural-log chromaticity distance, log r/g and log b/g) a sample may be from a white to count as neutral.
    static let neutralRadius = 0.08
    /// The share of the usable samples, brightest first, that vote for the light: the brightest surfaces are the
    /// likeliest to be white or light grey (the "bright pixels" observation of Joze et al., 2012).
    static let brightShare = 0.05

    /// Samples of an image's linear RGB for an estimate: each a small cell's mean colour, clip level 1.
    struct Samples {
        var values: [SIMD3<Float>] = []
        /// Cells that had a clipped channel (left out).
        var clipped = 0
    }

    /// The neutral (largest channel 1) of the light lighting `samples`, or nil when too few usable samples.
    ///
    /// Robust "bright near-neutral" rule: unclipped, non-dark samples only. Each candidate light along the
    /// Planckian locus (`locus`: the image-space neutral of a white point, 2000…15000 K every 5 mired, tints −10, 0, +10)
    /// scores the summed brightness of the brightest 5 % of the samples that are neutral under it (within
    /// `neutralRadius`); the winner is refined four times to the mean of all samples neutral under it, which lets it
    /// leave the locus. Without a locus the refinement starts from the mean of the brightest 5 %.
    static func estimateNeutral(_ samples: [SIMD3<Float>], locus: ((SIMD2<Double>) -> SIMD3<Double>?)?) -> SIMD3<Double>? {
        let usable = samples.filter { $0.min() > 0 && $0.max() >= darkFraction }
        guard usable.count >= 32 else { return nil }
        let logs = usable.map { SIMD3<Double>(log(Double($0.x)), log(Double($0.y)), log(Double($0.z))) }
        let brightness = usable.map { Double($0.x + $0.y + $0.z) }
        let order = brightness.indices.sorted { brightness[$0] != brightness[$1] ? brightness[$0] > brightness[$1] : $0 < $1 }
        let bright = Array(order.prefix(max(32, Int(Double(usable.count) * brightShare))))
        let r2 = neutralRadius * neutralRadius
        @inline(__always) func isNeutral(_ i: Int, _ ln: SIMD3<Double>) -> Bool {
            let d = logs[i] - ln
            let u = d.x - d.y, v = d.z - d.y
            return u * u + v * v <= r2
        }
        func logNeutral(_ n: SIMD3<Double>) -> SIMD3<Double> { SIMD3(log(n.x), log(n.y), log(n.z)) }
        var neutral: SIMD3<Double>
        if let locus {
            var best: (score: Double, n: SIMD3<Double>)?
            var mired = 1e6 / 15000
            while mired <= 1e6 / 2000 {
                for tint in [-10.0, 0, 10] {
                    guard let n = locus(ColorTemperature(kelvin: 1e6 / mired, tint: tint).xy), n.min() > 0 else { continue }
                    let ln = logNeutral(n)
                    var score = 0.0
                    for i in bright where isNeutral(i, ln) { score += brightness[i] }
                    if score > (best?.score ?? 0) { best = (score, n) }
                }
                mired += 5
            }
            guard let best else { return nil }
            neutral = best.n
        } else {
            var sum = SIMD3<Double>(0, 0, 0)
            for i in bright { sum += SIMD3(Double(usable[i].x), Double(usable[i].y), Double(usable[i].z)) }
            neutral = sum
        }
        for _ in 0..<4 {
            let ln = logNeutral(neutral / neutral.max())
            var sum = SIMD3<Double>(0, 0, 0), count = 0
            for i in usable.indices where isNeutral(i, ln) {
                sum += SIMD3(Double(usable[i].x), Double(usable[i].y), Double(usable[i].z))
                count += 1
            }
            guard count >= 16 else { break }
            neutral = sum
        }
        return neutral / neutral.max()
    }

    /// The mean of the unclipped samples of a spot (nil when none is unclipped and positive).
    static func spotNeutral(_ samples: [SIMD3<Float>]) -> SIMD3<Double>? {
        var sum = SIMD3<Double>(0, 0, 0)
        for s in samples { sum += SIMD3(Double(s.x), Double(s.y), Double(s.z)) }
        guard !samples.isEmpty, sum.min() > 0 else { return nil }
        return sum / sum.max()
    }

    /// The neutral the data says for `setting` (auto or spot), or a typed error naming why there is none.
    static func dataNeutral(_ setting: Setting, samples: Samples, locus: ((SIMD2<Double>) -> SIMD3<Double>?)?) throws -> SIMD3<Double> {
        if case .spot = setting {
            guard let n = spotNeutral(samples.values) else {
                throw LightWorkError.decodeFailed("--wb \(setting.text): the region has no unclipped pixel with every channel above black")
            }
            return n
        }
        guard let n = estimateNeutral(samples.values, locus: locus) else {
            throw LightWorkError.decodeFailed("--wb auto: too few unclipped, non-dark pixels to estimate the light (\(samples.values.count) usable of \(samples.values.count + samples.clipped))")
        }
        return n
    }

    // MARK: - RGB path

    /// On an encoded image (linear light, its own primaries): a Bradford adaptation from the chosen white (named, or
    /// the estimated neutral's) to the primaries' white.
    public static func apply(_ setting: Setting, to image: PlanarImage, context: inout DevelopContext) throws -> PlanarImage {
        let toXYZ = image.primaries.toXYZNative
        let native = toXYZ * SIMD3(1, 1, 1)
        let white: SIMD3<Double>
        if let xy = setting.namedWhite {
            white = CIE.xyToXYZ(x: xy.x, y: xy.y)
        } else {
            let region: Region
            if case .spot(let r) = setting { region = r } else { region = Region(x: 0, y: 0, w: 1, h: 1) }
            let samples = planeSamples(image, region: region, all: region.w * region.h < 1)
            let locus: (SIMD2<Double>) -> SIMD3<Double>? = { xy in toXYZ.inverse * CIE.xyToXYZ(x: xy.x, y: xy.y) }
            let n = try dataNeutral(setting, samples: samples, locus: locus)
            let xyz = toXYZ * n
            white = xyz / xyz.y
        }
        let m = toXYZ.inverse * CIE.bradfordAdaptation(from: white, to: native) * toXYZ
        let xy = SIMD2(white.x / white.sum(), white.y / white.sum())
        context.decisions["whiteBalance"] = "\(setting.text): \(describe(xy)), Bradford to the image's white"
        let f = m.floats, n = image.width, me = UncheckedSendable(image)
        Parallel.forEach(image.height, workers: context.engine.workers(for: image.height)) { _, y in
            let r = me.value.r + y * n, g = me.value.g + y * n, b = me.value.b + y * n
            for x in 0..<n {
                let rx = r[x], gx = g[x], bx = b[x]
                r[x] = f[0] * rx + f[1] * gx + f[2] * bx
                g[x] = f[3] * rx + f[4] * gx + f[5] * bx
                b[x] = f[6] * rx + f[7] * gx + f[8] * bx
            }
        }
        return image
    }

    /// Samples of at most about `sampleLimit` pixels of `region` (every pixel when `all` and the region is small).
    static func planeSamples(_ image: PlanarImage, region: Region, all: Bool) -> Samples {
        let x0 = min(image.width - 1, Int(region.x * Double(image.width)))
        let y0 = min(image.height - 1, Int(region.y * Double(image.height)))
        let x1 = max(x0 + 1, min(image.width, Int((region.x + region.w) * Double(image.width))))
        let y1 = max(y0 + 1, min(image.height, Int((region.y + region.h) * Double(image.height))))
        let step = stride(for: (x1 - x0) * (y1 - y0))
        var s = Samples()
        for y in Swift.stride(from: y0, to: y1, by: step) {
            for x in Swift.stride(from: x0, to: x1, by: step) {
                let p = image.pixel(x: x, y: y)
                if p.max() >= clipFraction { s.clipped += 1 } else { s.values.append(p) }
            }
        }
        return s
    }

    /// At most this many cells are sampled (a regular grid over larger areas): enough for a stable estimate.
    static let sampleLimit = 400_000

    /// The grid step that keeps `count` cells within `sampleLimit`.
    static func stride(for count: Int) -> Int {
        max(1, Int((Double(count) / Double(sampleLimit)).squareRoot().rounded(.up)))
    }
}

// MARK: - RAW path

extension WhiteBalance {
    /// The white-balance multipliers (camera R, G, B, smallest 1) for a non-camera `setting` of the RAW file unpacked
    /// in `lr`, and the manifest's text; `model` gives the camera neutral of a white point.
    static func rawMultipliers(_ setting: Setting, libRaw lr: UnsafeMutablePointer<libraw_data_t>,
                               model: DNGColorModel?) throws -> (multipliers: SIMD3<Double>, decision: String) {
        let d = lr.pointee
        guard d.idata.colors == 3 else {
            throw LightWorkError.unsupportedFormat("--wb \(setting.text) needs a three-colour sensor (this one has \(d.idata.colors))")
        }
        guard d.color.as_shot_wb_applied == 0 else {
            throw LightWorkError.unsupportedFormat("--wb \(setting.text): this file's data is white-balanced already; only --wb camera applies")
        }
        let locus: ((SIMD2<Double>) -> SIMD3<Double>?)? = model.map { m in { xy in m.neutral(at: xy) } }
        let neutral: SIMD3<Double>
        var how: String
        if let xy = setting.namedWhite {
            guard let model else {
                throw LightWorkError.unsupportedFormat("--wb \(setting.text): LibRaw knows no colour matrix for this camera, so a white point cannot be turned into multipliers")
            }
            neutral = model.neutral(at: xy)
            how = describe(xy)
            if case .preset(let p) = setting { how = "\(p.illuminant), " + how }
        } else {
            let samples = try rawSamples(libRaw: lr, setting: setting)
            neutral = try dataNeutral(setting, samples: samples, locus: locus)
            how = model.map { describe($0.whitePoint(neutral: neutral)) } ?? "no camera matrix to name its temperature"
            how += ", \(samples.values.count) samples"
        }
        var m = 1 / neutral
        m /= m.min()
        guard [m.x, m.y, m.z].allSatisfy({ $0.isFinite && $0 > 0 && $0 < 1000 }) else {
            throw LightWorkError.decodeFailed("--wb \(setting.text): the white gives unusable multipliers")
        }
        let text = "\(setting.text) (\(how)), multipliers " + [m.x, m.y, m.z].map { String(format: "%.4f", $0) }.joined(separator: " ")
        return (m, text)
    }

    /// Cells of the raw data (camera RGB above black, clip level 1) for `auto` (the whole frame on a grid) or `spot`
    /// (its region, mapped from the upright frame through the orientation to the sensor).
    static func rawSamples(libRaw lr: UnsafeMutablePointer<libraw_data_t>, setting: Setting) throws -> Samples {
        let d = lr.pointee
        let (w, h) = (Int(d.sizes.width), Int(d.sizes.height))
        guard d.rawdata.ioparams.fuji_width == 0 else {
            throw LightWorkError.unsupportedFormat("--wb \(setting.text) cannot read a Fuji rotated (SuperCCD) sensor's layout; use a preset or K")
        }
        // The sensor rectangle: the upright frame's region turned back by the orientation (pixel aspect scales
        // one axis, which fractions do not see).
        var (sx0, sy0, sx1, sy1) = (0, 0, w, h)
        if case .spot(let r) = setting {
            let o = Orientation(libRawFlip: d.sizes.flip)
            let (uw, uh) = o.swapsAxes ? (h, w) : (w, h)
            let ux0 = min(uw - 1, Int(r.x * Double(uw))), uy0 = min(uh - 1, Int(r.y * Double(uh)))
            let ux1 = max(ux0, min(uw - 1, Int(((r.x + r.w) * Double(uw)).rounded(.up)) - 1))
            let uy1 = max(uy0, min(uh - 1, Int(((r.y + r.h) * Double(uh)).rounded(.up)) - 1))
            let a = o.sourceCoordinate(x: ux0, y: uy0, storedWidth: w, storedHeight: h)
            let b = o.sourceCoordinate(x: ux1, y: uy1, storedWidth: w, storedHeight: h)
            (sx0, sy0, sx1, sy1) = (min(a.0, b.0), min(a.1, b.1), max(a.0, b.0) + 1, max(a.1, b.1) + 1)
        }
        // Black: the common level, the per-colour offsets (cblack 0…3) and a pattern of cblack[4] × cblack[5].
        let (pr, pc) = (Int(lw_libraw_cblack(lr, 4)), Int(lw_libraw_cblack(lr, 5)))
        let patternSize = pr > 0 && pc > 0 && pr * pc <= 4096 - 6 ? pr * pc : 0
        let black = (0..<(6 + patternSize)).map { Float(lw_libraw_cblack(lr, Int32($0))) }
        func blackLevel(_ colour: Int, _ row: Int, _ col: Int) -> Float {
            let pattern = patternSize > 0 ? black[6 + (row % pr) * pc + col % pc] : 0
            return Float(d.color.black) + black[min(colour, 3)] + pattern
        }
        let white = Float(d.color.maximum)
        var samples = Samples()
        if let raw = d.rawdata.raw_image, d.idata.filters != 0 {
            // Mosaic: cells of 2 × 2 (Bayer) or 3 × 3 (X-Trans) each hold every colour.
            let cell = d.idata.filters == 9 ? 3 : 2
            let pitch = Int(d.sizes.raw_pitch) / 2
            let origin = raw + Int(d.sizes.top_margin) * pitch + Int(d.sizes.left_margin)
            let c0x = sx0 / cell * cell, c0y = sy0 / cell * cell
            let cellsAcross = max(1, (sx1 - c0x) / cell), cellsDown = max(1, (sy1 - c0y) / cell)
            let step = stride(for: cellsAcross * cellsDown)
            for cy in Swift.stride(from: 0, to: cellsDown, by: step) {
                for cx in Swift.stride(from: 0, to: cellsAcross, by: step) {
                    let (x0, y0) = (c0x + cx * cell, c0y + cy * cell)
                    guard x0 + cell <= w, y0 + cell <= h else { continue }
                    var sum = SIMD3<Float>(0, 0, 0), count = SIMD3<Float>(0, 0, 0), clipped = false
                    for row in y0..<(y0 + cell) { for col in x0..<(x0 + cell) {
                        var c = Int(libraw_COLOR(lr, Int32(row), Int32(col)))
                        if c == 3 { c = 1 }
                        guard (0...2).contains(c) else { continue }
                        let level = blackLevel(c, row, col)
                        let v = Float(origin[row * pitch + col])
                        if v >= level + clipFraction * (white - level) { clipped = true }
                        sum[c] += (v - level) / (white - level)
                        count[c] += 1
                    } }
                    guard count.min() > 0 else { continue }
                    if clipped { samples.clipped += 1 } else { samples.values.append(sum / count) }
                }
            }
        } else if let pixels = d.rawdata.color4_image {
            samples = linearSamples(UnsafeRawPointer(pixels).assumingMemoryBound(to: UInt16.self), channels: 4, d: d,
                                    rect: (sx0, sy0, sx1, sy1), black: blackLevel, white: white)
        } else if let pixels = d.rawdata.color3_image {
            samples = linearSamples(UnsafeRawPointer(pixels).assumingMemoryBound(to: UInt16.self), channels: 3, d: d,
                                    rect: (sx0, sy0, sx1, sy1), black: blackLevel, white: white)
        } else {
            throw LightWorkError.unsupportedFormat("--wb \(setting.text): LibRaw holds this file's data in a layout LightWork does not sample (floating point or four-colour)")
        }
        return samples
    }

    /// Cells (single pixels) of full-colour linear raw data of `channels` 16-bit samples per pixel.
    static func linearSamples(_ base: UnsafePointer<UInt16>, channels: Int, d: libraw_data_t, rect: (Int, Int, Int, Int),
                              black: (Int, Int, Int) -> Float, white: Float) -> Samples {
        let pitch = Int(d.sizes.raw_pitch) / 2
        let origin = base + Int(d.sizes.top_margin) * pitch + Int(d.sizes.left_margin) * channels
        let step = stride(for: (rect.2 - rect.0) * (rect.3 - rect.1))
        var samples = Samples()
        for row in Swift.stride(from: rect.1, to: rect.3, by: step) {
            for col in Swift.stride(from: rect.0, to: rect.2, by: step) {
                var v = SIMD3<Float>(0, 0, 0), clipped = false
                for c in 0..<3 {
                    let level = black(c, row, col)
                    let raw = Float(origin[row * pitch + col * channels + c])
                    if raw >= level + clipFraction * (white - level) { clipped = true }
                    v[c] = (raw - level) / (white - level)
                }
                if clipped { samples.clipped += 1 } else { samples.values.append(v) }
            }
        }
        return samples
    }
}
