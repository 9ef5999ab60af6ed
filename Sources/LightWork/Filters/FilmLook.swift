/// The film emulation (`film` lookup at `strength` 0…1): result1 → lookup → mix(result1, lookup, strength),
/// in the sRGB-encoded domain the film lookups are made for.
///
/// The lookup sees a copy of each pixel clamped to 0…1 (a lookup table is defined on the unit cube
/// only); the mix keeps the original values where strength is below 1. Neutral without a lookup or at
/// strength 0.
public struct FilmLook: Filter {
    public let name = "film"
    public let lookup: (any ColorLookup)?
    /// 0 (no film) … 1 (full film).
    public let strength: Double

    /// Pixels per lookup call: the three copies stay in the L1/L2 cache.
    static let chunk = 1024

    public init(lookup: (any ColorLookup)?, strength: Double) {
        self.lookup = lookup
        self.strength = min(max(strength, 0), 1)
    }

    public var isNeutral: Bool { lookup == nil || strength == 0 }
    public var domain: FilterDomain { .perceptual }

    public func apply(_ band: PixelBand, _ context: RenderContext) {
        guard let lookup, strength > 0 else { return }
        let s = Float(strength)
        let chunk = FilmLook.chunk
        ThreadScratch.withFloats(3 * chunk) { lr in
            let lg = lr + chunk, lb = lr + 2 * chunk
            var start = 0
            let n = band.count
            while start < n {
                let m = min(chunk, n - start)
                let r = band.r + start, g = band.g + start, b = band.b + start
                @inline(__always) func unit(_ v: Float) -> Float {
                    let positive = v > 0 ? v : 0
                    return positive < 1 ? positive : 1
                }
                for i in 0..<m {
                    lr[i] = unit(r[i])
                    lg[i] = unit(g[i])
                    lb[i] = unit(b[i])
                }
                lookup.apply(r: lr, g: lg, b: lb, count: m)
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
