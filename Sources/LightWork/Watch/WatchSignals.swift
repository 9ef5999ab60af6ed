import CShims
import Foundation

/// The signals a watch obeys: SIGTERM and SIGINT stop it (files in flight finish first; a second signal
/// abandons them), SIGHUP reloads the recipe. Handlers only count and write a byte to pipes the watch
/// loop polls.
final class WatchSignals {
    private let interrupts = InterruptSignals(hardStopOnSecond: false)
    private let hangupRead: Int32
    private let hangupWrite: Int32
    private var hangupsSeen = 0

    init() {
        var fds: [Int32] = [-1, -1]
        if lw_batch_pipe(&fds, O_CLOEXEC | O_NONBLOCK) != 0 { fds = [-1, -1] }
        hangupRead = fds[0]
        hangupWrite = fds[1]
        _ = lw_watch_hangup_install(hangupWrite)
    }

    /// Descriptors to poll: readable when a signal arrived.
    var wakeFDs: [Int32] { [interrupts.wakeFD, hangupRead].filter { $0 >= 0 } }

    /// SIGTERM or SIGINT received (the last one), nil when none.
    var stopSignal: Int32? { interrupts.signal }

    /// How many stop signals arrived (a second one abandons files in flight).
    var stopCount: Int { interrupts.count }

    /// Whether a SIGHUP arrived since the last call.
    func takeHangup() -> Bool {
        let count = Int(lw_watch_hangup_count())
        defer { hangupsSeen = count }
        return count > hangupsSeen
    }

    /// Empties the wake-up pipes.
    func drain() {
        interrupts.drain()
        var buffer = [UInt8](repeating: 0, count: 64)
        while hangupRead >= 0, read(hangupRead, &buffer, buffer.count) > 0 {}
    }

    func restore() {
        interrupts.restore()
        lw_watch_hangup_restore()
        if hangupRead >= 0 { close(hangupRead) }
        if hangupWrite >= 0 { close(hangupWrite) }
    }
}
