import Foundation

/// One worker process started before the batch is planned, so that its loading (the dynamic linker and the
/// libraries' initialisers, about 40 ms here) overlaps the parent's locking, ledger and planning instead of
/// following them. The pool adopts it for its first worker when it was started for the same launch; otherwise,
/// or when the run needs no worker, it is closed: it exits at EOF before any start message, having done nothing.
public final class WorkerReserve {
    /// Where the reserved process is.
    enum State: Equatable {
        /// Started and waiting for its start message.
        case holding(pid: pid_t)
        /// Handed to a pool as a worker.
        case adopted(pid: pid_t)
        /// Told to exit unused (started for another launch), not yet reaped.
        case closing(pid: pid_t)
        /// Closed unused and reaped, with how it ended.
        case closed(pid: pid_t, WorkerTermination)
        /// It could not be started (the pool meets and reports the same failure when it starts its own).
        case notStarted
    }

    private var spare: WorkerProcess?
    private let launch: WorkerLaunch
    private(set) var state: State

    /// Starts one process for `launch`.
    public init(launch: WorkerLaunch) {
        self.launch = launch
        spare = try? WorkerProcess(spawning: launch)
        state = spare.map { .holding(pid: $0.pid) } ?? .notStarted
    }

    /// The spare process when it was started for `launch` (the caller sends its start message), else nil. A spare
    /// started for another launch is told to exit (EOF) without waiting for it, which may still be loading: the pool's
    /// own worker starts meanwhile, and `discard` reaps the spare at the end of the run.
    func take(for launch: WorkerLaunch) -> WorkerProcess? {
        guard let process = spare, case .holding = state else { return nil }
        guard self.launch.startsSameProcess(as: launch) else {
            process.closeInput()
            state = .closing(pid: process.pid)
            return nil
        }
        spare = nil
        state = .adopted(pid: process.pid)
        return process
    }

    /// Closes the spare process's input and reaps it (it exits at EOF without a start message). Idempotent.
    public func discard() {
        guard let process = spare else { return }
        spare = nil
        state = .closed(pid: process.pid, process.wait())
    }

    deinit { discard() }
}
