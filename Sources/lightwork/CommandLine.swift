import LightWork

/// A small command-line parser: `--name value`, `--name=value`, boolean `--flag`, and positionals.
/// Every option is declared once (name, whether it takes a value, help text), so `--help` derives from it.
struct OptionSpec {
    let name: String
    let value: String?      // placeholder shown in help, nil for a boolean flag
    let help: String
    var short: Character? = nil
}

struct ParsedArguments {
    var values: [String: [String]] = [:]
    var flags: Set<String> = []
    var positionals: [String] = []

    func value(_ name: String) -> String? { values[name]?.last }
    func all(_ name: String) -> [String] { values[name] ?? [] }
    func has(_ name: String) -> Bool { flags.contains(name) }
}

enum CommandLineParser {
    static func parse(_ args: [String], specs: [OptionSpec]) throws -> ParsedArguments {
        var out = ParsedArguments()
        var i = 0
        var onlyPositionals = false
        func spec(_ name: String) throws -> OptionSpec {
            guard let s = specs.first(where: { $0.name == name }) else {
                throw LightWorkError.usage("unknown option --\(name) (see --help)")
            }
            return s
        }
        while i < args.count {
            let a = args[i]
            i += 1
            if onlyPositionals || a == "-" || !a.hasPrefix("-") { out.positionals.append(a); continue }
            if a == "--" { onlyPositionals = true; continue }
            var name: String
            var inline: String? = nil
            if a.hasPrefix("--") {
                name = String(a.dropFirst(2))
                if let eq = name.firstIndex(of: "=") {
                    inline = String(name[name.index(after: eq)...])
                    name = String(name[..<eq])
                }
            } else {
                guard a.count == 2, let s = specs.first(where: { $0.short == a.last }) else {
                    throw LightWorkError.usage("unknown option \(a) (see --help)")
                }
                name = s.name
            }
            let s = try spec(name)
            if s.value == nil {
                if inline != nil { throw LightWorkError.usage("--\(name) takes no value") }
                out.flags.insert(name)
            } else {
                let v: String
                if let inline { v = inline } else {
                    guard i < args.count else { throw LightWorkError.usage("--\(name) needs a value: --\(name) \(s.value!)") }
                    v = args[i]
                    i += 1
                }
                out.values[name, default: []].append(v)
            }
        }
        return out
    }

    /// The options block of a help text.
    static func help(_ specs: [OptionSpec]) -> String {
        let rows = specs.map { s -> (String, String) in
            let short = s.short.map { "-\($0), " } ?? "    "
            return ("  \(short)--\(s.name)\(s.value.map { " \($0)" } ?? "")", s.help)
        }
        let width = min(34, (rows.map { $0.0.count }.max() ?? 0) + 2)
        return rows.map { l, r in
            l.count >= width ? l + "\n" + String(repeating: " ", count: width) + r : l.padding(toLength: width, withPad: " ", startingAt: 0) + r
        }.joined(separator: "\n")
    }
}
