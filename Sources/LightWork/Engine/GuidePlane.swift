import Foundation

/// A blurred luminance of a whole image, kept at reduced resolution (the blur radius is a fraction of
/// the frame, so a grid ~512 cells on the long edge carries all of it) and upsampled bilinearly: a grid
/// row is interpolated across the image width when a band first needs it (memoised per thread in
/// `ThreadTables`, under the plane's `identity`), and a band's rows are blends of two of those.
/// Built from a `GuideGrid`'s luma in a fixed order, so it is identical for any thread count.
struct GuidePlane: Sendable {
    let gridWidth: Int
    let gridHeight: Int
    /// Full-resolution pixels per grid cell along each axis.
    let factor: Int
    let imageWidth: Int
    /// The blurred grid itself (`gridWidth × gridHeight`): the guide as the reduced copy sees it.
    let grid: [Float]
    /// Per image column: the grid cell to the left of the pixel centre, the one to its right, and the weight of the right one.
    private let left: [Int], right: [Int], weight: [Float]
    /// Unique per plane, so its memoised rows never answer for another plane's.
    private let identity: UInt64

    private static let planesMade = LockedBox<UInt64>(0)

    static let gridLongEdge = 512

    /// Grid cell edge in pixels for an image of this size.
    static func factor(width: Int, height: Int) -> Int {
        max(1, Int((Double(max(width, height)) / Double(gridLongEdge)).rounded(.up)))
    }

    /// The plane from per-cell mean luminances (`gridWidth × gridHeight`, row-major), blurred with a
    /// Gaussian-like radius of `radiusFraction × long edge`.
    init(cellMeans: [Float], imageWidth w: Int, imageHeight h: Int, radiusFraction: Double, engine: EngineConfiguration) {
        let f = GuidePlane.factor(width: w, height: h)
        let gw = (w + f - 1) / f
        factor = f
        gridWidth = gw
        gridHeight = (h + f - 1) / f
        imageWidth = w
        precondition(cellMeans.count == gw * gridHeight)
        let radius = radiusFraction * Double(max(w, h)) / Double(f)
        grid = GuidePlane.gaussianApproximation(cellMeans, width: gw, height: gridHeight, radius: radius, engine: engine)
        let columns = (0..<w).map { GuidePlane.samplePosition($0, factor: f, cells: gw) }
        left = columns.map(\.cell)
        right = columns.map { min($0.cell + 1, gw - 1) }
        weight = columns.map(\.weight)
        identity = GuidePlane.planesMade.withLock { $0 += 1; return $0 }
    }

    /// Where pixel `i`'s centre falls among the grid's sample centres along one axis: the cell at or before it
    /// and the weight of the next one (pixel centre i + 0.5 in grid units, minus the half cell to the cell centres).
    static func samplePosition(_ i: Int, factor f: Int, cells: Int) -> (cell: Int, weight: Float) {
        let position = max(0, (Float(i) + 0.5) / Float(f) - 0.5)
        let cell = min(Int(position), cells - 1)
        return (cell, position - Float(cell))
    }

    /// Three box blurs per axis approximate a Gaussian of standard deviation `radius`.
    static func gaussianApproximation(_ input: [Float], width: Int, height: Int, radius: Double, engine: EngineConfiguration) -> [Float] {
        guard radius >= 0.5 else { return input }
        // Box half-width whose three-fold repetition has the requested standard deviation.
        let r = max(1, Int((sqrt(4 * radius * radius + 1) - 1) / 2 + 0.5))
        var a = input, b = input
        for _ in 0..<3 {
            boxBlurRows(a, into: &b, width: width, height: height, r: r, engine: engine)
            boxBlurColumns(b, into: &a, width: width, height: height, r: r)
        }
        return a
    }

    /// Box blur along rows with edge clamping (rows in parallel).
    private static func boxBlurRows(_ src: [Float], into dst: inout [Float], width: Int, height: Int, r: Int, engine: EngineConfiguration) {
        let norm = 1 / Float(2 * r + 1)
        dst.withUnsafeMutableBufferPointer { d in
            let out = UncheckedSendable(d.baseAddress!)
            src.withUnsafeBufferPointer { s in
                let input = UncheckedSendable(s.baseAddress!)
                Parallel.forEach(height, on: engine) { y in
                    let src = input.value + y * width, dst = out.value + y * width
                    var acc: Float = 0
                    for k in -r...r { acc += src[min(max(k, 0), width - 1)] }
                    for x in 0..<width {
                        dst[x] = acc * norm
                        acc += src[min(x + r + 1, width - 1)] - src[max(x - r, 0)]
                    }
                }
            }
        }
    }

    /// Box blur along columns with edge clamping: every column's running sum advanced one row at a time, so the
    /// loop over columns vectorises (each column still adds in the same order).
    private static func boxBlurColumns(_ src: [Float], into dst: inout [Float], width: Int, height: Int, r: Int) {
        let norm = 1 / Float(2 * r + 1)
        var acc = [Float](repeating: 0, count: width)
        src.withUnsafeBufferPointer { s in
            dst.withUnsafeMutableBufferPointer { d in
                acc.withUnsafeMutableBufferPointer { a in
                    let src = s.baseAddress!, dst = d.baseAddress!, acc = a.baseAddress!
                    for k in -r...r {
                        let line = src + min(max(k, 0), height - 1) * width
                        for x in 0..<width { acc[x] += line[x] }
                    }
                    for y in 0..<height {
                        let o = dst + y * width
                        let entering = src + min(y + r + 1, height - 1) * width, leaving = src + max(y - r, 0) * width
                        for x in 0..<width {
                            o[x] = acc[x] * norm
                            acc[x] += entering[x] - leaving[x]
                        }
                    }
                }
            }
        }
    }

    /// Grid row `gy` linearly interpolated at the image's pixel centres (imageWidth floats), built once per thread.
    private func wideRow(_ gy: Int) -> UnsafePointer<Float> {
        ThreadTables.table(ThreadTables.Key(kind: 0x6764_7277, a: gy, b: identity, c: UInt64(imageWidth)), count: imageWidth) { out in
            grid.withUnsafeBufferPointer { g in left.withUnsafeBufferPointer { l in right.withUnsafeBufferPointer { r in
                weight.withUnsafeBufferPointer { w in
                    let v = g.baseAddress! + gy * gridWidth
                    for x in 0..<imageWidth {
                        let a = v[l[x]], b = v[r[x]]
                        out[x] = a + w[x] * (b - a)
                    }
                }
            } } }
        }
    }

    /// Fills `out` (rows × imageWidth) with the plane bilinearly sampled at full-resolution pixel centres.
    func sample(y0: Int, rows: Int, into out: UnsafeMutablePointer<Float>) {
        let w = imageWidth
        for row in 0..<rows {
            let (gy0, ty) = GuidePlane.samplePosition(y0 + row, factor: factor, cells: gridHeight)
            let top = wideRow(gy0), bottom = wideRow(min(gy0 + 1, gridHeight - 1))
            let o = out + row * w
            for x in 0..<w { o[x] = top[x] + ty * (bottom[x] - top[x]) }
        }
    }
}
