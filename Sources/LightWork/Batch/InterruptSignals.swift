import CShims
import Foundation

/// SIGINT/SIGTERM during a batch or a watch: the handlers only record the signal and wake the `JobScheduler`'s
/// loop through a pipe it polls; the loop then stops dispatching and lets files in flight finish (or abandons
/// them after a grace period or a second signal), and its client writes the manifest.
final class InterruptSignals {
    /// Read end of the wake-up pipe (poll it for POLLIN).
    let wakeFD: Int32
    private let writeFD: Int32

    /// Installs the handlers. `hardStopOnSecond`: a second signal ends the process at once (used when
    /// files convert in this process, where a file in flight cannot be abandoned otherwise).
    init(hardStopOnSecond: Bool) {
        var fds: [Int32] = [-1, -1]
        if lw_batch_pipe(&fds, O_CLOEXEC | O_NONBLOCK) != 0 { fds = [-1, -1] }
        wakeFD = fds[0]
        writeFD = fds[1]
        _ = lw_batch_interrupts_install(writeFD, hardStopOnSecond ? 1 : 0)
    }

    /// The last signal received (SIGINT or SIGTERM), nil when none.
    var signal: Int32? {
        let s = lw_batch_interrupt_signal()
        return s == 0 ? nil : s
    }

    /// How many signals arrived (a second one abandons files in flight).
    var count: Int { Int(lw_batch_interrupt_count()) }

    /// Empties the wake-up pipe after a poll reported it readable.
    func drain() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while wakeFD >= 0, read(wakeFD, &buffer, buffer.count) > 0 {}
    }

    /// Restores the default actions and closes the pipe.
    func restore() {
        lw_batch_interrupts_restore()
        if wakeFD >= 0 { close(wakeFD) }
        if writeFD >= 0 { close(writeFD) }
    }
}

/// Names of the signals a worker can die of, for messages ("signal 11 (SIGSEGV)").
enum SignalName {
    static func describe(_ signal: Int32) -> String {
        let names: [Int32: String] = [
            SIGHUP: "SIGHUP", SIGINT: "SIGINT", SIGQUIT: "SIGQUIT", SIGILL: "SIGILL", SIGTRAP: "SIGTRAP",
            SIGABRT: "SIGABRT", SIGBUS: "SIGBUS", SIGFPE: "SIGFPE", SIGKILL: "SIGKILL", SIGSEGV: "SIGSEGV",
            SIGPIPE: "SIGPIPE", SIGALRM: "SIGALRM", SIGTERM: "SIGTERM", SIGXCPU: "SIGXCPU", SIGXFSZ: "SIGXFSZ",
            SIGSYS: "SIGSYS",
        ]
        return "signal \(signal)" + (names[signal].map { " (\($0))" } ?? "")
    }
}
