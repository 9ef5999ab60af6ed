import Foundation

/// A blurred luminance of a whole image, kept at reduced resolution (the blur radius is a fraction of
/// the frame, so a grid ~512 cells on the long edge carries all of it) and upsampled bilinearly: each grid
/// row is interpolated across the image width once, and a band's rows are blends of two of those.
/// Built from a `GuideAccumulator`'s cell means in a fixed order, so it is identical for any thread count.
struct GuidePlane: Sendable {
    let gridHeight: Int
    /// Full-resolution pixels per grid cell along each axis.
    let factor: Int
    let imageWidth: Int
    /// `gridHeight × imageWidth`: each blurred grid row linearly interpolated at the image's pixel centres.
    private let wideRows: [Float]

    static let gridLongEdge = 512

    /// Grid cell edge in pixels for an image of this size.
    static func factor(width: Int, height: Int) -> Int {
        max(1, Int((Double(max(width, height)) / Double(gridLongEdge)).rounded(.up)))
    }

    /// The plane from per-cell mean luminances (`gridWidth × gridHeight`, row-major), blurred with a
    /// Gaussian-like radius of `radiusFraction × long edge`.
    init(cellMeans: [Float], imageWidth w: Int, imageHeight h: Int, radiusFraction: Double) {
        let f = GuidePlane.factor(width: w, height: h)
        let gridWidth = (w + f - 1) / f
        factor = f
        gridHeight = (h + f - 1) / f
        imageWidth = w
        precondition(cellMeans.count == gridWidth * gridHeight)
        let radius = radiusFraction * Double(max(w, h)) / Double(f)
        let values = GuidePlane.gaussianApproximation(cellMeans, width: gridWidth, height: gridHeight, radius: radius)
        // Sample positions: pixel centre x + 0.5 in grid units, minus the half cell to the grid sample centres.
        var weight = [Float](repeating: 0, count: w)
        var left = [Int](repeating: 0, count: w)
        for x in 0..<w {
            let gxf = max(0, (Float(x) + 0.5) / Float(f) - 0.5)
            left[x] = min(Int(gxf), gridWidth - 1)
            weight[x] = gxf - Float(left[x])
        }
        var wide = [Float](repeating: 0, count: gridHeight * w)
        for gy in 0..<gridHeight {
            let row = gy * gridWidth
            for x in 0..<w {
                let a = values[row + left[x]], b = values[row + min(left[x] + 1, gridWidth - 1)]
                wide[gy * w + x] = a + weight[x] * (b - a)
            }
        }
        wideRows = wide
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
        wideRows.withUnsafeBufferPointer { v in
            for row in 0..<rows {
                let gyf = max(0, (Float(y0 + row) + 0.5) / f - 0.5)
                let gy0 = min(Int(gyf), gridHeight - 1), gy1 = min(gy0 + 1, gridHeight - 1)
                let ty = gyf - Float(gy0)
                let top = v.baseAddress! + gy0 * w, bottom = v.baseAddress! + gy1 * w
                let o = out + row * w
                for x in 0..<w { o[x] = top[x] + ty * (bottom[x] - top[x]) }
            }
        }
    }
}
