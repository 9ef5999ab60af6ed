import Foundation

/// Which files in a hot folder are candidates: images by extension, not a name an uploader or copier uses
/// while it writes (`.part`, `.tmp`, `.crdownload`, `~`, dotfiles: those become candidates when renamed to
/// their final name), inside `--include`/`--exclude`, and not under a folder LightWork itself writes into
/// (the output, archive and failed folders when they sit inside the inbox, so outputs never become inputs).
public struct WatchNameRules: Sendable {
    /// Suffixes of names still being written (browsers, FTP servers, rsync-like copiers, editors).
    public static let temporarySuffixes = [".part", ".partial", ".tmp", ".temp", ".crdownload", ".download", ".filepart", "~"]

    public let filter: InputFilter
    /// Real paths of folders never looked into.
    public let excludedFolders: [String]

    public init(filter: InputFilter = try! InputFilter(), excludedFolders: [URL] = []) {
        self.filter = filter
        self.excludedFolders = excludedFolders.map { WatchNameRules.canonical($0.path) }
    }

    /// Whether a file name (last path component) is one a writer uses for a file not yet complete.
    public static func isTemporary(_ name: String) -> Bool {
        if name.hasPrefix(".") { return true }
        let lower = name.lowercased()
        return temporarySuffixes.contains { lower.hasSuffix($0) }
    }

    /// Whether the file at `relativePath` (relative to the inbox) is a candidate by its name alone.
    public func accepts(relativePath: String) -> Bool {
        let name = (relativePath as NSString).lastPathComponent
        guard !WatchNameRules.isTemporary(name) else { return false }
        // Hidden folders (".sync", ".Trash-1000") hold nothing to convert either.
        guard !relativePath.split(separator: "/").dropLast().contains(where: { $0.hasPrefix(".") }) else { return false }
        guard InputWalker.imageExtensions.contains((name as NSString).pathExtension.lowercased()) else { return false }
        return filter.accepts(relativePath: relativePath)
    }

    /// Whether a folder (absolute path) must not be watched or walked.
    public func skipsFolder(_ path: String) -> Bool {
        if (path as NSString).lastPathComponent.hasPrefix(".") { return true }
        let p = WatchNameRules.canonical(path)
        return excludedFolders.contains { p == $0 || p.hasPrefix($0 + "/") }
    }

    /// The real path when it exists (symlinks resolved), else the standardised one.
    static func canonical(_ path: String) -> String {
        if let p = realpath(path, nil) {
            defer { free(p) }
            return String(cString: p)
        }
        return URL(fileURLWithPath: path).standardizedFileURL.path
    }
}
