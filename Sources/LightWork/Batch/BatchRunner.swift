import Foundation

/// Runs a batch: takes this run's slice of the inputs (`--shard`), removes temporaries a killed run left,
/// skips inputs whose outputs the previous manifest proves complete, converts the rest in worker processes
/// (or in this process), keeps the manifest on disk current (atomically) as files finish, and stops cleanly
/// on SIGINT/SIGTERM or a full disk. Entries are ordered by input position, whatever order files finish in.
public final class BatchRunner: @unchecked Sendable {
    public enum Event: Sendable {
        case started(total: Int)
        /// A file starts converting (for "current file" in progress displays); `index` is its input position.
        case converting(index: Int, total: Int, item: InputItem)
        /// `index` counts finished files (1…total), in the order they finished.
        case finished(index: Int, total: Int, item: InputItem, entry: Manifest.Entry)
    }

    public let converter: FileConverter
    public let manifestURL: URL
    public let configuration: BatchConfiguration
    /// The manifest as recorded so far (final once `run` returned).
    public var manifest: Manifest { store.manifest }
    /// SIGINT or SIGTERM when the run was interrupted by one (the command then exits 128 + signal).
    public private(set) var interruptSignal: Int32?
    /// Why the run stopped before its end other than a signal (a full disk); nil otherwise.
    public private(set) var stopReason: String?
    /// Peak resident memory (KiB) of the largest worker, and of the workers' peaks summed (isolated runs).
    public private(set) var peakWorkerRSSKiB = 0
    public private(set) var peakTotalWorkerRSSKiB = 0
    /// Worker processes started: one per --jobs slot, plus one per crash, time-out and recycling.
    public private(set) var workersStarted = 0
    /// Files of this run that were never started because it stopped early (a signal, a full disk); not in the manifest.
    public private(set) var neverStarted = 0
    /// Inputs not converted because a file no LightWork run wrote holds their output name (`--on-exist skip`): the
    /// command warns and exits 1, since the user still has what was there before.
    public private(set) var leftAlone: [String] = []
    /// Lines worth telling the user (resume decisions, temporaries removed, interruption).
    public var onNotice: (String) -> Void = { _ in }
    /// Whether `run` returns the run's entries (read back from the ledger when they were not kept in memory); the
    /// CLI, which needs only the summary, turns it off so a 100,000-file run never holds them all.
    public var returnsEntries = true
    /// The output folder's manifests as the plan read them (`ResumeIndex.load` of `ResumeIndex.candidates`); nil:
    /// the run reads them itself.
    public var previousRuns: [(url: URL, manifest: Result<Manifest, Error>)]?
    /// A worker started before planning (`WorkerReserve`), adopted by the run's pool as its first worker when it suits.
    public var workerReserve: WorkerReserve?

    private let store: ManifestStore
    /// What earlier runs recorded in the output folder (nil without a ledger: resume then reads the manifests there).
    private var history: FolderHistory?

    public init(converter: FileConverter, manifestURL: URL, startedAt: Date = Date(), configuration: BatchConfiguration = BatchConfiguration()) {
        self.converter = converter
        self.manifestURL = manifestURL
        self.configuration = configuration
        store = ManifestStore(url: manifestURL, settings: converter.settings, startedAt: startedAt, shard: configuration.shard)
    }

    /// Records this run into the output folder's `ledger`; `history` is what earlier runs recorded there (resume offers
    /// its entries), and the manifest covers `scope`. Throws when the ledger refuses the run.
    /// A run recording into a ledger keeps only its uncommitted entries in memory (`ManifestStore.retainsEntries`).
    public func record(into ledger: ExportLedger, history: FolderHistory, scope: ManifestScope) throws(LightWorkError) {
        try store.record(into: ledger, command: "convert", history: history, scope: scope, retainEntries: false)
        self.history = history
    }

