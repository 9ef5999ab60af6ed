import Foundation

/// Decoded pixels of a LUT image (HaldCLUT or lookup image), independent of any image decoder:
/// interleaved samples, row by row, `channels` per pixel (≥ 3; extra channels such as alpha are ignored).
public struct LUTImagePixels: Sendable, Hashable {
    public let width: Int
    public let height: Int
    public let channels: Int
    /// `width · height · channels` samples in 0…maxValue.
    public let samples: [UInt16]
    /// The sample value that means 1.0 (255 for 8-bit, 65535 for 16-bit images).
    public let maxValue: Int

    public init(width: Int, height: Int, channels: Int, samples: [UInt16], maxValue: Int) {
        self.width = width
        self.height = height
        self.channels = channels
        self.samples = samples
        self.maxValue = maxValue
    }

    /// Checks the shape before a reader indexes into the samples.
    func validate(file: String) throws {
        guard width > 0, height > 0 else {
            throw LightWorkError.invalidDocument(file: file, path: "image", reason: "empty image \(width)×\(height)")
        }
        guard channels >= 3 else {
            throw LightWorkError.invalidDocument(file: file, path: "image", reason: "a LUT image needs RGB, found \(channels) channel(s)")
        }
        guard samples.count == width * height * channels else {
            throw LightWorkError.invalidDocument(file: file, path: "image",
                                                 reason: "\(samples.count) samples for \(width)×\(height)×\(channels)")
        }
        guard maxValue > 0 else { throw LightWorkError.invalidDocument(file: file, path: "image", reason: "maxValue must be positive") }
    }

    /// The RGB of pixel (x, y) scaled to 0…1.
    @inline(__always)
    func rgb(x: Int, y: Int) -> (Float, Float, Float) {
        let i = (y * width + x) * channels
        let s = 1 / Float(maxValue)
        return (Float(samples[i]) * s, Float(samples[i + 1]) * s, Float(samples[i + 2]) * s)
    }
}
