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

    /// The canonical path with every symlink resolved, or nil when it does not exist.
    private static func realPath(_ path: String) -> String? {
        guard let p = realpath(path, nil) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }
}
