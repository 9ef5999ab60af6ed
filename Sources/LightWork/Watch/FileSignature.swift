import Foundation

/// What a `stat` says about a file that changes when its content does: size, modification time (to the
/// nanosecond where the file system keeps it), inode and device. Two equal signatures over a settling
/// interval mean no writer touched the file in between; a ledger entry with an equal signature means the
/// file is the one already handled, without reading it again.
public struct FileSignature: Codable, Sendable, Hashable {
    public var size: Int
    /// Seconds and nanoseconds since 1970 of the last modification.
    public var mtime: Int
    public var mtimeNanos: Int
    public var inode: UInt64
    public var device: UInt64

    public init(size: Int, mtime: Int, mtimeNanos: Int, inode: UInt64, device: UInt64) {
        self.size = size
        self.mtime = mtime
        self.mtimeNanos = mtimeNanos
        self.inode = inode
        self.device = device
    }

    /// Whether `recorded` still describes this file: same size, mtime (to the nanosecond) and inode. The device
    /// is left out: its number changes when a disk is mounted again, while the path already names the file system.
    public func matches(_ recorded: FileSignature) -> Bool {
        size == recorded.size && mtime == recorded.mtime && mtimeNanos == recorded.mtimeNanos && inode == recorded.inode
    }

    /// Whether the mtime lies more than two seconds before `now`: a write within the file system's mtime step of a
    /// `stat` (a second, two on FAT) could leave size and mtime as they were, so only a settled signature is trusted.
    public func isSettled(at now: Date) -> Bool {
        Double(mtime) + Double(mtimeNanos) / 1e9 < now.timeIntervalSince1970 - 2
    }

    /// The signature of the regular file at `path` (links followed), nil when there is none.
    public static func of(_ path: String) -> FileSignature? {
        var st = stat()
        guard stat(path, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return nil }
        return FileSignature(size: Int(st.st_size), mtime: Int(st.st_mtim.tv_sec), mtimeNanos: Int(st.st_mtim.tv_nsec),
                             inode: UInt64(st.st_ino), device: UInt64(st.st_dev))
    }
}
