import Foundation

/// Terminal output: one live progress line on a terminal (never interleaved with error lines, which clear
/// it first), plain lines otherwise, JSON events with --json. Errors go to stderr, results to stdout.
final class Console: @unchecked Sendable {
    enum Mode { case normal, quiet, verbose }
    let mode: Mode
    let json: Bool
    private let isTerminal = isatty(STDERR_FILENO) == 1
    private var liveLine = false
    private var lastDraw: UInt64 = 0
    private let lock = NSLock()

    init(mode: Mode, json: Bool) {
        self.mode = mode
        self.json = json
    }

    /// An error line: "lightwork: <path>: <reason>".
    func error(_ text: String) {
        lock.lock(); defer { lock.unlock() }
        clearLive()
        FileHandle.standardError.write(Data("lightwork: \(text)\n".utf8))
    }

    /// An informational line (suppressed by --quiet and --json).
    func info(_ text: String) {
        guard mode != .quiet, !json else { return }
        lock.lock(); defer { lock.unlock() }
        clearLive()
        FileHandle.standardError.write(Data("\(text)\n".utf8))
    }

    func verbose(_ text: String) { if mode == .verbose { info(text) } }

    /// Replaces the live progress line (terminal only); elsewhere nothing (per-file lines carry progress).
    /// Cut to the terminal's width (a wrapped line could not be cleared) and redrawn at most 10 times a second
    /// unless `force` (a new current file must show even when the previous one just finished).
    func progress(_ text: String, force: Bool = false) {
        guard isTerminal, mode != .quiet, !json else { return }
        lock.lock(); defer { lock.unlock() }
        let now = DispatchTime.now().uptimeNanoseconds
        if !force && liveLine && now &- lastDraw < 100_000_000 { return }
        lastDraw = now
        FileHandle.standardError.write(Data("\r\u{1B}[2K\(String(text.prefix(max(20, Console.columns() - 1))))".utf8))
        liveLine = true
    }

    /// The terminal's width (TIOCGWINSZ), else $COLUMNS, else 100.
    private static func columns() -> Int {
        var size = winsize()
        if ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return Int(ProcessInfo.processInfo.environment["COLUMNS"] ?? "") ?? 100
    }

    func endProgress() {
        lock.lock(); defer { lock.unlock() }
        clearLive()
    }

    /// One JSON event per line on stdout (for other programs).
    func event(_ fields: [String: Any]) {
        guard json, let data = try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys, .withoutEscapingSlashes]) else { return }
        lock.lock(); defer { lock.unlock() }
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }

    /// A result line on stdout (suppressed by --json).
    func result(_ text: String) {
        guard !json else { return }
        lock.lock(); defer { lock.unlock() }
        clearLive()
        FileHandle.standardOutput.write(Data("\(text)\n".utf8))
    }

    var showsPlainProgress: Bool { !isTerminal && mode != .quiet && !json }

    private func clearLive() {
        if liveLine { FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8)); liveLine = false }
    }
}
