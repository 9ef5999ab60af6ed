import Foundation
import LightWork

/// `lightwork info FILE`: what the decoder sees, as text or JSON.
enum InfoCommand {
    static let specs: [OptionSpec] = [
        OptionSpec(name: "json", value: nil, help: "print JSON instead of text"),
        OptionSpec(name: "help", value: nil, help: "this text", short: "h"),
    ]

    static let help = """
    Usage: lightwork info [--json] FILE...

    Prints what LightWork's decoder sees in each file: format, camera make and model, dimensions
    (upright), and for RAW files the CFA pattern, black and white levels, as-shot white balance and
    the camera colour matrix LibRaw uses. Nothing is written.

    --json prints one array with an object per file read, for one file as for many. Keys are camelCase;
    numbers are JSON numbers ("imageSize": [2176, 1448], "asShotWB": [2.1, 1, 1.4, 0], "rgbCam": rows
    of numbers). A file that cannot be read is left out of the array and named on stderr in one line.

    Options:
    \(CommandLineParser.help(specs))

    Exit status: 0 all files read, 1 some could not be read, 2 usage error.
    """

    static func run(_ args: [String]) -> Int32 {
        let parsed: ParsedArguments
        do {
            parsed = try CommandLineParser.parse(args, specs: specs)
            if parsed.has("help") { print(help); return 0 }
            guard !parsed.positionals.isEmpty else { throw LightWorkError.usage("info needs a FILE") }
        } catch {
            FileHandle.standardError.write(Data("lightwork info: \(error)\nRun 'lightwork info --help' for usage.\n".utf8))
            return 2
        }
        var failed = false
        var documents: [[String: Any]] = []
        for path in parsed.positionals {
            do {
                let doc = try describe(URL(fileURLWithPath: path))
                if parsed.has("json") { documents.append(doc.mapValues(jsonValue)) } else { printText(path, doc) }
            } catch LightWorkError.missingInput {
                FileHandle.standardError.write(Data("lightwork: no such file: \(path)\n".utf8))
                failed = true
            } catch let error as LightWorkError {
                FileHandle.standardError.write(Data("lightwork: \(path): \(error)\n".utf8))
                failed = true
            } catch {
                FileHandle.standardError.write(Data("lightwork: \(path): \((error as NSError).localizedDescription)\n".utf8))
                failed = true
            }
        }
        if parsed.has("json") {
            if let d = try? JSONSerialization.data(withJSONObject: documents, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]) {
                print(String(decoding: d, as: UTF8.self))
            }
        }
        return failed ? 1 : 0
    }

    static func describe(_ url: URL) throws -> [String: Any] {
        let data = try read(url)
        guard !data.isEmpty else { throw LightWorkError.emptyFile }
        var doc: [String: Any] = ["path": url.path, "size": data.count]
        let meta: ImageMetadata
        let codec = CodecRegistry.decoder(for: data)
        switch codec {
        case let codec where !(codec is RawCodec):
            let decoded = try codec.decode(data: data, url: url, options: DecodeOptions(), engine: .detected)
            doc["format"] = codec.name
            doc["width"] = decoded.image.width
            doc["height"] = decoded.image.height
            doc["alpha"] = decoded.image.hasAlpha
            doc["profile"] = decoded.sourceProfile
            if !decoded.notes.isEmpty { doc["notes"] = decoded.notes }
            for (k, v) in decoded.details { doc[k] = v }
            meta = decoded.metadata
        default:
            let (m, details) = try RawDecoder.inspect(url: url)
            doc["format"] = "raw"
            for (k, v) in details { doc[k] = v }
            meta = m
        }
        let m = Mirror(reflecting: meta)
        for child in m.children {
            guard let label = child.label else { continue }
            let inner = Mirror(reflecting: child.value)
            if inner.displayStyle == .optional, let v = inner.children.first?.value { doc[label] = v }
        }
        return Dictionary(doc.map { (camelCase($0.key), $0.value) }, uniquingKeysWith: { a, _ in a })
    }

    /// The file's bytes, or one line saying why not ("no such file", "is a folder", the system's reason).
    static func read(_ url: URL) throws -> Data {
        var st = stat()
        guard stat(url.path, &st) == 0 else {
            throw errno == ENOENT ? LightWorkError.missingInput(url.path)
                : LightWorkError.decodeFailed("cannot read the file: \(String(cString: strerror(errno)))")
        }
        guard st.st_mode & S_IFMT != S_IFDIR else { throw LightWorkError.unsupportedFormat("a folder, not an image file") }
        guard access(url.path, R_OK) == 0 else { throw LightWorkError.decodeFailed("cannot read the file: \(String(cString: strerror(errno)))") }
        do { return try Data(contentsOf: url, options: .mappedIfSafe) } catch {
            throw LightWorkError.decodeFailed("cannot read the file: \((error as NSError).localizedFailureReason ?? "read error")")
        }
    }

    /// A key without spaces: "stored size" → "storedSize".
    static func camelCase(_ key: String) -> String {
        let words = key.split(separator: " ")
        return words.enumerated().map { $0.offset == 0 ? String($0.element) : $0.element.prefix(1).uppercased() + $0.element.dropFirst() }.joined()
    }

    /// A decoder's text value as JSON: a number, a size "W×H" as [W, H], numbers separated by spaces as an array,
    /// rows separated by "; " as arrays of arrays; anything else stays text.
    static func jsonValue(_ value: Any) -> Any {
        guard let text = value as? String else { return value }
        func number(_ s: Substring) -> Any? {
            if let i = Int(s) { return i }
            if let d = Double(s), d.isFinite, s.allSatisfy({ $0.isNumber || "-+.eE".contains($0) }) { return d }
            return nil
        }
        func numbers(_ s: Substring) -> [Any]? {
            let parts = s.split(whereSeparator: { $0 == " " || $0 == "x" || $0 == "×" })
            guard !parts.isEmpty else { return nil }
            let values = parts.compactMap(number)
            return values.count == parts.count ? values : nil
        }
        let trimmed = Substring(text.trimmingCharacters(in: .whitespaces))
        if let n = number(trimmed) { return n }
        if let list = numbers(trimmed) { return list }
        let rows = trimmed.split(separator: ";").map { Substring($0.trimmingCharacters(in: .whitespaces)) }
        if rows.count > 1, case let lists = rows.compactMap(numbers), lists.count == rows.count { return lists }
        return text
    }

    static func printText(_ path: String, _ doc: [String: Any]) {
        print(path)
        for key in doc.keys.sorted() where key != "path" {
            print("  \(key.padding(toLength: 18, withPad: " ", startingAt: 0)) \(doc[key]!)")
        }
    }
}
