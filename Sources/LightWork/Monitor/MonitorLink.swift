import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What a watch and a `lightwork serve` beside it (another process) share, all under `OUT/.lightwork/monitor/`:
/// - `lock`: held (fcntl, exclusive) by the one process serving the monitor of OUT: `lightwork serve` or
///   `watch --serve`. A watch that does not serve itself asks whether it is held (`isAttached`) when it starts a
///   file: while it is, its workers write previews and it appends its JSON events to `events.jsonl`.
/// - `requests/`: look changes and re-develops the page posted, one `MonitorRequest` JSON file each (written
///   whole, renamed into place), taken by the watch in name order and removed.
/// - `previews/`: the workers' preview JPEGs (`WatchService.previewFolder`).
public struct MonitorLink: Sendable {
    /// `OUT/.lightwork/monitor`.
    public let folder: URL

    public init(output: URL) {
        folder = output.appendingPathComponent(OutputLock.folderName).appendingPathComponent("monitor")
    }

    public var lockURL: URL { folder.appendingPathComponent("lock") }
    public var eventsURL: URL { folder.appendingPathComponent("events.jsonl") }
    /// The events file before the last rotation, where `serve` reads the rest of the file it was reading.
    public var rotatedEventsURL: URL { folder.appendingPathComponent("events.jsonl.1") }
    public var requestsFolder: URL { folder.appendingPathComponent("requests") }
    public var previews: URL { folder.appendingPathComponent("previews") }
    /// `events.jsonl` is rotated to `events.jsonl.1` past this size (a long session must not fill the disk).
    static let eventsLimit: off_t = 1 << 20
    /// A request file is a few hundred bytes; anything bigger is not one.
    static let requestLimit = 4096

    /// Creates the folder and its `requests/` and `previews/`.
    public func prepare() throws {
        for url in [requestsFolder, previews] { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
    }

    // MARK: - The serving side

    /// Takes the lock for this process's whole run (released when the returned value is freed or the process ends).
    /// Held by another: `MonitorBusy`.
    public func lock(output: URL) throws -> MonitorLock {
        try prepare()
        return try MonitorLock(url: lockURL, output: output)
    }

    /// Hands `request` to the watch: a request file, written whole and renamed into place. Returns its name.
    @discardableResult
    public func submit(_ request: MonitorRequest) throws -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let name = String(format: "%010ld%09ld-%d.json", now.tv_sec, now.tv_nsec, getpid())
        _ = try AtomicFile.write(data: try CanonicalJSON.encode(request), to: requestsFolder.appendingPathComponent(name))
        return name
    }

    // MARK: - The watching side

    /// Whether a monitor holds the lock now (an open, a query and a close: cheap beside a file's conversion). Never
    /// called in the process holding it: closing any descriptor of the file would drop that process's lock.
    public var isAttached: Bool {
        let fd = open(lockURL.path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var query = flock()
        query.l_type = Int16(F_WRLCK)
        query.l_whence = Int16(SEEK_SET)
        return fcntl(fd, F_GETLK, &query) == 0 && query.l_type != Int16(F_UNLCK)
    }

    /// Appends one JSON event line (while a monitor is attached). Best effort: a line that cannot be written is
    /// dropped (the status file, which the monitor also reads, stays the truth).
    public func append(event fields: [String: Any]) {
        guard isAttached, var line = try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys, .withoutEscapingSlashes]) else { return }
        line.append(0x0A)
        // Rotated by rename, never cut: a monitor still reading the old file finds its rest under the `.1` name.
        var st = stat()
        if lstat(eventsURL.path, &st) == 0, st.st_size > MonitorLink.eventsLimit { _ = rename(eventsURL.path, rotatedEventsURL.path) }
        let fd = open(eventsURL.path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard fd >= 0 else { return }
        defer { close(fd) }
        _ = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }
}

/// One request file in `requests/`: a look change for the next captures, or a re-develop of a frame.
/// On disk a `LookChange` (or `RedevelopRequest`) object with `"kind": "look"` (or `"redevelop"`) beside its fields;
/// a file without `kind` is a look change, as the first monitors wrote them.
public enum MonitorRequest: Codable, Sendable, Equatable {
    case look(LookChange)
    case redevelop(RedevelopRequest)

    private enum Kind: String, Codable { case look, redevelop }
    private enum CodingKeys: String, CodingKey { case kind }

    public init(from decoder: Decoder) throws {
        switch try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(Kind.self, forKey: .kind) ?? .look {
        case .look: self = .look(try LookChange(from: decoder))
        case .redevelop: self = .redevelop(try RedevelopRequest(from: decoder))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .look(let change):
            try c.encode(Kind.look, forKey: .kind)
            try change.encode(to: encoder)
        case .redevelop(let request):
            try c.encode(Kind.redevelop, forKey: .kind)
            try request.encode(to: encoder)
        }
    }
}

