import Foundation

/// Where a `JobScheduler`'s jobs come from and where their outcomes go. `BatchRunner` (a planned list) and
/// `WatchService` (a hot folder) are its clients; each keeps only what is its own (a plan, an inbox).
protocol JobSource: AnyObject {
    /// The start of every turn of the scheduler's loop, before dispatching (watchers, settling, reloading).
    /// Throwing ends the run at once: jobs in flight are abandoned and `run` rethrows the error.
    func beginTurn(now: Double) throws
    /// The input of the job `takeJob` would give next, for the memory gate; nil when nothing may start now.
    func nextInput() -> URL?
    /// Takes the item `nextInput` named: the job to start, or nil when that item needs no conversion (it was
    /// recorded or put aside). Throwing stops the run as `requestStop` does, and `run` rethrows the error.
    func takeJob() throws -> WorkerJob?
    /// Whether the run is complete once nothing is in flight: no job waits and none will come.
    var isExhausted: Bool { get }
    /// The end of every turn, after dispatching (status files, heartbeats, saving).
    func endTurn(now: Double)
    /// When the source next needs a turn (monotonic seconds), nil for no deadline of its own.
    func nextDeadline(now: Double) -> Double?
    /// Descriptors that wake the scheduler when readable (inotify, a SIGHUP pipe).
    var wakeDescriptors: [Int32] { get }
    /// A job's outcome: the worker's entry, or (`lost`) the failed entry the scheduler made because the worker
    /// died, timed out or could not be reached. Throwing stops the run as `takeJob` throwing does.
    func jobFinished(_ job: WorkerJob, entry: Manifest.Entry, lost: Bool) throws
    /// The scheduler takes no more jobs (for `cause`); `inFlight` jobs may finish within the grace period.
    func schedulerStopping(_ cause: JobScheduler.StopCause, inFlight: Int)
    /// These jobs were abandoned (their workers killed, their temporaries removed); they have no outcome.
    func schedulerAbandoned(_ jobs: [WorkerJob])
}

extension JobSource {
    func beginTurn(now: Double) throws {}
    func endTurn(now: Double) {}
    func nextDeadline(now: Double) -> Double? { nil }
    var wakeDescriptors: [Int32] { [] }
    func schedulerStopping(_ cause: JobScheduler.StopCause, inFlight: Int) {}
    func schedulerAbandoned(_ jobs: [WorkerJob]) {}
}

/// Runs conversion jobs for batch and watch alike: in worker processes (a crash or a hang costs only its file,
/// `--timeout` stops a file that hangs) or in this process, never more at once than `--jobs`, and never more
/// than the memory budget allows (one file always runs). On SIGINT/SIGTERM, or when its client asks, it takes
/// no more jobs, lets those in flight finish for the grace period (a second signal cuts it short), then kills
/// what is left and removes the temporaries of every worker it lost or killed.
final class JobScheduler {
    /// Why the scheduler stopped taking jobs.
    enum StopCause: Sendable, Equatable {
        /// SIGINT or SIGTERM.
        case signal(Int32)
        /// The client asked (`requestStop`: a full disk).
        case requested
        /// The client could not go on (an error from `takeJob` or `jobFinished`; `run` rethrows it).
        case failed
    }

    /// How a run ended.
    enum Outcome: Sendable, Equatable {
        /// The source was exhausted and every job finished.
        case completed
        /// A signal stopped it (even when the client had asked to stop first).
        case interrupted(signal: Int32)
        /// The client asked to stop.
        case stopped
    }

    private(set) var configuration: BatchConfiguration
    private(set) var converter: FileConverter
    private let makeExecutor: (JobScheduler) -> JobExecutor
    private var executor: JobExecutor?
    private var signals: InterruptSignals?
    private var signalsInstalled = false
    private(set) var stopCause: StopCause?
    private var graceEnds: Double?
    /// The file the memory gate held back, with its estimate (probed once, not at every turn).
    private var gated: (path: String, estimate: Int)?
    private var failure: Error?
    private var retiredStats = (started: 0, peak: 0, peakTotal: 0)

    /// Jobs the configuration's isolation runs (worker processes or this process); `reserve`, a worker started
    /// earlier, becomes the first worker when it was started for the same launch.
    convenience init(configuration: BatchConfiguration, converter: FileConverter, reserve: WorkerReserve? = nil) {
        self.init(configuration: configuration, converter: converter) { scheduler in
            switch scheduler.configuration.isolation {
            case .inProcess:
                reserve?.discard()
                return InProcessExecutor(converter: scheduler.converter)
            case .workers(let launch):
                return WorkerPool(launch: launch, spec: scheduler.converter.spec, size: scheduler.configuration.jobs, timeout: scheduler.configuration.timeout,
                                  recycleAfter: scheduler.configuration.recycleAfter, reserve: reserve)
            }
        }
    }

