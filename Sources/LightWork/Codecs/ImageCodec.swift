import Foundation

/// One image file format: how it is recognised, what its header tells before decoding, how it is decoded for
/// conversion, read back, and written, with its options. Each format is one type in one file, listed once in
/// `CodecRegistry.codecs`; everything else (the CLI, recipes, the folder walk, the batch parent's probes, the
/// watch) asks the registry. A capability a format lacks keeps the default below.
///
/// Probes run in the batch and watch parents, which never run a decoder on what they are given: they are plain
/// bounds-checked Swift over a few header bytes (a crafted file must not be able to crash the parent).
public protocol ImageCodec: Sendable {
    /// Lower-case name: what recipes give as `export.format` and `lightwork info` reports ("jpeg").
    var name: String { get }
    /// Other names recipes may use for it ("jpg").
    var aliases: [String] { get }
    /// Detection order when several codecs could claim the same bytes: higher is asked first.
    var priority: Int { get }
    /// Extensions (lower case, no dot) a folder walk takes as this format's inputs.
    var inputExtensions: [String] { get }
    /// Whether the file's content is this format (its signature; at most a few header reads).
    func matches(_ file: FileBytes) -> Bool

    // MARK: Input

    /// Whether `convert` decodes this format itself.
    var decodes: Bool { get }
    /// Decodes the whole file (`url` names it in messages) on `engine`'s threads. Only called when `decodes`.
    func decode(data: Data, url: URL, options: DecodeOptions, engine: EngineConfiguration) throws -> DecodedImage
    /// `decode`, telling the caller when `data` will not be read again: `inputDone` runs then (a RAW decode calls
    /// it after its unpack), so the file's memory can be given back before the image is built. Formats that read
    /// their bytes to the end never call it.
    func decode(data: Data, url: URL, options: DecodeOptions, engine: EngineConfiguration,
                inputDone: @escaping @Sendable () -> Void) throws -> DecodedImage
    /// Pixel count from the header (the batch parent's memory budget); nil when unreadable.
    func pixelCount(_ file: FileBytes) -> Int?
    /// Make, model and DateTimeOriginal from the header (`{camera}`, `{date}`); nil when none.
    func captureInfo(_ file: FileBytes) -> ImageMetadata?
    /// Whether a file still being copied is whole (the watch); `.unknown` when the format cannot be judged.
    func completeness(_ file: FileBytes) -> FileCompleteness.Verdict
    /// Whether `readBack` reads this format (outputs, goldens, references).
    var readsBack: Bool { get }
    /// Reads a written file back sample for sample (`ImageFileReader`). Only called when `readsBack`.
    func readBack(data: Data, path: String) throws -> ImageFile

    // MARK: Output

    /// The `--format` values this codec writes (one per bit depth), none for an input-only format.
    var outputFormats: [OutputFormat] { get }
    /// The encoder options it reads (`--quality`, `--compression`), declared once.
    var options: [CodecOption] { get }
    /// The writer for its output formats, compressing on `engine`'s threads where it can; nil for an input-only format.
    func writer(engine: EngineConfiguration) -> (any ImageWriter)?
}

extension ImageCodec {
    public var aliases: [String] { [] }
    public var priority: Int { 0 }
    public var inputExtensions: [String] { [] }
    public var decodes: Bool { false }
    public func decode(data: Data, url: URL, options: DecodeOptions, engine: EngineConfiguration) throws -> DecodedImage {
        throw LightWorkError.unsupportedFormat("\(name) files are not decoded")
    }
    public func decode(data: Data, url: URL, options: DecodeOptions, engine: EngineConfiguration,
                       inputDone: @escaping @Sendable () -> Void) throws -> DecodedImage {
        try decode(data: data, url: url, options: options, engine: engine)
    }
    public func pixelCount(_ file: FileBytes) -> Int? { nil }
    public func captureInfo(_ file: FileBytes) -> ImageMetadata? { nil }
    public func completeness(_ file: FileBytes) -> FileCompleteness.Verdict { .unknown }
    public var readsBack: Bool { false }
    public func readBack(data: Data, path: String) throws -> ImageFile {
        throw LightWorkError.unsupportedFormat("\(path) is not read back as \(name)")
    }
    public var outputFormats: [OutputFormat] { [] }
    public var options: [CodecOption] { [] }
    public func writer(engine: EngineConfiguration) -> (any ImageWriter)? { nil }

