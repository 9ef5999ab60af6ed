import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One writer per output folder. A `convert` or `watch` holds a POSIX record lock (fcntl) on
/// `OUTDIR/.lightwork/lock` for its whole life, so a second run into the same folder waits for it (`--wait`) or
/// is refused, naming the holder's pid and command. The kernel drops the lock when the holder's process ends,
/// however it ends, so a killed run never leaves a stale lock; record locks are not inherited across fork, so the
/// worker processes never hold it. Shards of one job share the folder's lock (a read lock) and each holds its own
/// slice's lock (`lock.shard-K-of-N`) alone: they run side by side, while a whole run excludes every shard run and
/// two runs of one slice exclude each other.
public final class OutputLock {
    /// The run holding a lock, as far as this host can tell.
    public struct Holder: Sendable, Equatable, CustomStringConvertible {
        /// The holder's process id (0 when the kernel does not say, as over some network file systems).
        public let pid: pid_t
        /// Its command line, when known.
        public let command: String?

        public var description: String {
            let who = pid > 0 ? "pid \(pid)" : "another LightWork run"
            return command.map { "\(who) (\($0))" } ?? who
        }
    }

    /// The hidden folder inside the output folder that LightWork's own bookkeeping lives in.
    public static let folderName = ".lightwork"

    private let descriptors: [Int32]

    /// Takes the lock of `folder` (an existing output folder) for a whole run, or for slice `shard` of a sharded
    /// one. Held by another run: with `wait`, tells `onWait` who holds it and blocks until it is free; without it,
    /// throws `busy`, whose description is the one line for the user.
    public init(folder: URL, shard: Shard?, wait: Bool, onWait: (Holder) -> Void = { _ in }) throws(LightWorkError) {
        let dir = folder.appendingPathComponent(OutputLock.folderName)
        guard mkdir(dir.path, 0o777) == 0 || errno == EEXIST else {
            throw .writeFailed("cannot create \(dir.path): \(String(cString: strerror(errno)))")
        }
        var held: [Int32] = []
        do {
            let main = try OutputLock.open(dir.appendingPathComponent("lock"))
            held.append(main)
            try OutputLock.take(main, exclusive: shard == nil, folder: folder, wait: wait, onWait: onWait)
            var own = main
            if let shard {
                own = try OutputLock.open(dir.appendingPathComponent("lock.shard-\(shard.index)-of-\(shard.count)"))
                held.append(own)
                try OutputLock.take(own, exclusive: true, folder: folder, wait: wait, onWait: onWait)
            }
            OutputLock.describeSelf(in: own)
        } catch {
            for fd in held { close(fd) }
            throw error
        }
        descriptors = held
    }

    /// Releases the lock (closing the descriptors drops it; the process ending does too).
    deinit { for fd in descriptors { close(fd) } }

    /// Why a run cannot start: `folder` is in use by `holder`.
    public static func busyReason(folder: URL, holder: Holder) -> String {
        "the output folder \(folder.path) is in use by \(holder); wait for it or pass --wait"
    }

    private static func open(_ url: URL) throws(LightWorkError) -> Int32 {
        let fd = Glibc.open(url.path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o666)
        guard fd >= 0 else { throw .writeFailed("cannot open the lock \(url.path): \(String(cString: strerror(errno)))") }
        return fd
    }

    private static func take(_ fd: Int32, exclusive: Bool, folder: URL, wait: Bool, onWait: (Holder) -> Void) throws(LightWorkError) {
        var request = flock()
        request.l_type = Int16(exclusive ? F_WRLCK : F_RDLCK)
        request.l_whence = Int16(SEEK_SET)
        if fcntl(fd, F_SETLK, &request) == 0 { return }
        guard errno == EAGAIN || errno == EACCES else {
            throw .writeFailed("cannot lock \(folder.path)/\(folderName): \(String(cString: strerror(errno)))")
        }
        let holder = self.holder(fd, exclusive: exclusive)
        guard wait else { throw .usage(busyReason(folder: folder, holder: holder)) }
        onWait(holder)
        while fcntl(fd, F_SETLKW, &request) != 0 {
            guard errno == EINTR else { throw .writeFailed("cannot lock \(folder.path)/\(folderName): \(String(cString: strerror(errno)))") }
        }
    }

    /// Who holds a lock conflicting with the one asked for: the kernel's pid (F_GETLK), its command line from /proc,
    /// else the line the holder wrote into the file (a holder on another host).
    private static func holder(_ fd: Int32, exclusive: Bool) -> Holder {
        var query = flock()
        query.l_type = Int16(exclusive ? F_WRLCK : F_RDLCK)
        query.l_whence = Int16(SEEK_SET)
        let pid: pid_t = fcntl(fd, F_GETLK, &query) == 0 && query.l_type != Int16(F_UNLCK) ? query.l_pid : 0
        let written = recorded(fd)
        if pid > 0, let argv = try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline")), !argv.isEmpty {
            return Holder(pid: pid, command: commandLine(argv.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }))
        }
        if let written, pid <= 0 || written.pid == pid { return written }
        return Holder(pid: pid, command: nil)
    }

    /// The holder line in the lock file: "PID COMMAND".
    private static func recorded(_ fd: Int32) -> Holder? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = pread(fd, &buffer, buffer.count, 0)
        guard n > 0 else { return nil }
        let line = String(decoding: buffer[..<n], as: UTF8.self).split(separator: "\n").first ?? ""
        let parts = line.split(separator: " ", maxSplits: 1)
        guard let first = parts.first, let pid = pid_t(first) else { return nil }
        return Holder(pid: pid, command: parts.count > 1 ? String(parts[1]) : nil)
    }

    /// Writes "PID COMMAND" into the lock this process holds alone, in one write, for a holder on another host to
    /// be named by (the file is never replaced: a lock is on the file, and a new file would be a new lock).
    private static func describeSelf(in fd: Int32) {
        let line = "\(getpid()) \(commandLine(CommandLine.arguments))\n"
        _ = ftruncate(fd, 0)
        _ = line.withCString { pwrite(fd, $0, strlen($0), 0) }
    }

    /// `argv` as one line, the program by its name ("lightwork convert shoot -o /x").
    static func commandLine(_ argv: [String]) -> String {
        var words = argv
        if let program = words.first { words[0] = (program as NSString).lastPathComponent }
        return words.map { $0.contains(" ") || $0.isEmpty ? "'\($0)'" : $0 }.joined(separator: " ")
    }
}
