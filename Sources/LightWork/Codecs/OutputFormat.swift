import Foundation

/// One file format LightWork writes (`--format`), at one bit depth: "tiff16", "jpeg", "png". Each output codec
/// declares its own (`ImageCodec.outputFormats`, with the constants in its file); the registry lists them all.
public struct OutputFormat: Sendable, Hashable, Codable, RawRepresentable, CustomStringConvertible {
    /// The `--format` name, as manifests record it.
    public let rawValue: String
    /// The codec that writes it (`ImageCodec.name`).
    public let codecName: String
    /// Sample depth of the pixels the writer expects.
    public let depth: EncodedPixels.Depth
    /// Bits per sample in the file: `depth`'s, or fewer for a format the writer narrows from 16-bit pixels
    /// (AVIF's 10 and 12 bits: each sample rounded to v·(2ⁿ−1)/65535).
    public let bitDepth: Int
    /// The file name extension, without a dot.
    public let fileExtension: String
    /// Whether the format can carry an alpha channel (JPEG cannot: the caller flattens it first).
    public let supportsAlpha: Bool
    /// Whether a file holds exactly the rendered samples (JPEG's quantisation does not).
    public let isLossless: Bool

    /// A format of the codec `codec` (called by codecs for their constants).
    public init(_ name: String, codec: String, depth: EncodedPixels.Depth, bitDepth: Int? = nil, fileExtension: String,
                supportsAlpha: Bool = true, isLossless: Bool = true) {
        precondition(bitDepth.map { $0 <= depth.rawValue } ?? true, "a format's file depth cannot exceed its pixels'")
        rawValue = name
        self.bitDepth = bitDepth ?? depth.rawValue
        codecName = codec
        self.depth = depth
        self.fileExtension = fileExtension
        self.supportsAlpha = supportsAlpha
        self.isLossless = isLossless
    }

    /// The registered format of that name; nil for any other.
    public init?(rawValue: String) {
        guard let f = CodecRegistry.outputFormats.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = f
    }

    /// Every format the registry's codecs write, in registry order.
    public static var allCases: [OutputFormat] { CodecRegistry.outputFormats }

    /// The codec that writes it.
    public var codec: any ImageCodec { CodecRegistry.codec(named: codecName)! }

    /// The writer for this format, compressing on `engine.threads` threads where the format can.
    public func writer(engine: EngineConfiguration = .detected) -> any ImageWriter { codec.writer(engine: engine)! }

    public var description: String { rawValue }

    public static func == (a: OutputFormat, b: OutputFormat) -> Bool { a.rawValue == b.rawValue }
    public func hash(into h: inout Hasher) { h.combine(rawValue) }

    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        let s = try c.decode(String.self)
        guard let f = OutputFormat(rawValue: s) else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "unknown format \"\(s)\" (\(CodecRegistry.formatNames.joined(separator: ", ")))")
        }
        self = f
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }
}
