import Foundation

/// One file to convert: where it is and where it sits relative to the input it was found under.
public struct InputItem: Sendable, Equatable {
    public let url: URL
    /// The path as the user gave it (or as found under a folder they gave).
    public let displayPath: String
    /// Relative to the input root: `a/b/IMG_1.CR2` under a folder input, `IMG_1.CR2` for a file input.
    public let relativePath: String

    public init(url: URL, displayPath: String, relativePath: String) {
        self.url = url
        self.displayPath = displayPath
        self.relativePath = relativePath
    }
}

/// Turns command-line paths into input items: files as given, folders walked recursively (structure
/// mirrored in the output). Symlinked folders are not followed (no loops); hidden files are skipped, and so are
/// `excluded` folders (the output folder, wherever it sits in the tree).
public enum InputWalker {
    /// Extensions a folder walk picks up; a file named on the command line is always tried, whatever its name.
    public static var imageExtensions: Set<String> { CodecRegistry.inputExtensions }

    /// Items in a stable order (sorted by relative path within each argument). Paths that do not exist become
    /// items too, so that they fail with a manifest entry like any other bad input.
    public static func items(for paths: [String], excluding excluded: ExcludedFolders = ExcludedFolders([])) -> [InputItem] {
        var out: [InputItem] = []
        forEach(paths, excluding: excluded) { out.append($0) }
        return out
    }

    /// The items `items(for:excluding:)` gives, in its order, one at a time: a folder is walked depth first with each
    /// folder's entries sorted by name (a subfolder's as its name and "/", which is where every path below it sorts),
    /// so that no list of the whole tree is held to sort it.
    public static func forEach(_ paths: [String], excluding excluded: ExcludedFolders = ExcludedFolders([]), _ body: (InputItem) -> Void) {
        let fm = FileManager.default
        for path in paths {
            var isDir: ObjCBool = false
            let url = URL(fileURLWithPath: path)
            if fm.fileExists(atPath: path, isDirectory: &isDir), isDir.boolValue {
                walk(url, relative: "", display: path, excluding: excluded, body)
            } else {
                body(InputItem(url: url, displayPath: path, relativePath: url.lastPathComponent))
            }
        }
    }

    private static func walk(_ dir: URL, relative: String, display: String, excluding excluded: ExcludedFolders, _ body: (InputItem) -> Void) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir.path) else { return }
        var entries: [(key: String, name: String, isFolder: Bool)] = []
        for name in names where !name.hasPrefix(".") {
            let path = dir.appendingPathComponent(name).path
            var st = stat()
            guard lstat(path, &st) == 0 else { continue }
            let type = st.st_mode & S_IFMT
            if type == S_IFDIR {
                if !excluded.contains(st) { entries.append((name + "/", name, true)) }
            } else if type == S_IFREG || type == S_IFLNK {
                // A symlink is taken only when it points at a regular file.
                if type == S_IFLNK {
                    var target = stat()
                    guard stat(path, &target) == 0, target.st_mode & S_IFMT == S_IFREG else { continue }
                }
                if imageExtensions.contains(URL(fileURLWithPath: path).pathExtension.lowercased()) { entries.append((name, name, false)) }
            }
        }
        entries.sort { $0.key < $1.key }
        for entry in entries {
            let url = dir.appendingPathComponent(entry.name)
            let rel = relative.isEmpty ? entry.name : relative + "/" + entry.name
            if entry.isFolder {
                walk(url, relative: rel, display: display, excluding: excluded, body)
            } else {
                let shown = display.hasSuffix("/") ? display + rel : display + "/" + rel
                body(InputItem(url: url, displayPath: shown, relativePath: rel))
            }
        }
    }
}