    /// `makeExecutor` builds the executor when the first job starts (and again after `restart`).
    init(configuration: BatchConfiguration, converter: FileConverter, makeExecutor: @escaping (JobScheduler) -> JobExecutor) {
        self.configuration = configuration
        self.converter = converter
        self.makeExecutor = makeExecutor
    }

    /// Seconds on the monotonic clock (the scheduler's and its clients' timers).
    static func clock() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    var inFlight: Int { executor?.inFlight ?? 0 }
    var isStopping: Bool { stopCause != nil }
    /// The SIGINT or SIGTERM received while the handlers were installed, nil when none.
    var interruptSignal: Int32? { signals?.signal }
    var workersStarted: Int { retiredStats.started + (executor?.workersStarted ?? 0) }
    var peakWorkerRSSKiB: Int { max(retiredStats.peak, executor?.peakWorkerRSSKiB ?? 0) }
    var peakTotalWorkerRSSKiB: Int { max(retiredStats.peakTotal, executor?.peakTotalWorkerRSSKiB ?? 0) }

    // MARK: - Signals

    /// Installs the SIGINT/SIGTERM handlers when the configuration asks for them (`run` does it too; a client
    /// calls it earlier when a signal must not kill it before the loop starts). A second signal ends the process
    /// at once when jobs run in this process, where a job in flight cannot be abandoned otherwise.
    func installSignalHandlers() {
        guard configuration.handleSignals, signals == nil else { return }
        if case .inProcess = configuration.isolation {
            signals = InterruptSignals(hardStopOnSecond: true)
        } else {
            signals = InterruptSignals(hardStopOnSecond: false)
        }
        signalsInstalled = true
    }

    /// Restores the default actions (the signal received stays readable in `interruptSignal`).
    func restoreSignalHandlers() {
        guard signalsInstalled else { return }
        signalsInstalled = false
        signals?.restore()
    }

    // MARK: - Control

    /// Takes no more jobs; those in flight finish within the grace period.
    func requestStop() { beginStop(.requested, now: JobScheduler.clock(), source: nil) }

    /// Replaces the converter (and the isolation, when given) for the jobs from now on: the executor is shut
    /// down and a new one starts with the next job. Only while nothing is in flight (a watch's reload).
    func restart(converter: FileConverter, isolation: BatchConfiguration.Isolation? = nil) {
        precondition(inFlight == 0, "the executor is replaced only while no job is in flight")
        retireExecutor()
        self.converter = converter
        if let isolation { configuration.isolation = isolation }
    }

    // MARK: - Run

    private var source: JobSource?

    /// Runs jobs from `source` until it is exhausted and nothing is in flight, or until a stop (then once the
    /// jobs in flight have finished or been abandoned). Rethrows the first error the source threw. Signal
    /// handlers it installs itself are restored at its end; those the client installed, by the client.
    func run(_ source: JobSource) throws -> Outcome {
        let installsSignals = !signalsInstalled
        installSignalHandlers()
        self.source = source
        defer {
            retireExecutor()
            if installsSignals { restoreSignalHandlers() }
            self.source = nil
        }
        while true {
            let now = JobScheduler.clock()
            if stopCause == nil, let signal = signals?.signal { beginStop(.signal(signal), now: now, source: source) }
            if stopCause != nil {
                if inFlight == 0 { break }
                if let graceEnds, (signals?.count ?? 0) >= 2 || now >= graceEnds { abandon(source); break }
            }
            do {
                try source.beginTurn(now: now)
            } catch {
                failure = failure ?? error
                abandon(source)
                break
            }
            if stopCause == nil { dispatch(source) }
            if stopCause == nil, inFlight == 0, source.isExhausted { break }
            source.endTurn(now: now)

            var wait = 0.5
            if let due = source.nextDeadline(now: now) { wait = min(wait, due - now) }
            if let graceEnds { wait = min(wait, graceEnds - now) }
            wait = max(0.005, wait)
            let wake = (signals.map { [$0.wakeFD] } ?? []) + source.wakeDescriptors
            if let executor {
                deliver(executor.wait(seconds: wait, wakeOn: wake), to: source)
            } else {
                JobScheduler.sleep(seconds: wait, wakeOn: wake)
            }
            signals?.drain()
        }
        if let failure { throw failure }
        if let signal = signals?.signal { return .interrupted(signal: signal) }
        return stopCause == nil ? .completed : .stopped
    }

