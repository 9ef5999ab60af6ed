import CShims
import Foundation

/// Resamples a WorkingImage with a separable Lanczos-3 filter in linear light.
///
/// - Linear light: device-RGB images (sRGB curve) are decoded to linear before filtering and re-encoded
///   after, so a fine black-and-white pattern averages to the right grey; RAW images are already linear.
/// - Alpha: colour is premultiplied by alpha while filtering and divided back after, so transparent pixels
///   (whatever colour they hold) do not bleed into opaque edges. Alpha is clamped to 0...1; where it is
///   ~0 the colour becomes 0.
/// - Ringing: Lanczos overshoots at hard edges and may produce small negative values or values above 1.
///   They are kept (half floats hold them) and clamped once, at the output stage, like any other
///   out-of-gamut value, so that later linear filters see the unclamped signal.
/// - Deterministic: every output sample sums its taps in a fixed order; bands of output rows are spread
///   over `engine.threads`, which never changes a value.
///
/// The work streams in bands of output rows: each band converts just the source rows it needs to planar
/// Float32, filters vertically (vectorised along rows), then horizontally, so memory stays per-thread.
public enum Resize {
    /// `image` resampled to `width` × `height`, in the same space; `image` itself when the size is unchanged.
    public static func apply(_ image: WorkingImage, width outW: Int, height outH: Int, engine: EngineConfiguration = .detected) -> WorkingImage {
        precondition(outW > 0 && outH > 0, "resize target must be positive")
        if outW == image.width && outH == image.height { return image }
        let inW = image.width, inH = image.height
        let hWeights = ResampleWeights(inCount: inW, outCount: outW)
        let vWeights = ResampleWeights(inCount: inH, outCount: outH)
        let linear = WorkingSpace(primaries: image.space.primaries, encoding: .linear)
        let toLinear = SpaceConversion(from: image.space, to: linear)
        let fromLinear = SpaceConversion(from: linear, to: image.space)
        let alpha = image.hasAlpha
        let output = WorkingImage(width: outW, height: outH, space: image.space, hasAlpha: alpha)

        // Bands of output rows sized so each reads ~256 source rows, with enough bands to keep threads busy.
        let threads = engine.threads
        var rowsPerBand = max(1, Int(256.0 * Double(outH) / Double(inH)))
        rowsPerBand = max(1, min(rowsPerBand, (outH + 4 * threads - 1) / (4 * threads)))
        let bandCount = (outH + rowsPerBand - 1) / rowsPerBand
        var maxSourceRows = 0
        for band in 0..<bandCount {
            let j0 = band * rowsPerBand, j1 = min(outH, j0 + rowsPerBand)
            maxSourceRows = max(maxSourceRows, vWeights.start[j1 - 1] + vWeights.taps - vWeights.start[j0])
        }
        let scratch = (0..<threads).map { _ in ResizeScratch(sourceRows: maxSourceRows, inWidth: inW, outWidth: outW) }

        Parallel.forEach(bandCount, workers: scratch.count) { worker, band in
            let s = scratch[worker]
            let j0 = band * rowsPerBand, j1 = min(outH, j0 + rowsPerBand)
            let first = vWeights.start[j0], end = vWeights.start[j1 - 1] + vWeights.taps
            // Source rows first...<end as linear (premultiplied) planes.
            for y in first..<end {
                let o = (y - first) * inW
                let r = s.source[0] + o, g = s.source[1] + o, b = s.source[2] + o, a = s.source[3] + o
                lw_rgba_half_to_planar(image.row(y), r, g, b, a, inW)
                toLinear.decodeAndMatrix(r: r, g: g, b: b, count: inW)
                if alpha { premultiply(r, g, b, a, inW) }
            }
            for j in j0..<j1 {
                let offset = vWeights.start[j] - first
                vertical(s, weights: vWeights, row: j, sourceOffset: offset, width: inW, channels: alpha ? 4 : 3)
                horizontal(s, weights: hWeights, alpha: alpha)
                if alpha { unpremultiply(s.out[0], s.out[1], s.out[2], s.out[3], outW) } else {
                    for x in 0..<outW { s.out[3][x] = 1 }
                }
                fromLinear.encode(r: s.out[0], g: s.out[1], b: s.out[2], count: outW)
                lw_planar_to_rgba_half(s.out[0], s.out[1], s.out[2], s.out[3], output.row(j), outW)
            }
        }
        return output
    }

