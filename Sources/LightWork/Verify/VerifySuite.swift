import Foundation

/// A colour regression suite (versioned JSON): cases to render and compare, the limits they must meet, and
/// optionally a decode-hash file checked before any colour is compared.
///
/// ```json
/// {"version": 1, "name": "LightWork", "thresholds": {"max": 2.3, "mean": 0.767},
///  "decodeHashes": "decode-hashes.json", "entitlements": "entitlements.json",
///  "cases": [ … VerifyCase … ]}
/// ```
/// `entitlements` names an entitlement file (the format `lightwork films sync` reads) whose packs are unlocked for
/// this suite's renders only, in memory: a suite renders the same films on every machine.
public struct VerifySuite: Sendable, Codable, Equatable {
    public static let currentVersion = 1

    public var version: Int
    public var name: String
    public var description: String?
    /// Limits for every case (each field over the defaults max 2.3, mean 0.767).
    public var thresholds: VerifyThresholds?
    /// A decode-hash file (see `DecodeHashes`), relative to the suite.
    public var decodeHashes: String?
    /// An entitlement file, relative to the suite.
    public var entitlements: String?
    public var cases: [VerifyCase]

    public init(name: String, cases: [VerifyCase]) {
        version = Self.currentVersion
        self.name = name
        self.cases = cases
    }

    static let keys: Set<String> = ["version", "name", "description", "thresholds", "decodeHashes", "entitlements", "cases"]

    /// Reads and validates the suite at `url`: version, unknown keys (a typo must not silently drop a setting),
    /// names, limits. Errors carry the JSON path.
    public static func load(from url: URL) throws -> VerifySuite {
        let file = url.path
        let data: Data
        do { data = try Data(contentsOf: url) } catch { throw LightWorkError.missingInput(file) }
        guard let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw LightWorkError.invalidDocument(file: file, path: "$", reason: "not a JSON object")
        }
        guard let version = root["version"] as? Int else {
            throw LightWorkError.invalidDocument(file: file, path: "$.version", reason: "missing: this LightWork reads suite version \(currentVersion)")
        }
        guard version == currentVersion else {
            throw LightWorkError.invalidDocument(file: file, path: "$.version", reason: "unsupported suite version \(version) (this LightWork reads \(currentVersion))")
        }
        try unknownKeys(root, allowed: keys, file: file, path: "$")
        for (i, c) in ((root["cases"] as? [Any]) ?? []).enumerated() {
            guard let c = c as? [String: Any] else { continue }
            try unknownKeys(c, allowed: VerifyCase.keys, file: file, path: "$.cases[\(i)]")
            if let chart = c["chart"] as? [String: Any] {
                try unknownKeys(chart, allowed: ["truth", "reference", "corners", "exposure", "thresholds"], file: file, path: "$.cases[\(i)].chart")
            }
        }
        let suite: VerifySuite
        do { suite = try JSONDecoder().decode(VerifySuite.self, from: data) } catch {
            throw LightWorkError.invalidDocument(file: file, path: jsonPath(error), reason: reason(error))
        }
        try suite.thresholds?.validate(file: file, path: "$.thresholds")
        guard !suite.cases.isEmpty || suite.decodeHashes != nil else {
            throw LightWorkError.invalidDocument(file: file, path: "$.cases", reason: "a suite needs at least one case (or a decodeHashes file)")
        }
        var seen = Set<String>()
        for (i, c) in suite.cases.enumerated() {
            try c.validate(file: file, path: "$.cases[\(i)]")
            guard seen.insert(c.name).inserted else {
                throw LightWorkError.invalidDocument(file: file, path: "$.cases[\(i)].name", reason: "\"\(c.name)\" names two cases")
            }
        }
        return suite
    }

    private static func unknownKeys(_ object: [String: Any], allowed: Set<String>, file: String, path: String) throws {
        if let key = object.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw LightWorkError.invalidDocument(file: file, path: path, reason: "unknown key \"\(key)\" (known: \(allowed.sorted().joined(separator: ", ")))")
        }
    }

    /// The JSON path a `DecodingError` points at (`$.cases[3].format`).
    static func jsonPath(_ error: Error) -> String {
        let path: [CodingKey]
        switch error as? DecodingError {
        case .typeMismatch(_, let c)?, .valueNotFound(_, let c)?, .dataCorrupted(let c)?: path = c.codingPath
        case .keyNotFound(let key, let c)?: path = c.codingPath + [key]
        default: path = []
        }
        return "$" + path.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
    }

    /// A one-line reason for a `DecodingError`.
    static func reason(_ error: Error) -> String {
        switch error as? DecodingError {
        case .typeMismatch(let type, _)?: return "expected \(type == Double.self || type == Int.self ? "a number" : type == String.self ? "a string" : "\(type)")"
        case .valueNotFound?: return "a value is required here"
        case .keyNotFound(let key, _)?: return "\"\(key.stringValue)\" is required"
        case .dataCorrupted(let c)?: return c.debugDescription
        default: return "\(error)"
        }
    }
}
