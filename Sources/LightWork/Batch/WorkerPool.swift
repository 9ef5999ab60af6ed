import Foundation

/// Up to `size` worker processes, each converting one file at a time. A worker that dies (a decoder's
/// SIGSEGV) or overruns the time limit costs only its file: the pool reports it lost and starts a fresh
/// worker for the next job. Workers are replaced after `recycleAfter` files so memory cannot creep.
package final class WorkerPool {
    enum Event {
        case finished(WorkerJob, Manifest.Entry)
        /// The worker died or was stopped with this job in flight, for `error`; `signal` is the one that ended it
        /// (when one did), `pid` names its temporary files.
        case lost(WorkerJob, LightWorkError, signal: Int32?, pid: pid_t)
    }

    let launch: WorkerLaunch
    /// Every worker's first message: the spec its files are converted to.
    let start: WorkerStart
    let size: Int
    /// Seconds one file may take; nil for no limit.
    let timeout: Double?
    let recycleAfter: Int
    private var workers: [WorkerProcess] = []
    /// Largest peak RSS any worker reported, and the largest sum of the workers' peaks at one time.
    private(set) var peakWorkerRSSKiB = 0
    private(set) var peakTotalWorkerRSSKiB = 0
    /// Processes started so far.
    private(set) var started = 0

    /// A process started before planning, adopted as the first worker when it suits `launch`.
    private let reserve: WorkerReserve?

    init(launch: WorkerLaunch, spec: ConvertSpec, size: Int, timeout: Double?, recycleAfter: Int, reserve: WorkerReserve? = nil) {
        self.launch = launch
        self.reserve = reserve
        start = launch.start(spec)
        self.size = max(1, size)
        self.timeout = timeout
        self.recycleAfter = max(1, recycleAfter)
        signal(SIGPIPE, SIG_IGN)    // a dead worker's pipe must give EPIPE, not end the parent
    }

    var busy: [WorkerProcess] { workers.filter { $0.job != nil } }
    var inFlight: Int { workers.filter { $0.job != nil }.count }
    var inFlightEstimate: Int { workers.reduce(0) { $0 + ($1.job == nil ? 0 : $1.jobEstimate) } }
    var canDispatch: Bool { inFlight < size }
    /// The workers' reply pipes (readable when a reply or a death waits), for a loop that polls this pool beside another.
    var replyDescriptors: [Int32] { workers.map(\.output) }

    /// Sends `job` to an idle worker, starting one when needed. A failure to start or reach a worker
    /// comes back as a `lost` event so the file is recorded.
    func dispatch(_ job: WorkerJob, estimate: Int) -> Event? {
        for attempt in 0..<2 {
            let worker: WorkerProcess
            if let idle = workers.first(where: { $0.job == nil }) {
                worker = idle
            } else {
                do {
                    if let spare = reserve?.take(for: launch) {
                        try spare.begin(start)
                        worker = spare
                    } else {
                        worker = try WorkerProcess(launch: launch, start: start)
                    }
                } catch {
                    return .lost(job, WorkerPool.failure(error), signal: nil, pid: 0)
                }
                workers.append(worker)
                started += 1
            }
            do {
                try worker.send(job)
                worker.jobEstimate = estimate
                return nil
            } catch {
                // The idle worker had died (its pipe is closed): reap it and try a fresh one once.
                worker.job = nil
                retire(worker, kill: true)
                if attempt == 1 { return .lost(job, WorkerPool.failure(error), signal: nil, pid: worker.pid) }
            }
        }
        return nil
    }

    /// Waits up to `seconds` for replies, deaths or time-outs; also returns when `wakeFD` (or one of
    /// `alsoWakeOn`, e.g. a folder watch's inotify descriptor) becomes readable.
    func wait(seconds: Double, wakeFD: Int32, alsoWakeOn: [Int32] = []) -> [Event] {
        var events: [Event] = []
        var fds = workers.map { pollfd(fd: $0.output, events: Int16(POLLIN), revents: 0) }
        for fd in [wakeFD] + alsoWakeOn where fd >= 0 { fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0)) }
        var wait = seconds
        if let timeout {
            let now = DispatchTime.now().uptimeNanoseconds
            for w in busy {
                let left = timeout - Double(now - w.jobStarted.uptimeNanoseconds) / 1e9
                wait = min(wait, max(0, left))
            }
        }
        _ = poll(&fds, nfds_t(fds.count), Int32((wait * 1000).rounded(.up)))

        for (i, worker) in workers.enumerated() where fds[i].revents != 0 {
            for line in worker.readLines() {
                guard let job = worker.job, let reply = try? WorkerLine.decode(WorkerReply.self, from: line), reply.index == job.index else {
                    continue    // not a reply to the job in flight: ignore
                }
                worker.job = nil
                worker.filesDone += 1
                worker.maxRSSKiB = WorkerPool.acceptedRSS(reply.maxRSSKiB, previous: worker.maxRSSKiB)
                events.append(.finished(job, reply.entry))
            }
        }
        peakWorkerRSSKiB = max(peakWorkerRSSKiB, workers.map(\.maxRSSKiB).max() ?? 0)
        peakTotalWorkerRSSKiB = max(peakTotalWorkerRSSKiB, WorkerPool.summedRSS(workers.map(\.maxRSSKiB)))

        let now = DispatchTime.now().uptimeNanoseconds
        for worker in workers {
            if worker.atEnd {
                let job = worker.job
                worker.job = nil
                let end = retire(worker, kill: false)
                if let job {
                    var signal: Int32?
                    if case .signaled(let s) = end { signal = s }
                    events.append(.lost(job, WorkerPool.failure(end), signal: signal, pid: worker.pid))
                }
            } else if let job = worker.job, let timeout, Double(now - worker.jobStarted.uptimeNanoseconds) / 1e9 >= timeout {
                worker.job = nil
                retire(worker, kill: true)
                events.append(.lost(job, .workerTimedOut(seconds: timeout), signal: nil, pid: worker.pid))
            } else if worker.job == nil, worker.filesDone >= recycleAfter {
                retire(worker, kill: false)
            }
        }
        return events
    }

    /// Kills every worker with a job in flight and returns those jobs with the workers' pids (interruption).
    func abandonAll() -> [(WorkerJob, pid_t)] {
        var out: [(WorkerJob, pid_t)] = []
        for worker in workers where worker.job != nil {
            out.append((worker.job!, worker.pid))
            worker.job = nil
            retire(worker, kill: true)
        }
        return out
    }

    /// Lets idle workers exit (EOF on their stdin) and reaps every worker.
    func shutdown() {
        reserve?.discard()
        for worker in workers { worker.closeInput() }
        for worker in workers { retire(worker, kill: worker.job != nil) }
    }

    @discardableResult
    private func retire(_ worker: WorkerProcess, kill: Bool) -> WorkerTermination {
        if kill { worker.kill() }
        let end = worker.wait()
        workers.removeAll { $0 === worker }
        return end
    }

    /// A worker's reported peak memory as the parent keeps it: the reply comes from a process that may be
    /// running a crafted file, so a negative or absurd figure is clamped (1 PiB) rather than trusted.
    package static func acceptedRSS(_ reported: Int, previous: Int) -> Int {
        max(previous, min(max(reported, 0), 1 << 40))
    }

    /// The workers' peaks summed without overflow (a sum past Int.max is kept at Int.max).
    package static func summedRSS(_ values: [Int]) -> Int {
        values.reduce(0) { total, v in
            let (sum, overflow) = total.addingReportingOverflow(max(v, 0))
            return overflow ? Int.max : sum
        }
    }

    /// The failure recorded for a file whose worker ended under it.
    static func failure(_ end: WorkerTermination) -> LightWorkError {
        switch end {
        case .signaled(SIGKILL):
            return .workerCrashed(SignalName.describe(SIGKILL) + ": killed from outside, often by the out-of-memory killer (try a lower --jobs or --max-memory)")
        case .signaled(let s):
            return .workerCrashed(SignalName.describe(s))
        case .exited(let code):
            return .workerCrashed("the worker process exited with status \(code) while converting this file")
        }
    }

    /// The failure recorded for a file whose worker could not be started or reached (`WorkerProcess` throws these).
    static func failure(_ error: Error) -> LightWorkError {
        error as? LightWorkError ?? .workerCrashed("\(error)")
    }
}
