import Foundation

/// The hot folder: converts the backlog already in the inbox, then every file that arrives, each exactly
/// once, with the batch engine (worker processes, atomic outputs, manifest entries).
///
/// A file goes: seen (closed after writing, renamed into place, found by a scan or a look) → settling
/// (`FileStability`: no change for `settle` seconds, structure whole) → queued (at most `queueLimit` files
/// are tracked; more arrivals wait for a rescan) → hashed and checked against the journal (done before? the
/// same content under another name, with `dedupe`?) → given its output name and recorded `start` in the
/// journal → converted by a worker → recorded `done` and in the manifest → moved to the archive or failed
/// folder when asked. After a `kill -9` at any point a restart converts exactly what was not recorded
/// done, to the same output name, and leaves nothing half-written under a final name.
public final class WatchService {
    public enum Event: Sendable {
        /// The backlog scan found this many files to look at.
        case started(backlog: Int, mode: String)
        case converting(item: InputItem)
        case finished(item: InputItem, entry: Manifest.Entry)
        case heartbeat(WatchStatus)
        /// SIGHUP: the recipe was read again and these settings apply to files from now on.
        case reloaded(settings: ResolvedSettings, digest: String)
        /// Lines worth telling the user.
        case notice(String)
        /// The monitor asked for this look; it applies once the files in flight are done (then `reloaded`).
        case lookRequested(LookChange)
        /// The status as just written to `watch-status.json` (at most twice a second while things change).
        case statusChanged(WatchStatus)
        /// Frame `frame` was developed again on the monitor's request with `look`: `entry` is the extra output's (or its failure).
        case redeveloped(frame: Int, item: InputItem, entry: Manifest.Entry, look: String)
        /// A re-develop handed over by `lightwork serve` was not queued (no such frame, not converted, input gone, busy).
        case redevelopRefused(frame: Int, reason: String)
    }

    /// How the watch ended.
    public enum Outcome: Sendable, Equatable {
        /// SIGTERM or SIGINT: files in flight were finished (or abandoned after the grace period).
        case stopped(signal: Int32)
        /// `once`: the inbox was converted; `failed` files failed in this run.
        case drained(failed: Int)
    }

    public private(set) var converter: FileConverter
    public private(set) var configuration: WatchConfiguration
    /// Reads the recipe and flags again (SIGHUP), with the monitor's look change when one is given; nil when
    /// reloading is not offered.
    public var reload: ((LookChange?) throws -> (FileConverter, PlanRules))?
    /// Where workers write each file's preview (`PreviewImage`) for the studio monitor; nil: no previews.
    public var previewDirectory: URL?
    /// The monitor's address, shown in the status; nil when not serving.
    public var monitorAddress: String?
    /// The files a `lightwork serve` beside this watch shares with it (set when the watch does not serve itself):
    /// while one is attached, files get previews; its look changes arrive in `requests/`.
    public var monitorLink: MonitorLink?
    private var requestInbox: MonitorRequestInbox?
    /// Look changes from the monitor's server threads.
    public let lookRequests = LookRequests()
    /// Re-develop requests from the monitor's server threads, and the frames they may name.
    public let redevelopRequests = RedevelopRequests()
    /// The converter and naming rules of the watch's current look with a monitor look laid over it (re-developing);
    /// nil when re-developing is not offered.
    public var redevelopLook: ((LookChange) throws -> (FileConverter, PlanRules))?
    /// The manifest as it is written.
    public var manifest: Manifest { store.rendered }

    private let scanner: InboxScanner
    private let inboxPath: String
    private let scheduler: JobScheduler
    private let store: ManifestStore
    private var ledger: WatchLedger!
    private var tracker: FileStability
    private var ready: [FileStability.Ready] = []
    /// Files waiting for a twin in flight (same content or same path) to finish.
    private var blocked: [FileStability.Ready] = []
    private var inFlight: [Int: InFlight] = [:]
    private var hangup: HangupSignal?
    private var inotify: InotifyWatcher?
    private var polling: PollingWatcher?
    private var overflowed = false
    /// Paths whose current signature is known to be handled (same content touched again), so events do not rehash them.
    private var handledSignatures: [String: FileSignature] = [:]
    /// Output path → input of every output LightWork wrote into the folder: other runs' (convert, shards, earlier
    /// watches, read from the folder's ledgers at start), then this journal's, kept up to date as files finish.
    private var folderOwners: [String: String] = [:]
    /// Failed files `--retry-failed` tries once more, until each is dispatched.
    private var retrying: Set<String> = []
    private var recentFailures: [WatchStatus.Failure] = []
    private var failedThisRun = 0
    private var pausedUntil = 0.0
    private var state = WatchState.running
    private var stopSignal: Int32?
    private var statusDirty = true
    private var lastStatusWrite = -1.0
    private var nextHeartbeat = Double.infinity
    private let startedAt = Date()
    private let startClock: Double
    private var onEvent: (Event) -> Void = { _ in }
    /// A monitor look change waiting for the files in flight, and the note files converted with it carry.
    private var pendingLook: LookChange?
    private var lookNote: String?
    private var recent: [WatchStatus.Frame] = []
    /// When the latest files finished (monotonic clock), for the rate.
    private var finishTimes: [Double] = []
    /// Previews kept on disk: the latest this many files'.
    static let previewsKept = 200
    /// The re-develop converting, in a worker of its own beside the watch's (one at a time).
    private var redeveloping: Redeveloping?

    struct InFlight {
        let seq: Int
        let relativePath: String
        let sha256: String
        let signature: FileSignature
        let job: WorkerJob
        let settingsDigest: String
        let started: Double
        let look: String
    }

