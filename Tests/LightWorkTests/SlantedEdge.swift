import Foundation

/// An ISO 12233-style slanted-edge target and its MTF measurement, self-contained for the sharpening tests.
///
/// Target: a near-vertical step (dark left, bright right) through the frame's centre, tilted by `angle` degrees,
/// blurred by a Gaussian of `sigma` px and sampled at pixel centres, so its edge-spread function is exactly
/// low + (high − low)·Φ(d/σ) across the edge and its MTF is exp(−2π²σ²f²): MTF50 = √(ln 2 / 2) / (π σ) cy/px.
///
/// Measurement: the edge's position in every row (centroid of the row's gradient), a least-squares line through
/// them (the edge angle), every pixel's perpendicular distance to that line binned at ¼ px (the supersampled ESF),
/// its derivative (the LSF) under a Hamming window, and the LSF's Fourier magnitude, normalised at 0 and corrected
/// for the binning and the derivative, scanned for the first frequency where it falls to 0.5.
enum SlantedEdge {
    struct Measurement {
        /// Cycles per pixel, measured across the edge.
        let mtf50: Double
        /// Brightest pixel above `high` and darkest below `low`, as fractions of the step (high − low).
        let overshoot: Double
        let undershoot: Double
        /// The fitted edge's angle from vertical, degrees (positive: the edge leans right going down).
        let angle: Double
    }

    /// MTF50 of a Gaussian blur of `sigma` px (the target's truth).
    static func gaussianMTF50(sigma: Double) -> Double { (log(2) / 2).squareRoot() / (.pi * sigma) }

    /// Φ, the standard normal CDF.
    static func phi(_ x: Double) -> Double { 0.5 * erfc(-x / 2.0.squareRoot()) }

    /// The target's linear values, row-major (`sigma` 0 gives a sharp, point-sampled step).
    static func render(width: Int, height: Int, angle: Double, sigma: Double, low: Double, high: Double) -> [Float] {
        let t = angle * .pi / 180
        let cx = Double(width) / 2, cy = Double(height) / 2
        var out = [Float](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                // Signed distance of the pixel centre to the line through the centre at `angle` from vertical.
                let px = Double(x) + 0.5 - cx, py = Double(y) + 0.5 - cy
                let d = px * cos(t) - py * sin(t)
                let s = sigma > 0 ? phi(d / sigma) : (d > 0 ? 1 : d < 0 ? 0 : 0.5)
                out[y * width + x] = Float(low + (high - low) * s)
            }
        }
        return out
    }

    /// Measures `plane` (row-major `width`×`height`, one near-vertical edge) inside rows `rows` and within
    /// `halfWidth` px of the edge; `low`/`high` are the plateaus the overshoot is measured against.
    static func measure(_ plane: [Float], width: Int, height: Int, rows: Range<Int>? = nil, halfWidth: Double = 24,
                        low: Double, high: Double) -> Measurement {
        let rows = rows ?? 0..<height
        // 1. Edge position per row: centroid of |gradient| (between pixel centres x and x+1 → x + 1).
        var ys: [Double] = [], xs: [Double] = []
        for y in rows {
            var sum = 0.0, moment = 0.0
            for x in 0..<(width - 1) {
                let g = abs(Double(plane[y * width + x + 1]) - Double(plane[y * width + x]))
                sum += g; moment += g * (Double(x) + 1)
            }
            guard sum > 0 else { continue }
            ys.append(Double(y) + 0.5); xs.append(moment / sum)
        }
        // 2. Least-squares line x = a + b·y.
        let n = Double(ys.count)
        let my = ys.reduce(0, +) / n, mx = xs.reduce(0, +) / n
        var sxy = 0.0, syy = 0.0
        for (y, x) in zip(ys, xs) { sxy += (y - my) * (x - mx); syy += (y - my) * (y - my) }
        let b = sxy / syy, a = mx - b * my
        let cosT = 1 / (1 + b * b).squareRoot()
        // 3. Perpendicular distances binned at ¼ px.
        let binsPerPixel = 4.0
        let nBins = Int(2 * halfWidth * binsPerPixel)
        var sums = [Double](repeating: 0, count: nBins), counts = [Int](repeating: 0, count: nBins)
        var maxV = -Double.infinity, minV = Double.infinity
        for y in rows {
            let edge = a + b * (Double(y) + 0.5)
            for x in 0..<width {
                let d = (Double(x) + 0.5 - edge) * cosT
                guard abs(d) < halfWidth else { continue }
                let v = Double(plane[y * width + x])
                maxV = max(maxV, v); minV = min(minV, v)
                let bin = Int(((d + halfWidth) * binsPerPixel).rounded(.down))
                guard bin >= 0, bin < nBins else { continue }
                sums[bin] += v; counts[bin] += 1
            }
        }
        var esf = [Double](repeating: 0, count: nBins)
        for i in 0..<nBins {
            if counts[i] > 0 { esf[i] = sums[i] / Double(counts[i]); continue }
            esf[i] = i > 0 ? esf[i - 1] : low   // an empty bin takes its neighbour (sparse only at tiny angles)
        }
        // 4. LSF (central differences) under a Hamming window, its DFT magnitude from f = 0 up.
        var lsf = [Double](repeating: 0, count: nBins)
        for i in 1..<(nBins - 1) { lsf[i] = (esf[i + 1] - esf[i - 1]) / 2 }
        let m = Double(nBins - 1)
        for i in 0..<nBins { lsf[i] *= 0.54 - 0.46 * cos(2 * .pi * Double(i) / m) }
        func mtf(_ f: Double) -> Double {
            var re = 0.0, im = 0.0
            for i in 0..<nBins {
                let x = Double(i) / binsPerPixel
                re += lsf[i] * cos(2 * .pi * f * x); im -= lsf[i] * sin(2 * .pi * f * x)
            }
            return (re * re + im * im).squareRoot()
        }
        // ISO 12233's correction for the ¼ px bins (a box) and the central difference over two bins.
        func sinc(_ x: Double) -> Double { x == 0 ? 1 : sin(.pi * x) / (.pi * x) }
        let h = 1 / binsPerPixel
        let dc = mtf(0)
        var previous = 1.0, mtf50 = 0.5
        var f = 0.0
        while f < 1 {
            let next = f + 0.002
            let v = mtf(next) / dc / (sinc(2 * next * h) * sinc(next * h))
            if v < 0.5 { mtf50 = f + (previous - 0.5) / (previous - v) * 0.002; break }
            previous = v; f = next
        }
        let step = high - low
        return Measurement(mtf50: mtf50, overshoot: max(0, maxV - high) / step, undershoot: max(0, low - minV) / step,
                           angle: atan(b) * 180 / .pi)
    }
}
