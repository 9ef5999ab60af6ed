import Foundation

/// Encoder option values by option name ("quality" → "80", "lossless" → "true"), each already checked against the
/// output codec's own `CodecOption`. An option that is not given takes its codec's default: a writer asks
/// `value(of:)` with its declaration, so a codec's options live only in its file.
public struct CodecOptionValues: Codable, Sendable, Hashable {
    public private(set) var values: [String: String]

    public init(_ values: [String: String] = [:]) { self.values = values }

    public var isEmpty: Bool { values.isEmpty }

    public subscript(name: String) -> String? {
        get { values[name] }
        set { values[name] = newValue }
    }

    /// The value of `option`: as given, else its default.
    public func value(of option: CodecOption) -> String { values[option.name] ?? option.defaultValue }
    /// An integer option's value.
    public func int(_ option: CodecOption) -> Int { Int(value(of: option)) ?? Int(option.defaultValue)! }
    /// A flag option's value.
    public func flag(_ option: CodecOption) -> Bool { value(of: option) == "true" }

    public init(from decoder: Decoder) throws { values = try decoder.singleValueContainer().decode([String: String].self) }
    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(values)
    }
}

/// Where an option value came from: the command line names a format's option on purpose (one the format lacks
/// is refused), a recipe is written for any format (an option its format lacks is left out).
public enum CodecOptionSource: Sendable {
    case commandLine
    case recipe
}

extension CodecRegistry {
    /// Every encoder option by name, in registry order, each name once: the CLI's flags and the recipe's `export`
    /// keys. Codecs declaring the same name (`quality`) share one flag; each checks the value with its own range.
    public static var optionNames: [String] {
        var seen = Set<String>()
        return codecs.flatMap(\.options).map(\.name).filter { seen.insert($0).inserted }
    }

    /// The declarations of option `name`, with the output formats of the codec declaring each.
    public static func declarations(of name: String) -> [(codec: any ImageCodec, option: CodecOption)] {
        codecs.compactMap { codec in codec.options.first { $0.name == name }.map { (codec, $0) } }
    }

    /// `--help`'s text for option `name`: each declaring codec's line.
    public static func optionHelp(_ name: String) -> String {
        declarations(of: name).map(\.option.help).joined(separator: "; ")
    }

    /// Why `value` is refused for `name` by every codec declaring it; nil when one takes it (recipes are checked
    /// against all, the format being chosen later).
    public static func refusalByAll(_ name: String, _ value: String, label: String) -> String? {
        let refusals = declarations(of: name).map { $0.option.refusal(value, label: label) }
        guard !refusals.isEmpty else { return "\(label) is not an encoder option" }
        return refusals.contains { $0 == nil } ? nil : refusals.compactMap { $0 }.first
    }
}

extension EncodeSettings {
    /// Sets encoder options for `format`'s codec (set the format first): each value is checked by the codec's own
    /// declaration. A value the codec refuses throws `usage`; an option the codec lacks throws `usage` when the
    /// command line gave it and is left out when a recipe did. JPEG's quality and TIFF's compression go to their
    /// typed fields, every other option to `options`.
    public mutating func setOptions(_ given: [String: String], from source: CodecOptionSource) throws {
        let codec = format.codec
        for (name, value) in given.sorted(by: { $0.key < $1.key }) {
            let label = source == .commandLine ? "--\(name)" : "export.\(name)"
            guard let option = codec.options.first(where: { $0.name == name }) else {
                guard source == .commandLine else { continue }
                let owners = CodecRegistry.declarations(of: name).map(\.codec.name)
                throw LightWorkError.usage("\(label) is an option of \(owners.joined(separator: ", ")), not of \(format.rawValue)")
            }
            if let refusal = option.refusal(value, label: label) { throw LightWorkError.usage(refusal) }
            if option == JPEGCodec.quality {
                jpegQuality = Int(value)!
            } else if option == TIFFCodec.compression {
                tiffCompression = TIFFCompression(rawValue: value)!
            } else {
                options[name] = value
            }
        }
    }
}