    public init(converter: FileConverter, configuration: WatchConfiguration) {
        self.converter = converter
        self.configuration = configuration
        inboxPath = configuration.inbox.standardizedFileURL.path
        var excluded = [configuration.manifestURL.deletingLastPathComponent(), converter.outputDirectory]
        if let a = configuration.archive { excluded.append(a) }
        if let f = configuration.failed { excluded.append(f) }
        scanner = InboxScanner(root: URL(fileURLWithPath: inboxPath),
                               rules: WatchNameRules(filter: configuration.rules.filter, excludedFolders: excluded))
        let settle = configuration.poll.map { max(configuration.settle, $0 * 0.9) } ?? configuration.settle
        tracker = FileStability(settle: settle, giveUp: configuration.giveUp)
        // Saved at most a tenth of the time, and never more than 2 s behind while files trickle in.
        store = ManifestStore(url: configuration.manifestURL, settings: converter.settings, maxStaleness: 2)
        scheduler = JobScheduler(configuration: configuration.batch, converter: converter)
        startClock = WatchService.clock()
    }

    /// Seconds on the monotonic clock (the watch's timers).
    public static func clock() -> Double { JobScheduler.clock() }

    private var modeDescription: String {
        configuration.poll.map { String(format: "poll every %g s", $0) } ?? "inotify"
    }

    // MARK: - Run

    /// Watches until SIGTERM/SIGINT (or, with `once`, until the inbox is converted). Throws `WatchError`
    /// when the watch cannot start or go on (the inbox vanished, the journal is locked or unwritable).
    public func run(onEvent: @escaping (Event) -> Void) throws -> Outcome {
        self.onEvent = onEvent
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: inboxPath, isDirectory: &isDir), isDir.boolValue else {
            throw WatchError("the inbox \(inboxPath) is not a folder")
        }
        try FileManager.default.createDirectory(at: converter.outputDirectory, withIntermediateDirectories: true)
        ledger = try WatchLedger(url: configuration.journalURL)
        if ledger.droppedLines > 0 { notice("journal: dropped \(ledger.droppedLines) incomplete record(s) left by a kill") }
        store.merge(replayed: ledger.replayedEntries)
        try recordIntoExportLedger()
        if configuration.retryFailed { retrying = ledger.failedInPlace }
        for seq in ledger.files.keys.sorted().suffix(RedevelopRequests.framesKept) { publishFrame(seq, reason: store.entry(index: seq)?.reason) }
        restoreFilmstrip()

        // Temporaries a killed run left beside the outputs it had started, the manifest and the status file.
        let unrecorded = ledger.interruptedRedevelops.map { converter.outputDirectory.appendingPathComponent($0) }
        // A re-develop a kill interrupted: its output, if written, is described by no entry, so it goes.
        for url in unrecorded where FileManager.default.fileExists(atPath: url.path) {
            try? FileManager.default.removeItem(at: url)
            notice("monitor: the re-develop writing \(url.path) was interrupted by a kill before it was recorded; its output is removed (ask again)")
        }
        let finals = ledger.unfinished.compactMap { $0.output.map { converter.outputDirectory.appendingPathComponent($0) } } + unrecorded
            + [configuration.manifestURL, configuration.statusURL]
        let swept = TemporaryFileSweeper.sweep(finals: finals)
        if swept > 0 { notice("removed \(swept) temporary file(s) left by an interrupted watch") }
        let interrupted = ledger.unfinished.filter { FileSignature.of(scanner.path($0.path)) != nil }.count
        if interrupted > 0 { notice("\(interrupted) file(s) were in flight when the last watch ended: converting them again") }

        scheduler.installSignalHandlers()
        hangup = configuration.batch.handleSignals ? HangupSignal() : nil
        defer { scheduler.restoreSignalHandlers(); hangup?.restore() }
        // The watcher starts before the backlog scan, so nothing written in between is missed.
        if let interval = configuration.poll {
            polling = PollingWatcher(scanner: scanner, interval: interval)
        } else {
            let watcher = try InotifyWatcher(scanner: scanner)
            watcher.onNotice = { [weak self] in self?.notice($0) }
            inotify = watcher
        }
        if let link = monitorLink { openRequestInbox(link) }
        moveFinishedOriginals()
        let now = WatchService.clock()
        var backlog = 0
        if let polling {
            backlog = take(polling.look(now: now), now: now)
        } else {
            for rel in scanner.scan().files { if observe(rel, now: now) { backlog += 1 } }
        }
        onEvent(.started(backlog: backlog, mode: modeDescription))
        nextHeartbeat = now + (configuration.heartbeat ?? .infinity)

        var outcome: Outcome = .stopped(signal: SIGTERM)
        var fatal: Error?
        do {
            switch try scheduler.run(self) {
            case .completed: outcome = .drained(failed: failedThisRun)
            case .interrupted(let signal): outcome = .stopped(signal: stopSignal ?? signal)
            case .stopped: break
            }
        } catch {
            fatal = error
        }

