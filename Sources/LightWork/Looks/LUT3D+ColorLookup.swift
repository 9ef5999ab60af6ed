import CShims

/// A film's 3D lookup table is what `FilmLook` mixes in: tetrahedral interpolation, inputs clamped to its domain.
/// On CPUs with AVX2, eight pixels' cells and weights are computed at once and two pixels are blended per
/// register from the padded table (same operations in the same order as `apply(…, interpolation:
/// .tetrahedral)`, so the same results, several times faster).
extension LUT3D: ColorLookup {
    public func apply(r: UnsafeMutablePointer<Float>, g: UnsafeMutablePointer<Float>, b: UnsafeMutablePointer<Float>, count: Int) {
        guard lw_simd_uses_avx2() != 0 else {
            apply(r: r, g: g, b: b, count: count, interpolation: .tetrahedral)
            return
        }
        let n1 = Float(size - 1)
        let minimum = [domainMin.x, domainMin.y, domainMin.z]
        let scale = [n1 / (domainMax.x - domainMin.x), n1 / (domainMax.y - domainMin.y), n1 / (domainMax.z - domainMin.z)]
        let padded = !paddedTable.isEmpty
        (padded ? paddedTable : table).withUnsafeBufferPointer { t in
            lw_lut3d_tetrahedral_avx2(t.baseAddress!, Int32(size), padded ? 1 : 0, minimum, scale, r, g, b, count)
        }
    }
}
