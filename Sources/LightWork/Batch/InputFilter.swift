import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `--include` / `--exclude` globs over the inputs a folder walk found (and files named on the command line).
///
/// A pattern without `/` is matched against every component of the path relative to the input root, so
/// `*.CR2` picks files by name at any depth and `rejects` drops everything under any folder of that name.
/// A pattern with `/` is matched against the whole relative path (or a leading folder of it: `2024/day1`
/// covers everything below that folder), with `*` and `?` not crossing `/` (fnmatch's FNM_PATHNAME).
/// Matching ignores case, as camera files come as `.CR2` and `.cr2`. With includes, a file must match one of
/// them; a file matching any exclude is dropped (excludes win).
public struct InputFilter: Sendable, Equatable {
    public let include: [String]
    public let exclude: [String]

    /// Glibc's FNM_CASEFOLD (a GNU extension the Swift module may not export).
    private static let caseFold: Int32 = 1 << 4

    public init(include: [String] = [], exclude: [String] = []) throws {
        for p in include + exclude where p.trimmingCharacters(in: .whitespaces).isEmpty {
            throw LightWorkError.usage("an --include or --exclude pattern is empty")
        }
        self.include = include.map(InputFilter.normalised)
        self.exclude = exclude.map(InputFilter.normalised)
    }

    /// Whether nothing is filtered.
    public var isEmpty: Bool { include.isEmpty && exclude.isEmpty }

    /// Whether the input at `relativePath` (relative to its input root) is converted.
    public func accepts(relativePath: String) -> Bool {
        if !include.isEmpty && !include.contains(where: { InputFilter.matches($0, relativePath) }) { return false }
        return !exclude.contains(where: { InputFilter.matches($0, relativePath) })
    }

    /// `pattern` against `path` by the rules above.
    public static func matches(_ pattern: String, _ path: String) -> Bool {
        let components = path.split(separator: "/").map(String.init)
        if !pattern.contains("/") {
            return components.contains { fnmatch(pattern, $0, caseFold) == 0 }
        }
        // The whole path or any leading folder of it.
        var prefix = ""
        for c in components {
            prefix = prefix.isEmpty ? c : prefix + "/" + c
            if fnmatch(pattern, prefix, FNM_PATHNAME | caseFold) == 0 { return true }
        }
        return false
    }

    /// Drops a leading "./" or "/" (patterns are relative to the input root) and a trailing "/".
    private static func normalised(_ p: String) -> String {
        var s = Substring(p)
        while s.hasPrefix("./") { s = s.dropFirst(2) }
        while s.hasPrefix("/") { s = s.dropFirst() }
        while s.count > 1 && s.hasSuffix("/") { s = s.dropLast() }
        return String(s)
    }
}