        endRedevelopments()
        state = .stopped
        store.finish(interrupted: false)
        saveManifest(force: true)
        writeStatus(now: WatchService.clock())
        if let fatal { throw fatal }
        return outcome
    }

    /// Look changes a `lightwork serve` beside the watch hands over; those left from before this watch are dropped.
    private func openRequestInbox(_ link: MonitorLink) {
        do {
            let inbox = try MonitorRequestInbox(link: link)
            let dropped = inbox.dropLeftovers()
            if dropped > 0 { notice("monitor: dropped \(dropped) request(s) (look changes, re-develops) left from before this watch began") }
            requestInbox = inbox
        } catch {
            notice("monitor: look changes and re-develops from 'lightwork serve' cannot reach this watch: \(error)")
        }
    }

    /// The watch is one run of the output folder's export ledger, which then lists every file its journal records
    /// (carried into this run: earlier runs of this journal are retired) and the manifest covers the folder.
    private func recordIntoExportLedger() throws {
        do {
            let folder = converter.outputDirectory
            let history = try FolderHistory.load(folder: folder)
            let exports = try ExportLedger.open(folder: folder, shard: nil)
            let command = "watch (journal \(configuration.journalURL.path))"
            try store.record(into: exports, command: command, history: history, scope: .folder)
            folderOwners = history.owners.merging(ledger.owners) { $1 }
            try store.commit()
            try exports.retireRuns(command: command, keeping: store.ledgerRun)
        } catch {
            throw WatchError("\(error)")
        }
    }

    // MARK: - Seeing files

    /// Handles watcher changes; returns how many files started being tracked.
    private func take(_ changes: [InboxChange], now: Double) -> Int {
        var n = 0
        for change in changes {
            switch change {
            case .file(let rel):
                if observe(rel, now: now) { n += 1 }
            case .modified(let rel):
                if tracker.isTracking(rel) { tracker.observe(rel, signature: FileSignature.of(scanner.path(rel)), now: now) }
                else if let i = ready.firstIndex(where: { $0.relativePath == rel }) {
                    // Written again after it settled: it settles again.
                    ready.remove(at: i)
                    tracker.observe(rel, signature: FileSignature.of(scanner.path(rel)), now: now)
                }
            case .removed(let rel):
                tracker.forget(rel)
                ready.removeAll { $0.relativePath == rel }
                blocked.removeAll { $0.relativePath == rel }
            case .rescan:
                overflowed = true
                notice("the kernel's event queue overflowed: the inbox will be rescanned")
            case .inboxGone:
                break
            }
        }
        if n > 0 { statusDirty = true }
        return n
    }

    /// Starts tracking `rel` unless it is handled already, queued, or the queue is full; returns whether it is tracked now.
    @discardableResult
    private func observe(_ rel: String, now: Double) -> Bool {
        guard let signature = FileSignature.of(scanner.path(rel)) else { tracker.forget(rel); return false }
        if (ledger.alreadyHandled(path: rel, signature: signature) && !retrying.contains(rel)) || handledSignatures[rel] == signature { return false }
        if let i = ready.firstIndex(where: { $0.relativePath == rel }) {
            if ready[i].signature == signature { return false }
            ready.remove(at: i)
        }
        if !tracker.isTracking(rel) && tracker.count + ready.count >= configuration.queueLimit {
            overflowed = true
            return false
        }
        let wasTracked = tracker.isTracking(rel)
        tracker.observe(rel, signature: signature, now: now)
        return !wasTracked
    }

    // MARK: - Dispatching

    /// Where a job starting now writes its preview: its own server's folder, or that of a `lightwork serve` attached now
    /// (asked once per file); nil: no monitor looks.
    private func previewFolderNow() -> URL? {
        previewDirectory ?? monitorLink.flatMap { $0.isAttached ? $0.previews : nil }
    }

    /// Hands a recorded job to the scheduler.
    private func start(_ job: WorkerJob, sha: String, signature: FileSignature, digest: String) -> WorkerJob {
        var job = job
        if let lookNote { job.notes.append(lookNote) }
        // Previews for its own server, or for a `lightwork serve` attached now (asked once per file).
        job.preview = previewFolderNow().map { WatchService.previewURL(in: $0, seq: job.index).path }
        inFlight[job.index] = InFlight(seq: job.index, relativePath: job.relativePath, sha256: sha, signature: signature, job: job,
                                       settingsDigest: digest, started: WatchService.clock(), look: WatchStatus.lookLabel(converter.settings))
        statusDirty = true
        onEvent(.converting(item: job.item))
        return job
    }

    private func item(_ rel: String) -> InputItem {
        InputItem(url: URL(fileURLWithPath: scanner.path(rel)), displayPath: scanner.path(rel), relativePath: rel)
    }

    /// Hashes a settled file and decides what it is (done before, a duplicate, new): records it, or returns the
    /// job that converts it.
    private func prepare(_ r: FileStability.Ready) throws -> WorkerJob? {
        let rel = r.relativePath
        let now = WatchService.clock()
        let path = scanner.path(rel)
        guard let signature = FileSignature.of(path) else { return nil }
        guard signature == r.signature else { tracker.observe(rel, signature: signature, now: now); return nil }
        if ledger.alreadyHandled(path: rel, signature: signature) && !retrying.contains(rel) { return nil }
        if inFlight.values.contains(where: { $0.relativePath == rel }) { blocked.append(r); return nil }
        guard let sha = try? SHA256.hex(fileAt: URL(fileURLWithPath: path)) else { return nil }
        guard FileSignature.of(path) == signature else {
            tracker.observe(rel, signature: FileSignature.of(path), now: now)     // written while it was read
            return nil
        }
        let digest = store.settingsDigest
        if let known = ledger.record(path: rel, sha256: sha) {
            // The same content touched or copied over itself: nothing to do, unless it failed: a failed file written
            // again (its mtime, size or inode changed) is tried again, as the user asks by re-copying it. Dropped again
            // after its original was moved to the archive or failed folder, it is a new arrival (a duplicate, or a retry).
            if let status = known.status, known.movedTo == nil, status != .failed || (known.signature == signature && !retrying.contains(rel)) {
                handledSignatures[rel] = signature
                return nil
            }
            // Started before a kill and never finished: convert it again, to the name it was given.
            if known.status == nil, let output = known.output {
                return start(WorkerJob(index: known.seq, item: item(rel), output: output, previous: nil), sha: sha, signature: signature, digest: digest)
            }
        }
        if inFlight.values.contains(where: { $0.sha256 == sha }) { blocked.append(r); return nil }
        if configuration.dedupe, let first = ledger.converted(sha256: sha, settingsDigest: digest) {
            var entry = Manifest.Entry(input: Manifest.Input(path: path, relativePath: rel), status: .skipped,
                                       reason: "identical content already converted from \(first.path)" + (first.output.map { " as \($0)" } ?? "")
                                           + " (--no-dedupe converts it again)")
            entry.input.size = signature.size
            entry.input.sha256 = sha
            // Like a batch's skipped entry, it carries the output that stands for it.
            entry.output = store.entry(index: first.seq)?.output
            retrying.remove(rel)
            try record(seq: ledger.takeSeq(), rel: rel, sha: sha, signature: signature, entry: entry, digest: digest)
            return nil
        }

        retrying.remove(rel)
        let seq = ledger.takeSeq()
        let reserved = Set((inFlight.values.map(\.job) + (redeveloping.map { [$0.job] } ?? [])).map { $0.output.lowercased() })
        let out = converter.outputDirectory
        let plan = BatchPlanner.plan(items: [item(rel)], rules: configuration.rules, owners: folderOwners, firstIndex: seq, indexWidth: 4) { candidate in
            if reserved.contains(candidate.lowercased()) { return true }
            var st = stat()
            return lstat(out.appendingPathComponent(candidate).path, &st) == 0
        }
        let planned = plan.jobs[0]
        guard let output = planned.outputPath else {
            var entry = planned.entry!
            entry.input.size = signature.size
            entry.input.sha256 = sha
            try record(seq: seq, rel: rel, sha: sha, signature: signature, entry: entry, digest: digest)
            return nil
        }
        try ledger.append(WatchRecord(op: .start, seq: seq, path: rel, sha256: sha, signature: signature, output: output))
        return start(WorkerJob(index: seq, item: item(rel), output: output, notes: planned.notes, previous: nil), sha: sha, signature: signature, digest: digest)
    }

    // MARK: - Results

    private func finish(_ job: WorkerJob, _ entry: Manifest.Entry) throws {
        guard let f = inFlight.removeValue(forKey: job.index) else { return }
        releaseBlocked()
        statusDirty = true
        if entry.status == .failed, entry.failureKind == .diskFull, let reason = entry.reason {
            // Not the file's fault: it is tried again once there is room (nothing is recorded).
            pausedUntil = WatchService.clock() + 30
            notice("\(reason): pausing 30 s; \(f.relativePath) will be converted again")
            tracker.observe(f.relativePath, signature: FileSignature.of(scanner.path(f.relativePath)), now: WatchService.clock())
            return
        }
        var entry = entry
        entry.input.index = f.seq
        try record(seq: f.seq, rel: f.relativePath, sha: entry.input.sha256 ?? f.sha256, signature: f.signature, entry: entry, digest: f.settingsDigest,
                   look: f.look, preview: f.job.preview.map { URL(fileURLWithPath: $0) })
    }

    /// Records a file's outcome (journal first, then manifest), then moves the original when asked.
    private func record(seq: Int, rel: String, sha: String, signature: FileSignature, entry: Manifest.Entry, digest: String,
                        look: String? = nil, preview: URL? = nil) throws {
        var entry = entry
        entry.input.index = seq
        try ledger.append(WatchRecord(op: .done, seq: seq, path: rel, sha256: sha, signature: signature, entry: entry, settingsDigest: digest))
        handledSignatures[rel] = nil
        if entry.status == .converted, let output = entry.output?.path { folderOwners[output] = rel }
        store.insert(entry, settingsDigest: digest)
        publishFrame(seq, reason: entry.reason)
        if entry.status == .failed {
            failedThisRun += 1
            recentFailures.append(WatchStatus.Failure(path: rel, reason: entry.reason ?? "failed", at: Manifest.timestamp(Date())))
            if recentFailures.count > 20 { recentFailures.removeFirst(recentFailures.count - 20) }
        }
        moveOriginal(seq: seq, rel: rel, status: entry.status, reason: entry.reason, sha: sha)
        remember(seq: seq, rel: rel, entry: entry, look: look ?? WatchStatus.lookLabel(converter.settings), preview: preview)
        statusDirty = true
        onEvent(.finished(item: item(rel), entry: entry))
    }

    /// A restarted watch's filmstrip: the latest files the journal finished, as the last watch showed them (their
    /// previews where still on disk), so the page does not start empty. Each frame's time is its output's, and its
    /// look the current one only when its settings digest is the current one.
    private func restoreFilmstrip() {
        let previews = previewFolderNow()
        for seq in ledger.files.keys.sorted().suffix(WatchStatus.recentLimit) {
            guard let file = ledger.file(seq), let status = file.status, let entry = store.entry(index: seq) else { continue }
            let digest = store.settingsDigest(ofEntryAt: seq)
            let look = digest == store.settingsDigest ? WatchStatus.lookLabel(converter.settings)
                : "a look from before this watch started" + (digest.map { " (settings \($0.prefix(12))…)" } ?? "")
            let written = entry.output.flatMap { try? FileManager.default.attributesOfItem(atPath: converter.outputDirectory.appendingPathComponent($0.path).path)[.modificationDate] as? Date }
            var frame = WatchStatus.Frame(index: seq, input: file.path, output: entry.output?.path, status: status, reason: entry.reason,
                                          look: look, seconds: entry.timings["total"].map { ($0 * 1000).rounded() / 1000 },
                                          at: Manifest.timestamp(written ?? Date()))
            let camera = [entry.input.make, entry.input.model].compactMap { $0 }.joined(separator: " ")
            frame.camera = camera.isEmpty ? nil : camera
            if status == .converted, let dir = previews { attachPreview(WatchService.previewURL(in: dir, seq: seq), to: &frame) }
            recent.append(frame)
        }
        if !recent.isEmpty { statusDirty = true }
    }

    /// The frame the monitor shows for a finished file (its preview and capture facts, when the worker was asked for
    /// them at `preview`).
    private func remember(seq: Int, rel: String, entry: Manifest.Entry, look: String, preview: URL?) {
        let now = WatchService.clock()
        finishTimes.append(now)
        finishTimes.removeAll { now - $0 > 300 }
        var frame = WatchStatus.Frame(index: seq, input: rel, output: entry.output?.path, status: entry.status, reason: entry.reason,
                                      look: look, seconds: entry.timings["total"].map { ($0 * 1000).rounded() / 1000 },
                                      at: Manifest.timestamp(Date()))
        let camera = [entry.input.make, entry.input.model].compactMap { $0 }.joined(separator: " ")
        frame.camera = camera.isEmpty ? nil : camera
        if let url = preview {
            let dir = url.deletingLastPathComponent()
            if entry.status == .converted { attachPreview(url, to: &frame) }
            // Bounded on disk: the previews of files long gone from the filmstrip are removed.
            WatchService.removePreview(WatchService.previewURL(in: dir, seq: seq - WatchService.previewsKept))
        }
        recent.append(frame)
        if recent.count > WatchStatus.recentLimit { recent.removeFirst(recent.count - WatchStatus.recentLimit) }
    }

    /// Puts the preview the worker wrote at `url` (with its before picture and capture facts) on `frame`; none: nothing.
    private func attachPreview(_ url: URL, to frame: inout WatchStatus.Frame) {
        guard FileManager.default.fileExists(atPath: url.path) else { return }
        frame.preview = WatchService.previewFolder + "/" + url.lastPathComponent
        let before = PreviewImage.beforeURL(for: url)
        if FileManager.default.fileExists(atPath: before.path) { frame.before = WatchService.previewFolder + "/" + before.lastPathComponent }
        if let data = try? Data(contentsOf: PreviewImage.factsURL(for: url)), let facts = try? JSONDecoder().decode(PreviewImage.Facts.self, from: data) {
            frame.camera = facts.camera ?? frame.camera
            frame.exposure = facts.exposure
        }
    }

    /// Removes a preview with its capture facts and before picture.
    private static func removePreview(_ url: URL) {
        for u in [url, PreviewImage.factsURL(for: url), PreviewImage.beforeURL(for: url)] { try? FileManager.default.removeItem(at: u) }
    }

    /// The folder of the monitor's previews, relative to the output folder (private: never an input or an output).
    public static let previewFolder = ".lightwork/monitor/previews"

    /// File `seq`'s preview in `folder`.
    public static func previewURL(in folder: URL, seq: Int) -> URL {
        folder.appendingPathComponent(String(format: "%06d.jpg", seq))
    }

    private func releaseBlocked() {
        guard !blocked.isEmpty else { return }
        ready.insert(contentsOf: blocked, at: 0)
        blocked.removeAll()
    }

    // MARK: - Originals

    private func moveOriginal(seq: Int, rel: String, status: Manifest.Status, reason: String?, sha: String) {
        let target = status == .failed ? configuration.failed : configuration.archive
        guard let target else { return }
        let source = URL(fileURLWithPath: scanner.path(rel))
        do {
            let destination = try OriginalMover.move(source, to: target, relativePath: rel)
            if status == .failed {
                let note = "\(rel): \(reason ?? "failed")\nfailed at \(Manifest.timestamp(Date())) in lightwork \(LightWorkVersion.current) "
                    + "(watch of \(inboxPath))\nsha256 \(sha)\n"
                try OriginalMover.writeNote(note, to: URL(fileURLWithPath: destination.path + ".error.txt"))
            }
            try ledger.append(WatchRecord(op: .moved, seq: seq, path: rel, movedTo: destination.path))
            publishFrame(seq, reason: reason)
            store.updateEntry(index: seq) { $0.notes.append(WatchLedger.movedNote(destination.path)) }
        } catch {
            notice("\(rel): the original stays in the inbox: \(error)")
        }
    }

    /// After a restart: originals recorded done but not yet moved (a kill came between) are moved now,
    /// when the file in the inbox is still the one recorded.
    private func moveFinishedOriginals() {
        guard configuration.archive != nil || configuration.failed != nil else { return }
        for f in ledger.finishedNotMoved {
            guard let status = f.status, let sha = f.sha256, let signature = f.signature,
                  (status == .failed ? configuration.failed : configuration.archive) != nil,
                  FileSignature.of(scanner.path(f.path)) == signature else { continue }
            let reason = store.entry(index: f.seq)?.reason
            moveOriginal(seq: f.seq, rel: f.path, status: status, reason: reason, sha: sha)
        }
    }

    // MARK: - Reload

    private func performReload() {
        state = .running
        statusDirty = true
        let change = pendingLook
        pendingLook = nil
        guard let reload else { return }
        do {
            let (newConverter, newRules) = try reload(change)
            scheduler.restart(converter: newConverter)
            converter = newConverter
            var rules = newRules
            rules.filter = configuration.rules.filter
            configuration.rules = rules
            store.changeSettings(newConverter.settings)
            if let change { lookNote = "look chosen on the studio monitor: \(change.summary) (\(WatchStatus.lookLabel(newConverter.settings)))" }
            onEvent(.reloaded(settings: store.manifest.settings, digest: store.settingsDigest))
        } catch {
            notice(change == nil ? "SIGHUP: the recipe was not reloaded (the previous settings stay): \(error)"
                                 : "monitor: the look was not changed (the previous settings stay): \(error)")
        }
    }

    // MARK: - Manifest and status

    private func saveManifest(force: Bool) {
        do {
            if force { try store.save(force: true) } else { try store.saveIfDue() }
        } catch {
            notice("cannot write the manifest \(configuration.manifestURL.path): \(error)")
        }
    }

    /// The status as of now.
    public func status(now: Double = WatchService.clock()) -> WatchStatus {
        var s = WatchStatus(pid: getpid(), inbox: inboxPath, output: converter.outputDirectory.path,
                            manifest: configuration.manifestURL.path, mode: modeDescription, startedAt: Manifest.timestamp(startedAt),
                            state: state, recipe: converter.settings.recipeName, film: converter.settings.film,
                            settingsDigest: store.settingsDigest)
        s.updatedAt = Manifest.timestamp(Date())
        s.uptime = (now - startClock).rounded()
        s.waiting = tracker.count
        s.queued = ready.count + blocked.count
        s.inProgress = inFlight.count
        if let ledger {
            let c = ledger.counts
            (s.converted, s.skipped, s.failed) = (c.converted, c.skipped, c.failed)
        }
        s.waitingFiles = Array(tracker.paths.prefix(WatchStatus.listLimit))
        s.queuedFiles = Array((ready + blocked).prefix(WatchStatus.listLimit).map(\.relativePath))
        s.inProgressFiles = inFlight.values.sorted { $0.seq < $1.seq }.map(\.relativePath)
        s.recentFailures = recentFailures
        s.strength = converter.settings.strength
        s.look = WatchStatus.lookLabel(converter.settings)
        s.nextLook = pendingLook?.summary
        s.recent = recent
        s.monitor = monitorAddress
        let redevelops = redevelopRequests.waiting + (redeveloping == nil ? 0 : 1)
        s.redeveloping = redevelops > 0 ? redevelops : nil
        let recentTimes = finishTimes.filter { now - $0 <= 300 }
        if recentTimes.count >= 2, let first = recentTimes.first, let last = recentTimes.last, last > first {
            let perSecond = Double(recentTimes.count - 1) / (now - first)  // now ≥ last: the rate falls while nothing finishes
            s.perMinute = (perSecond * 600).rounded() / 10
            let left = s.waiting + s.queued + s.inProgress
            if left > 0 { s.secondsToEmpty = (Double(left) / perSecond).rounded() }
        }
        return s
    }

    private func writeStatus(now: Double) {
        lastStatusWrite = now
        statusDirty = false
        do {
            let s = status(now: now)
            try AtomicFile.write(data: try s.encoded(), to: configuration.statusURL)
            onEvent(.statusChanged(s))
        } catch {
            notice("cannot write the status file \(configuration.statusURL.path): \(error)")
        }
    }

    private func notice(_ text: String) { onEvent(.notice(text)) }
}

