import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Linux inotify over a whole tree (Glibc only): one watch per folder, added for folders created or moved
/// in later, whose existing files are then scanned (they may have been written before the watch existed).
/// A file becomes a candidate when it is closed after writing (`IN_CLOSE_WRITE`), renamed into place
/// (`IN_MOVED_TO`) or given a new mtime (`IN_ATTRIB`), never merely when created. Network shares see no events: use `PollingWatcher` there.
public final class InotifyWatcher {
    /// The inotify descriptor (non-blocking): poll it for POLLIN, then call `read()`.
    public let fd: Int32
    public let scanner: InboxScanner
    /// Watch descriptor → folder relative to the root ("" for the root).
    private var folders: [Int32: String] = [:]
    private var rootWatch: Int32 = -1
    /// Problems worth telling the user (a subfolder that could not be watched).
    public var onNotice: (String) -> Void = { _ in }

    static let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_ATTRIB | IN_MOVED_FROM | IN_MODIFY | IN_CREATE | IN_DELETE
                             | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR) | UInt32(IN_EXCL_UNLINK)

    /// Starts watching the whole tree under `scanner.root`; the files already there are not reported (scan
    /// them after this returns, so nothing written in between is missed).
    public init(scanner: InboxScanner) throws {
        self.scanner = scanner
        fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { throw WatchError("cannot start inotify: \(String(cString: strerror(errno)))") }
        rootWatch = inotify_add_watch(fd, scanner.root.path, InotifyWatcher.mask)
        guard rootWatch >= 0 else {
            let e = InotifyWatcher.describe(errno, scanner.root.path)
            close(fd)
            throw WatchError(e)
        }
        folders[rootWatch] = ""
        _ = addTree("", includingRoot: false)
    }

    deinit { close(fd) }

    /// Folders watched.
    public var folderCount: Int { folders.count }

    /// Watches `relative` and every folder below it; returns the candidate files found there.
    @discardableResult
    func addTree(_ relative: String, includingRoot: Bool = true) -> [String] {
        let found = scanner.scan(from: relative)
        for folder in found.folders {
            let rel = folder == scanner.root.path ? "" : String(folder.dropFirst(scanner.root.path.count + 1))
            if rel.isEmpty && !includingRoot { continue }
            let wd = inotify_add_watch(fd, folder, InotifyWatcher.mask)
            if wd >= 0 { folders[wd] = rel } else { onNotice(InotifyWatcher.describe(errno, folder)) }
        }
        return found.files
    }

    /// Stops watching `relative` and everything below it (it was moved away; if it was moved within the
    /// tree, its new place arrives as a new folder).
    private func removeTree(_ relative: String) {
        for (wd, rel) in folders where rel == relative || rel.hasPrefix(relative + "/") {
            inotify_rm_watch(fd, wd)
            folders[wd] = nil
        }
    }

    /// Reads every event queued so far.
    public func read() -> [InboxChange] {
        var changes: [InboxChange] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            var offset = 0
            while offset + 16 <= n {
                let (wd, mask, length) = buffer.withUnsafeBytes { raw in
                    (raw.loadUnaligned(fromByteOffset: offset, as: Int32.self),
                     raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self),
                     Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self)))
                }
                let nameBytes = buffer[(offset + 16)..<min(n, offset + 16 + length)]
                let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
                offset += 16 + length
                handle(wd: wd, mask: mask, name: name, into: &changes)
            }
        }
        return changes
    }

    private func handle(wd: Int32, mask: UInt32, name: String, into changes: inout [InboxChange]) {
        if mask & UInt32(IN_Q_OVERFLOW) != 0 {
            // Folder creations may be among the lost events: watch every folder of the tree again (adding a
            // watch twice returns the same descriptor), then have the caller rescan the files.
            _ = addTree("", includingRoot: false)
            changes.append(.rescan)
            return
        }
        if mask & UInt32(IN_IGNORED) != 0 {
            if wd == rootWatch { changes.append(.inboxGone) }
            folders[wd] = nil
            return
        }
        if wd == rootWatch && mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF) != 0 { changes.append(.inboxGone); return }
        guard let folder = folders[wd], !name.isEmpty else { return }
        let rel = folder.isEmpty ? name : folder + "/" + name
        let isDir = mask & UInt32(IN_ISDIR) != 0
        if isDir {
            if mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0 {
                if !scanner.rules.skipsFolder(scanner.path(rel)) {
                    for file in addTree(rel) { changes.append(.file(file)) }
                }
            } else if mask & UInt32(IN_MOVED_FROM) != 0 {
                removeTree(rel)
            }
            return
        }
        guard scanner.rules.accepts(relativePath: rel) else { return }
        // IN_ATTRIB: an mtime set without opening the file (touch on a file one may not write, touch -d, rsync -t) is
        // a candidate as a poll would see it; it settles, and a signature the journal knows is passed over unread.
        if mask & UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_ATTRIB) != 0 {
            changes.append(.file(rel))
        } else if mask & UInt32(IN_MODIFY) != 0 {
            changes.append(.modified(rel))
        } else if mask & UInt32(IN_DELETE | IN_MOVED_FROM) != 0 {
            changes.append(.removed(rel))
        } else if mask & UInt32(IN_CREATE) != 0 {
            // A link made in place (ln, ln -s) is never written or closed: take it when it is created.
            var st = stat()
            if lstat(scanner.path(rel), &st) == 0, st.st_mode & S_IFMT == S_IFLNK || st.st_nlink > 1 { changes.append(.file(rel)) }
        }
    }

    static func describe(_ code: Int32, _ path: String) -> String {
        if code == ENOSPC {
            return "cannot watch \(path): the system's limit of inotify watches is reached "
                + "(raise it with: sysctl fs.inotify.max_user_watches=524288, or watch with --poll SECONDS)"
        }
        return "cannot watch \(path): \(String(cString: strerror(code)))"
    }
}
