import CShims

/// A film's 3D lookup table is what `FilmLook` mixes in: tetrahedral interpolation, inputs clamped to its domain.
/// On CPUs with AVX2, the cells and weights of a run of pixels are computed eight at a time, then each pixel's
/// corners are read and blended (same operations in the same order as `apply(…, interpolation: .tetrahedral)`,
/// so the same results, several times faster); with a padded table `mix` also clamps and blends in that pass.
extension LUT3D: ColorLookup {
    public func apply(r: UnsafeMutablePointer<Float>, g: UnsafeMutablePointer<Float>, b: UnsafeMutablePointer<Float>, count: Int) {
        guard lw_cpu_avx2() != 0 else {
            apply(r: r, g: g, b: b, count: count, interpolation: .tetrahedral)
            return
        }
        let padded = !paddedTable.isEmpty
        (padded ? paddedTable : table).withUnsafeBufferPointer { t in
            lw_lut3d_tetrahedral_avx2(t.baseAddress!, Int32(size), padded ? 1 : 0, kernelMinimum, kernelScale, r, g, b, count)
        }
    }

    public func mix(r: UnsafeMutablePointer<Float>, g: UnsafeMutablePointer<Float>, b: UnsafeMutablePointer<Float>, count: Int, strength: Float) {
        guard lw_cpu_avx2() != 0, !paddedTable.isEmpty else {
            mixThroughCopies(r: r, g: g, b: b, count: count, strength: strength)   // `apply` still takes the vector kernel
            return
        }
        paddedTable.withUnsafeBufferPointer { t in
            lw_lut3d_mix_avx2(t.baseAddress!, Int32(size), kernelMinimum, kernelScale, strength, r, g, b, count)
        }
    }

    /// The kernel's input mapping: lattice coordinate = (v − minimum) · scale.
    private var kernelMinimum: [Float] { [domainMin.x, domainMin.y, domainMin.z] }
    private var kernelScale: [Float] {
        let n1 = Float(size - 1)
        return [n1 / (domainMax.x - domainMin.x), n1 / (domainMax.y - domainMin.y), n1 / (domainMax.z - domainMin.z)]
    }
}
