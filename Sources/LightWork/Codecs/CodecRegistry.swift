import Foundation

/// Every image format LightWork knows, and the answers built from them: what a file is (by content, in priority
/// order, RAW as the fallback: whatever LibRaw takes), which extensions count as images, which `--format` values
/// and encoder options exist. Adding a format is one codec file and one line here.
public enum CodecRegistry {
    /// The codecs, in the order `--help` lists their output formats.
    public static let codecs: [any ImageCodec] = [
        TIFFCodec(),
        JPEGCodec(),
        PNGCodec(),
        WebPCodec(),
        AVIFCodec(),
        JXLCodec(),
        HEIFCodec(),
        RawCodec(),
    ]

    /// The codec a file is converted with when none claims it: LibRaw, which knows its formats.
    public static let fallback: any ImageCodec = RawCodec()

    /// Codecs by descending priority (ties in registry order): the order detection asks them.
    static let byPriority: [any ImageCodec] = codecs.enumerated()
        .sorted { ($0.element.priority, -$0.offset) > ($1.element.priority, -$1.offset) }.map(\.element)

    /// The codec named `name` (or one of its aliases), nil for none.
    public static func codec(named name: String) -> (any ImageCodec)? { codecs.first { $0.isNamed(name) } }

    // MARK: What is this file

    /// The codec that converts `file`: the highest-priority decoding codec whose signature matches, else `fallback`.
    public static func decoder(for file: FileBytes) -> any ImageCodec {
        byPriority.first { $0.decodes && $0.matches(file) } ?? fallback
    }

    /// The same for bytes in memory.
    public static func decoder(for data: Data) -> any ImageCodec { decoder(for: FileBytes(data)) }

    /// The codec that reads `data` back (`ImageFileReader`), nil when none does.
    public static func reader(for data: Data) -> (any ImageCodec)? {
        let file = FileBytes(data)
        return byPriority.first { $0.readsBack && $0.matches(file) }
    }

    /// What `file` is: the highest-priority codec whose signature matches, else `fallback` (LibRaw decides then).
    public static func identify(_ file: FileBytes) -> any ImageCodec {
        byPriority.first { $0.matches(file) } ?? fallback
    }

    // MARK: Which extensions and options exist

    /// Extensions (lower case) a folder walk picks up; a file named on the command line is always tried.
    public static let inputExtensions: Set<String> = Set(codecs.flatMap(\.inputExtensions))

    /// Every `--format` value, in registry order.
    public static let outputFormats: [OutputFormat] = codecs.flatMap(\.outputFormats)

    /// Their names.
    public static var formatNames: [String] { outputFormats.map(\.rawValue) }

    /// The format written when nothing asks for another (16-bit TIFF: no precision lost after development).
    public static var defaultFormat: OutputFormat { .tiff16 }

    /// The format `--format` names: a format's own name ("tiff8", "jpeg"), or a codec's name or alias with an
    /// optional bit depth ("tif" and "tiff" are the codec's default, tiff16; "tif8"; "jpg"). It is always recorded by
    /// its own name; nil for anything else.
    public static func outputFormat(named s: String) -> OutputFormat? {
        let name = s.lowercased()
        if let exact = OutputFormat(rawValue: name) { return exact }
        let digits = name.reversed().prefix { $0.isASCII && $0.isNumber }
        let codecName = String(name.dropLast(digits.count))
        guard !codecName.isEmpty else { return nil }
        let depth = digits.isEmpty ? nil : Int(String(digits.reversed()))
        guard digits.isEmpty || depth != nil else { return nil }
        return outputFormat(codec: codecName, bitDepth: depth)
    }

    /// The names recipes give as `export.format`: the output codecs' names.
    public static var outputCodecNames: [String] { codecs.filter { !$0.outputFormats.isEmpty }.map(\.name) }

    /// The format of codec `name` at `bitDepth` (its first, the default, when nil); nil when there is no such codec or
    /// depth (`refusal` says why).
    public static func outputFormat(codec name: String, bitDepth: Int?) -> OutputFormat? {
        guard let formats = codec(named: name)?.outputFormats else { return nil }
        return bitDepth.map { d in formats.first { $0.bitDepth == d } } ?? formats.first
    }

    /// Why `outputFormat(codec:bitDepth:)` has none, naming what is allowed; nil when it has one.
    public static func refusal(codec name: String, bitDepth: Int?) -> String? {
        guard let codec = codec(named: name), !codec.outputFormats.isEmpty else {
            return "unknown format \"\(name)\" (\(outputCodecNames.joined(separator: ", ")))"
        }
        guard outputFormat(codec: name, bitDepth: bitDepth) == nil else { return nil }
        let depths = codec.outputFormats.map { String($0.bitDepth) }
        return "\(codec.name) is written at \(depths.joined(separator: " or ")) bits, not \(bitDepth ?? 0)"
    }

    /// The encoder option called `name` (`quality`, `compression`), nil when no codec declares it.
    public static func option(_ name: String) -> CodecOption? {
        codecs.lazy.flatMap(\.options).first { $0.name == name }
    }

    /// `--help`'s line for `--format`: "tiff16 (default), tiff8, jpeg, png, png16; also jpg, tif (tiff16)".
    public static var formatHelp: String {
        let aliases = codecs.filter { !$0.outputFormats.isEmpty }.flatMap { codec in
            codec.aliases.map { alias in codec.outputFormats.count > 1 ? "\(alias) (\(codec.outputFormats[0].rawValue))" : alias }
        }
        return outputFormats.map { $0 == defaultFormat ? "\($0.rawValue) (default)" : $0.rawValue }.joined(separator: ", ")
            + (aliases.isEmpty ? "" : "; also " + aliases.joined(separator: ", "))
    }
}
