import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Folders whose files are never inputs (a batch's output folder): a folder walk does not go into them, and a file
/// that lies in one, named on the command line or reached through a symlink, is refused. Folders are known by
/// device and inode, so another spelling of the same folder (a symlink to it, `..`, a bind mount) is the same folder.
public struct ExcludedFolders: Sendable {
    struct Identity: Hashable, Sendable {
        let device: UInt64
        let inode: UInt64
        init(_ st: stat) { device = UInt64(st.st_dev); inode = UInt64(st.st_ino) }
    }

    private let identities: Set<Identity>

    /// `folders` as they are now (symlinks followed); one that does not exist yet holds nothing to leave out.
    public init(_ folders: [URL]) {
        identities = Set(folders.compactMap { ExcludedFolders.identity(of: $0.path) })
    }

    /// The folder a walk is at (from its lstat): whether to leave it out.
    func contains(_ st: stat) -> Bool { identities.contains(Identity(st)) }

    /// Whether the folder or file at `path` lies in an excluded folder (or is one), at any depth, symlinks resolved.
    /// `cache` (folder as written → answer) saves the climb for every other plain file of a folder already seen.
    func encloses(_ path: String, cache: inout [String: Bool]) -> Bool {
        guard !identities.isEmpty else { return false }
        var st = stat()
        guard lstat(path, &st) == 0 else { return false }   // a missing input fails later as missing
        let type = st.st_mode & S_IFMT
        // A plain file lies where its folder does; a folder or a symlink is resolved and climbed itself.
        let key = type == S_IFREG ? (path as NSString).deletingLastPathComponent : path
        if let known = cache[key] { return known }
        var answer = false
        if let resolved = realpath(type == S_IFREG ? (key.isEmpty ? "." : key) : path, nil) {
            var folder = String(cString: resolved)
            free(resolved)
            while true {
                var here = stat()
                if stat(folder, &here) == 0, here.st_mode & S_IFMT == S_IFDIR, contains(here) { answer = true; break }
                if folder == "/" || folder.isEmpty { break }
                folder = (folder as NSString).deletingLastPathComponent
            }
        }
        cache[key] = answer
        return answer
    }

    private static func identity(of path: String) -> Identity? {
        var st = stat()
        guard stat(path, &st) == 0, st.st_mode & S_IFMT == S_IFDIR else { return nil }
        return Identity(st)
    }
}