// MARK: - The scheduler's turns

extension WatchService: JobSource {
    func beginTurn(now: Double) throws {
        if hangup?.take() == true, reload != nil, state == .running {
            state = .reloading
            statusDirty = true
            notice(inFlight.isEmpty ? "SIGHUP: reloading the recipe" : "SIGHUP: reloading the recipe once the \(inFlight.count) file(s) in flight are done")
        }
        if let inbox = requestInbox {
            for request in inbox.take(problem: { self.notice($0) }) {
                switch request {
                case .look(let change): lookRequests.submit(change)
                case .redevelop(let asked):
                    // `lightwork serve` answered 202 "handed over"; a refusal reaches its page as an event.
                    do { try redevelopRequests.submit(asked) } catch {
                        onEvent(.redevelopRefused(frame: asked.frame, reason: error.reason))
                    }
                }
            }
        }
        if let change = lookRequests.take() {
            if reload != nil, state == .running || state == .reloading {
                // A change still waiting for the files in flight keeps what this one leaves out.
                if pendingLook == nil { pendingLook = change } else { pendingLook!.overlay(change) }
                state = .reloading
                statusDirty = true
                onEvent(.lookRequested(change))
            } else {
                notice("monitor: the look was not changed while the watch is \(state.rawValue)")
            }
        }
        if state == .reloading && scheduler.inFlight == 0 { performReload() }
        try turnRedevelop()

        // What the watchers saw.
        if let inotify {
            let changes = inotify.read()
            if changes.contains(.inboxGone) { throw WatchError("the inbox \(inboxPath) was removed, moved or unmounted") }
            _ = take(changes, now: now)
        }
        if let polling, now >= polling.nextLook {
            let changes = polling.look(now: now)
            if changes.contains(.inboxGone) { throw WatchError("the inbox \(inboxPath) was removed, moved or unmounted") }
            _ = take(changes, now: now)
        }
        if overflowed && tracker.count + ready.count < configuration.queueLimit / 2 {
            overflowed = false
            var found = 0
            for rel in scanner.scan().files where observe(rel, now: now) { found += 1 }
            if found > 0 { notice("rescanned the inbox: \(found) file(s) to look at") }
        }

        // Files that settled.
        let room = max(0, 4 * max(1, configuration.batch.jobs) - ready.count)
        if room > 0, let due = tracker.nextDue, due <= now {
            let settled = tracker.collect(now: now, limit: room, look: { FileSignature.of(self.scanner.path($0)) },
                                          complete: { FileCompleteness.check(URL(fileURLWithPath: self.scanner.path($0))).allowsConversion })
            for r in settled where r.incomplete {
                notice("\(r.relativePath): still incomplete after \(Int(configuration.giveUp)) s without a change; converting it as it is")
            }
            ready += settled
            if !settled.isEmpty { statusDirty = true }
        }
    }

