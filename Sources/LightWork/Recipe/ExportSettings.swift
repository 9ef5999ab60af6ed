import Foundation

/// A recipe's optional `export` block: how outputs are written unless the command line says otherwise. Its
/// formats and option values are the codecs' (`CodecRegistry`): a value no codec takes is refused, naming those
/// it does.
public struct ExportSettings: Sendable, Hashable, Codable {
    /// The output codec's name ("tiff", "jpeg", "png"; "jpg" is read as "jpeg").
    public var format: String?
    public var colorspace: OutputColorSpace?
    /// The encoder's quality (JPEG 1…100, WebP/AVIF/JXL/HEIF 0…100), checked by the chosen codec.
    public var quality: Int?
    /// A `compression` value a codec declares (TIFF's; formats without one ignore it).
    public var compression: String?
    /// Bits per sample: one the format is written at (8 or 16 for TIFF and PNG, 8 for JPEG).
    public var bitDepth: Int?
    /// Every other encoder option a codec declares (`"lossless": true`, `"speed": 6`), as text.
    public var options: [String: String]?

    public init(format: String? = nil, colorspace: OutputColorSpace? = nil, quality: Int? = nil,
                compression: String? = nil, bitDepth: Int? = nil) {
        self.format = format
        self.colorspace = colorspace
        self.quality = quality
        self.compression = compression
        self.bitDepth = bitDepth
    }

    /// Reads and validates the block at `node` (errors carry `$.export.…`).
    static func parse(_ node: JSONNode) throws -> ExportSettings {
        let o = try node.object(allowing: Set(["format", "colorspace", "bitDepth"] + CodecRegistry.optionNames))
        var e = ExportSettings()
        if let n = o["format"] {
            let s = try n.string()
            if let refusal = CodecRegistry.refusal(codec: s, bitDepth: nil) { throw n.fail(refusal) }
            e.format = CodecRegistry.codec(named: s)?.name
        }
        if let n = o["colorspace"] {
            let s = try n.string()
            guard let c = OutputColorSpace(rawValue: s.lowercased()) else {
                throw n.fail("unknown colour space \"\(s)\" (\(OutputColorSpace.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            e.colorspace = c
        }
        // Each value is checked by the named format's codec when it declares the option (quality 0 is WebP's,
        // not JPEG's), else by every codec declaring it, as the format may come from the command line.
        let formatCodec = e.format.flatMap { CodecRegistry.codec(named: $0) }
        for name in CodecRegistry.optionNames {
            guard let n = o[name] else { continue }
            var text: String
            if let b = try? n.bool() { text = b ? "true" : "false" } else if let i = try? n.int() { text = String(i) } else { text = try n.string() }
            if name == "compression" { text = text.lowercased() }
            if let own = formatCodec?.options.first(where: { $0.name == name }) {
                if let refusal = own.refusal(text, label: name) { throw n.fail(refusal) }
            } else if let refusal = CodecRegistry.refusalByAll(name, text, label: name) {
                throw n.fail(refusal)
            }
            switch name {
            case "quality": e.quality = Int(text)
            case "compression": e.compression = text
            default: e.options = (e.options ?? [:]).merging([name: text]) { $1 }
            }
        }
        if let n = o["bitDepth"] {
            let d = try n.int()
            if let format = e.format {
                if let refusal = CodecRegistry.refusal(codec: format, bitDepth: d) { throw n.fail(refusal) }
            } else {
                let depths = Set(CodecRegistry.outputFormats.map(\.bitDepth)).sorted()
                guard depths.contains(d) else { throw n.fail("bitDepth is \(depths.map(String.init).joined(separator: " or ")), found \(d)") }
            }
            e.bitDepth = d
        }
        return e
    }

    /// The encoder option values this block gives, by option name (for `EncodeSettings.setOptions(_:from: .recipe)`).
    public var optionValues: [String: String] {
        var v = options ?? [:]
        if let quality { v["quality"] = String(quality) }
        if let compression { v["compression"] = compression }
        return v
    }

    /// The output format this block names (its codec at `bitDepth`, the codec's first format without one); nil
    /// without a `format`. `parse` has checked both.
    public var outputFormat: OutputFormat? {
        format.flatMap { CodecRegistry.outputFormat(codec: $0, bitDepth: bitDepth) }
    }
}