    /// Runs a planned batch (`BatchPlanner` decided names, collisions, pairs and exclusions); returns the final
    /// manifest. Manifest write failures are reported through `onManifestError`.
    @discardableResult
    public func run(_ jobs: any PlannedJobs, onEvent: (Event) -> Void, onManifestError: (LightWorkError) -> Void) -> Manifest {
        withoutActuallyEscaping(onEvent) { onEvent in
            withoutActuallyEscaping(onManifestError) { onManifestError in
                run(jobs, events: onEvent, manifestErrors: onManifestError)
            }
        }
    }

    private func run(_ jobs: any PlannedJobs, events onEvent: @escaping (Event) -> Void,
                     manifestErrors onManifestError: @escaping (LightWorkError) -> Void) -> Manifest {
        // The plan covers every input, so each shard agrees on names and collisions; the shard then takes its slice:
        // positions in `jobs` (the input index is the position + 1), not copies of the jobs.
        let selected = configuration.shard.map { shard in (0..<jobs.count).filter { shard.contains(relativePath: jobs[$0].item.relativePath) } }
            ?? Array(0..<jobs.count)
        let total = selected.count
        onEvent(.started(total: total))

        let outputDirectory = converter.outputDirectory
        let swept = TemporaryFileSweeper.sweep(outputs: selected.lazy.compactMap { jobs[$0].outputPath }, in: outputDirectory)
            + TemporaryFileSweeper.sweep(finals: [manifestURL])
        if swept > 0 { onNotice("removed \(swept) temporary file(s) left by an interrupted run") }

        let resume = configuration.force
            ? ResumeIndex(reason: nil)
            : history.map { ResumeIndex(history: $0, settingsDigest: store.settingsDigest) }
                ?? ResumeIndex(previousRuns: previousRuns ?? ResumeIndex.load(ResumeIndex.candidates(first: manifestURL, in: outputDirectory)),
                               settingsDigest: store.settingsDigest, toolVersion: store.manifest.tool.version)
        previousRuns = nil
        if let reason = resume.unusableReason(for: selected.lazy.map { jobs[$0].item }) { onNotice(reason) }

        let scheduler = JobScheduler(configuration: configuration, converter: converter, reserve: workerReserve)
        defer { workerReserve?.discard() }
        var done = 0
        func record(_ index: Int, _ item: InputItem, _ entry: Manifest.Entry) {
            var entry = entry
            entry.input.index = index
            store.insert(entry)
            do { try store.save(force: false) } catch { onManifestError(error) }
            done += 1
            onEvent(.finished(index: done, total: total, item: item, entry: entry))
            if entry.status == .failed, entry.failureKind == .diskFull, let reason = entry.reason, stopReason == nil {
                stopReason = "\(reason): stopping; free space and run the same command again to finish the batch"
                onNotice(stopReason!)
                scheduler.requestStop()
            }
        }

        let intents = OutputIntents(manifestURL: manifestURL)
        // Announce every planned output already on disk (the plan found it this export's own, or was told to
        // overwrite it) before this run saves a manifest of its own: entries are only recorded as their jobs come
        // up, so a kill early in this run (with --force too) would otherwise leave a manifest that no longer
        // claims them, and the next run would take them for someone else's.
        let announced = intents.read()
        for p in selected {
            guard let output = jobs[p].outputPath, announced[output] == nil else { continue }
            var st = stat()
            if lstat(outputDirectory.path + "/" + output, &st) == 0, st.st_mode & S_IFMT == S_IFREG {
                intents.record(output: output, input: jobs[p].item.relativePath)
            }
        }
        // The jobs to send, as positions in `selected`: a WorkerJob (with its previous entry) is made when the
        // scheduler takes it, so a 100,000-file queue holds integers, not jobs.
        var queue: [Int] = []
        for p in selected {
            let job = jobs[p]
            if let output = job.outputPath {
                let previous = resume.previous(for: job.item)
                // Resume in a stat: an input and output unchanged since the previous run recorded them are not read
                // (nor sent to a worker); --verify, or any difference, leaves the SHA-256 check to the worker.
                if !configuration.verify, let previous,
                   let trusted = ResumeIndex.trustedEntry(previous: previous, item: job.item, output: output, outputDirectory: outputDirectory) {
                    record(p + 1, job.item, trusted)
                    continue
                }
                queue.append(p)
            } else if let planned = job.entry {
                if job.leftAlone != nil { leftAlone.append(job.item.displayPath) }
                record(p + 1, job.item, planned)   // skipped or failed by the plan (pair partner, collision, existing file)
            }
        }

        let source = PlannedQueue(queue, url: { jobs[$0].item.url }, make: { p in
            let job = jobs[p]
            return WorkerJob(index: p + 1, item: job.item, output: job.outputPath!, notes: job.notes, previous: resume.previous(for: job.item))
        }, gracePeriod: configuration.gracePeriod, notice: onNotice, start: { job in
            onEvent(.converting(index: job.index, total: total, item: job.item))
            intents.record(output: job.output, input: job.relativePath)
        }, record: { job, entry in record(job.index, job.item, entry) }, idle: {
            // Every turn (at least twice a second): what was recorded before a long file started still reaches the
            // ledger within a checkpoint interval, and the manifest once its throttle allows.
            do throws(LightWorkError) { try self.store.saveIfDue() } catch { onManifestError(error) }
        })
        let outcome = (try? scheduler.run(source)) ?? .stopped    // a planned queue throws nothing
        peakWorkerRSSKiB = scheduler.peakWorkerRSSKiB
        peakTotalWorkerRSSKiB = scheduler.peakTotalWorkerRSSKiB
        workersStarted = scheduler.workersStarted
        neverStarted = source.remaining

        if case .interrupted(let signal) = outcome { interruptSignal = signal }
        store.finish(interrupted: interruptSignal != nil || stopReason != nil)
        do {
            try store.save(force: true)
            if store.manifest.finishedAt != nil { intents.remove() }    // the manifest now records every output the journal announced
        } catch {
            onManifestError(error)
        }
        guard returnsEntries else { return store.manifest }
        do { return try store.runManifest() } catch {
            onManifestError(error)
            return store.manifest
        }
    }
}

