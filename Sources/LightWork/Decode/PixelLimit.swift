/// The size checks every decoder makes after reading a header and before allocating any pixels: the pixel
/// count (`--max-pixels`, default 200 MP) and the memory the conversion would need (`--worker-memory`).
enum PixelLimit {
    /// Throws `.decodeFailed` for an empty image, `.tooManyPixels` above `options.maxPixels`, and
    /// `.decodeFailed` when the estimated peak exceeds `options.memoryLimit`.
    static func check(width: Int, height: Int, format: String, options: DecodeOptions) throws {
        guard width > 0, height > 0 else {
            throw LightWorkError.decodeFailed("\(format) header declares a \(width)×\(height) image")
        }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        if overflow || pixels > options.maxPixels {
            throw LightWorkError.tooManyPixels(width: width, height: height, limit: options.maxPixels)
        }
        try checkMemory(width: width, height: height, options: options)
    }

    /// The limits a read-back (`ImageFileReader`: verify, LUT images, tests) checks a header against before it
    /// allocates: the decode defaults (200 MP), so a damaged or hostile header cannot ask for gigabytes.
    static let readBack = DecodeOptions()

    /// Throws when converting a `width`×`height` image would need more than `options.memoryLimit`.
    static func checkMemory(width: Int, height: Int, options: DecodeOptions) throws {
        guard let limit = options.memoryLimit else { return }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        let (bytes, overflow2) = pixels.multipliedReportingOverflow(by: MemoryBudget.bytesPerPixel)
        let needed = overflow || overflow2 ? Int.max : bytes &+ MemoryBudget.baseBytes
        if needed > limit {
            let gib = { (b: Int) in String(format: "%.1f GiB", Double(b) / Double(1 << 30)) }
            throw LightWorkError.decodeFailed("the image is \(width)×\(height): converting it needs about \(needed == Int.max ? "more than any machine has" : gib(needed)), above the worker memory limit of \(gib(limit)) (raise --worker-memory)")
        }
    }
}
