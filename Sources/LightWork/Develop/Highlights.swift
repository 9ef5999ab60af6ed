import CShims
import Foundation

/// `--highlights clip|reconstruct`: what happens where the sensor saturated.
///
/// `clip` (default) is LibRaw's highlight mode 0, as before: every balanced channel is cut at the level where the
/// least-amplified one saturates, so blown areas are flat neutral white and partly clipped ones shift hue.
/// `reconstruct` keeps what the sensor did record above that level (a channel amplified by white balance is real
/// data up to its own clip) and rebuilds channels that truly saturated from the unsaturated ones: the brightness
/// (and so the detail) from the channels that survived at the pixel, the hue from the nearest unsaturated pixels
/// around the clipped area, propagated inwards over a coarse grid (the idea of darktable's "inpaint opposed" and
/// RawTherapee's "colour propagation"; LightWork's own code, `HighlightReconstruction`). Values above 1 survive
/// into the half-float working image. On LibRaw's demosaics (`--demosaic` other than ahd, and layouts LightWork's
/// AHD does not take) it asks LibRaw for its rebuild mode (`params.highlight`, `libRawMode`) instead.
public enum Highlights: DevelopModule {
    public enum Setting: String, DevelopSetting, CaseIterable {
        case clip, reconstruct

        public init(parsing text: String) throws {
            guard let v = Setting(rawValue: text.trimmingCharacters(in: .whitespaces).lowercased()) else {
                throw LightWorkError.usage("--highlights \(text): give clip or reconstruct")
            }
            self = v
        }

        public var text: String { rawValue }
        public var isOff: Bool { self == .clip }
    }

    public static let descriptor = DevelopDescriptor(
        name: "highlights", flag: "highlights", placeholder: "clip|reconstruct",
        help: "clipped highlights: clip (flat white, default) or reconstruct hue and detail from the unclipped channels",
        placement: .decode,
        rgbSkipNote: "needs the raw sensor data (each channel's clip level); an encoded image's clipping cannot be undone, skipped")

    public static let defaultSetting = Setting.clip

    /// LibRaw's `params.highlight` for `reconstruct` on its own demosaics: 5, dcraw's "rebuild" at the level its
    /// documentation suggests as the compromise between hue and artefacts (0 is clip, 1 unclip, 2 blend).
    static let libRawMode: Int32 = 5
}

/// Highlight reconstruction on LightWork's AHD path, in two passes over the mosaic (sensor orientation):
/// `analyse` finds the pixels the clip touched and gathers the hue of the unsaturated ones among them on a
/// coarse grid, then fills the grid's empty cells from their neighbours; `write` rebuilds those pixels into the
/// finished working image. Pixels whose 3 × 3 mosaic neighbourhood reaches no clipped site, and whose AHD result is
/// not at white, keep the AHD's bytes exactly.
struct HighlightReconstruction {
    /// The mosaic and its normalisation (black, white balance / (white − black)).
    let bayer: lw_bayer
    /// Per mosaic position: the raw value at which the sensor counts as saturated.
    private let saturation: SIMD4<Float>
    /// Grid cell edge in pixels: the hue is taken as constant over about this size, and two highlights closer
    /// than about two cells can share one (propagation runs through cells the clip touched).
    static let cell = 8
    let gridWidth: Int, gridHeight: Int
    /// Per cell: mean log of R, G, B over its unsaturated reference pixels, or propagated from its neighbours
    /// (after `analyse`); `known` says which cells have one.
    private(set) var hue: [SIMD3<Float>] = []
    private(set) var known: [Bool] = []
    /// Pixels rebuilt and, of those, pixels with at least one saturated channel (after `analyse`).
    private(set) var rebuilt = 0, saturated = 0
    /// Whether any reference pixel gave a hue (if not, saturated channels keep the clip value).
    private(set) var hasReference = false

    /// `white` is LibRaw's white level (`color.maximum`); a site within 1 % of it counts as saturated, as real
    /// sensors stop a little short of their nominal white.
    init(bayer: lw_bayer, white: Float) {
        self.bayer = bayer
        let black = withUnsafeBytes(of: bayer.black) { SIMD4<Float>($0.bindMemory(to: Float.self)) }
        saturation = black + 0.99 * (SIMD4(repeating: white) - black)
        gridWidth = (Int(bayer.width) + Self.cell - 1) / Self.cell
        gridHeight = (Int(bayer.height) + Self.cell - 1) / Self.cell
    }