/// Another process serves the monitor of the folder: the one line for the user names it.
public struct MonitorBusy: Error, CustomStringConvertible {
    public let description: String
}

/// The exclusive lock on `OUT/.lightwork/monitor/lock` of the process serving the monitor.
public final class MonitorLock {
    private let fd: Int32

    init(url: URL, output: URL) throws {
        fd = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard fd >= 0 else { throw LightWorkError.writeFailed("cannot open \(url.path): \(String(cString: strerror(errno)))") }
        var request = flock()
        request.l_type = Int16(F_WRLCK)
        request.l_whence = Int16(SEEK_SET)
        guard fcntl(fd, F_SETLK, &request) == 0 else {
            let problem = errno
            var query = flock()
            query.l_type = Int16(F_WRLCK)
            query.l_whence = Int16(SEEK_SET)
            let pid = fcntl(fd, F_GETLK, &query) == 0 && query.l_type != Int16(F_UNLCK) ? query.l_pid : 0
            close(fd)
            guard problem == EAGAIN || problem == EACCES else {
                throw LightWorkError.writeFailed("cannot lock \(url.path): \(String(cString: strerror(problem)))")
            }
            let argv = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline")))?.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            let who = pid > 0 ? "pid \(pid)" + (argv.map { " (\(OutputLock.commandLine($0)))" } ?? "") : "another process"
            throw MonitorBusy(description: "the studio monitor of \(output.path) is already served by \(who); open its page instead")
        }
    }

    deinit { close(fd) }
}

/// The watch's side of `requests/`: an inotify watch on the folder (a request is renamed into place) and the
/// requests taken from it in name order, each removed once read.
final class MonitorRequestInbox {
    let fd: Int32
    private let link: MonitorLink

    /// Watches `link.requestsFolder` (created when missing); requests already there were left from before this
    /// watch began and are removed: returns their count in `dropped`.
    init(link: MonitorLink) throws {
        self.link = link
        try link.prepare()
        fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { throw WatchError("cannot start inotify for the monitor's requests: \(String(cString: strerror(errno)))") }
        guard inotify_add_watch(fd, link.requestsFolder.path, UInt32(IN_MOVED_TO | IN_CLOSE_WRITE)) >= 0 else {
            let e = errno
            close(fd)
            throw WatchError("cannot watch \(link.requestsFolder.path): \(String(cString: strerror(e)))")
        }
    }

    deinit { close(fd) }

    /// Request files now there, oldest first (temporaries, dotfiles, are not requests).
    private func names() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: link.requestsFolder.path)) ?? [])
            .filter { !$0.hasPrefix(".") && $0.hasSuffix(".json") }.sorted()
    }

    /// Removes the requests left from before this watch began; returns how many.
    func dropLeftovers() -> Int {
        let old = names()
        for name in old { try? FileManager.default.removeItem(at: link.requestsFolder.appendingPathComponent(name)) }
        return old.count
    }

    /// The requests that arrived, oldest first (each file removed); `problem` hears of a file that is not one.
    func take(problem: (String) -> Void) -> [MonitorRequest] {
        var buffer = [UInt8](repeating: 0, count: 4096)
        var arrived = false
        while read(fd, &buffer, buffer.count) > 0 { arrived = true }
        guard arrived else { return [] }  // called every turn: the folder is listed only when something came
        var changes: [MonitorRequest] = []
        for name in names() {
            let url = link.requestsFolder.appendingPathComponent(name)
            defer { try? FileManager.default.removeItem(at: url) }
            guard let data = MonitorRequestInbox.readSmall(url) else {
                problem("monitor: the request \(name) could not be read; it was dropped")
                continue
            }
            do {
                changes.append(try JSONDecoder().decode(MonitorRequest.self, from: data))
            } catch {
                problem("monitor: \(name) is not a look change or a re-develop (\(error)); it was dropped")
            }
        }
        return changes
    }

    /// A regular file's bytes, nil when it is not one (a link, a device) or is longer than a request can be.
    static func readSmall(_ url: URL) -> Data? {
        let fd = open(url.path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG, st.st_size <= MonitorLink.requestLimit else { return nil }
        var buffer = [UInt8](repeating: 0, count: MonitorLink.requestLimit + 1)
        let n = read(fd, &buffer, buffer.count)
        guard n >= 0, n <= MonitorLink.requestLimit else { return nil }
        return Data(buffer[0..<n])
    }
}
