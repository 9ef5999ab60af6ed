/// A horizontal band of the image as planar Float32 rows: what point filters read and write.
/// The engine owns the memory; a filter only ever sees one band at a time.
public struct PixelBand: @unchecked Sendable {
    public let r: UnsafeMutablePointer<Float>
    public let g: UnsafeMutablePointer<Float>
    public let b: UnsafeMutablePointer<Float>
    public let a: UnsafeMutablePointer<Float>
    /// The blurred luminance under this band, for filters that declare `guideRadius` (else nil).
    public var guide: UnsafePointer<Float>?
    /// First image row of the band and the number of rows; the band is `rows * width` pixels, row-major.
    public let y0: Int
    public let rows: Int
    public let width: Int

    public var count: Int { rows * width }

    public init(r: UnsafeMutablePointer<Float>, g: UnsafeMutablePointer<Float>, b: UnsafeMutablePointer<Float>,
                a: UnsafeMutablePointer<Float>, guide: UnsafePointer<Float>?, y0: Int, rows: Int, width: Int) {
        self.r = r; self.g = g; self.b = b; self.a = a
        self.guide = guide
        self.y0 = y0; self.rows = rows; self.width = width
    }
}

/// Facts about the whole render that filters may depend on (never on the band partition or thread count).
public struct RenderContext: Sendable {
    /// Full image size in pixels.
    public let width: Int
    public let height: Int
    /// A seed derived from the input's content hash and the recipe: grain and dust depend on it and on
    /// pixel coordinates only, so output bytes are identical whatever the threads.
    public let seed: UInt64

    public init(width: Int, height: Int, seed: UInt64) {
        self.width = width
        self.height = height
        self.seed = seed
    }

    /// The long edge, which size-relative parameters (grain size, blur radius) scale with.
    public var longEdge: Int { max(width, height) }
}
