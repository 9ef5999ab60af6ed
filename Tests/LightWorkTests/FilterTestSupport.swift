import CShims
import LightWork
import XCTest

/// Small synthetic images and helpers shared by the filter, chain and renderer tests.
enum FilterTestSupport {
    /// An image filled from `colour(x, y)` (values in the image's own space), alpha 1.
    static func image(width: Int, height: Int, space: WorkingSpace, _ colour: (Int, Int) -> SIMD3<Float>) -> WorkingImage {
        let image = WorkingImage(width: width, height: height, space: space)
        var r = [Float](repeating: 0, count: width), g = r, b = r
        let a = [Float](repeating: 1, count: width)
        for y in 0..<height {
            for x in 0..<width {
                let c = colour(x, y)
                r[x] = c.x; g[x] = c.y; b[x] = c.z
            }
            lw_planar_to_rgba_half(r, g, b, a, image.row(y), width)
        }
        return image
    }

    /// The image's RGB values as Float, row-major.
    static func pixels(_ image: WorkingImage) -> [SIMD3<Float>] {
        var rgba = [Float](repeating: 0, count: 4 * image.pixelCount)
        lw_half_to_float(image.storage, &rgba, rgba.count)
        return (0..<image.pixelCount).map { SIMD3(rgba[4 * $0], rgba[4 * $0 + 1], rgba[4 * $0 + 2]) }
    }

    /// The raw half-float bits, for bitwise comparisons.
    static func bits(_ image: WorkingImage) -> [UInt16] {
        Array(UnsafeBufferPointer(start: image.storage, count: 4 * image.pixelCount))
    }

    /// A copy of `image` after `filters`, rendered in place with `threads` engine threads (default: all cores).
    static func applied(_ filters: [any Filter], to image: WorkingImage, seed: UInt64 = 42, threads: Int? = nil,
                        keepFinalSpace: Bool = false) -> WorkingImage {
        let out = image.copy()
        Renderer(chain: filters, engine: threads.map { EngineConfiguration(threads: $0) } ?? .detected).apply(to: out, context: RenderContext(width: image.width, height: image.height, seed: seed),
                                       keepFinalSpace: keepFinalSpace)
        return out
    }

    /// A grey ramp from black to white along x, in sRGB encoding (device RGB).
    static func greyRamp(width: Int = 64, height: Int = 4) -> WorkingImage {
        image(width: width, height: height, space: .deviceRGB) { x, _ in SIMD3(repeating: Float(x) / Float(width - 1)) }
    }

    /// A deterministic, smooth "photo": colour gradients with fine midtone texture, sRGB-encoded.
    static func scene(width: Int, height: Int) -> WorkingImage {
        image(width: width, height: height, space: .deviceRGB) { x, y in
            let u = Float(x) / Float(width), v = Float(y) / Float(height)
            let t = 0.05 * sin(Float(x) * 0.8) * sin(Float(y) * 0.6)
            return SIMD3(min(max(0.15 + 0.7 * u + t, 0), 1), min(max(0.2 + 0.6 * v + t, 0), 1), min(max(0.5 + 0.3 * sin(5 * u + 3 * v) + t, 0), 1))
        }
    }

    static func mean(_ values: [Float]) -> Double { values.reduce(0.0) { $0 + Double($1) } / Double(values.count) }
}

/// Presents a filter as active so the Renderer calls `apply` even when the filter says it is neutral.
struct ForcedActive: Filter {
    let inner: any Filter
    var name: String { inner.name }
    var isNeutral: Bool { false }
    var domain: FilterDomain { inner.domain }
    var guideRadius: Double? { inner.guideRadius }
    func apply(_ band: PixelBand, _ context: RenderContext) { inner.apply(band, context) }
}

/// A stand-in film lookup: a crossed tone curve on sRGB-encoded values (any deterministic colour change).
struct TestLookup: ColorLookup {
    func apply(r: UnsafeMutablePointer<Float>, g: UnsafeMutablePointer<Float>, b: UnsafeMutablePointer<Float>, count: Int) {
        for i in 0..<count {
            let (x, y, z) = (r[i], g[i], b[i])
            r[i] = 0.05 + 0.9 * (0.8 * x + 0.2 * y) * (0.8 * x + 0.2 * y)
            g[i] = 0.9 * y + 0.05
            b[i] = 0.1 + 0.8 * (0.7 * z + 0.3 * x)
        }
    }
}
