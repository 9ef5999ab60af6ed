import CShims

/// The pixels the engine works on: interleaved RGBA half floats (the original app's RAW working format),
/// tagged with the colour space their values are in. Storage only; the engine computes in Float32.
public final class WorkingImage: @unchecked Sendable {
    public let width: Int
    public let height: Int
    /// What the values mean (linear wide gamut for RAW, device RGB for JPEG/PNG).
    public var space: WorkingSpace
    /// Whether channel 4 carries real alpha (RAW images and opaque files hold 1.0 there).
    public var hasAlpha: Bool
    /// Half-float bits, `4 * width * height` of them, row-major.
    public let storage: UnsafeMutablePointer<UInt16>

    public var pixelCount: Int { width * height }

    /// Allocates an image filled with zeros (alpha 0).
    public convenience init(width: Int, height: Int, space: WorkingSpace, hasAlpha: Bool = false) {
        self.init(width: width, height: height, space: space, hasAlpha: hasAlpha, zeroed: true)
    }

    /// Allocates an image whose pixels hold whatever the memory held: for decoders and copies that write
    /// every pixel before anything reads one (zero-filling 24 MP costs a pass over 192 MB).
    public static func unfilled(width: Int, height: Int, space: WorkingSpace, hasAlpha: Bool = false) -> WorkingImage {
        WorkingImage(width: width, height: height, space: space, hasAlpha: hasAlpha, zeroed: false)
    }

    private init(width: Int, height: Int, space: WorkingSpace, hasAlpha: Bool, zeroed: Bool) {
        precondition(width > 0 && height > 0, "image dimensions must be positive")
        self.width = width
        self.height = height
        self.space = space
        self.hasAlpha = hasAlpha
        // UInt16 is a trivial type: storing through the pointer initialises it, so skipping the fill is sound.
        // A mapping of its own, kept for the next image of its size (lw_buffer.h).
        guard let p = lw_large_alloc(8 * width * height) else { fatalError("out of memory for a \(width)×\(height) working image") }
        storage = p.bindMemory(to: UInt16.self, capacity: 4 * width * height)
        if zeroed { storage.initialize(repeating: 0, count: 4 * width * height) }
    }

    deinit { lw_large_free(storage) }

    /// Pointer to the first half of row `y`.
    @inline(__always) public func row(_ y: Int) -> UnsafeMutablePointer<UInt16> { storage + 4 * width * y }

    /// Bytes a WorkingImage of this size occupies (for memory budgets).
    public static func byteCount(width: Int, height: Int) -> Int { 8 * width * height }

    /// Reads pixel (x, y) as Float32 RGBA; for tests and probes, not for loops.
    public func pixel(x: Int, y: Int) -> SIMD4<Float> {
        var out = [Float](repeating: 0, count: 4)
        lw_half_to_float(storage + 4 * (y * width + x), &out, 4)
        return SIMD4(out[0], out[1], out[2], out[3])
    }

    /// Writes pixel (x, y) from Float32 RGBA; for tests and generators, not for loops.
    public func setPixel(x: Int, y: Int, _ v: SIMD4<Float>) {
        let src: [Float] = [v.x, v.y, v.z, v.w]
        lw_float_to_half(src, storage + 4 * (y * width + x), 4)
    }

    /// A deep copy (the engine never shares mutable storage between two images).
    public func copy() -> WorkingImage {
        let c = WorkingImage.unfilled(width: width, height: height, space: space, hasAlpha: hasAlpha)
        c.storage.initialize(from: storage, count: 4 * pixelCount)
        return c
    }
}
