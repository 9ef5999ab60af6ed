import CShims
import Dispatch
import Foundation
import LightWork

/// Times the full filter chain (every filter non-zero, a designed film look's 33³ LUT at 80 %) through `Renderer.apply`
/// on synthetic images, against a plain copy of the same pixels as the memory-bandwidth reference.
/// Decode and encode are excluded. Call as `print(ChainBenchmark.run(width: 6000, height: 4000, engine: .detected))`.
public enum ChainBenchmark {
    /// Recipe values with every filter active.
    public static let values: [String: Double] = [
        "brightness": 0.5, "clarity": 0.4, "contrast": 0.3, "warmth": 0.2, "tint": 0.1, "clarity2": 0.2,
        "vignette": 0.4, "postWarmth": -0.1, "postTint": 0.05, "fade": 0.3, "grain": 0.4, "saturation": 0.2, "dust": 0.3,
    ]

    /// The film whose LUT the chain uses, and the LUT's size.
    static let look = FilmLookDesign.all[0]
    static let lutSize = 33

    /// Every filter non-zero and the film at 80 %: what each benchmark times.
    static var chain: [any Filter] { FilterChain.build(values: values, look: look.lut(size: lutSize), strength: 0.8) }

    /// One line per storage space (RAW linear ProPhoto and device RGB) plus the copy reference, each the best of
    /// `repeats` runs with the median beside it. Shared machines vary by ±10–15 % in bursts of several seconds,
    /// so the runs take turns (copy, one space, the other, copy, …): a burst then slows every line alike rather
    /// than one line's whole series. Each run
    /// stores its result as half floats in the last filter's domain, where a render hands the bands to the
    /// output transform (that conversion belongs to encoding, which is excluded). Wall-clock
    /// MP/s depends on what else the machine runs; "cpu" is megapixels per CPU-second of this process
    /// times the thread count, i.e. the throughput the same work reaches on otherwise idle cores.
    public static func run(width: Int, height: Int, repeats: Int = 25, engine: EngineConfiguration) -> String {
        let renderer = Renderer(chain: chain, engine: engine)
        let context = RenderContext(width: width, height: height, seed: 0x5eed)
        let mp = Double(width * height) / 1e6
        let threads = Double(engine.threads)
        var lines = ["chain: \(renderer.filters.map(\.name).joined(separator: " → ")) (film \(look.lookupId), \(lutSize)³ LUT) on \(width)×\(height), \(engine.threads) threads",
                     "(each result stored as half floats in the chain's last domain, sRGB-encoded, ready for the output transform;",
                     " runs alternate between the three lines)"]
        let spaces = [WorkingSpace.rawLinear, .deviceRGB]
        let source = syntheticImage(width: width, height: height, space: .deviceRGB)
        let images = spaces.map { syntheticImage(width: width, height: height, space: $0) }
        let copy = WorkingImage(width: width, height: height, space: source.space)
        var copyTimes: [(wall: Double, cpu: Double)] = []
        var times = [[(wall: Double, cpu: Double)]](repeating: [], count: spaces.count)
        for _ in 0..<max(1, repeats) {
            copyTimes.append(timed { copy.storage.update(from: source.storage, count: 4 * source.pixelCount) })
            for (k, image) in images.enumerated() {
                let work = image.copy()
                times[k].append(timed { renderer.apply(to: work, context: context, keepFinalSpace: true) })
            }
        }
        let copyTime = copyTimes.min { $0.wall < $1.wall }!
        lines.append(String(format: "buffer copy:      %7.1f MP/s wall (%.3f s)", mp / copyTime.wall, copyTime.wall))
        for (k, space) in spaces.enumerated() {
            let time = times[k].min { $0.wall < $1.wall }!, median = times[k].map(\.wall).sorted()[times[k].count / 2]
            let label = (space.description + ":").padding(toLength: 17, withPad: " ", startingAt: 0)
            lines.append(String(format: "%@ %7.1f MP/s wall, %7.1f MP/s cpu (best of %d: %.3f s wall, %.3f s cpu; %.1f× the copy time; median %.1f MP/s)",
                                label, mp / time.wall, mp * threads / time.cpu, times[k].count, time.wall, time.cpu, time.wall / copyTime.wall, mp / median))
        }
        return lines.joined(separator: "\n")
    }

    /// CPU time per pixel of each active filter run alone through `Renderer.apply` on a device-RGB image
    /// (brightness on a RAW one), next to a do-nothing filter in each domain (the pass's own load/convert/store cost).
    public static func breakdown(width: Int, height: Int, repeats: Int = 2, engine: EngineConfiguration) -> String {
        let chain = Renderer(chain: self.chain).filters
        let context = RenderContext(width: width, height: height, seed: 0x5eed)
        let pixels = Double(width * height)
        let images = [WorkingSpace.rawLinear, .deviceRGB].map { syntheticImage(width: width, height: height, space: $0) }
        var lines = ["per-filter CPU time, ns/px (one pass each, \(width)×\(height))"]
        let probes: [any Filter] = [Idle(domain: .linear), Idle(domain: .perceptual)] + chain
        for f in probes {
            for image in images where f.domain == .linear || image.space == .deviceRGB {
                let time = best(repeats) {
                    let work = image.copy()
                    return timed { Renderer(chain: [f], engine: engine).apply(to: work, context: context) }
                }
                lines.append(String(format: "  %-22@ on %-16@ %6.2f", f.name, image.space.description, time.cpu * 1e9 / pixels))
            }
        }
        return lines.joined(separator: "\n")
    }

