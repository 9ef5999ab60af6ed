import Foundation

/// A blurred luminance of a whole image, kept at reduced resolution (the blur radius is a fraction of
/// the frame, so a grid ~512 cells on the long edge carries all of it) and upsampled bilinearly per band.
/// Every cell is computed in a fixed order, so the plane is identical for any thread count.
struct GuidePlane: @unchecked Sendable {
    let gridWidth: Int
    let gridHeight: Int
    /// Full-resolution pixels per grid cell along each axis.
    let factor: Int
    let values: [Float]
    let imageWidth: Int
    let imageHeight: Int

    static let gridLongEdge = 512

    /// Builds the plane from `image` seen through `toDomain` (the guided filter's domain), blurred with a
    /// Gaussian-like radius of `radiusFraction × long edge`.
    init(image: WorkingImage, toDomain: SpaceConversion, radiusFraction: Double) {
        let w = image.width, h = image.height
        let f = max(1, Int((Double(max(w, h)) / Double(GuidePlane.gridLongEdge)).rounded(.up)))
        factor = f
        gridWidth = (w + f - 1) / f
        gridHeight = (h + f - 1) / f
        imageWidth = w
        imageHeight = h
        var grid = [Float](repeating: 0, count: gridWidth * gridHeight)
        let gw = gridWidth, gh = gridHeight
        grid.withUnsafeMutableBufferPointer { gp in
            let out = UncheckedSendable(gp.baseAddress!)
            let scratch = (0..<Parallel.threads).map { _ in BandScratch(capacity: w) }
            Parallel.forEach(gh, workers: scratch.count) { worker, gy in
                let s = scratch[worker]
                var sums = [Float](repeating: 0, count: gw)
                let rows = min(f, h - gy * f)
                for y in (gy * f)..<(gy * f + rows) {
                    BandIO.load(image, y0: y, rows: 1, into: s)
                    toDomain.apply(r: s.r, g: s.g, b: s.b, count: w)
                    for x in 0..<w { sums[x / f] += 0.2126 * s.r[x] + 0.7152 * s.g[x] + 0.0722 * s.b[x] }
                }
                for gx in 0..<gw {
                    let cols = min(f, w - gx * f)
                    out.value[gy * gw + gx] = sums[gx] / Float(cols * rows)
                }
            }
        }
        let radius = radiusFraction * Double(max(w, h)) / Double(f)
        values = GuidePlane.gaussianApproximation(grid, width: gridWidth, height: gridHeight, radius: radius)
    }

    /// Three box blurs per axis approximate a Gaussian of standard deviation `radius`.
    static func gaussianApproximation(_ input: [Float], width: Int, height: Int, radius: Double) -> [Float] {
        guard radius >= 0.5 else { return input }
        // Box half-width whose three-fold repetition has the requested standard deviation.
        let r = max(1, Int((sqrt(4 * radius * radius + 1) - 1) / 2 + 0.5))
        var a = input, b = input
        for _ in 0..<3 {
            boxBlurRows(a, into: &b, width: width, height: height, r: r)
            boxBlurColumns(b, into: &a, width: width, height: height, r: r)
        }
        return a
    }

    /// Box blur along rows with edge clamping.
    private static func boxBlurRows(_ src: [Float], into dst: inout [Float], width: Int, height: Int, r: Int) {
        let norm = 1 / Float(2 * r + 1)
        for y in 0..<height {
            let row = y * width
            var acc: Float = 0
            for k in -r...r { acc += src[row + min(max(k, 0), width - 1)] }
            for x in 0..<width {
                dst[row + x] = acc * norm
                acc += src[row + min(x + r + 1, width - 1)] - src[row + max(x - r, 0)]
            }
        }
    }

    /// Box blur along columns with edge clamping.
    private static func boxBlurColumns(_ src: [Float], into dst: inout [Float], width: Int, height: Int, r: Int) {
        let norm = 1 / Float(2 * r + 1)
        for x in 0..<width {
            var acc: Float = 0
            for k in -r...r { acc += src[min(max(k, 0), height - 1) * width + x] }
            for y in 0..<height {
                dst[y * width + x] = acc * norm
                acc += src[min(y + r + 1, height - 1) * width + x] - src[max(y - r, 0) * width + x]
            }
        }
    }

    /// Fills `out` (rows × imageWidth) with the plane bilinearly sampled at full-resolution pixel centres.
    func sample(y0: Int, rows: Int, into out: UnsafeMutablePointer<Float>) {
        let w = imageWidth, f = Float(factor)
        values.withUnsafeBufferPointer { v in
            for row in 0..<rows {
                let gyf = max(0, (Float(y0 + row) + 0.5) / f - 0.5)
                let gy0 = min(Int(gyf), gridHeight - 1), gy1 = min(gy0 + 1, gridHeight - 1)
                let ty = gyf - Float(gy0)
                let line = out + row * w
                for x in 0..<w {
                    let gxf = max(0, (Float(x) + 0.5) / f - 0.5)
                    let gx0 = min(Int(gxf), gridWidth - 1), gx1 = min(gx0 + 1, gridWidth - 1)
                    let tx = gxf - Float(gx0)
                    let top = v[gy0 * gridWidth + gx0] * (1 - tx) + v[gy0 * gridWidth + gx1] * tx
                    let bottom = v[gy1 * gridWidth + gx0] * (1 - tx) + v[gy1 * gridWidth + gx1] * tx
                    line[x] = top * (1 - ty) + bottom * ty
                }
            }
        }
    }
}
