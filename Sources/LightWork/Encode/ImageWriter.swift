import Foundation

/// Encodes output-ready pixels into one image file format.
public protocol ImageWriter: Sendable {
    /// Encodes `pixels` into the temporary file of an atomic write (see `AtomicFile`).
    func encode(_ pixels: EncodedPixels, settings: EncodeSettings, to output: AtomicFile.Output) throws
}

extension ImageWriter {
    /// Writes `pixels` to `url` atomically: a complete file under `url` (its size and digest returned), or an
    /// error and no file.
    @discardableResult
    public func write(_ pixels: EncodedPixels, settings: EncodeSettings, to url: URL) throws -> AtomicFile.Written {
        try pixels.validateForWriting(profile: settings.iccProfile)
        return try AtomicFile.write(to: url) { try encode(pixels, settings: settings, to: $0) }
    }
}

extension EncodedPixels {
    /// Throws `writeFailed` when the dimensions, channel count or sample count are inconsistent, or when
    /// the profile's colour space ('RGB ' or 'GRAY' in its header) does not match the channels.
    func validateForWriting(profile: Data? = nil) throws {
        guard width > 0, height > 0 else { throw LightWorkError.writeFailed("image is empty (\(width)×\(height))") }
        guard (1...4).contains(channels) else { throw LightWorkError.writeFailed("\(channels) channels per pixel (1 to 4 are written)") }
        let expected = width * height * channels
        let count = depth == .eight ? samples8.count : samples16.count
        guard count == expected else {
            throw LightWorkError.writeFailed("pixel buffer holds \(count) samples, \(width)×\(height)×\(channels) needs \(expected)")
        }
        if let profile, profile.count >= 20 {
            let space = String(decoding: profile[profile.startIndex + 16..<profile.startIndex + 20], as: UTF8.self)
            let grey = channels <= 2
            if (grey && space == "RGB ") || (!grey && space == "GRAY") {
                throw LightWorkError.writeFailed("the ICC profile is for '\(space.trimmingCharacters(in: .whitespaces))' but the image is \(grey ? "grey" : "RGB")")
            }
        }
    }
}

/// A NUL-terminated message a C shim wrote into `buffer`.
func cMessage(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