    func nextInput() -> URL? {
        guard state == .running, WatchService.clock() >= pausedUntil, let next = ready.first else { return nil }
        return URL(fileURLWithPath: scanner.path(next.relativePath))
    }

    func takeJob() throws -> WorkerJob? { try prepare(ready.removeFirst()) }

    /// `once`: the inbox is converted when nothing settles, waits or was left for a rescan.
    var isExhausted: Bool {
        configuration.once && state == .running && tracker.count == 0 && ready.isEmpty && blocked.isEmpty && !overflowed
            && redeveloping == nil && redevelopRequests.waiting == 0
    }

    func endTurn(now: Double) {
        if now >= nextHeartbeat {
            nextHeartbeat = now + (configuration.heartbeat ?? .infinity)
            writeStatus(now: now)
            onEvent(.heartbeat(status(now: now)))
        }
        if statusDirty && now - lastStatusWrite >= 0.5 { writeStatus(now: now) }
        saveManifest(force: false)
    }

    func nextDeadline(now: Double) -> Double? {
        var due = [tracker.nextDue, polling?.nextLook].compactMap { $0 }
        if statusDirty { due.append(max(now + 0.05, lastStatusWrite + 0.5)) }
        return due.min()
    }

    var wakeDescriptors: [Int32] {
        ([hangup?.wakeFD, inotify?.fd, lookRequests.wakeFD, redevelopRequests.wakeFD, requestInbox?.fd].compactMap { $0 }
            + ((redeveloping?.executor as? WorkerPool)?.replyDescriptors ?? [])).filter { $0 >= 0 }
    }

