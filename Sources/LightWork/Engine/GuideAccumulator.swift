/// Collects the luminance a `GuidePlane` is built from while a pass writes its bands, so the guide costs
/// no extra pass over the image. Each image row's per-cell sums are kept separately (written by whichever
/// thread owns the row) and added up in row order at the end, so the result never depends on the band
/// partition or thread count.
final class GuideAccumulator: @unchecked Sendable {
    let width: Int
    let height: Int
    let factor: Int
    let gridWidth: Int
    let gridHeight: Int
    /// `height × gridWidth` sums of Rec. 709 luma over each row's stretch of a grid cell.
    private let rowSums: UnsafeMutablePointer<Float>

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        factor = GuidePlane.factor(width: width, height: height)
        gridWidth = (width + factor - 1) / factor
        gridHeight = (height + factor - 1) / factor
        rowSums = .allocate(capacity: height * gridWidth)
        rowSums.initialize(repeating: 0, count: height * gridWidth)
    }

    deinit { rowSums.deallocate() }

    /// Adds the band's rows; `luma` is scratch for `band.count` floats.
    func add(_ band: PixelBand, luma: UnsafeMutablePointer<Float>) {
        let r = band.r, g = band.g, b = band.b, n = band.count
        for i in 0..<n { luma[i] = 0.2126 * r[i] + 0.7152 * g[i] + 0.0722 * b[i] }
        let w = width, f = factor, gw = gridWidth
        for row in 0..<band.rows {
            let line = luma + row * w
            let sums = rowSums + (band.y0 + row) * gw
            // Four cells at a time: four independent chains of adds instead of one (each cell's sum keeps its
            // left-to-right order, so the result is the same).
            let whole = min(gw, w / f) & ~3
            var gx = 0
            while gx < whole {
                var s0: Float = 0, s1: Float = 0, s2: Float = 0, s3: Float = 0
                let p = line + gx * f
                for k in 0..<f {
                    s0 += p[k]; s1 += p[f + k]; s2 += p[2 * f + k]; s3 += p[3 * f + k]
                }
                sums[gx] = s0; sums[gx + 1] = s1; sums[gx + 2] = s2; sums[gx + 3] = s3
                gx += 4
            }
            for gx in whole..<gw {
                var s: Float = 0
                for x in (gx * f)..<min(gx * f + f, w) { s += line[x] }
                sums[gx] = s
            }
        }
    }

    /// The blurred plane of the rows added so far (every row must have been added).
    func plane(radiusFraction: Double) -> GuidePlane {
        let gw = gridWidth, f = factor
        var means = [Float](repeating: 0, count: gw * gridHeight)
        for gy in 0..<gridHeight {
            let rows = min(f, height - gy * f)
            for gx in 0..<gw {
                var s: Float = 0
                for y in (gy * f)..<(gy * f + rows) { s += rowSums[y * gw + gx] }
                let cols = min(f, width - gx * f)
                means[gy * gw + gx] = s / Float(cols * rows)
            }
        }
        return GuidePlane(cellMeans: means, imageWidth: width, imageHeight: height, radiusFraction: radiusFraction)
    }
}
