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
    public private(set) var manifest: Manifest
    /// SIGINT or SIGTERM when the run was interrupted by one (the command then exits 128 + signal).
    public private(set) var interruptSignal: Int32?
    /// Why the run stopped before its end other than a signal (a full disk); nil otherwise.
    public private(set) var stopReason: String?
    /// Peak resident memory (KiB) of the largest worker, and of the workers' peaks summed (isolated runs).
    public private(set) var peakWorkerRSSKiB = 0
    public private(set) var peakTotalWorkerRSSKiB = 0
    /// Worker processes started: one per --jobs slot, plus one per crash, time-out and recycling.
    public private(set) var workersStarted = 0
    /// Lines worth telling the user (resume decisions, temporaries removed, interruption).
    public var onNotice: (String) -> Void = { _ in }

    private var lastSave: UInt64 = 0
    private var lastSaveCost = 0.0

    public init(converter: FileConverter, manifestURL: URL, startedAt: Date = Date(), configuration: BatchConfiguration = BatchConfiguration()) {
        self.converter = converter
        self.manifestURL = manifestURL
        self.configuration = configuration
        let host = ProcessInfo.processInfo.hostName
        manifest = Manifest(tool: Manifest.ToolInfo(version: LightWorkVersion.current, libraries: LightWorkVersion.libraries),
                            settings: converter.settings, host: host, startedAt: startedAt)
        manifest.shard = configuration.shard.map { Manifest.ShardInfo(index: $0.index, count: $0.count) }
    }

    /// Runs a planned batch (`BatchPlanner` decided names, collisions, pairs and exclusions); returns the final
    /// manifest. Manifest write failures are reported through `onManifestError`.
    @discardableResult
    public func run(_ jobs: [PlannedJob], onEvent: (Event) -> Void, onManifestError: (LightWorkError) -> Void) -> Manifest {
        // The plan covers every input, so each shard agrees on names and collisions; the shard then takes its slice.
        var selected: [(index: Int, job: PlannedJob)] = []
        for (i, job) in jobs.enumerated() {
            if let shard = configuration.shard, !shard.contains(relativePath: job.item.relativePath) { continue }
            selected.append((i + 1, job))
        }
        let total = selected.count
        onEvent(.started(total: total))

        let outputDirectory = converter.outputDirectory
        let finals = selected.compactMap { $0.job.outputPath.map { outputDirectory.appendingPathComponent($0) } } + [manifestURL]
        let swept = TemporaryFileSweeper.sweep(finals: finals)
        if swept > 0 { onNotice("removed \(swept) temporary file(s) left by an interrupted run") }

        let resume = configuration.force
            ? ResumeIndex(reason: nil)
            : ResumeIndex(manifestURLs: ResumeIndex.candidates(first: manifestURL, in: outputDirectory),
                          settingsDigest: manifest.settingsDigest, toolVersion: manifest.tool.version)
        if let reason = resume.unusableReason { onNotice(reason) }

        var done = 0
        func record(_ index: Int, _ item: InputItem, _ entry: Manifest.Entry) {
            var entry = entry
            entry.input.index = index
            insert(entry)
            if let e = save(force: false) { onManifestError(e) }
            done += 1
            onEvent(.finished(index: done, total: total, item: item, entry: entry))
            if entry.status == .failed, entry.failureKind == .diskFull, let reason = entry.reason, stopReason == nil {
                stopReason = "\(reason): stopping; free space and run the same command again to finish the batch"
                onNotice(stopReason!)
            }
        }
        func lost(_ job: WorkerJob, error: LightWorkError, signal: Int32?, pid: pid_t) {
            if pid > 0 {
                TemporaryFileSweeper.sweep(finals: [outputDirectory.appendingPathComponent(job.output)], pid: pid)
            }
            var reason = error.description
            // A refused allocation ends a worker with a trap (Swift) or an abort (C++ bad_alloc), not a SIGSEGV.
            if let limit = configuration.workerMemoryLimit, let signal, [SIGILL, SIGTRAP, SIGABRT].contains(signal) {
                reason += String(format: " (a file needing more than --worker-memory %.1f GiB also ends this way)", Double(limit) / Double(1 << 30))
            }
            var entry = Manifest.Entry(input: Manifest.Input(path: job.displayPath, relativePath: job.relativePath), status: .failed,
                                       reason: reason, failureKind: error.kind)
            entry.input.size = ResumeIndex.fileSize(job.path)
            record(job.index, job.item, entry)
        }

        let intents = OutputIntents(manifestURL: manifestURL)
        // Announce every planned output already on disk (the plan found it this export's own, or was told to
        // overwrite it) before this run saves a manifest of its own: entries are only recorded as their jobs come
        // up, so a kill early in this run (with --force too) would otherwise leave a manifest that no longer
        // claims them, and the next run would take them for someone else's.
        let announced = intents.read()
        for s in selected {
            guard let output = s.job.outputPath, announced[output] == nil else { continue }
            var st = stat()
            if lstat(outputDirectory.appendingPathComponent(output).path, &st) == 0, st.st_mode & S_IFMT == S_IFREG {
                intents.record(output: output, input: s.job.item.relativePath)
            }
        }
        var queue: [WorkerJob] = []
        for s in selected {
            if let output = s.job.outputPath {
                queue.append(WorkerJob(index: s.index, item: s.job.item, output: output, notes: s.job.notes, previous: resume.previous(for: s.job.item)))
            } else if let planned = s.job.entry {
                record(s.index, s.job.item, planned)   // skipped or failed by the plan (pair partner, collision, existing file)
            }
        }

        let inProcess: Bool
        if case .inProcess = configuration.isolation { inProcess = true } else { inProcess = false }
        let signals = configuration.handleSignals ? InterruptSignals(hardStopOnSecond: inProcess) : nil
        func stopping() -> Bool { (signals?.count ?? 0) > 0 || stopReason != nil }

        switch configuration.isolation {
        case .inProcess:
            for job in queue {
                if stopping() { break }
                onEvent(.converting(index: job.index, total: total, item: job.item))
                intents.record(output: job.output, input: job.relativePath)
                record(job.index, job.item, BatchJob.perform(job, converter: converter))
            }
        case .workers(let launch):
            let pool = WorkerPool(launch: launch, spec: converter.spec, size: configuration.jobs, timeout: configuration.timeout, recycleAfter: configuration.recycleAfter)
            var pending = queue[...]
            var nextEstimate: Int?
            var graceEnds: UInt64?
            while true {
                let now = DispatchTime.now().uptimeNanoseconds
                if stopping() {
                    if graceEnds == nil {
                        graceEnds = now + UInt64(configuration.gracePeriod * 1e9)
                        if signals?.signal != nil, pool.inFlight > 0 {
                            onNotice(String(format: "interrupted: finishing %d file(s) in flight (at most %g s; interrupt again to abandon them)",
                                            pool.inFlight, configuration.gracePeriod))
                        }
                    }
                } else {
                    while pool.canDispatch, let job = pending.first {
                        let estimate = nextEstimate ?? MemoryBudget.estimate(for: job.item.url)
                        if let budget = configuration.memoryBudget,
                           !budget.allows(estimate, inFlight: pool.inFlightEstimate, filesInFlight: pool.inFlight) {
                            nextEstimate = estimate
                            break
                        }
                        nextEstimate = nil
                        pending.removeFirst()
                        onEvent(.converting(index: job.index, total: total, item: job.item))
                        intents.record(output: job.output, input: job.relativePath)
                        if case let .lost(job, error, signal, pid)? = pool.dispatch(job, estimate: estimate) {
                            lost(job, error: error, signal: signal, pid: pid)
                        }
                    }
                }
                if pool.inFlight == 0, pending.isEmpty || stopping() { break }
                if let graceEnds, (signals?.count ?? 0) >= 2 || now >= graceEnds {
                    let abandoned = pool.abandonAll()
                    for (job, pid) in abandoned {
                        TemporaryFileSweeper.sweep(finals: [outputDirectory.appendingPathComponent(job.output)], pid: pid)
                    }
                    if !abandoned.isEmpty { onNotice("abandoned \(abandoned.count) file(s) in flight; the next run converts them") }
                    break
                }
                for event in pool.wait(seconds: 0.5, wakeFD: signals?.wakeFD ?? -1) {
                    switch event {
                    case let .finished(job, entry): record(job.index, job.item, entry)
                    case let .lost(job, error, signal, pid): lost(job, error: error, signal: signal, pid: pid)
                    }
                }
                signals?.drain()
            }
            pool.shutdown()
            peakWorkerRSSKiB = pool.peakWorkerRSSKiB
            peakTotalWorkerRSSKiB = pool.peakTotalWorkerRSSKiB
            workersStarted = pool.started
        }

        interruptSignal = signals?.signal
        if interruptSignal != nil || stopReason != nil {
            manifest.interrupted = true
        } else {
            manifest.finishedAt = Manifest.timestamp(Date())
        }
        if let e = save(force: true) {
            onManifestError(e)
        } else if manifest.finishedAt != nil {
            intents.remove()    // the manifest now records every output the journal announced
        }
        signals?.restore()
        return manifest
    }

    /// Inserts `entry` in input order.
    private func insert(_ entry: Manifest.Entry) {
        manifest.insertInInputOrder(entry)
    }

    /// Writes the manifest atomically: after every file while that is cheap, else at most every tenth of the
    /// time spent (a 10,000-entry manifest is megabytes of JSON; a file not yet recorded is only redone).
    private func save(force: Bool) -> LightWorkError? {
        let start = DispatchTime.now().uptimeNanoseconds
        if !force, Double(start &- lastSave) / 1e9 < lastSaveCost * 10 { return nil }
        defer {
            lastSave = DispatchTime.now().uptimeNanoseconds
            lastSaveCost = Double(lastSave - start) / 1e9
        }
        do {
            try FileManager.default.createDirectory(at: manifestURL.deletingLastPathComponent(), withIntermediateDirectories: true)
            try AtomicFile.write(data: try manifest.encoded(), to: manifestURL)
            return nil
        } catch let e as LightWorkError {
            return e
        } catch {
            return .writeFailed("manifest \(manifestURL.path): \(FileConverter.describe(error))")
        }
    }
}