    func jobFinished(_ job: WorkerJob, entry: Manifest.Entry, lost: Bool) throws {
        var entry = entry
        if lost, let f = inFlight[job.index] {
            // The worker died with it: the entry carries what the watch knows of the file.
            entry.input.size = f.signature.size
            entry.input.sha256 = f.sha256
        }
        try finish(job, entry)
    }

    func schedulerStopping(_ cause: JobScheduler.StopCause, inFlight count: Int) {
        state = .stopping
        statusDirty = true
        guard case .signal(let signal) = cause else { return }
        stopSignal = signal
        if count > 0 {
            notice(String(format: "stopping: finishing %d file(s) in flight (at most %g s; signal again to abandon them)",
                          count, configuration.batch.gracePeriod))
        }
    }

    /// Abandoned files are not recorded, so the next watch converts them (to the same names).
    func schedulerAbandoned(_ jobs: [WorkerJob]) {
        for job in jobs { inFlight[job.index] = nil }
        notice("abandoned \(jobs.count) file(s) in flight; the next watch converts them")
    }
}

// MARK: - Re-developing a frame (the studio monitor)

extension WatchService {
    /// A re-develop in flight: frame `seq`'s input converted again to `job.output` with the look `label` (digest `digest`).
    struct Redeveloping {
        let request: RedevelopRequest
        let number: Int
        let rel: String
        let sha256: String
        let digest: String
        let label: String
        let job: WorkerJob
        let executor: JobExecutor
    }

