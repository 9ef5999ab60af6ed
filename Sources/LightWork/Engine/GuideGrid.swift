import CShims

/// The image reduced to the guide grid: the mean colour of every cell (`GuidePlane.factor` pixels square), as
/// planar Float32 in the image's storage space. The engine runs the chain's prefix over this small copy to build
/// each guided filter's blurred luminance (see `Renderer`), so the full-resolution image is swept once, not once
/// per guide.
/// Each grid row is summed by one worker in a fixed order, so the means never depend on the thread count.
final class GuideGrid: @unchecked Sendable {
    let width: Int
    let height: Int
    /// `width × height` planes (R, G, B, A).
    let r, g, b, a: UnsafeMutablePointer<Float>
    /// The threads the grid is built and swept on.
    let engine: EngineConfiguration

    init(_ image: WorkingImage, engine: EngineConfiguration) {
        self.engine = engine
        let w = image.width, h = image.height
        let f = GuidePlane.factor(width: w, height: h)
        width = (w + f - 1) / f
        height = (h + f - 1) / f
        let gw = width, n = width * height
        let all = UnsafeMutablePointer<Float>.allocate(capacity: 4 * n)
        all.initialize(repeating: 0, count: 4 * n)
        r = all; g = all + n; b = all + 2 * n; a = all + 3 * n
        let planes = UncheckedSendable((r, g, b, a))
        Parallel.forEach(height, on: engine) { gy in
            let rows = min(f, h - gy * f)
            // RGBA sums per cell, added image row by image row in order.
            var sums = [Float](repeating: 0, count: 4 * gw)
            for y in (gy * f)..<(gy * f + rows) { lw_rgba_half_add_cell_sums(image.row(y), w, f, &sums) }
            let (r, g, b, a) = planes.value
            for gx in 0..<gw {
                let count = Float(min(f, w - gx * f) * rows), i = gy * gw + gx
                r[i] = sums[4 * gx] / count; g[i] = sums[4 * gx + 1] / count
                b[i] = sums[4 * gx + 2] / count; a[i] = sums[4 * gx + 3] / count
            }
        }
    }

    deinit { r.deallocate() }

    var count: Int { width * height }

    /// Runs `body` over the grid in bands of rows on the engine's threads, each band with its part of `guide`
    /// (a `width × height` plane) when one is given. The chain's filters never depend on the band split.
    func forEachBand(guide: UnsafePointer<Float>? = nil, _ body: (PixelBand) -> Void) {
        let rowsPerBand = Renderer.bandRows(width: width)
        Parallel.forEach((height + rowsPerBand - 1) / rowsPerBand, on: engine) { i in
            let y0 = i * rowsPerBand, o = y0 * width
            body(PixelBand(r: r + o, g: g + o, b: b + o, a: a + o, guide: guide.map { $0 + o },
                           y0: y0, rows: min(rowsPerBand, height - y0), width: width))
        }
    }

    /// Rec. 709 luma of each cell (of the values the planes hold now).
    func luma() -> [Float] {
        (0..<count).map { 0.2126 * r[$0] + 0.7152 * g[$0] + 0.0722 * b[$0] }
    }
}
