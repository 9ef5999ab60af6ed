import Foundation

/// The `--name` template: literal text and `{token}`s that make an output's file name (without extension;
/// the format's extension is always appended and the input's folder is mirrored). A `/` makes subfolders
/// below that mirrored folder (`{camera}/{date}_{stem}` sorts a shoot by camera).
///
/// Tokens: `{stem}` input name without extension, `{ext}` input extension, `{film}` film (or LUT) name slug or
/// "none", `{date}` capture date YYYY-MM-DD or "nodate", `{camera}` make-model slug or "nocamera", `{index}`
/// 1-based position among the files converted, zero-padded to the width of their count, `{recipe}` recipe
/// name slug or "none". A template is checked when parsed, before any file is touched: unknown tokens,
/// stray braces, control characters, an empty template or folder, a leading or trailing '/', a name or folder
/// starting with '.', or one that can only make "." or ".." are refused as usage errors.
public struct OutputNameTemplate: Sendable, Equatable, CustomStringConvertible {
    public enum Token: String, Sendable, CaseIterable {
        case stem, ext, film, date, camera, index, recipe
    }

    enum Part: Sendable, Equatable {
        case literal(String)
        case token(Token)
    }

    /// The template as written.
    public let source: String
    let parts: [Part]

    /// `{stem}`: the input's name, as LightWork has always named outputs.
    public static let standard = try! OutputNameTemplate("{stem}")

    public init(_ template: String) throws {
        func refuse(_ why: String) -> LightWorkError { .usage("--name '\(template)': \(why)") }
        guard !template.isEmpty else { throw refuse("the template is empty") }
        var parts: [Part] = []
        var literal = ""
        var rest = Substring(template)
        while let c = rest.first {
            rest = rest.dropFirst()
            switch c {
            case "{":
                guard let close = rest.firstIndex(of: "}") else { throw refuse("'{' without '}'") }
                let name = String(rest[..<close])
                guard let token = Token(rawValue: name) else {
                    throw refuse("unknown token {\(name)}; tokens are " + Token.allCases.map { "{\($0.rawValue)}" }.joined(separator: ", "))
                }
                if !literal.isEmpty { parts.append(.literal(literal)); literal = "" }
                parts.append(.token(token))
                rest = rest[rest.index(after: close)...]
            case "}":
                throw refuse("'}' without '{'")
            case "/":
                literal.append(c)   // a folder separator: each segment is checked below
            default:
                if FileNameSafety.forbidden.contains(c) || c.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                    throw refuse("the character '\(c.unicodeScalars.map { $0.escaped(asASCII: true) }.joined())' is not allowed in file names")
                }
                literal.append(c)
            }
        }
        if !literal.isEmpty { parts.append(.literal(literal)) }
        // Each '/'-separated segment: non-empty, not hidden, and not "." or ".." when it has no token.
        for segment in template.split(separator: "/", omittingEmptySubsequences: false) {
            guard !segment.isEmpty else { throw refuse("an empty folder name (a leading, trailing or doubled '/')") }
            if segment.hasPrefix(".") { throw refuse("a name or folder starting with '.' would hide the outputs") }
            if !segment.contains("{"), let problem = FileNameSafety.problem(with: String(segment)) { throw refuse(problem) }
        }
        source = template
        self.parts = parts
    }

    /// The tokens the template uses.
    public var tokens: Set<Token> {
        Set(parts.compactMap { if case .token(let t) = $0 { return t }; return nil })
    }

    /// Whether names need the capture date or camera, read from each file's header before planning.
    public var needsMetadata: Bool { tokens.contains(.date) || tokens.contains(.camera) }

    /// The file name (without extension) for one input, with the template's subfolders; a folder that a
    /// token left empty, "." or ".." becomes "_", so a name never climbs or collapses a folder (the file
    /// name itself is checked by the planner, which fails the input when it is unusable).
    public func name(_ values: Values) -> String {
        let joined = parts.map { part -> String in
            switch part {
            case .literal(let s): return s
            case .token(let t): return values[t]
            }
        }.joined()
        var segments = joined.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        for k in segments.indices.dropLast() where segments[k].isEmpty || segments[k] == "." || segments[k] == ".." { segments[k] = "_" }
        return segments.joined(separator: "/")
    }

    public var description: String { source }

    /// The token values for one input, already made safe for file names.
    public struct Values: Sendable, Equatable {
        public var stem: String
        public var ext: String
        public var film: String
        public var date: String
        public var camera: String
        public var index: String
        public var recipe: String

        public init(stem: String, ext: String, film: String = "none", date: String = "nodate", camera: String = "nocamera",
                    index: String = "1", recipe: String = "none") {
            self.stem = stem
            self.ext = ext
            self.film = film
            self.date = date
            self.camera = camera
            self.index = index
            self.recipe = recipe
        }

        subscript(token: Token) -> String {
            switch token {
            case .stem: return stem
            case .ext: return ext
            case .film: return film
            case .date: return date
            case .camera: return camera
            case .index: return index
            case .recipe: return recipe
            }
        }
    }
}