    /// Re-develop number `number`'s preview (of frame `seq`) in `folder`.
    static func redevelopPreviewURL(in folder: URL, seq: Int, number: Int) -> URL {
        folder.appendingPathComponent(String(format: "%06d-r%d.jpg", seq, number))
    }

    /// Tells the monitor's server what it may re-develop: frame `seq` as the journal now records it.
    private func publishFrame(_ seq: Int, reason: String?) {
        guard let f = ledger.file(seq), let status = f.status else { return }
        redevelopRequests.publish(seq, RedevelopRequests.Source(input: f.path, status: status, reason: reason,
                                                                location: f.movedTo ?? scanner.path(f.path), size: f.signature?.size))
    }

    /// One turn: collects the re-develop's outcome, and starts the next request when none converts.
    private func turnRedevelop() throws {
        if let r = redeveloping { try deliverRedevelop(r.executor.wait(seconds: 0, wakeOn: [])) }
        guard redeveloping == nil, state == .running || state == .reloading, let request = redevelopRequests.take() else { return }
        statusDirty = true
        try startRedevelop(request)
    }

    /// Checks the request against the journal and the input's content, names the extra output and starts a worker of its
    /// own with the look: the watch's workers go on as they are. What cannot be done is recorded failed, with a notice.
    private func startRedevelop(_ request: RedevelopRequest) throws {
        let seq = request.frame
        guard let file = ledger.file(seq), file.status == .converted, let sha = file.sha256 else {
            return notice("monitor: frame \(seq) was not re-developed: the journal records no converted file of that number")
        }
        let rel = file.path
        let location = file.movedTo ?? scanner.path(rel)
        let number = ledger.redevelopments + 1
        let item = InputItem(url: URL(fileURLWithPath: location), displayPath: scanner.path(rel), relativePath: rel)
        func refuse(_ error: LightWorkError, label: String = request.look.summary) throws {
            var entry = Manifest.Entry(input: Manifest.Input(path: item.displayPath, relativePath: rel), status: .failed,
                                       reason: "re-develop of frame \(seq) refused: \(error.description)", failureKind: error.kind)
            entry.input.sha256 = sha
            try recordRedevelop(seq: seq, number: number, rel: rel, sha: sha, output: nil, entry: entry, digest: store.settingsDigest, label: label)
        }
        guard let now = FileSignature.of(location) else { return try refuse(.missingInput("\(location) (the original of frame \(seq) is gone)")) }
        // The size is checked here; the content by the worker's own SHA-256 of what it read (`deliverRedevelop`), so
        // the loop is not held up reading the file a second time.
        if let size = file.signature?.size, now.size != size {
            return try refuse(.missingInput("\(location) holds other content than frame \(seq) was converted from (\(now.size) bytes, not \(size))"))
        }
        guard let redevelopLook else { return try refuse(.usage("this watch does not re-develop")) }
        let built: (FileConverter, PlanRules)
        do { built = try redevelopLook(request.look) } catch {
            return try refuse(error as? LightWorkError ?? .usage("\(error)"))
        }
        let (look, rules) = built
        let label = WatchStatus.lookLabel(look.settings)
        let digest = Manifest.digest(settings: look.settings, toolVersion: LightWorkVersion.current)
        guard let output = redevelopName(item: item, seq: seq, rules: rules, look: request.look, settings: look.settings) else {
            return try refuse(.usage("no usable name for the extra output (--name '\(rules.name)')"), label: label)
        }
        var job = WorkerJob(index: seq, item: item, output: output.path, notes: output.notes, previous: nil)
        job.notes.append("re-developed on the studio monitor from frame \(seq) with look \(request.look.summary) (\(label))"
                         + (file.movedTo.map { "; read from \($0)" } ?? ""))
        job.preview = previewFolderNow().map { WatchService.redevelopPreviewURL(in: $0, seq: seq, number: number).path }
        let executor: JobExecutor
        switch configuration.batch.isolation {
        case .inProcess: executor = InProcessExecutor(converter: look)
        case .workers(let launch):
            executor = WorkerPool(launch: launch, spec: look.spec, size: 1, timeout: configuration.batch.timeout, recycleAfter: 1)
        }
        // Journaled before the worker writes: a kill before the `redeveloped` record leaves a start the restart resolves.
        try ledger.append(WatchRecord(op: .redevelopStart, seq: seq, path: rel, sha256: sha, output: output.path, settingsDigest: digest))
        redeveloping = Redeveloping(request: request, number: number, rel: rel, sha256: sha, digest: digest, label: label, job: job, executor: executor)
        notice("monitor: re-developing frame \(seq) (\(rel)) with \(label) as \(output.path)")
        try deliverRedevelop(executor.start(job, estimate: 0))
    }

