import Foundation

/// Encodes output-ready pixels into one image file format.
public protocol ImageWriter: Sendable {
    /// Encodes `pixels` into the temporary file of an atomic write (see `AtomicFile`).
    func encode(_ pixels: EncodedPixels, settings: EncodeSettings, to output: AtomicFile.Output) throws
}

/// A writer that can take its rows as they are made (`OutputRows`) instead of a finished buffer: a large output
/// then never exists whole in memory. The bytes are those `encode` writes from the same pixels.
public protocol StreamingImageWriter: ImageWriter {
    func encode(rows: some OutputRows, settings: EncodeSettings, to output: AtomicFile.Output) throws
}

extension StreamingImageWriter {
    /// Writes `rows` to `url` atomically, as `write(_:settings:to:)` does a finished buffer.
    @discardableResult
    public func write(rows: some OutputRows, settings: EncodeSettings, to url: URL) throws -> AtomicFile.Written {
        try rows.validateShape(profile: settings.iccProfile)
        return try AtomicFile.write(to: url) { try encode(rows: rows, settings: settings, to: $0) }
    }
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
        try validateShape(profile: profile)
        let expected = width * height * channels
        let count = depth == .eight ? samples8.count : samples16.count
        guard count == expected else {
            throw LightWorkError.writeFailed("pixel buffer holds \(count) samples, \(width)×\(height)×\(channels) needs \(expected)")
        }
    }
}

/// A NUL-terminated message a C shim wrote into `buffer`.
func cMessage(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
