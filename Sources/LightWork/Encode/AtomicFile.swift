import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Writes outputs so the final name only ever holds a complete file: the bytes go to a hidden temporary
/// file in the same folder (`.<name>.lwtmp-<pid>-<n>`), which is synced and then renamed over the final
/// name. A failure removes the temporary file and leaves any earlier file under the final name untouched.
public enum AtomicFile {
    /// The temporary file a `write(to:_:)` body fills.
    public struct Output: Sendable {
        /// Read-write descriptor of the temporary file, positioned at 0. AtomicFile owns it: do not close it
        /// (give libraries that close their descriptor a `dup` of it).
        public let fileDescriptor: Int32
        /// Where the bytes are going now (for libraries that want a path and for messages).
        public let temporaryPath: String
        /// Where the file appears once complete (for messages).
        public let finalPath: String

        /// Appends bytes at the descriptor's position; short writes are continued, errors thrown
        /// (`diskFull` for ENOSPC/EDQUOT).
        public func write(_ bytes: UnsafeRawBufferPointer) throws {
            // A writer's digest (markWritten) stands for the bytes it saw: any later write makes it stale, even one
            // that leaves the size as it was.
            written.withLock { $0.hashed = nil }
            let code = FullWrite.write(fileDescriptor, bytes)
            if code != 0 { throw AtomicFile.failure(code, path: finalPath, action: "write") }
        }

        public func write(_ data: Data) throws {
            try data.withUnsafeBytes { try write($0) }
        }

        /// Says how the writer left the file: `direct` when some of it went to the disk past the page cache
        /// (O_DIRECT), so a digest reads it back the same way instead of pulling 100 MB or more into fresh cache
        /// pages; `hashed`, the size and SHA-256 of every byte as written, when the writer hashed them in order,
        /// so the file is not read back at all (unless its size on disk says otherwise).
        public func markWritten(direct: Bool, hashed: Written?) { written.withLock { $0 = (direct, hashed) } }

        let written = LockedBox<(direct: Bool, hashed: Written?)>((false, nil))
    }

    /// What an atomic write left under its final name.
    public struct Written: Sendable, Equatable {
        /// Bytes in the file.
        public let size: Int
        /// SHA-256 of the file's bytes (lower-case hex).
        public let sha256: String
    }

    /// Creates `url` atomically: `body` writes the content through the `Output`; then the file is
    /// fsynced, renamed onto `url` and the folder fsynced. The file is hashed while the fsync waits for the
    /// disk (the bytes are still in the page cache), so the digest costs no extra pass after the write, unless the
    /// writer already hashed it as it wrote it (`Output.markWritten(direct:hashed:)`). Throws `LightWorkError.writeFailed` (or
    /// `.diskFull`) naming the path and the system's reason; errors thrown by `body` pass through
    /// unchanged. Refuses a `url` that is a symbolic link or a folder. New files get mode 0666 minus the umask.
    @discardableResult
    public static func write(to url: URL, _ body: (Output) throws -> Void) throws -> Written {
        try write(to: url, openingTemporary: openExclusive, body)
    }

    /// Writes `data` to `url` atomically.
    @discardableResult
    public static func write(data: Data, to url: URL) throws -> Written {
        try write(to: url) { try $0.write(data) }
    }

    /// The error for a failed system call: `.diskFull` for ENOSPC, EDQUOT and EFBIG (a file size limit, such as
    /// `ulimit -f`, refuses more bytes just as a full disk or quota does), `.writeFailed` otherwise.
    public static func failure(_ code: Int32, path: String, action: String) -> LightWorkError {
        let reason = String(cString: strerror(code))
        if code == ENOSPC || code == EDQUOT || code == EFBIG { return .diskFull("\(path): \(reason)") }
        return .writeFailed("\(path): \(action) failed: \(reason)")
    }