    /// One pixel's bilinear estimate from the unclipped mosaic (balanced camera RGB, may exceed 1), which of its
    /// channels read a saturated site (bits 0 red, 1 green, 2 blue) and whether the clip touched it at all.
    struct Sample {
        var rgb: SIMD3<Float>
        var saturated: Int
        var touched: Bool
    }

    @inline(__always) private static func mirror(_ v: Int, _ n: Int) -> Int {
        if v >= 0 && v < n { return v }
        if n < 2 { return 0 }
        let p = 2 * (n - 1)
        var m = v % p
        if m < 0 { m += p }
        return m >= n ? p - m : m
    }

    /// The sample at (x, y); `ahd` is the AHD output (width × height × 4).
    @inline(__always) func sample(x: Int, y: Int, ahd: UnsafePointer<UInt16>) -> Sample {
        let w = Int(bayer.width), h = Int(bayer.height)
        var sum = SIMD3<Float>(repeating: 0), count = SIMD3<Float>(repeating: 0)
        var sat = 0, touched = false
        let ownColour = colour(x, y)
        for dy in -1...1 {
            let yy = Self.mirror(y + dy, h)
            let row = bayer.raw + yy * bayer.pitch
            for dx in -1...1 {
                let xx = Self.mirror(x + dx, w)
                let k = (yy & 1) * 2 + (xx & 1)
                let c = colour(xx, yy)
                let raw = Float(row[xx])
                let v = (raw - black(k)) * scale(k)
                if v >= 1 { touched = true }
                // Bilinear: at a site of colour c its own value, else the mean of the 3 × 3's sites of colour c.
                guard c != ownColour || (dx == 0 && dy == 0) else { continue }
                sum[c] += v
                count[c] += 1
                if raw >= saturation[k] { sat |= 1 << c }
            }
        }
        let px = ahd + 4 * (y * w + x)
        if px[0] == 65535 || px[1] == 65535 || px[2] == 65535 { touched = true }
        return Sample(rgb: sum / count, saturated: sat, touched: touched)
    }

    @inline(__always) private func colour(_ x: Int, _ y: Int) -> Int {
        withUnsafeBytes(of: bayer.colour) { Int($0.load(fromByteOffset: 4 * ((y & 1) * 2 + (x & 1)), as: Int32.self)) }
    }
    @inline(__always) private func black(_ k: Int) -> Float {
        withUnsafeBytes(of: bayer.black) { $0.load(fromByteOffset: 4 * k, as: Float.self) }
    }
    @inline(__always) private func scale(_ k: Int) -> Float {
        withUnsafeBytes(of: bayer.scale) { $0.load(fromByteOffset: 4 * k, as: Float.self) }
    }

    /// Rows of the mosaic holding a site the clip cut (balanced value ≥ 1), dilated by the reach of the AHD
    /// (its tile margin), so the scan below looks only where a pixel can have been touched.
    private func candidateRows(engine: EngineConfiguration) -> [Bool] {
        let w = Int(bayer.width), h = Int(bayer.height)
        var clipped = [Bool](repeating: false, count: h)
        // Per position the raw value from which (raw − black) · scale reaches 1, computed as the kernel does.
        let b = bayer
        clipped.withUnsafeMutableBufferPointer { flags in
            let out = UncheckedSendable(flags.baseAddress!)
            Parallel.forEach(h, workers: engine.workers(for: h)) { _, y in
                let row = b.raw + y * b.pitch
                let k0 = (y & 1) * 2
                let (b0, b1) = (Self.field(b.black, k0), Self.field(b.black, k0 + 1))
                let (s0, s1) = (Self.field(b.scale, k0), Self.field(b.scale, k0 + 1))
                var any = false
                var x = 0
                while x + 1 < w {
                    let e = (Float(row[x]) - b0) * s0, o = (Float(row[x + 1]) - b1) * s1
                    any = any || e >= 1 || o >= 1
                    x += 2
                }
                if x < w, (Float(row[x]) - b0) * s0 >= 1 { any = true }
                out.value[y] = any
            }
        }
        let reach = 6
        var rows = [Bool](repeating: false, count: h)
        for y in 0..<h where clipped[y] {
            for r in max(0, y - reach)...min(h - 1, y + reach) { rows[r] = true }
        }
        return rows
    }

