/// A film's 3D lookup table is what `FilmLook` mixes in: tetrahedral interpolation, inputs clamped to its domain.
extension LUT3D: ColorLookup {
    public func apply(r: UnsafeMutablePointer<Float>, g: UnsafeMutablePointer<Float>, b: UnsafeMutablePointer<Float>, count: Int) {
        apply(r: r, g: g, b: b, count: count, interpolation: .tetrahedral)
    }
}
