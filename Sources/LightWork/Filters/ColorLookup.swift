/// A colour transform on sRGB-encoded values in 0…1 (a film's 3D lookup table): what `FilmLook` mixes in.
///
/// Implementations transform `count` pixels of three planes in place and must be safe to call from
/// several threads at once (each call gets its own planes).
public protocol ColorLookup: Sendable {
    func apply(r: UnsafeMutablePointer<Float>, g: UnsafeMutablePointer<Float>, b: UnsafeMutablePointer<Float>, count: Int)
}