    /// Starts jobs while there is room, the memory budget allows the next one and nothing stops the run.
    private func dispatch(_ source: JobSource) {
        while stopCause == nil, (signals?.count ?? 0) == 0, let input = source.nextInput() {
            let executor = self.executor ?? makeExecutor(self)
            self.executor = executor
            guard executor.inFlight < executor.capacity else { return }
            var estimate = 0
            // With one slot the gate never holds a file back, so its header is not probed.
            if let budget = configuration.memoryBudget, executor.capacity > 1 {
                estimate = gated?.path == input.path ? gated!.estimate : MemoryBudget.estimate(for: input)
                guard budget.allows(estimate, inFlight: executor.inFlightEstimate, filesInFlight: executor.inFlight) else {
                    gated = (input.path, estimate)
                    return
                }
            }
            gated = nil
            let job: WorkerJob?
            do {
                job = try source.takeJob()
            } catch {
                fail(error, source: source)
                return
            }
            guard let job else { continue }
            deliver(executor.start(job, estimate: estimate), to: source)
        }
    }

    private func deliver(_ events: [WorkerPool.Event], to source: JobSource) {
        for event in events {
            do {
                switch event {
                case let .finished(job, entry):
                    try source.jobFinished(job, entry: entry, lost: false)
                case let .lost(job, error, signal, pid):
                    try source.jobFinished(job, entry: lostEntry(job, error: error, signal: signal, pid: pid), lost: true)
                }
            } catch {
                fail(error, source: source)
            }
        }
    }

    /// The failed entry of a job whose worker ended under it (its temporaries removed first).
    func lostEntry(_ job: WorkerJob, error: LightWorkError, signal: Int32?, pid: pid_t) -> Manifest.Entry {
        if pid > 0 { sweep(job, pid: pid) }
        var reason = error.description
        // A refused allocation ends a worker with a trap (Swift) or an abort (C++ bad_alloc), not a SIGSEGV.
        if let limit = configuration.workerMemoryLimit, let signal, [SIGILL, SIGTRAP, SIGABRT].contains(signal) {
            reason += String(format: " (a file needing more than --worker-memory %.1f GiB also ends this way)", Double(limit) / Double(1 << 30))
        }
        var entry = Manifest.Entry(input: Manifest.Input(path: job.displayPath, relativePath: job.relativePath), status: .failed,
                                   reason: reason, failureKind: error.kind)
        entry.input.size = ResumeIndex.fileSize(job.path)
        return entry
    }

    private func fail(_ error: Error, source: JobSource) {
        failure = failure ?? error
        beginStop(.failed, now: JobScheduler.clock(), source: source)
    }

    private func beginStop(_ cause: StopCause, now: Double, source: JobSource?) {
        guard stopCause == nil else { return }
        stopCause = cause
        graceEnds = now + configuration.gracePeriod
        (source ?? self.source)?.schedulerStopping(cause, inFlight: inFlight)
    }

    /// Kills the workers of the jobs still in flight; they are not recorded, so the next run converts them.
    private func abandon(_ source: JobSource) {
        guard let executor else { return }
        let abandoned = executor.abandonAll()
        for (job, pid) in abandoned where pid > 0 { sweep(job, pid: pid) }
        if !abandoned.isEmpty { source.schedulerAbandoned(abandoned.map(\.0)) }
    }

    private func sweep(_ job: WorkerJob, pid: pid_t) {
        TemporaryFileSweeper.sweep(finals: [converter.outputDirectory.appendingPathComponent(job.output)], pid: pid)
    }

    private func retireExecutor() {
        guard let executor else { return }
        executor.shutdown()
        retiredStats = (retiredStats.started + executor.workersStarted, max(retiredStats.peak, executor.peakWorkerRSSKiB),
                        max(retiredStats.peakTotal, executor.peakTotalWorkerRSSKiB))
        self.executor = nil
    }

    /// Sleeps up to `seconds`, or until one of `wakeOn` is readable.
    static func sleep(seconds: Double, wakeOn: [Int32]) {
        var fds = wakeOn.filter { $0 >= 0 }.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        _ = poll(&fds, nfds_t(fds.count), Int32((max(0, seconds) * 1000).rounded(.up)))
    }
}
