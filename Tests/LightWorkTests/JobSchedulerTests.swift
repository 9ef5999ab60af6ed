import Foundation
import XCTest
@testable import LightWork

/// The one scheduler batch and watch share: order, the memory gate, the grace period, signals, abandoning,
/// and errors from its client. Real conversions run through the in-process executor; the gate and the grace
/// period use a held executor whose jobs finish only when the test lets them (no worker, no hook).
final class JobSchedulerTests: XCTestCase {
    /// A queue of jobs that records what the scheduler did with them.
    final class Queue: JobSource {
        var pending: [WorkerJob]
        var started: [Int] = []
        var finished: [(job: WorkerJob, entry: Manifest.Entry, lost: Bool)] = []
        var stopping: [(JobScheduler.StopCause, Int)] = []
        var abandoned: [Int] = []
        var onTake: (WorkerJob) -> Void = { _ in }
        var onFinish: (WorkerJob) throws -> Void = { _ in }
        var onTurn: () throws -> Void = {}

        init(_ jobs: [WorkerJob]) { pending = jobs }

        func beginTurn(now: Double) throws { try onTurn() }
        func nextInput() -> URL? { pending.first?.item.url }
        func takeJob() throws -> WorkerJob? {
            let job = pending.removeFirst()
            started.append(job.index)
            onTake(job)
            return job
        }
        var isExhausted: Bool { pending.isEmpty }
        func jobFinished(_ job: WorkerJob, entry: Manifest.Entry, lost: Bool) throws {
            finished.append((job, entry, lost))
            try onFinish(job)
        }
        func schedulerStopping(_ cause: JobScheduler.StopCause, inFlight: Int) { stopping.append((cause, inFlight)) }
        func schedulerAbandoned(_ jobs: [WorkerJob]) { abandoned += jobs.map(\.index) }
    }

    /// Holds every job in flight until `finishAfter` seconds have passed since it started (nil: never), and
    /// records the largest number and memory estimate in flight at once.
    final class HeldExecutor: JobExecutor {
        let capacity: Int
        let finishAfter: Double?
        let pid: pid_t
        private var held: [(job: WorkerJob, estimate: Int, started: Double)] = []
        private(set) var maxInFlight = 0
        private(set) var maxEstimate = 0
        private(set) var shutDown = false

        init(capacity: Int, finishAfter: Double?, pid: pid_t = 0) {
            self.capacity = capacity
            self.finishAfter = finishAfter
            self.pid = pid
        }

        var inFlight: Int { held.count }
        var inFlightEstimate: Int { held.reduce(0) { $0 + $1.estimate } }
        var workersStarted: Int { 0 }
        var peakWorkerRSSKiB: Int { 0 }
        var peakTotalWorkerRSSKiB: Int { 0 }

        func start(_ job: WorkerJob, estimate: Int) -> [WorkerPool.Event] {
            held.append((job, estimate, JobScheduler.clock()))
            maxInFlight = max(maxInFlight, held.count)
            maxEstimate = max(maxEstimate, inFlightEstimate)
            return []
        }

        func wait(seconds: Double, wakeOn: [Int32]) -> [WorkerPool.Event] {
            JobScheduler.sleep(seconds: min(seconds, 0.01), wakeOn: wakeOn)
            guard let finishAfter else { return [] }
            let now = JobScheduler.clock()
            let done = held.filter { now - $0.started >= finishAfter }
            held.removeAll { now - $0.started >= finishAfter }
            return done.map { .finished($0.job, Manifest.Entry(input: Manifest.Input(path: $0.job.path, relativePath: $0.job.relativePath),
                                                                status: .converted)) }
        }

        func abandonAll() -> [(WorkerJob, pid_t)] {
            defer { held = [] }
            return held.map { ($0.job, pid) }
        }

        func shutdown() { shutDown = true }
    }

    private func jobs(_ urls: [URL]) -> [WorkerJob] {
        urls.enumerated().map { i, url in
            WorkerJob(index: i + 1, item: InputItem(url: url, displayPath: url.path, relativePath: url.lastPathComponent),
                      output: url.deletingPathExtension().lastPathComponent + ".tif", previous: nil)
        }
    }

