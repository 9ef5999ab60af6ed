import CShims
import Foundation

/// SIGHUP for a watch: it reads the recipe again. The handler only counts and writes a byte to a pipe the
/// scheduler polls (SIGTERM and SIGINT are the `JobScheduler`'s).
final class HangupSignal {
    private let readFD: Int32
    private let writeFD: Int32
    private var seen = 0

    init() {
        var fds: [Int32] = [-1, -1]
        if lw_batch_pipe(&fds, O_CLOEXEC | O_NONBLOCK) != 0 { fds = [-1, -1] }
        readFD = fds[0]
        writeFD = fds[1]
        _ = lw_watch_hangup_install(writeFD)
    }

    /// Readable when a SIGHUP arrived.
    var wakeFD: Int32 { readFD }

    /// Whether a SIGHUP arrived since the last call (empties the pipe).
    func take() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 64)
        while readFD >= 0, read(readFD, &buffer, buffer.count) > 0 {}
        let count = Int(lw_watch_hangup_count())
        defer { seen = count }
        return count > seen
    }

    func restore() {
        lw_watch_hangup_restore()
        if readFD >= 0 { close(readFD) }
        if writeFD >= 0 { close(writeFD) }
    }
}