    /// Each active filter's own compute, in nanoseconds per pixel, on one image row held in cache (no memory
    /// traffic, no conversions, one thread): what a fused pass pays per filter. Rows run in consecutive blocks,
    /// a different block each repeat, as a band worker sees them, so per-thread memo tables (grain, vignette)
    /// are as warm as in a render.
    public static func kernels(width: Int, height: Int, repeats: Int = 5) -> String {
        let chain = Renderer(chain: self.chain).filters
        let context = RenderContext(width: width, height: height, seed: 0x5eed)
        let source = syntheticImage(width: width, height: height, space: .deviceRGB)
        let planes = (0..<5).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: width) }
        defer { planes.forEach { $0.deallocate() } }
        for x in 0..<width { planes[4][x] = 0.45 }
        var lines = ["in-cache kernel time, ns/px (one \(width)-px row at a time, one thread)"]
        var total = 0.0
        let rows = min(200, height)
        for f in chain {
            var bestTime = Double.infinity
            for k in 0..<repeats {
                var elapsed = 0.0
                let first = (k * rows) % max(1, height - rows + 1)
                for y in first..<(first + rows) {
                    lw_rgba_half_to_planar(source.row(y), planes[0], planes[1], planes[2], planes[3], width)
                    let band = PixelBand(r: planes[0], g: planes[1], b: planes[2], a: planes[3], guide: planes[4], y0: y, rows: 1, width: width)
                    elapsed += timed { f.apply(band, context) }.wall
                }
                bestTime = min(bestTime, elapsed)
            }
            let ns = bestTime * 1e9 / Double(width * rows)
            total += ns
            lines.append(String(format: "  %-22@ %6.2f", f.name, ns))
        }
        lines.append(String(format: "  %-22@ %6.2f", "total", total))
        return lines.joined(separator: "\n")
    }

    /// A filter that changes nothing but is run anyway: the cost of a pass around it.
    struct Idle: Filter {
        let domain: FilterDomain
        var name: String { domain == .linear ? "(idle linear)" : "(idle perceptual)" }
        var isNeutral: Bool { false }
        func apply(_ band: PixelBand, _ context: RenderContext) {}
    }

    /// Wall-clock and process CPU seconds of `body`.
    public static func timed(_ body: () -> Void) -> (wall: Double, cpu: Double) {
        let wall0 = DispatchTime.now().uptimeNanoseconds, cpu0 = cpuSeconds()
        body()
        return (Double(DispatchTime.now().uptimeNanoseconds - wall0) / 1e9, cpuSeconds() - cpu0)
    }

    private static func cpuSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// The fastest of `n` runs (at least one) by wall time.
    static func best(_ n: Int, _ body: () -> (wall: Double, cpu: Double)) -> (wall: Double, cpu: Double) {
        (0..<max(1, n)).map { _ in body() }.min { $0.wall < $1.wall }!
    }

    /// Smooth colour gradients with fine texture: midtones, shadows, highlights and saturated colours.
    /// RAW images hold the same colours as linear ProPhoto.
    static func syntheticImage(width: Int, height: Int, space: WorkingSpace) -> WorkingImage {
        let image = WorkingImage(width: width, height: height, space: space)
        let toProPhoto = RGBPrimaries.sRGB.conversion(to: .proPhoto).floats
        let linear = space.encoding == .linear
        var r = [Float](repeating: 0, count: width), g = r, b = r, a = [Float](repeating: 1, count: width)
        for y in 0..<height {
            let v = Float(y) / Float(height)
            for x in 0..<width {
                let u = Float(x) / Float(width)
                let texture = 0.04 * sin(Float(x) * 0.9) * sin(Float(y) * 0.7)
                r[x] = min(max(u + texture, 0), 1)
                g[x] = min(max(v + texture, 0), 1)
                b[x] = min(max(0.5 + 0.5 * sin(6 * u + 4 * v) + texture, 0), 1)
            }
            if linear {
                for x in 0..<width {
                    let lr = Float(TransferFunction.sRGB.decode(Double(r[x])))
                    let lg = Float(TransferFunction.sRGB.decode(Double(g[x])))
                    let lb = Float(TransferFunction.sRGB.decode(Double(b[x])))
                    r[x] = toProPhoto[0] * lr + toProPhoto[1] * lg + toProPhoto[2] * lb
                    g[x] = toProPhoto[3] * lr + toProPhoto[4] * lg + toProPhoto[5] * lb
                    b[x] = toProPhoto[6] * lr + toProPhoto[7] * lg + toProPhoto[8] * lb
                }
            }
            lw_planar_to_rgba_half(r, g, b, a, image.row(y), width)
        }
        return image
    }
}