    /// The extra output's name: the plan's rules with the look's slug after the name (`IMG_0001-silver-400.jpg`), and a
    /// number after that when the name is taken by any file, in flight, or recorded as any input's output.
    private func redevelopName(item: InputItem, seq: Int, rules: PlanRules, look change: LookChange,
                               settings: ResolvedSettings) -> (path: String, notes: [String])? {
        var parts: [String] = []
        if let recipe = change.recipe, !recipe.isEmpty { parts.append(FileNameSafety.slug(recipe, fallback: "recipe")) }
        if let film = rules.filmName { parts.append(FileNameSafety.slug(film, fallback: "film")) } else { parts.append("no-film") }
        if rules.filmName != nil, let strength = settings.strength, strength < 100 { parts.append(String(format: "%g", strength)) }
        var rules = rules
        rules.filter = configuration.rules.filter
        rules.onExist = .suffix
        guard let template = try? OutputNameTemplate(rules.name.source + "-" + parts.joined(separator: "-")) else { return nil }
        rules.name = template
        let reserved = Set((inFlight.values.map(\.job.output) + folderOwners.keys).map { $0.lowercased() })
        let out = converter.outputDirectory
        let plan = BatchPlanner.plan(items: [item], rules: rules, owner: { _ in nil }, firstIndex: seq, indexWidth: 4) { candidate in
            var st = stat()
            return reserved.contains(candidate.lowercased()) || lstat(out.appendingPathComponent(candidate).path, &st) == 0
        }
        guard let job = plan.jobs.first, let path = job.outputPath else { return nil }
        return (path, job.notes)
    }

    /// The re-develop's outcome: recorded when its worker replied or was lost.
    private func deliverRedevelop(_ events: [WorkerPool.Event]) throws {
        for event in events {
            guard let r = redeveloping else { return }
            var entry: Manifest.Entry
            switch event {
            case let .finished(_, e): entry = e
            case let .lost(job, error, signal, pid):
                entry = scheduler.lostEntry(job, error: error, signal: signal, pid: pid)
                entry.input.sha256 = r.sha256
            }
            r.executor.shutdown()
            redeveloping = nil
            statusDirty = true
            if entry.status == .converted, entry.input.sha256 != r.sha256 {
                // Read while it was being replaced: the output is not of the file the frame shows.
                try? FileManager.default.removeItem(at: converter.outputDirectory.appendingPathComponent(r.job.output))
                entry.status = .failed
                entry.reason = "re-develop of frame \(r.request.frame) refused: the input changed while it was read (its SHA-256 differs from the journal's)"
                entry.failureKind = .missingInput
                entry.output = nil
            }
            if entry.status == .failed, !(entry.reason ?? "").hasPrefix("re-develop") {
                entry.reason = "re-develop of frame \(r.request.frame) failed: \(entry.reason ?? "failed")"
            }
            try recordRedevelop(seq: r.request.frame, number: r.number, rel: r.rel, sha: r.sha256, output: entry.status == .converted ? r.job.output : nil,
                                entry: entry, digest: r.digest, label: r.label, preview: r.job.preview.map { URL(fileURLWithPath: $0) })
        }
    }

    /// Journal first, then manifest: a new entry for the same input (no input index: the file's own entry stays the
    /// current one of its output), a frame for the monitor, the event, and a notice when it failed.
    private func recordRedevelop(seq: Int, number: Int, rel: String, sha: String, output: String?, entry: Manifest.Entry,
                                 digest: String, label: String, preview: URL? = nil) throws {
        var entry = entry
        entry.input.index = nil
        try ledger.append(WatchRecord(op: .redeveloped, seq: seq, path: rel, sha256: sha, output: output, entry: entry, settingsDigest: digest))
        if let output { folderOwners[output] = rel }
        store.insert(entry, settingsDigest: digest)
        var frame = WatchStatus.Frame(index: seq, input: rel, output: output, status: entry.status, reason: entry.reason, look: label,
                                      seconds: entry.timings["total"].map { ($0 * 1000).rounded() / 1000 }, at: Manifest.timestamp(Date()))
        frame.redevelopment = number
        if let preview {
            let dir = preview.deletingLastPathComponent()
            if entry.status == .converted { attachPreview(preview, to: &frame) }
            // Bounded on disk like the files' previews: the latest `previewsKept` re-develops' are kept.
            let old = "-r\(number - WatchService.previewsKept).jpg"
            for name in (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? [] where name.hasSuffix(old) {
                WatchService.removePreview(dir.appendingPathComponent(name))
            }
        }
        recent.append(frame)
        if recent.count > WatchStatus.recentLimit { recent.removeFirst(recent.count - WatchStatus.recentLimit) }
        statusDirty = true
        onEvent(.redeveloped(frame: seq, item: InputItem(url: URL(fileURLWithPath: scanner.path(rel)), displayPath: scanner.path(rel), relativePath: rel),
                             entry: entry, look: label))
        if entry.status == .failed { notice("monitor: \(rel): \(entry.reason ?? "re-develop failed")") }
    }

    /// The watch stops: a re-develop still converting is abandoned (its worker killed, its temporaries removed) and
    /// those waiting are dropped, each with a notice (they are asked again after a restart; no inbox file is involved).
    private func endRedevelopments() {
        if let r = redeveloping {
            redeveloping = nil
            for (job, pid) in r.executor.abandonAll() where pid > 0 {
                TemporaryFileSweeper.sweep(finals: [converter.outputDirectory.appendingPathComponent(job.output)], pid: pid)
            }
            r.executor.shutdown()
            notice("monitor: the re-develop of frame \(r.request.frame) was abandoned: the watch stopped (ask again after a restart)")
        }
        for request in redevelopRequests.takeAll() {
            notice("monitor: frame \(request.frame) was not re-developed: the watch stopped (ask again after a restart)")
        }
    }
}
