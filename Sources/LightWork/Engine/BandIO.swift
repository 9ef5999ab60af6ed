import CShims

/// Moves rows between a WorkingImage's half-float RGBA storage and a band's Float32 planes.
enum BandIO {
    /// Loads rows into the band's planes; with a `table` (every half float's value under a curve, see
    /// `FastCurve.halfTable`) R, G and B are mapped through it on the way.
    static func load(_ image: WorkingImage, y0: Int, rows: Int, into s: BandScratch, mappedThrough table: UnsafePointer<Float>? = nil) {
        if let table {
            lw_rgba_half_to_planar_mapped(image.row(y0), table, s.r, s.g, s.b, s.a, rows * image.width)
        } else {
            lw_rgba_half_to_planar(image.row(y0), s.r, s.g, s.b, s.a, rows * image.width)
        }
    }

    static func store(_ s: BandScratch, y0: Int, rows: Int, into image: WorkingImage) {
        lw_planar_to_rgba_half(s.r, s.g, s.b, s.a, image.row(y0), rows * image.width)
    }
}