    /// Whether `name` or one of the aliases is `s` (case ignored).
    func isNamed(_ s: String) -> Bool {
        let l = s.lowercased()
        return l == name || aliases.contains(l)
    }
}

/// One encoder option a codec declares: its name (the CLI flag without `--`, the recipe's `export` key), the values
/// it takes, its default and its help text. `validate` is the one check of a value, wherever it comes from.
public struct CodecOption: Sendable, Equatable {
    public enum Values: Sendable, Equatable {
        /// A whole number in a range (JPEG quality 1…100).
        case integer(ClosedRange<Int>)
        /// One of these words (TIFF compression).
        case choice([String])
        /// On or off: a CLI flag without a value (`--lossless`), `true`/`false` in a recipe; stored as "true"/"false".
        case flag
    }

    public let name: String
    public let values: Values
    public let defaultValue: String
    /// What the option does, for `--help` (the allowed values and the default are added).
    public let summary: String
    /// A remark `help` adds after the default ("4:4:4 chroma from 90").
    public let note: String?

    public init(name: String, values: Values, defaultValue: String, summary: String, note: String? = nil) {
        self.name = name
        self.values = values
        self.defaultValue = defaultValue
        self.summary = summary
        self.note = note
    }

    /// The allowed values as a person reads them: "1-100", "none, deflate, lzw".
    public var allowed: String {
        switch values {
        case .integer(let r): return "\(r.lowerBound)-\(r.upperBound)"
        case .choice(let words): return words.joined(separator: ", ")
        case .flag: return "true, false"
        }
    }

    /// `--help`'s line: "TIFF compression: none (default), deflate, lzw", "JPEG quality 1-100 (default 92; …)".
    public var help: String {
        switch values {
        case .integer: return "\(summary) \(allowed) (default \(defaultValue)\(note.map { "; \($0)" } ?? ""))"
        case .choice(let words): return "\(summary): " + words.map { $0 == defaultValue ? "\($0) (default)" : $0 }.joined(separator: ", ")
        case .flag: return summary + (defaultValue == "true" ? " (default on)" : "") + (note.map { " (\($0))" } ?? "")
        }
    }

    /// Why `value` is refused, naming what is allowed (as `label` says it: "--quality"); nil when it is allowed.
    public func refusal(_ value: String, label: String? = nil) -> String? {
        let label = label ?? name
        switch values {
        case .integer(let r):
            guard let v = Int(value), r.contains(v) else { return "\(label) takes \(allowed), not '\(value)'" }
            return nil
        case .choice(let words):
            return words.contains(value) ? nil : "\(label) '\(value)' is not one of: \(allowed)"
        case .flag:
            return ["true", "false"].contains(value) ? nil : "\(label) is true or false, not '\(value)'"
        }
    }
}

/// Byte ranges of a file (through pread: RAWs are tens of megabytes and a probe reads a few hundred bytes) or of
/// bytes already in memory, every read bounds-checked.
public final class FileBytes {
    public let size: Int
    private let fd: Int32
    private let data: Data?

    /// Opens `url` for reading; nil when it cannot be opened.
    public init?(_ url: URL) {
        fd = open(url.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        var st = stat()
        guard fstat(fd, &st) == 0 else { close(fd); return nil }
        size = Int(st.st_size)
        data = nil
    }

    /// Bytes in memory.
    public init(_ data: Data) {
        fd = -1
        size = data.count
        self.data = data
    }

    deinit { if fd >= 0 { close(fd) } }

    /// Exactly `count` bytes at `offset`, nil when any lies outside the file.
    public func read(_ offset: Int, _ count: Int) -> [UInt8]? {
        guard offset >= 0, count >= 0, offset <= size - count else { return nil }
        if let data {
            let start = data.startIndex + offset
            return [UInt8](data[start..<(start + count)])
        }
        var out = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = out.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, count - done, off_t(offset + done)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return nil }
            done += n
        }
        return out
    }

    /// The first `count` bytes, or the whole file when it is shorter.
    public func prefix(_ count: Int) -> [UInt8] { read(0, min(count, size)) ?? [] }

    /// The TIFF structure of this file, nil when it is not TIFF.
    public func tiff(_ magic: TIFFStructure.Magic = .classic) -> TIFFStructure? {
        TIFFStructure(magic: magic) { [self] in self.read($0, $1) }
    }
}
