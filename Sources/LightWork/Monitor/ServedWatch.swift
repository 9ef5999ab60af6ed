import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `lightwork serve OUT`: the studio monitor of a watch running in another process (one started without
/// `--serve`), or of the last one that ran there (its last status, read-only). The same `MonitorServer` and page
/// as `watch --serve`; what differs is where status, events and look changes travel (`MonitorLink`):
/// `watch-status.json` is followed with inotify (the watch renames it into place) and each version published as
/// the `status` event; the watch's JSON events arrive through `events.jsonl`; look changes and re-develops are
/// handed to the watch as request files, which it takes through its `LookRequests` and `RedevelopRequests` as it
/// takes its own server's. A re-develop is answered here from the frames the watch's status shows (`recent`); the
/// watch checks it again against its journal, and a refusal there reaches the page as a `redevelopFailed` event.
public final class ServedWatch {
    public let output: URL
    public let link: MonitorLink
    public let server: MonitorServer
    private let lock: MonitorLock
    private let statusURL: URL
    /// Changes handed over (request file name → change), until the watch takes them (removes the file).
    private let handed = LockedBox<[(name: String, change: LookChange)]>([])
    /// What a re-develop is answered from (server threads read it): why none is taken now, and the files' frames
    /// the status shows (not re-developments), by number.
    private let redevelopable = LockedBox<(refusal: String?, frames: [Int: WatchStatus.Frame])>(("no watch runs yet", [:]))
    private var announced: Set<String> = []
    private var statusIdentity: [Int] = []
    private var lastStatus: WatchStatus?
    private var lastPublished: WatchStatus?
    private var eventsOffset: off_t = 0
    /// The inode of the events file being read (0: none yet).
    private var eventsInode: ino_t = 0
    private var partialLine = Data()
    private let startedAt = Manifest.timestamp(Date())
    /// Lines for the log (stderr): the watch found or gone, changes handed and taken.
    public var onNotice: (String) -> Void = { _ in }
    /// Each event this process publishes itself (`lookHanded`, `lookTaken`, `watchGone`…), for `--json`.
    public var onEvent: ([String: Any]) -> Void = { _ in }

    /// Takes the monitor's lock of `output` (a second monitor there is a usage error naming the first) and starts
    /// serving. `configuration.previews` is set to the link's preview folder.
    public init(output: URL, configuration: MonitorServer.Configuration, catalog: MonitorCatalog) throws {
        self.output = output
        link = MonitorLink(output: output)
        statusURL = WatchStatus.url(besideManifest: output.appendingPathComponent("manifest.json"))
        lock = try link.lock(output: output)
        var c = configuration
        c.previews = link.previews
        let link = link, handed = handed, redevelopable = redevelopable
        server = try MonitorServer(configuration: c, catalog: catalog, redevelop: { request throws(RedevelopRequests.Refusal) in
            let (refusal, frames) = redevelopable.withLock { $0 }
            if let refusal { throw .notRunning("no re-develop is taken: " + refusal) }
            guard let frame = frames[request.frame] else {
                throw .unknownFrame("no frame \(request.frame) among the latest \(frames.count) the watch's status shows")
            }
            guard frame.status == .converted else {
                throw .notConverted("frame \(request.frame) (\(frame.input)) \(frame.status.rawValue): \(frame.reason ?? "nothing was developed")")
            }
            do { _ = try link.submit(.redevelop(request)) } catch {
                throw .busy("the re-develop could not be handed to the watch: \(error)")
            }
        }) { change in
            let name = try link.submit(.look(change))
            handed.withLock { $0.append((name, change)) }
        }
        server.refuseLooks("no watch runs on \(output.path) yet")
        // Events written before this monitor attached are not news.
        var st = stat()
        if stat(link.eventsURL.path, &st) == 0 { (eventsOffset, eventsInode) = (st.st_size, st.st_ino) }
        refresh()
    }

    /// The watch as now known: its status (nil before any watch wrote one) and whether it still runs.
    public var watch: (status: WatchStatus?, alive: Bool) { (lastStatus, lastStatus.map(ServedWatch.isAlive) ?? false) }

    static func isAlive(_ s: WatchStatus) -> Bool { s.pid > 0 && s.processAlive }

    /// Serves until SIGTERM or SIGINT.
    public func run() throws {
        let signals = InterruptSignals(hardStopOnSecond: true)
        defer { signals.restore() }
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { throw WatchError("cannot start inotify: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        // The status is renamed into place beside the manifest; events are appended; requests renamed in and removed.
        for (folder, mask) in [(output, IN_MOVED_TO | IN_CLOSE_WRITE), (link.folder, IN_MODIFY | IN_CREATE),
                               (link.requestsFolder, IN_MOVED_TO | IN_DELETE | IN_MOVED_FROM)] {
            guard inotify_add_watch(fd, folder.path, UInt32(mask)) >= 0 else {
                throw WatchError("cannot watch \(folder.path): \(String(cString: strerror(errno)))")
            }
        }
        refresh()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while signals.signal == nil {
            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: signals.wakeFD, events: Int16(POLLIN), revents: 0)]
            // A second a look at whether the watch still runs (a kill -9 writes no last status).
            _ = poll(&fds, nfds_t(fds.count), 1000)
            while read(fd, &buffer, buffer.count) > 0 {}
            refresh()
        }
        server.stop()
    }

    /// Everything that may have changed, each cheap when it did not: the status (one stat), events (one stat), the
    /// changes handed over (a listing only while some wait), whether the watch runs.
    private func refresh() {
        readEvents()
        var st = stat()
        if stat(statusURL.path, &st) == 0 {
            let identity = [Int(st.st_ino), Int(st.st_size), st.st_mtim.tv_sec, st.st_mtim.tv_nsec]
            if identity != statusIdentity, let s = try? WatchStatus.read(statusURL) {
                statusIdentity = identity
                lastStatus = s
            }
        }
        noteHandedOver()
        publishStatus()
    }

    /// The status as this monitor serves it: the watch's own, with this server's address, why it is read-only when no
    /// watch runs, and the changes handed over and not yet taken.
    func servedStatus() -> WatchStatus {
        let placeholder = WatchStatus(pid: 0, inbox: "", output: output.path, manifest: output.appendingPathComponent("manifest.json").path,
                                      mode: "", startedAt: startedAt, state: .notRunning, recipe: nil, settingsDigest: "")
        var s = lastStatus ?? placeholder
        s.monitor = server.url.components(separatedBy: "?").first
        if lastStatus == nil {
            s.servedNotice = "no watch has written a status in \(output.path) yet: waiting for one (read-only)"
        } else if !ServedWatch.isAlive(s) {
            if s.state != .stopped { s.state = .notRunning }
            s.servedNotice = "the watch is not running (" + (s.state == .stopped ? "it stopped" : "killed or crashed")
                + "; its last status, of \(s.updatedAt), is shown read-only)"
        }
        let waiting = handed.withLock { $0 }
        if !waiting.isEmpty {
            var all = LookChange()
            for h in waiting { all.overlay(h.change) }
            s.handedLook = all.summary
        }
        return s
    }

    private func publishStatus() {
        let s = servedStatus()
        server.refuseLooks(s.servedNotice.map { "no look change is taken: " + $0 })
        var frames: [Int: WatchStatus.Frame] = [:]
        for f in s.recent ?? [] where f.redevelopment == nil { frames[f.index] = f }
        redevelopable.withLock { $0 = (s.servedNotice, frames) }
        guard s != lastPublished else { return }
        if let before = lastPublished, before.servedNotice != s.servedNotice {
            onNotice(s.servedNotice ?? "the watch runs (pid \(s.pid)): live")
        }
        lastPublished = s
        server.publish(status: s)
    }

    /// Announces changes just handed over, and those the watch took (their request file is gone).
    private func noteHandedOver() {
        let waiting = handed.withLock { $0 }
        guard !waiting.isEmpty else { return }
        for h in waiting where !announced.contains(h.name) {
            announced.insert(h.name)
            publish(["event": "lookHanded", "look": h.change.summary, "request": h.name,
                     "message": "handed to the watch: \(h.change.summary) (it applies to files that start after those in flight)"])
        }
        let present = Set((try? FileManager.default.contentsOfDirectory(atPath: link.requestsFolder.path)) ?? [])
        let taken = waiting.filter { !present.contains($0.name) }
        guard !taken.isEmpty else { return }
        handed.withLock { list in list.removeAll { h in taken.contains { $0.name == h.name } } }
        for h in taken {
            announced.remove(h.name)
            publish(["event": "lookTaken", "look": h.change.summary, "request": h.name,
                     "message": "the watch took the look change: \(h.change.summary)"])
        }
    }

    private func publish(_ fields: [String: Any]) {
        server.publish(event: fields)
        onEvent(fields)
        if let message = fields["message"] as? String { onNotice("monitor: " + message) }
    }

    /// New lines of `events.jsonl`, each published as the `watch` event. When the watch has rotated it (another
    /// file under the name), the rest of the one being read is taken from `events.jsonl.1` first, so no event is lost.
    func readEvents() {
        let fd = open(link.eventsURL.path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return }
        if st.st_ino != eventsInode {
            if eventsInode != 0 {
                let old = open(link.rotatedEventsURL.path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
                if old >= 0 {
                    var ost = stat()
                    if fstat(old, &ost) == 0, ost.st_ino == eventsInode { readLines(old, upTo: ost.st_size) }
                    close(old)
                }
            }
            eventsInode = st.st_ino
            eventsOffset = 0
            partialLine = Data()
        } else if st.st_size < eventsOffset {
            // Cut short under the same name (not the watch's doing): read it from its start.
            eventsOffset = 0
            partialLine = Data()
        }
        readLines(fd, upTo: st.st_size)
    }

    /// Publishes the complete lines of `fd` from `eventsOffset` to `size`, keeping a partial last line for later.
    private func readLines(_ fd: Int32, upTo size: off_t) {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while eventsOffset < size {
            let n = pread(fd, &chunk, chunk.count, eventsOffset)
            guard n > 0 else { break }
            eventsOffset += off_t(n)
            partialLine.append(contentsOf: chunk[0..<n])
            while let end = partialLine.firstIndex(of: 0x0A) {
                let line = partialLine[partialLine.startIndex..<end]
                partialLine = Data(partialLine[partialLine.index(after: end)...])
                if let fields = try? JSONSerialization.jsonObject(with: line) as? [String: Any] { server.publish(event: fields) }
            }
            // A line longer than any event is not one: dropped rather than held.
            if partialLine.count > 64 * 1024 { partialLine = Data() }
        }
    }
}