/// A planned batch as the scheduler sees it: the jobs in input order, each announced as it starts.
private final class PlannedQueue: JobSource {
    /// The jobs not yet taken, as positions `make` turns into jobs.
    private var pending: ArraySlice<Int>
    private let url: (Int) -> URL
    private let make: (Int) -> WorkerJob
    private let gracePeriod: Double
    private let notice: (String) -> Void
    private let start: (WorkerJob) -> Void
    private let record: (WorkerJob, Manifest.Entry) -> Void
    private let idle: () -> Void

    init(_ jobs: [Int], url: @escaping (Int) -> URL, make: @escaping (Int) -> WorkerJob, gracePeriod: Double, notice: @escaping (String) -> Void,
         start: @escaping (WorkerJob) -> Void, record: @escaping (WorkerJob, Manifest.Entry) -> Void, idle: @escaping () -> Void) {
        pending = jobs[...]
        self.url = url
        self.make = make
        self.gracePeriod = gracePeriod
        self.notice = notice
        self.start = start
        self.record = record
        self.idle = idle
    }

    func endTurn(now: Double) { idle() }

    /// The next job's input, looked up once (a stored plan reads it from its database).
    private var next: (position: Int, url: URL)?

    func nextInput() -> URL? {
        guard let p = pending.first else { return nil }
        if next?.position != p { next = (p, url(p)) }
        return next?.url
    }

    func takeJob() -> WorkerJob? {
        let job = make(pending.removeFirst())
        start(job)
        return job
    }

    var isExhausted: Bool { pending.isEmpty }

    /// Jobs never taken.
    var remaining: Int { pending.count }

    func jobFinished(_ job: WorkerJob, entry: Manifest.Entry, lost: Bool) { record(job, entry) }

    func schedulerStopping(_ cause: JobScheduler.StopCause, inFlight: Int) {
        guard case .signal = cause, inFlight > 0 else { return }
        notice(String(format: "interrupted: finishing %d file(s) in flight (at most %g s; interrupt again to abandon them)", inFlight, gracePeriod))
    }

    func schedulerAbandoned(_ jobs: [WorkerJob]) {
        notice("abandoned \(jobs.count) file(s) in flight; the next run converts them")
    }
}
