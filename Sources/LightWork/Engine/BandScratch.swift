/// Per-thread planar Float32 buffers for one band (R, G, B, A and the guide), reused band after band.
final class BandScratch: @unchecked Sendable {
    let capacity: Int
    let r, g, b, a, guide: UnsafeMutablePointer<Float>

    init(capacity: Int) {
        self.capacity = capacity
        let all = UnsafeMutablePointer<Float>.allocate(capacity: 5 * capacity)
        all.initialize(repeating: 0, count: 5 * capacity)
        r = all; g = all + capacity; b = all + 2 * capacity; a = all + 3 * capacity; guide = all + 4 * capacity
    }

    deinit { r.deallocate() }

    /// A band view of rows `y0..<y0+rows` of an image `width` wide.
    func band(y0: Int, rows: Int, width: Int, withGuide: Bool) -> PixelBand {
        PixelBand(r: r, g: g, b: b, a: a, guide: withGuide ? UnsafePointer(guide) : nil, y0: y0, rows: rows, width: width)
    }
}