    /// One output row's vertical pass into `s.column` planes: taps in ascending order for every pixel.
    private static func vertical(_ s: ResizeScratch, weights: ResampleWeights, row j: Int, sourceOffset: Int, width: Int, channels: Int) {
        let taps = weights.taps
        weights.weights.withUnsafeBufferPointer { wp in
            let w = wp.baseAddress! + j * taps
            for c in 0..<channels {
                let dst = s.column[c]
                let src = s.source[c] + sourceOffset * width
                let w0 = w[0]
                for x in 0..<width { dst[x] = w0 * src[x] }
                for k in 1..<max(1, taps) {
                    let wk = w[k]
                    if wk == 0 { continue }
                    let row = src + k * width
                    for x in 0..<width { dst[x] += wk * row[x] }
                }
            }
        }
    }

    /// The horizontal pass from `s.column` into `s.out`: four channels at once (independent sums).
    private static func horizontal(_ s: ResizeScratch, weights: ResampleWeights, alpha: Bool) {
        let taps = weights.taps
        let r = s.column[0], g = s.column[1], b = s.column[2], a = s.column[3]
        let or = s.out[0], og = s.out[1], ob = s.out[2], oa = s.out[3]
        weights.weights.withUnsafeBufferPointer { wp in
            weights.start.withUnsafeBufferPointer { sp in
                for x in 0..<weights.outCount {
                    let w = wp.baseAddress! + x * taps
                    let s0 = sp[x]
                    var sr: Float = 0, sg: Float = 0, sb: Float = 0, sa: Float = 0
                    if alpha {
                        for k in 0..<taps {
                            let wk = w[k], i = s0 + k
                            sr += wk * r[i]; sg += wk * g[i]; sb += wk * b[i]; sa += wk * a[i]
                        }
                    } else {
                        for k in 0..<taps {
                            let wk = w[k], i = s0 + k
                            sr += wk * r[i]; sg += wk * g[i]; sb += wk * b[i]
                        }
                    }
                    or[x] = sr; og[x] = sg; ob[x] = sb; oa[x] = sa
                }
            }
        }
    }

    private static func premultiply(_ r: UnsafeMutablePointer<Float>, _ g: UnsafeMutablePointer<Float>, _ b: UnsafeMutablePointer<Float>,
                                    _ a: UnsafeMutablePointer<Float>, _ n: Int) {
        for i in 0..<n {
            let t = min(max(a[i], 0), 1)
            a[i] = t
            r[i] *= t; g[i] *= t; b[i] *= t
        }
    }

    /// Divides colour by the filtered alpha (before clamping it, so an opaque colour keeps its value where
    /// alpha rings above 1); alpha below 1/4096 is transparent: colour 0.
    private static func unpremultiply(_ r: UnsafeMutablePointer<Float>, _ g: UnsafeMutablePointer<Float>, _ b: UnsafeMutablePointer<Float>,
                                      _ a: UnsafeMutablePointer<Float>, _ n: Int) {
        for i in 0..<n {
            let t = a[i]
            let inv: Float = t > 1.0 / 4096 ? 1 / t : 0
            r[i] *= inv; g[i] *= inv; b[i] *= inv
            a[i] = min(max(t, 0), 1)
        }
    }
}

/// Per-thread planes for one band of a resize: source rows, one vertically filtered row, one output row.
final class ResizeScratch: @unchecked Sendable {
    let source: [UnsafeMutablePointer<Float>]
    let column: [UnsafeMutablePointer<Float>]
    let out: [UnsafeMutablePointer<Float>]

    init(sourceRows: Int, inWidth: Int, outWidth: Int) {
        source = (0..<4).map { _ in Self.zeroed(sourceRows * inWidth) }
        column = (0..<4).map { _ in Self.zeroed(inWidth) }
        out = (0..<4).map { _ in Self.zeroed(outWidth) }
    }

    deinit { (source + column + out).forEach { $0.deallocate() } }

    private static func zeroed(_ n: Int) -> UnsafeMutablePointer<Float> {
        let p = UnsafeMutablePointer<Float>.allocate(capacity: max(1, n))
        p.initialize(repeating: 0, count: max(1, n))
        return p
    }
}
