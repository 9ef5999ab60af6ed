/// Non-square sensor pixels made square the way LibRaw's `stretch()` defines it, for LightWork's own demosaic
/// (LibRaw stretches its own output inside `dcraw_process`). LibRaw's `pixel_aspect` is a pixel's width over its
/// height: above 1 the rows widen to round(width × aspect) columns, below 1 the image gains rows to
/// round(height / aspect); each new sample mixes the two stored neighbours around its position linearly and rounds.
enum PixelAspect {
    /// LibRaw's dimensions are 16-bit: a stretch beyond this would wrap there, so it is refused instead.
    static let largestDimension = 65535

    /// The picture's size once `aspect` is made square (LibRaw's rounding); nil when it would exceed 65535 pixels
    /// a side or the aspect is not a positive finite number.
    static func stretchedSize(width: Int, height: Int, aspect: Double) -> (width: Int, height: Int)? {
        guard aspect.isFinite, aspect > 0 else { return nil }
        if aspect == 1 { return (width, height) }
        let stretched = aspect > 1 ? (Double(width) * aspect + 0.5).rounded(.down) : (Double(height) / aspect + 0.5).rounded(.down)
        guard stretched >= 1, stretched <= Double(largestDimension) else { return nil }
        return aspect > 1 ? (Int(stretched), height) : (width, Int(stretched))
    }

    /// Stretches a `width × height` buffer of four UInt16 per pixel (the first three interpolated, the fourth 0)
    /// into a new buffer the caller deallocates. Every output row depends only on its inputs, so any thread count
    /// gives the same bytes.
    static func stretch(_ src: UnsafePointer<UInt16>, width: Int, height: Int, aspect: Double, engine: EngineConfiguration) -> (pixels: UnsafeMutablePointer<UInt16>, width: Int, height: Int)? {
        guard let (nw, nh) = stretchedSize(width: width, height: height, aspect: aspect) else { return nil }
        let out = UnsafeMutablePointer<UInt16>.allocate(capacity: 4 * nw * nh)
        let source = UncheckedSendable(src), target = UncheckedSendable(out)
        // Output sample k sits at stored position k / aspect (columns) or k × aspect (rows): its left (upper)
        // neighbour, the next one (the same at the far edge) and the weight of the next.
        func taps(_ count: Int, step: Double, limit: Int) -> [(Int, Int, Double)] {
            (0..<count).map { k in
                let position = Double(k) * step
                let near = min(Int(position), limit - 1)
                return (near, min(near + 1, limit - 1), position - Double(near))
            }
        }
        if nw != width {
            let columns = taps(nw, step: 1 / aspect, limit: width)
            Parallel.forEach(nh, workers: engine.workers(for: nh)) { _, y in
                let row = source.value + 4 * width * y, dst = target.value + 4 * nw * y
                for (x, (a, b, t)) in columns.enumerated() { mix(row + 4 * a, row + 4 * b, t, into: dst + 4 * x) }
            }
        } else {
            let rows = taps(nh, step: aspect, limit: height)
            Parallel.forEach(nh, workers: engine.workers(for: nh)) { _, y in
                let (a, b, t) = rows[y]
                let upper = source.value + 4 * width * a, lower = source.value + 4 * width * b, dst = target.value + 4 * nw * y
                for x in 0..<nw { mix(upper + 4 * x, lower + 4 * x, t, into: dst + 4 * x) }
            }
        }
        return (out, nw, nh)
    }

    /// One output pixel: `a` and `b` mixed with weight `t` on `b`, rounded; the fourth channel 0.
    @inline(__always)
    private static func mix(_ a: UnsafePointer<UInt16>, _ b: UnsafePointer<UInt16>, _ t: Double, into d: UnsafeMutablePointer<UInt16>) {
        for c in 0..<3 { d[c] = UInt16(Double(a[c]) * (1 - t) + Double(b[c]) * t + 0.5) }
        d[3] = 0
    }
}
