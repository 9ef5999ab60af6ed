import Foundation

/// A parsed JSON value that knows its own JSON path, so every validation error can say where the mistake is
/// (`$.filters.contrast.ui`). Codable loses that path for semantic errors; recipes and filter tables need it.
struct JSONNode {
    let value: Any
    /// JSONPath of this value inside its document (`$`, `$.a[2]`, `$.filters["vignette.size"]`).
    let path: String
    /// The document's name for messages (a file path, `--set`, …).
    let file: String

    /// Parses a whole document; malformed JSON is reported at `$` with the parser's position.
    static func parse(_ data: Data, file: String) throws -> JSONNode {
        do {
            let value = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            return JSONNode(value: value, path: "$", file: file)
        } catch {
            let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "\(error)"
            throw LightWorkError.invalidDocument(file: file, path: "$", reason: "malformed JSON: \(detail)\(JSONNode.lineHint(data, detail))")
        }
    }

    /// Turns "around character N" into a line and column, which a person can find in an editor.
    private static func lineHint(_ data: Data, _ detail: String) -> String {
        guard let range = detail.range(of: #"character (\d+)"#, options: .regularExpression),
              let offset = Int(detail[range].dropFirst("character ".count)) else { return "" }
        var line = 1, column = 1
        for (i, byte) in data.enumerated() where i < offset {
            if byte == UInt8(ascii: "\n") { line += 1; column = 1 } else { column += 1 }
        }
        return " (line \(line), column \(column))"
    }

    /// The error for a mistake at this node.
    func fail(_ reason: String) -> LightWorkError {
        .invalidDocument(file: file, path: path, reason: reason)
    }

    /// Path of a member: dotted when the key is a plain identifier, bracketed otherwise.
    static func memberPath(_ parent: String, _ key: String) -> String {
        let plain = !key.isEmpty && key.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" } && !key.first!.isNumber
        return plain ? "\(parent).\(key)" : "\(parent)[\"\(key)\"]"
    }

    func object() throws -> [String: JSONNode] {
        guard let dict = value as? [String: Any] else { throw fail("expected an object, found \(kind)") }
        var out: [String: JSONNode] = [:]
        for (k, v) in dict { out[k] = JSONNode(value: v, path: JSONNode.memberPath(path, k), file: file) }
        return out
    }

    /// The object's members, refusing keys outside `allowed` (catches typos such as `"filtres"`).
    func object(allowing allowed: Set<String>) throws -> [String: JSONNode] {
        let members = try object()
        for key in members.keys.sorted() where !allowed.contains(key) {
            throw members[key]!.fail("unknown key \"\(key)\" (expected one of: \(allowed.sorted().joined(separator: ", ")))")
        }
        return members
    }

    func array() throws -> [JSONNode] {
        guard let items = value as? [Any] else { throw fail("expected an array, found \(kind)") }
        return items.enumerated().map { JSONNode(value: $1, path: "\(path)[\($0)]", file: file) }
    }

    func string() throws -> String {
        guard let s = value as? String else { throw fail("expected a string, found \(kind)") }
        return s
    }

    func number() throws -> Double {
        guard let n = value as? NSNumber, !JSONNode.isBool(n) else { throw fail("expected a number, found \(kind)") }
        let d = n.doubleValue
        guard d.isFinite else { throw fail("expected a finite number") }
        return d
    }

    func int() throws -> Int {
        let d = try number()
        guard d == d.rounded(), abs(d) < 1e15 else { throw fail("expected a whole number, found \(d)") }
        return Int(d)
    }

    func bool() throws -> Bool {
        guard let n = value as? NSNumber, JSONNode.isBool(n) else { throw fail("expected true or false, found \(kind)") }
        return n.boolValue
    }

    var isNull: Bool { value is NSNull }

    var isString: Bool { value is String }

    /// Foundation hands back JSON booleans as NSNumber; their Objective-C type code tells them apart.
    private static func isBool(_ n: NSNumber) -> Bool {
        let code = String(cString: n.objCType)
        return code == "c" || code == "B"
    }

    /// A JSON-ish name of the value's type, for messages.
    var kind: String {
        switch value {
        case is NSNull: return "null"
        case is String: return "a string"
        case is [Any]: return "an array"
        case is [String: Any]: return "an object"
        case let n as NSNumber: return JSONNode.isBool(n) ? (n.boolValue ? "true" : "false") : "the number \(n)"
        default: return "\(type(of: value))"
        }
    }
}

extension Dictionary where Key == String, Value == JSONNode {
    /// A member that must be present.
    func required(_ key: String, in parent: JSONNode) throws -> JSONNode {
        guard let node = self[key] else {
            throw LightWorkError.invalidDocument(file: parent.file, path: JSONNode.memberPath(parent.path, key), reason: "missing")
        }
        return node
    }
}