    /// In this process: every job runs once, in queue order, its outcome delivered before the next starts.
    func testInProcessRunsEveryJobOnceInOrder() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        var urls: [URL] = []
        for i in 1...3 {
            let url = dir.appendingPathComponent("gen-\(i).dng")
            try BatchFixture.makeDNG(url, seed: 40 + i)
            urls.append(url)
        }
        urls.insert(dir.appendingPathComponent("missing.dng"), at: 1)
        let out = dir.appendingPathComponent("out")
        var config = BatchConfiguration()
        config.isolation = .inProcess
        config.memoryBudget = MemoryBudget(limit: 1 << 20)    // one slot: the gate never holds a file back
        let scheduler = JobScheduler(configuration: config, converter: (try FileConverter(spec: ConvertSpec(outputDirectory: out))))
        let queue = Queue(jobs(urls))
        var finishedBeforeStart: [Int] = []
        queue.onTake = { _ in finishedBeforeStart.append(queue.finished.count) }
        XCTAssertEqual(try scheduler.run(queue), .completed)
        XCTAssertEqual(queue.started, [1, 2, 3, 4])
        XCTAssertEqual(finishedBeforeStart, [0, 1, 2, 3], "each outcome arrives before the next job starts")
        XCTAssertEqual(queue.finished.map(\.job.index), [1, 2, 3, 4])
        XCTAssertEqual(queue.finished.map(\.entry.status), [.converted, .failed, .converted, .converted])
        XCTAssertEqual(queue.finished[1].entry.failureKind, .missingInput)
        XCTAssertFalse(queue.finished.contains { $0.lost })
        for name in ["gen-1.tif", "gen-2.tif", "gen-3.tif"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: out.appendingPathComponent(name).path), name)
        }
        XCTAssertEqual(scheduler.workersStarted, 0)
    }

    /// Files whose estimates (header probe, else one pixel per byte) add up past the budget wait; one file
    /// over the whole budget still runs, alone.
    func testMemoryGateKeepsTheEstimatesInFlightUnderTheBudget() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        var urls: [URL] = []
        for i in 1...6 {
            let url = dir.appendingPathComponent("junk-\(i).nef")
            try Data(repeating: 0x49, count: 4 << 20).write(to: url)   // no header the probe reads: 4 Mi "pixels"
            urls.append(url)
        }
        let big = dir.appendingPathComponent("big.nef")
        try Data(repeating: 0x49, count: 16 << 20).write(to: big)
        urls.append(big)
        let each = MemoryBudget.estimate(for: urls[0])
        XCTAssertEqual(each, MemoryBudget.baseBytes + (4 << 20) * (1 + MemoryBudget.bytesPerPixel))
        var config = BatchConfiguration()
        config.memoryBudget = MemoryBudget(limit: each * 5 / 2)
        let executor = HeldExecutor(capacity: 4, finishAfter: 0.05)
        let scheduler = JobScheduler(configuration: config, converter: (try FileConverter(spec: ConvertSpec(outputDirectory: dir)))) { _ in executor }
        let queue = Queue(jobs(urls))
        var inFlightAtBigStart = -1
        queue.onTake = { job in if job.path == big.path { inFlightAtBigStart = executor.inFlight } }
        let start = JobScheduler.clock()
        XCTAssertEqual(try scheduler.run(queue), .completed)
        print(String(format: "memory gate: estimate %.1f MiB per file, budget %.1f MiB, at most %d of 4 slots in flight, %.2f s",
                     Double(each) / 1048576, Double(config.memoryBudget!.limit) / 1048576, executor.maxInFlight, JobScheduler.clock() - start))
        XCTAssertEqual(executor.maxInFlight, 2, "two fit in 2.5 estimates, three do not")
        XCTAssertEqual(inFlightAtBigStart, 0, "a file over the whole budget starts only once nothing else is in flight")
        XCTAssertGreaterThan(executor.maxEstimate, config.memoryBudget!.limit, "…and is still started")
        XCTAssertEqual(queue.started, Array(1...7), "the gate holds the queue's order")
        XCTAssertEqual(queue.finished.count, 7)
        XCTAssertTrue(executor.shutDown)
    }

    /// A stop (a full disk) takes no more jobs; jobs in flight get the grace period, then are abandoned: no
    /// outcome, and the temporaries of the worker that wrote them (only its own) are removed.
    func testStopWaitsTheGracePeriodThenAbandonsAndSweeps() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let urls = (1...4).map { dir.appendingPathComponent("in-\($0).dng") }
        let worker: pid_t = 4_000_001, other: pid_t = 4_000_002
        let mine = dir.appendingPathComponent(".in-1.tif.lwtmp-\(worker)-1"), theirs = dir.appendingPathComponent(".in-1.tif.lwtmp-\(other)-1")
        for url in [mine, theirs] { try Data("partial".utf8).write(to: url) }
        var config = BatchConfiguration()
        config.gracePeriod = 0.3
        let executor = HeldExecutor(capacity: 2, finishAfter: nil, pid: worker)
        let scheduler = JobScheduler(configuration: config, converter: (try FileConverter(spec: ConvertSpec(outputDirectory: dir)))) { _ in executor }
        let queue = Queue(jobs(urls))
        queue.onTake = { job in if job.index == 2 { scheduler.requestStop() } }
        let start = JobScheduler.clock()
        XCTAssertEqual(try scheduler.run(queue), .stopped)
        let elapsed = JobScheduler.clock() - start
        print(String(format: "grace period 0.3 s: abandoned after %.3f s", elapsed))
        XCTAssertEqual(queue.started, [1, 2], "nothing starts after the stop")
        XCTAssertEqual(queue.stopping.map(\.0), [.requested])
        XCTAssertEqual(queue.abandoned, [1, 2])
        XCTAssertTrue(queue.finished.isEmpty)
        XCTAssertGreaterThanOrEqual(elapsed, 0.3)
        XCTAssertLessThan(elapsed, 1.0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: mine.path), "the abandoned worker's temporary is removed")
        XCTAssertTrue(FileManager.default.fileExists(atPath: theirs.path), "another process's temporary stays")
    }

    /// SIGTERM: jobs in flight may finish (they do here, within the grace period); a second signal abandons them
    /// at once. The handlers are the scheduler's and are restored when the run ends.
    func testSignalsStopAndASecondSignalAbandons() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let urls = (1...4).map { dir.appendingPathComponent("in-\($0).dng") }
        for signals in [1, 2] {
            var config = BatchConfiguration()
            config.handleSignals = true
            config.isolation = .workers(WorkerLaunch(executable: "/bin/false", arguments: []))
            config.gracePeriod = 30
            let executor = HeldExecutor(capacity: 2, finishAfter: signals == 1 ? 0.2 : nil)
            let scheduler = JobScheduler(configuration: config, converter: (try FileConverter(spec: ConvertSpec(outputDirectory: dir)))) { _ in executor }
            let queue = Queue(jobs(urls))
            queue.onTake = { job in if job.index == 2 { kill(getpid(), SIGTERM) } }
            // The second signal only once the first was seen: two pending signals would merge into one.
            var sentSecond = false
            queue.onTurn = {
                if signals == 2, !queue.stopping.isEmpty, !sentSecond { sentSecond = true; kill(getpid(), SIGTERM) }
            }
            let start = JobScheduler.clock()
            XCTAssertEqual(try scheduler.run(queue), .interrupted(signal: SIGTERM))
            let elapsed = JobScheduler.clock() - start
            print(String(format: "%d SIGTERM: run ended after %.3f s", signals, elapsed))
            XCTAssertEqual(queue.started, [1, 2])
            XCTAssertEqual(queue.stopping.map(\.0), [.signal(SIGTERM)])
            XCTAssertEqual(queue.stopping.first?.1, 2, "two jobs were in flight")
            if signals == 1 {
                XCTAssertEqual(queue.finished.map(\.job.index), [1, 2], "jobs in flight finish within the grace period")
                XCTAssertTrue(queue.abandoned.isEmpty)
            } else {
                XCTAssertEqual(queue.abandoned, [1, 2])
                XCTAssertTrue(queue.finished.isEmpty)
            }
            XCTAssertLessThan(elapsed, 5, "well within the 30 s grace period")
        }
        var action = sigaction()
        sigaction(SIGTERM, nil, &action)
        XCTAssertNil(action.__sigaction_handler.sa_handler, "SIG_DFL again")
    }

    struct Broken: Error, Equatable {}

    /// An error recording an outcome stops the run as a stop does (jobs in flight finish) and is rethrown; an
    /// error at the start of a turn (the inbox is gone) ends it at once, abandoning what is in flight.
    func testErrorsFromTheSourceStopTheRunAndAreRethrown() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let urls = (1...4).map { dir.appendingPathComponent("in-\($0).dng") }
        var config = BatchConfiguration()
        config.gracePeriod = 5
        let converter = (try FileConverter(spec: ConvertSpec(outputDirectory: dir)))

        let finishing = HeldExecutor(capacity: 2, finishAfter: 0.05)
        let recording = Queue(jobs(urls))
        recording.onFinish = { job in if job.index == 1 { throw Broken() } }
        XCTAssertThrowsError(try JobScheduler(configuration: config, converter: converter) { _ in finishing }.run(recording)) {
            XCTAssertEqual($0 as? Broken, Broken())
        }
        XCTAssertEqual(recording.stopping.map(\.0), [.failed])
        XCTAssertEqual(recording.finished.map(\.job.index), [1, 2], "the job in flight beside it still finished")
        XCTAssertEqual(recording.started, [1, 2])

        let hanging = HeldExecutor(capacity: 2, finishAfter: nil)
        let turning = Queue(jobs(urls))
        turning.onTurn = { if !turning.started.isEmpty { throw Broken() } }
        let start = JobScheduler.clock()
        XCTAssertThrowsError(try JobScheduler(configuration: config, converter: converter) { _ in hanging }.run(turning))
        XCTAssertLessThan(JobScheduler.clock() - start, 1, "no grace period")
        XCTAssertEqual(turning.abandoned, [1, 2])
    }
    /// The watch on the in-process executor (`--no-isolation`): `--once` converts the inbox and stops; a restart
    /// with another look converts nothing again, and its manifest notes that both entries have other settings.
    func testWatchOnceConvertsTheInboxInThisProcess() throws {
        let f = try WatchFixture(self)
        for url in try f.makeDNGs(2) { try f.drop(url) }
        let base = ["watch", f.inbox.path, "-o", f.out.path, "--once", "--no-isolation", "--settle", "0.2", "--heartbeat", "0"]
        let first = try CLIRunner.run(base)
        XCTAssertEqual(first.status, 0, first.stderr)
        let m1 = try XCTUnwrap(f.manifest())
        XCTAssertEqual(m1.summary, Manifest.Summary(total: 2, converted: 2, skipped: 0, failed: 0))
        XCTAssertEqual(m1.entries.map(\.input.relativePath), ["f1.dng", "f2.dng"])
        XCTAssertTrue(m1.entries.allSatisfy { $0.notes.allSatisfy { !$0.contains("other settings") } })
        XCTAssertEqual(try WatchStatus.read(f.statusURL).state, .stopped)

        let second = try CLIRunner.run(base + ["--set", "contrast=20"])
        XCTAssertEqual(second.status, 0, second.stderr)
        let m2 = try XCTUnwrap(f.manifest())
        XCTAssertNotEqual(m2.settingsDigest, m1.settingsDigest)
        XCTAssertEqual(m2.entries.map(\.output?.sha256), m1.entries.map(\.output?.sha256), "nothing converted again")
        let note = "converted with other settings (settings digest \(m1.settingsDigest.prefix(16))…; the recipe was changed since)"
        XCTAssertEqual(m2.entries.map { $0.notes.filter { $0.contains("other settings") } }, [[note], [note]])
    }
}
