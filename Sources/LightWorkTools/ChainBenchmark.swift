import CShims
import Dispatch
import Foundation
import LightWork

/// Times the full filter chain (every filter non-zero, a film look at 80 %) through `Renderer.apply`
/// on synthetic images, against a plain copy of the same pixels as the memory-bandwidth reference.
/// Decode and encode are excluded. Call as `print(ChainBenchmark.run(width: 6000, height: 4000))`.
public enum ChainBenchmark {
    /// Recipe values with every filter active.
    public static let values: [String: Double] = [
        "brightness": 0.5, "clarity": 0.4, "contrast": 0.3, "warmth": 0.2, "tint": 0.1, "clarity2": 0.2,
        "vignette": 0.4, "postWarmth": -0.1, "postTint": 0.05, "fade": 0.3, "grain": 0.4, "saturation": 0.2, "dust": 0.3,
    ]

    /// One line per storage space (RAW linear ProPhoto and device RGB) plus the copy reference. Wall-clock
    /// MP/s depends on what else the machine runs; "cpu" is megapixels per CPU-second of this process
    /// times the thread count, i.e. the throughput the same work reaches on otherwise idle cores.
    public static func run(width: Int, height: Int, repeats: Int = 3) -> String {
        let chain = FilterChain.build(values: values, look: FilmLattice.filmLike(size: 33), strength: 0.8)
        let renderer = Renderer(chain: chain)
        let context = RenderContext(width: width, height: height, seed: 0x5eed)
        let mp = Double(width * height) / 1e6
        let threads = Double(Parallel.threads)
        var lines = ["chain: \(renderer.filters.map(\.name).joined(separator: " → ")) on \(width)×\(height), \(Parallel.threads) threads"]
        let source = syntheticImage(width: width, height: height, space: .deviceRGB)
        let copyTime = best(repeats) {
            let copy = WorkingImage(width: width, height: height, space: source.space)
            return timed { copy.storage.update(from: source.storage, count: 4 * source.pixelCount) }
        }
        lines.append(String(format: "buffer copy:      %7.1f MP/s wall (%.3f s)", mp / copyTime.wall, copyTime.wall))
        for space in [WorkingSpace.rawLinear, .deviceRGB] {
            let image = syntheticImage(width: width, height: height, space: space)
            let time = best(repeats) {
                let work = image.copy()
                return timed { renderer.apply(to: work, context: context) }
            }
            let label = (space.description + ":").padding(toLength: 17, withPad: " ", startingAt: 0)
            lines.append(String(format: "%@ %7.1f MP/s wall, %7.1f MP/s cpu (%.3f s wall, %.3f s cpu; %.1f× the copy time)",
                                label, mp / time.wall, mp * threads / time.cpu, time.wall, time.cpu, time.wall / copyTime.wall))
        }
        return lines.joined(separator: "\n")
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

    private static func best(_ n: Int, _ body: () -> (wall: Double, cpu: Double)) -> (wall: Double, cpu: Double) {
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

/// A film-like 3D lookup (tone curve with a warm-shadow / cool-highlight split and a little channel
/// cross-talk) on a size³ lattice, evaluated tetrahedrally: a stand-in for the real LUT3D.
struct FilmLattice: ColorLookup {
    let size: Int
    /// Interleaved RGB output per node, red index fastest.
    let table: [Float]

    static func filmLike(size: Int) -> FilmLattice {
        var t = [Float](repeating: 0, count: 3 * size * size * size)
        let s = Float(size - 1)
        for bi in 0..<size { for gi in 0..<size { for ri in 0..<size {
            let r = Float(ri) / s, g = Float(gi) / s, b = Float(bi) / s
            func curve(_ x: Float) -> Float { let c = x * x * (3 - 2 * x); return 0.03 + 0.94 * (0.6 * c + 0.4 * x) }
            let l = 0.3 * r + 0.6 * g + 0.1 * b
            let i = 3 * ((bi * size + gi) * size + ri)
            t[i] = curve(0.9 * r + 0.1 * l) + 0.02 * (1 - l)
            t[i + 1] = curve(0.92 * g + 0.08 * l)
            t[i + 2] = curve(0.85 * b + 0.15 * l) - 0.02 * (1 - l) + 0.02 * l
        } } }
        return FilmLattice(size: size, table: t)
    }

    /// Tetrahedral interpolation (what film lookup tools use): 4 of the cube's 8 nodes per pixel.
    func apply(r: UnsafeMutablePointer<Float>, g: UnsafeMutablePointer<Float>, b: UnsafeMutablePointer<Float>, count: Int) {
        let n = size, scale = Float(size - 1)
        let sr = 3, sg = 3 * n, sb = 3 * n * n
        table.withUnsafeBufferPointer { tp in
            let t = tp.baseAddress!
            for i in 0..<count {
                let fr = min(max(r[i], 0), 1) * scale, fg = min(max(g[i], 0), 1) * scale, fb = min(max(b[i], 0), 1) * scale
                let r0 = min(Int(fr), n - 2), g0 = min(Int(fg), n - 2), b0 = min(Int(fb), n - 2)
                let x = fr - Float(r0), y = fg - Float(g0), z = fb - Float(b0)
                let p = t + 3 * ((b0 * n + g0) * n + r0)
                // Walk from the base node to the far corner along the axes in decreasing fraction order.
                let (o1, o2, w0, w1, w2, w3): (Int, Int, Float, Float, Float, Float)
                if x >= y {
                    if y >= z { (o1, o2, w0, w1, w2, w3) = (sr, sr + sg, 1 - x, x - y, y - z, z) }
                    else if x >= z { (o1, o2, w0, w1, w2, w3) = (sr, sr + sb, 1 - x, x - z, z - y, y) }
                    else { (o1, o2, w0, w1, w2, w3) = (sb, sr + sb, 1 - z, z - x, x - y, y) }
                } else {
                    if z >= y { (o1, o2, w0, w1, w2, w3) = (sb, sg + sb, 1 - z, z - y, y - x, x) }
                    else if z >= x { (o1, o2, w0, w1, w2, w3) = (sg, sg + sb, 1 - y, y - z, z - x, x) }
                    else { (o1, o2, w0, w1, w2, w3) = (sg, sr + sg, 1 - y, y - x, x - z, z) }
                }
                let o3 = sr + sg + sb
                r[i] = w0 * p[0] + w1 * p[o1] + w2 * p[o2] + w3 * p[o3]
                g[i] = w0 * p[1] + w1 * p[o1 + 1] + w2 * p[o2 + 1] + w3 * p[o3 + 1]
                b[i] = w0 * p[2] + w1 * p[o1 + 2] + w2 * p[o2 + 2] + w3 * p[o3 + 2]
            }
        }
    }
}
