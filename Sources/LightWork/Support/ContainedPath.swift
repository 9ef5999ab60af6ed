import Foundation

/// Why a path named inside a document (a recipe's LUT, a catalog's lookup image) was refused.
public struct ContainedPathError: Error, Sendable, Equatable, CustomStringConvertible {
    public let reason: String
    public var description: String { reason }
}

/// Resolves file names that documents carry, so a recipe or catalog can only reach files in its own folder
/// (no `../../etc/passwd`, no absolute paths, no symlink leading out).
public enum ContainedPath {
    /// `relative` resolved inside `folder`; the file must exist and its real path must lie inside the folder's real path.
    public static func resolve(_ relative: String, inside folder: URL) throws(ContainedPathError) -> URL {
        guard !relative.isEmpty else { throw ContainedPathError(reason: "empty path") }
        guard !relative.hasPrefix("/") && !relative.hasPrefix("~") else {
            throw ContainedPathError(reason: "\"\(relative)\" is absolute; name a file inside \(folder.path) relative to it")
        }
        let parts = relative.split(separator: "/", omittingEmptySubsequences: true)
        guard !parts.contains("..") else {
            throw ContainedPathError(reason: "\"\(relative)\" climbs out with \"..\"; name a file inside \(folder.path)")
        }
        guard !relative.contains("\0") else { throw ContainedPathError(reason: "path contains a NUL byte") }
        let candidate = folder.appendingPathComponent(relative)
        guard let realFolder = realPath(folder.path) else {
            throw ContainedPathError(reason: "folder \(folder.path) does not exist")
        }
        guard let realFile = realPath(candidate.path) else {
            throw ContainedPathError(reason: "\"\(relative)\" does not exist in \(folder.path)")
        }
        let prefix = realFolder.hasSuffix("/") ? realFolder : realFolder + "/"
        guard realFile.hasPrefix(prefix) else {
            throw ContainedPathError(reason: "\"\(relative)\" leads out of \(folder.path) (it resolves to \(realFile)) through a symbolic link")
        }
        return URL(fileURLWithPath: realFile)
    }

    /// Where an output named `relative` (a path the planner made, under the output folder) is written, with
    /// its folders created (mode 0777 less the umask). The output folder itself is the user's choice and may be
    /// a link; below it, a folder that is a symbolic link leading out of the output folder's real path is
    /// refused, so a planted `out/day1 -> /etc` cannot make a batch write elsewhere. (A link at the final name
    /// is refused by `AtomicFile`.) Returns the file's URL inside the real output folder.
    public static func outputFile(_ relative: String, inside folder: URL) throws(ContainedPathError) -> URL {
        let parts = relative.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard let name = parts.last, !relative.hasPrefix("/") else {
            throw ContainedPathError(reason: "output name \"\(relative)\" is not a relative file path")
        }
        guard !parts.contains(".."), !parts.contains("."), !relative.contains("\0") else {
            throw ContainedPathError(reason: "output name \"\(relative)\" climbs out of \(folder.path)")
        }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw ContainedPathError(reason: "cannot create the output folder \(folder.path): \((error as NSError).localizedDescription)")
        }
        guard let realFolder = realPath(folder.path) else {
            throw ContainedPathError(reason: "output folder \(folder.path) does not exist")
        }
        let root = realFolder == "/" ? "" : realFolder
        var current = root
        for part in parts.dropLast() {
            let next = current + "/" + part
            var st = stat()
            if lstat(next, &st) != 0 {
                guard mkdir(next, 0o777) == 0 || errno == EEXIST else {
                    throw ContainedPathError(reason: "cannot create folder \(next): \(String(cString: strerror(errno)))")
                }
                guard lstat(next, &st) == 0 else { throw ContainedPathError(reason: "folder \(next) vanished") }
            }
            switch st.st_mode & S_IFMT {
            case S_IFDIR:
                current = next
            case S_IFLNK:
                guard let target = realPath(next), target.hasPrefix(root + "/") else {
                    throw ContainedPathError(reason: "\(next) is a symbolic link leading out of the output folder \(realFolder); LightWork does not write through it")
                }
                var dst = stat()
                guard stat(target, &dst) == 0, dst.st_mode & S_IFMT == S_IFDIR else {
                    throw ContainedPathError(reason: "\(next) is a link to something that is not a folder")
                }
                current = target
            default:
                throw ContainedPathError(reason: "\(next) exists and is not a folder")
            }
        }
        return URL(fileURLWithPath: current + "/" + name)
    }

    /// The canonical path with every symlink resolved, or nil when it does not exist.
    private static func realPath(_ path: String) -> String? {
        guard let p = realpath(path, nil) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }
}
