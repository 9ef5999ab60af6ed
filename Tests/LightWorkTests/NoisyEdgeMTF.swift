import Foundation

/// ISO 12233-style slanted-edge MTF for noisy edges (the denoise tests): the edge located row by row from the
/// derivative of 5-row bands, centroid within ±6 px of its peak (`SlantedEdge`'s whole-row centroid, made for the
/// noiseless sharpening targets, is pulled to the row's middle by noise), a line fitted through the locations,
/// pixels binned by their distance from the line at a quarter pixel, differentiated, Hamming-windowed and
/// Fourier-transformed.
enum NoisyEdgeMTF {
    /// MTF50 in cycles per pixel of a near-vertical edge in `values` (`width` × `height`, row-major, one channel),
    /// nil when no edge is found in every row.
    static func mtf50(_ values: [Float], width: Int, height: Int) -> Double? {
        let curve = mtf(values, width: width, height: height)
        guard let curve else { return nil }
        for i in 1..<curve.count where curve[i].mtf < 0.5 {
            let (f0, m0) = curve[i - 1], (f1, m1) = curve[i]
            return f0 + (f1 - f0) * (m0 - 0.5) / (m0 - m1)
        }
        return nil
    }

    /// The MTF (frequency in cycles per pixel, modulation normalised to 1 at 0) up to 1 cycle per pixel.
    static func mtf(_ values: [Float], width: Int, height: Int) -> [(frequency: Double, mtf: Double)]? {
        guard width >= 16, height >= 8 else { return nil }
        // Edge location in each row: the centroid of the derivative along x within ±6 px of its peak, on rows
        // averaged over a band of 5 (noise would otherwise pull the centroid towards the middle of the row).
        var ys: [Double] = [], xs: [Double] = []
        for y in 0..<height {
            var d = [Double](repeating: 0, count: width)
            for yy in max(0, y - 2)...min(height - 1, y + 2) {
                for x in 1..<width { d[x] += Double(values[yy * width + x] - values[yy * width + x - 1]) }
            }
            let sign = abs(d.max()!) >= abs(d.min()!) ? 1.0 : -1.0
            let peak = (1..<width).max { sign * d[$0] < sign * d[$1] }!
            var sum = 0.0, moment = 0.0
            for x in max(1, peak - 6)...min(width - 1, peak + 6) {
                sum += sign * d[x]; moment += sign * d[x] * (Double(x) - 0.5)
            }
            guard sum > 0 else { return nil }
            ys.append(Double(y)); xs.append(moment / sum)
        }
        // x = c0 + c1 · y by least squares.
        let n = Double(height), my = ys.reduce(0, +) / n, mx = xs.reduce(0, +) / n
        var sxy = 0.0, syy = 0.0
        for (y, x) in zip(ys, xs) { sxy += (y - my) * (x - mx); syy += (y - my) * (y - my) }
        let c1 = sxy / syy, c0 = mx - c1 * my
        let cosine = 1 / (1 + c1 * c1).squareRoot()
        // Edge spread function at a quarter pixel over ±(width / 2 − 2) pixels of the line.
        let oversample = 4, half = width / 2 - 2, count = 2 * half * oversample
        var sums = [Double](repeating: 0, count: count), hits = [Int](repeating: 0, count: count)
        for y in 0..<height {
            let edge = c0 + c1 * Double(y)
            for x in 0..<width {
                let d = (Double(x) - edge) * cosine
                let bin = Int(((d + Double(half)) * Double(oversample)).rounded(.down))
                guard bin >= 0, bin < count else { continue }
                sums[bin] += Double(values[y * width + x]); hits[bin] += 1
            }
        }
        // Empty bins (a near-zero slant) take their neighbours' mean.
        var esf = [Double](repeating: 0, count: count)
        for i in 0..<count {
            if hits[i] > 0 { esf[i] = sums[i] / Double(hits[i]); continue }
            var lo = i - 1, hi = i + 1
            while lo >= 0 && hits[lo] == 0 { lo -= 1 }
            while hi < count && hits[hi] == 0 { hi += 1 }
            let a = lo >= 0 ? sums[lo] / Double(hits[lo]) : nil, b = hi < count ? sums[hi] / Double(hits[hi]) : nil
            esf[i] = ((a ?? b ?? 0) + (b ?? a ?? 0)) / 2
        }
        // Line spread function (central difference) under a Hamming window centred on its peak.
        var lsf = [Double](repeating: 0, count: count)
        for i in 1..<(count - 1) { lsf[i] = (esf[i + 1] - esf[i - 1]) / 2 }
        let peak = lsf.indices.max { abs(lsf[$0]) < abs(lsf[$1]) } ?? count / 2
        for i in 0..<count {
            let t = Double(i - peak) / Double(count)
            lsf[i] *= abs(t) <= 0.5 ? 0.54 + 0.46 * cos(2 * Double.pi * t) : 0
        }
        // DFT up to 1 cycle per pixel (bins of 1 / (count / oversample) cycles per pixel).
        let top = count / oversample
        var out: [(Double, Double)] = []
        var dc = 0.0
        for k in 0...top {
            var re = 0.0, im = 0.0
            for (i, v) in lsf.enumerated() {
                let phase = -2 * Double.pi * Double(k) * Double(i) / Double(count)
                re += v * cos(phase); im += v * sin(phase)
            }
            let m = (re * re + im * im).squareRoot()
            if k == 0 { dc = m }
            out.append((Double(k) * Double(oversample) / Double(count), dc > 0 ? m / dc : 0))
        }
        return out
    }
}
