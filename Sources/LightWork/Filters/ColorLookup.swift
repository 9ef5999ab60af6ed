/// A colour transform on sRGB-encoded values in 0…1 (a film's 3D lookup table): what `FilmLook` mixes in.
///
/// Implementations transform `count` pixels of three planes in place and must be safe to call from
/// several threads at once (each call gets its own planes).
public protocol ColorLookup: Sendable {
    func apply(r: UnsafeMutablePointer<Float>, g: UnsafeMutablePointer<Float>, b: UnsafeMutablePointer<Float>, count: Int)

    /// `FilmLook`'s blend in place: each value v becomes v + strength · (lookup − v), the lookup seeing the
    /// pixel clamped to 0…1 (a lookup table is defined on the unit cube only). A lookup may do this in one
    /// pass; the default copies, looks up and blends in chunks, with the same results.
    func mix(r: UnsafeMutablePointer<Float>, g: UnsafeMutablePointer<Float>, b: UnsafeMutablePointer<Float>, count: Int, strength: Float)
}

public extension ColorLookup {
    func mix(r: UnsafeMutablePointer<Float>, g: UnsafeMutablePointer<Float>, b: UnsafeMutablePointer<Float>, count: Int, strength: Float) {
        mixThroughCopies(r: r, g: g, b: b, count: count, strength: strength)
    }

    /// The blend around `apply`: clamped copies of a chunk of pixels looked up, then blended into the planes.
    func mixThroughCopies(r: UnsafeMutablePointer<Float>, g: UnsafeMutablePointer<Float>, b: UnsafeMutablePointer<Float>, count: Int,
                          strength s: Float) {
        // Pixels per lookup call: the three copies stay in the L1/L2 cache.
        let chunk = 1024
        ThreadScratch.withFloats(3 * chunk) { lr in
            let lg = lr + chunk, lb = lr + 2 * chunk
            var start = 0
            while start < count {
                let m = min(chunk, count - start)
                let r = r + start, g = g + start, b = b + start
                @inline(__always) func unit(_ v: Float) -> Float {
                    let positive = v > 0 ? v : 0
                    return positive < 1 ? positive : 1
                }
                for i in 0..<m {
                    lr[i] = unit(r[i])
                    lg[i] = unit(g[i])
                    lb[i] = unit(b[i])
                }
                apply(r: lr, g: lg, b: lb, count: m)
                for i in 0..<m {
                    r[i] += s * (lr[i] - r[i])
                    g[i] += s * (lg[i] - g[i])
                    b[i] += s * (lb[i] - b[i])
                }
                start += m
            }
        }
    }
}
