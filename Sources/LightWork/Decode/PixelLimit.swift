/// The size check every decoder makes after reading a header and before allocating any pixels.
enum PixelLimit {
    /// Throws `.decodeFailed` for an empty image and `.tooManyPixels` above `options.maxPixels`.
    static func check(width: Int, height: Int, format: String, options: DecodeOptions) throws {
        guard width > 0, height > 0 else {
            throw LightWorkError.decodeFailed("\(format) header declares a \(width)×\(height) image")
        }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        if overflow || pixels > options.maxPixels {
            throw LightWorkError.tooManyPixels(width: width, height: height, limit: options.maxPixels)
        }
    }
}
