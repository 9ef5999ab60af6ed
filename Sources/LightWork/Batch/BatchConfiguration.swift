import Foundation

/// How a batch or a watch runs its files (the `JobScheduler`'s settings), as opposed to what it produces
/// (`ConvertSpec`): none of this changes output bytes, so none of it is in the settings digest.
public struct BatchConfiguration: Sendable {
    /// Where files are converted.
    public enum Isolation: Sendable {
        /// In this process, one at a time (`--no-isolation`, for debugging; a decoder crash ends the run).
        case inProcess
        /// In worker processes started with this launch description (the default, even for one job).
        case workers(WorkerLaunch)
    }

    public var isolation: Isolation = .inProcess
    /// Files in flight at once (`--jobs`).
    public var jobs = 1
    /// Seconds one file may take before its worker is stopped and the file fails (`--timeout`); nil for none.
    public var timeout: Double? = 300
    /// Bytes the files in flight may take together (`--max-memory`); nil for no limit.
    public var memoryBudget: MemoryBudget?
    /// Address space each worker process may take (`--worker-memory`, RLIMIT_AS); nil for none. A file that
    /// needs more fails in its worker (allocation refused) instead of taking the machine's memory.
    public var workerMemoryLimit: Int?
    /// Convert everything even when the previous manifest shows complete outputs (`--force`).
    public var force = false
    /// Re-hash every input and output a previous run recorded before skipping it (`--verify`), instead of
    /// trusting an unchanged size, mtime and inode.
    public var verify = false
    /// A worker is replaced after this many files, so no leak can grow without bound.
    public var recycleAfter = 50
    /// Convert only this slice of the inputs (`--shard K/N`).
    public var shard: Shard?
    /// After SIGINT/SIGTERM, seconds files in flight may take to finish before they are abandoned
    /// (a second signal abandons them at once).
    public var gracePeriod: Double = 20
    /// Install SIGINT/SIGTERM handlers for the run (the command does; library callers may not want them).
    public var handleSignals = false

    public init() {}
}