    private static func field(_ t: (Float, Float, Float, Float), _ k: Int) -> Float {
        withUnsafeBytes(of: t) { $0.load(fromByteOffset: 4 * k, as: Float.self) }
    }

    /// Log of a channel value, floored so that black and noise below it cannot dominate a mean.
    @inline(__always) static func log(_ v: SIMD3<Float>) -> SIMD3<Float> {
        let f = pointwiseMax(v, SIMD3(repeating: 1e-4))
        return SIMD3(Foundation.log(f.x), Foundation.log(f.y), Foundation.log(f.z))
    }

    /// Pass 1: the touched pixels' count and, per grid cell, the hue of its unsaturated touched pixels (weighted by
    /// brightness squared: the pixels nearest the highlight speak for it), then every empty cell filled from its
    /// filled neighbours until none is left. Fixed bands (not the thread count) fix the order of every sum.
    mutating func analyse(ahd: UnsafePointer<UInt16>, engine: EngineConfiguration) {
        let w = Int(bayer.width), h = Int(bayer.height), gw = gridWidth, gh = gridHeight
        let rows = candidateRows(engine: engine)
        // Per cell row: sums of weight and weighted log RGB, and the counts.
        var weights = [Float](repeating: 0, count: gw * gh)
        var logs = [SIMD3<Float>](repeating: .zero, count: gw * gh)
        var counts = [SIMD2<Int>](repeating: .zero, count: gh)
        var touchedCells = [Bool](repeating: false, count: gw * gh)
        let me = self
        weights.withUnsafeMutableBufferPointer { wp in
            logs.withUnsafeMutableBufferPointer { lp in
                counts.withUnsafeMutableBufferPointer { cp in touchedCells.withUnsafeMutableBufferPointer { tp in
                    let (wo, lo, co) = (UncheckedSendable(wp.baseAddress!), UncheckedSendable(lp.baseAddress!), UncheckedSendable(cp.baseAddress!))
                    let to = UncheckedSendable(tp.baseAddress!)
                    Parallel.forEach(gh, workers: engine.workers(for: gh)) { _, gy in
                        var touched = 0, sat = 0
                        for y in gy * Self.cell..<min(h, (gy + 1) * Self.cell) where rows[y] {
                            for x in 0..<w {
                                let s = me.sample(x: x, y: y, ahd: ahd)
                                guard s.touched else { continue }
                                touched += 1
                                let i = gy * gw + x / Self.cell
                                to.value[i] = true
                                if s.saturated != 0 { sat += 1; continue }
                                let bright = s.rgb.x + s.rgb.y + s.rgb.z
                                let weight = bright * bright
                                wo.value[i] += weight
                                lo.value[i] += weight * Self.log(s.rgb)
                            }
                        }
                        co.value[gy] = SIMD2(touched, sat)
                    }
                } }
            }
        }
        rebuilt = counts.reduce(0) { $0 + $1.x }
        saturated = counts.reduce(0) { $0 + $1.y }
        var filled = weights.map { $0 > 0 }
        hue = (0..<gw * gh).map { filled[$0] ? logs[$0] / weights[$0] : .zero }
        hasReference = filled.contains(true)
        known = filled
        guard saturated > 0, hasReference else { return }
        // Propagation through the cells the clip touched (never across untouched surroundings, which would mix
        // the hues of separate highlights): each round, every empty touched cell with filled 4-neighbours takes
        // their mean, from the previous round's state so the result does not depend on the scan order.
        var pending = (0..<gw * gh).filter { touchedCells[$0] && !filled[$0] }
        while !pending.isEmpty {
            var next = hue, nextFilled = filled, still: [Int] = []
            for index in pending {
                let (gx, gy) = (index % gw, index / gw)
                var sum = SIMD3<Float>.zero, n: Float = 0
                for (dx, dy) in [(-1, 0), (1, 0), (0, -1), (0, 1)] {
                    let (nx, ny) = (gx + dx, gy + dy)
                    guard nx >= 0, nx < gw, ny >= 0, ny < gh, filled[ny * gw + nx] else { continue }
                    sum += hue[ny * gw + nx]
                    n += 1
                }
                if n > 0 {
                    next[index] = sum / n
                    nextFilled[index] = true
                } else {
                    still.append(index)
                }
            }
            if still.count == pending.count { break }     // the rest is cut off from every reference
            hue = next
            filled = nextFilled
            pending = still
        }
        known = filled
    }

