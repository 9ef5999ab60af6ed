import Foundation

/// Where a `JobScheduler` runs its jobs: in worker processes (`WorkerPool`, crash-isolated, with time limits)
/// or in this process (`InProcessExecutor`, `--no-isolation`). Events use `WorkerPool.Event` for both.
protocol JobExecutor: AnyObject {
    /// Jobs that may be in flight at once.
    var capacity: Int { get }
    var inFlight: Int { get }
    /// Bytes the memory budget charged for the jobs in flight.
    var inFlightEstimate: Int { get }
    /// Starts `job` (charged `estimate` bytes); returns the events it ended with at once (a job run here, or
    /// a worker that could not be started or reached).
    func start(_ job: WorkerJob, estimate: Int) -> [WorkerPool.Event]
    /// Waits up to `seconds` for outcomes; returns early when one of `wakeOn` becomes readable.
    func wait(seconds: Double, wakeOn: [Int32]) -> [WorkerPool.Event]
    /// Stops every job in flight (killing its worker) and returns the jobs with the pids that wrote their temporaries.
    func abandonAll() -> [(WorkerJob, pid_t)]
    /// Lets idle workers exit and reaps every worker.
    func shutdown()
    /// Worker processes started, the largest worker's peak RSS, and the largest sum of the workers' peaks (KiB).
    var workersStarted: Int { get }
    var peakWorkerRSSKiB: Int { get }
    var peakTotalWorkerRSSKiB: Int { get }
}

extension WorkerPool: JobExecutor {
    var capacity: Int { size }
    var workersStarted: Int { started }

    func start(_ job: WorkerJob, estimate: Int) -> [Event] {
        dispatch(job, estimate: estimate).map { [$0] } ?? []
    }

    func wait(seconds: Double, wakeOn: [Int32]) -> [Event] {
        wait(seconds: seconds, wakeFD: -1, alsoWakeOn: wakeOn)
    }
}

/// Converts each job in this process as it starts (`--no-isolation`): one at a time, no time limit, and a
/// decoder crash ends the run. Its outcome comes back from `start`, so nothing is ever in flight between turns.
final class InProcessExecutor: JobExecutor {
    let converter: FileConverter

    init(converter: FileConverter) { self.converter = converter }

    var capacity: Int { 1 }
    var inFlight: Int { 0 }
    var inFlightEstimate: Int { 0 }
    var workersStarted: Int { 0 }
    var peakWorkerRSSKiB: Int { 0 }
    var peakTotalWorkerRSSKiB: Int { 0 }

    func start(_ job: WorkerJob, estimate: Int) -> [WorkerPool.Event] {
        [.finished(job, BatchJob.perform(job, converter: converter))]
    }

    func wait(seconds: Double, wakeOn: [Int32]) -> [WorkerPool.Event] {
        JobScheduler.sleep(seconds: seconds, wakeOn: wakeOn)
        return []
    }

    func abandonAll() -> [(WorkerJob, pid_t)] { [] }
    func shutdown() {}
}
