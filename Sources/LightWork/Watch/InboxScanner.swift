import Foundation

/// Walks a hot folder (or one of its subfolders): the candidate files (by `WatchNameRules`) and the folders
/// a watcher must cover. Symlinked folders are not followed (no loops); folders the rules exclude (hidden
/// ones, the output, archive and failed folders) are not entered.
public struct InboxScanner: Sendable {
    public let root: URL
    public let rules: WatchNameRules

    public init(root: URL, rules: WatchNameRules) {
        self.root = root
        self.rules = rules
    }

    public struct Found: Sendable {
        /// Candidate files, relative to the root, sorted.
        public var files: [String] = []
        /// Absolute paths of the folders walked, `start` first.
        public var folders: [String] = []
    }

    /// Walks from `relativeFolder` ("" for the root).
    public func scan(from relativeFolder: String = "") -> Found {
        var found = Found()
        walk(relativeFolder, into: &found)
        found.files.sort()
        return found
    }

    /// The absolute path of `relativePath` under the root.
    public func path(_ relativePath: String) -> String {
        relativePath.isEmpty ? root.path : root.path + "/" + relativePath
    }

    private func walk(_ relative: String, into found: inout Found) {
        let dir = path(relative)
        if !relative.isEmpty && rules.skipsFolder(dir) { return }
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir) else { return }
        found.folders.append(dir)
        for name in names.sorted() {
            let rel = relative.isEmpty ? name : relative + "/" + name
            var st = stat()
            guard lstat(dir + "/" + name, &st) == 0 else { continue }
            switch st.st_mode & S_IFMT {
            case S_IFDIR:
                walk(rel, into: &found)
            case S_IFREG:
                if rules.accepts(relativePath: rel) { found.files.append(rel) }
            case S_IFLNK:
                // A link is taken only when it points at a regular file.
                var target = stat()
                if stat(dir + "/" + name, &target) == 0, target.st_mode & S_IFMT == S_IFREG, rules.accepts(relativePath: rel) {
                    found.files.append(rel)
                }
            default:
                break
            }
        }
    }
}