    /// The hue (mean log RGB) at (x, y): bilinear between the centres of the cells that have one, so it changes
    /// smoothly; nil where none of the four has.
    @inline(__always) func hue(x: Int, y: Int) -> SIMD3<Float>? {
        let c = Float(Self.cell)
        let fx = max(0, min(Float(gridWidth - 1), (Float(x) + 0.5) / c - 0.5))
        let fy = max(0, min(Float(gridHeight - 1), (Float(y) + 0.5) / c - 0.5))
        let x0 = Int(fx), y0 = Int(fy)
        let x1 = min(x0 + 1, gridWidth - 1), y1 = min(y0 + 1, gridHeight - 1)
        let ax = fx - Float(x0), ay = fy - Float(y0)
        var sum = SIMD3<Float>.zero, total: Float = 0
        for (cx, cy, weight) in [(x0, y0, (1 - ax) * (1 - ay)), (x1, y0, ax * (1 - ay)), (x0, y1, (1 - ax) * ay), (x1, y1, ax * ay)] {
            let i = cy * gridWidth + cx
            guard known[i], weight > 0 else { continue }
            sum += hue[i] * weight
            total += weight
        }
        return total > 0 ? sum / total : nil
    }

    /// The rebuilt balanced RGB of a touched pixel: unsaturated channels as measured (above 1 where the sensor
    /// recorded it); a saturated channel from the pixel's surviving channels times the local hue's ratio, never
    /// below what was measured (the truth lies at or above the clip). With all three saturated, the local hue
    /// scaled just enough to reach every measured value.
    @inline(__always) func rebuild(_ s: Sample, x: Int, y: Int) -> SIMD3<Float> {
        guard s.saturated != 0, hasReference, let chroma = hue(x: x, y: y) else { return s.rgb }
        let measured = Self.log(s.rgb)
        var brightness: Float
        if s.saturated == 7 {
            let lift = measured - chroma
            brightness = max(lift.x, max(lift.y, lift.z))
        } else {
            // Geometric mean of the surviving channels over the hue's: the pixel's own brightness, hence its detail.
            var sum: Float = 0, n: Float = 0
            for c in 0..<3 where s.saturated & (1 << c) == 0 { sum += measured[c] - chroma[c]; n += 1 }
            brightness = sum / n
        }
        var out = s.rgb
        for c in 0..<3 where s.saturated & (1 << c) != 0 {
            out[c] = max(s.rgb[c], Foundation.exp(chroma[c] + brightness))
        }
        return out
    }

    /// Pass 2: writes every touched pixel, rebuilt, into `image` (upright, `orientation` applied) through `matrix`
    /// (balanced camera RGB → working space, as the decoder's conversion applies it).
    func write(ahd: UnsafePointer<UInt16>, matrix: Matrix3, orientation: Orientation, into image: WorkingImage, engine: EngineConfiguration) {
        guard rebuilt > 0 else { return }
        let w = Int(bayer.width), h = Int(bayer.height)
        let rows = candidateRows(engine: engine)
        // Upright (x, y) reads stored o + x·a + y·b (a, b unit axis vectors): its inverse maps stored to upright.
        let o = orientation.sourceCoordinate(x: 0, y: 0, storedWidth: w, storedHeight: h)
        let ax = orientation.sourceCoordinate(x: 1, y: 0, storedWidth: w, storedHeight: h)
        let by = orientation.sourceCoordinate(x: 0, y: 1, storedWidth: w, storedHeight: h)
        let a = (ax.0 - o.0, ax.1 - o.1), b = (by.0 - o.0, by.1 - o.1)
        let m = matrix.floats
        let me = self
        Parallel.forEach(h, workers: engine.workers(for: h)) { _, y in
            guard rows[y] else { return }
            for x in 0..<w {
                let s = me.sample(x: x, y: y, ahd: ahd)
                guard s.touched else { continue }
                let v = me.rebuild(s, x: x, y: y)
                var r = m[0] * v.x + m[1] * v.y + m[2] * v.z
                var g = m[3] * v.x + m[4] * v.y + m[5] * v.z
                var bl = m[6] * v.x + m[7] * v.y + m[8] * v.z
                var one: Float = 1
                let d = (x - o.0, y - o.1)
                let ux = d.0 * a.0 + d.1 * a.1, uy = d.0 * b.0 + d.1 * b.1
                lw_planar_to_rgba_half(&r, &g, &bl, &one, image.row(uy) + 4 * ux, 1)
            }
        }
    }
}
