import Foundation

/// The Lanczos-3 taps of one axis: for every output position, a run of consecutive input positions and
/// their weights (normalised to sum 1, so a constant stays constant).
///
/// Pixel centres are aligned (output centre `i + 0.5` maps to input `(i + 0.5) / scale`); when shrinking
/// the kernel is stretched by `1 / scale` so it also low-passes. Taps beyond the image are folded onto
/// the edge pixel (edge replication), so the run always lies inside the image.
struct ResampleWeights: Sendable {
    /// Lobes of the Lanczos kernel.
    static let lobes = 3.0

    let inCount: Int
    let outCount: Int
    /// Taps per output position (the same for all, zero-padded, so loops have a fixed trip count).
    let taps: Int
    /// First input position of each output position's run; `start[i] + taps <= inCount`.
    let start: [Int]
    /// `taps` weights per output position, row-major.
    let weights: [Float]

    init(inCount: Int, outCount: Int) {
        precondition(inCount > 0 && outCount > 0)
        self.inCount = inCount
        self.outCount = outCount
        let scale = Double(outCount) / Double(inCount)
        let stretch = max(1, 1 / scale)           // kernel width in input pixels per unit of the kernel
        let support = ResampleWeights.lobes * stretch
        let taps = min(inCount, Int((2 * support).rounded(.up)) + 1)
        var start = [Int](repeating: 0, count: outCount)
        var weights = [Float](repeating: 0, count: outCount * taps)
        var folded = [Double](repeating: 0, count: inCount)
        for i in 0..<outCount {
            let centre = (Double(i) + 0.5) / scale - 0.5
            let first = Int((centre - support).rounded(.up))
            let last = Int((centre + support).rounded(.down))
            var lo = inCount, hi = -1
            var total = 0.0
            for j in first...last {
                let w = ResampleWeights.lanczos((Double(j) - centre) / stretch)
                if w == 0 { continue }
                let k = min(max(j, 0), inCount - 1)
                if lo > k { lo = k }
                if hi < k { hi = k }
                folded[k] += w
                total += w
            }
            if hi < lo { lo = min(max(Int(centre.rounded()), 0), inCount - 1); hi = lo; folded[lo] = 1; total = 1 }
            let s = min(lo, inCount - taps)         // run of `taps` that holds lo...hi and stays inside
            start[i] = s
            for k in lo...hi {
                weights[i * taps + (k - s)] = Float(folded[k] / total)
                folded[k] = 0
            }
        }
        self.taps = taps
        self.start = start
        self.weights = weights
    }

    /// sinc(x)·sinc(x/3) on |x| < 3, 0 elsewhere.
    static func lanczos(_ x: Double) -> Double {
        let a = abs(x)
        if a < 1e-12 { return 1 }
        if a >= lobes { return 0 }
        let px = Double.pi * a
        return lobes * sin(px) * sin(px / lobes) / (px * px)
    }
}