    /// `write(to:_:)` with the temporary file opened by `openTemporary` (a path → descriptor function
    /// returning -1 with errno set): tests use it to substitute a descriptor that fails (e.g. /dev/full).
    @discardableResult
    static func write(to url: URL, openingTemporary openTemporary: (String) -> Int32,
                      _ body: (Output) throws -> Void) throws -> Written {
        let finalPath = url.path
        let folder = url.deletingLastPathComponent().path
        var st = stat()
        if lstat(finalPath, &st) == 0 {
            let kind = st.st_mode & S_IFMT
            if kind == S_IFLNK {
                throw LightWorkError.writeFailed("\(finalPath) is a symbolic link; LightWork does not replace links (remove it or choose another output folder)")
            }
            if kind == S_IFDIR { throw LightWorkError.writeFailed("\(finalPath) is a folder") }
        }
        let temporaryPath = (folder == "/" ? "" : folder) + "/" + temporaryName(for: url.lastPathComponent)
        let fd = openTemporary(temporaryPath)
        guard fd >= 0 else {
            let code = errno
            if code == ENOSPC || code == EDQUOT || code == EFBIG { throw failure(code, path: finalPath, action: "create") }
            throw LightWorkError.writeFailed("\(finalPath): cannot create a file in \(folder): \(String(cString: strerror(code)))")
        }
        var open = true
        var renamed = false
        defer {
            if open { close(fd) }
            if !renamed { unlink(temporaryPath) }
        }
        let output = Output(fileDescriptor: fd, temporaryPath: temporaryPath, finalPath: finalPath)
        try body(output)
        let (direct, hashed) = output.written.withLock { $0 }
        // The fsync waits on the disk, not the CPU: hash the bytes meanwhile (unless the writer already did).
        let synced = LockedBox<Int32>(-1)
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let rc = fsync(fd) == 0 ? 0 : errno
            synced.withLock { $0 = rc }
            done.signal()
        }
        let digest = Result {
            // The writer's digest stands only for a file of the size it hashed; anything else is read back.
            if let hashed, try AtomicFile.size(of: fd, path: finalPath) == hashed.size { return (hashed.sha256, hashed.size) }
            return try SHA256.hex(fileDescriptor: fd, direct: direct)
        }
        done.wait()
        let syncError = synced.withLock { $0 }
        guard syncError == 0 else { throw failure(syncError, path: finalPath, action: "fsync") }
        let (sha256, size) = try digest.get()
        open = false
        guard close(fd) == 0 else { throw failure(errno, path: finalPath, action: "close") }
        guard rename(temporaryPath, finalPath) == 0 else { throw failure(errno, path: finalPath, action: "rename") }
        renamed = true
        syncFolder(folder)
        return Written(size: size, sha256: sha256)
    }

    /// The size of an open file.
    static func size(of fd: Int32, path: String) throws -> Int {
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw failure(errno, path: path, action: "stat") }
        return Int(st.st_size)
    }

    /// Creates the temporary file: never an existing file or link, mode 0666 so the umask decides.
    static func openExclusive(_ path: String) -> Int32 {
        Glibc.open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o666)
    }

    /// Makes the rename durable. The file is complete under its final name by now, so a folder that
    /// cannot be synced (some network and virtual file systems refuse) is not an error.
    private static func syncFolder(_ folder: String) {
        let dfd = Glibc.open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard dfd >= 0 else { return }
        _ = fsync(dfd)
        close(dfd)
    }

    private static let counter = LockedBox<UInt64>(0)

    /// `.<name>.lwtmp-<pid>-<n>`, unique within the process and hidden from folder watchers; the name
    /// part is shortened when the whole would exceed NAME_MAX (255 bytes).
    static func temporaryName(for name: String) -> String {
        let n = counter.withLock { value -> UInt64 in value += 1; return value }
        let suffix = ".lwtmp-\(getpid())-\(n)"
        var stem = ""
        var bytes = 1 + suffix.utf8.count
        for scalar in name.unicodeScalars {
            let size = String(scalar).utf8.count
            if bytes + size > 255 { break }
            stem.unicodeScalars.append(scalar)
            bytes += size
        }
        return "." + stem + suffix
    }
}
