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
                if parsed.has("json") { documents.append(doc) } else { printText(path, doc) }
            } catch {
                FileHandle.standardError.write(Data("lightwork: \(path): \(error)\n".utf8))
                failed = true
            }
        }
        if parsed.has("json") {
            let value: Any = documents.count == 1 ? documents[0] : documents
            if let d = try? JSONSerialization.data(withJSONObject: value, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]) {
                print(String(decoding: d, as: UTF8.self))
            }
        }
        return failed ? 1 : 0
    }

    static func describe(_ url: URL) throws -> [String: Any] {
        let data = try Data(contentsOf: url, options: .mappedIfSafe)
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
        return doc
    }

    static func printText(_ path: String, _ doc: [String: Any]) {
        print(path)
        for key in doc.keys.sorted() where key != "path" {
            print("  \(key.padding(toLength: 18, withPad: " ", startingAt: 0)) \(doc[key]!)")
        }
    }
}
