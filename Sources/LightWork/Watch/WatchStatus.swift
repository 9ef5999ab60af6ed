import Foundation

/// What a running watch is doing, rewritten atomically beside the manifest (`watch-status.json`) as it
/// changes (at most twice a second) and at every heartbeat: what is waiting for its writer to finish,
/// queued, converting, and how many files were converted, skipped and failed since the watch began
/// (across restarts). `lightwork watch --status OUTDIR` reads it.
public struct WatchStatus: Codable, Sendable, Equatable {
    public struct Failure: Codable, Sendable, Equatable {
        public var path: String
        public var reason: String
        public var at: String
    }

    public var schema = "lightwork-watch-status"
    public var pid: Int32
    public var inbox: String
    public var output: String
    public var manifest: String
    /// "inotify" or "poll every N s".
    public var mode: String
    public var startedAt: String
    public var updatedAt: String
    /// "running", "reloading" (a SIGHUP is waiting for files in flight), "stopping" or "stopped".
    public var state: WatchState
    /// The recipe's name and the film or LUT (the manifest's label) in use, nil for none.
    public var recipe: String?
    public var film: String?
    public var settingsDigest: String
    /// Files seen but still being written or settling.
    public var waiting = 0
    /// Files complete and waiting for a worker.
    public var queued = 0
    public var inProgress = 0
    public var converted = 0
    public var skipped = 0
    public var failed = 0
    public var waitingFiles: [String] = []
    public var queuedFiles: [String] = []
    public var inProgressFiles: [String] = []
    /// The latest failures (at most 20), newest last.
    public var recentFailures: [Failure] = []
    /// Seconds since the watch started.
    public var uptime = 0.0

    /// At most this many names per list (a burst of 5,000 files must not make the status file huge).
    public static let listLimit = 50

    public init(pid: Int32, inbox: String, output: String, manifest: String, mode: String, startedAt: String, state: WatchState,
                recipe: String?, film: String? = nil, settingsDigest: String) {
        self.pid = pid
        self.inbox = inbox
        self.output = output
        self.manifest = manifest
        self.mode = mode
        self.startedAt = startedAt
        updatedAt = startedAt
        self.state = state
        self.recipe = recipe
        self.film = film
        self.settingsDigest = settingsDigest
    }

    /// The status file beside a manifest.
    public static func url(besideManifest manifest: URL) -> URL {
        manifest.deletingLastPathComponent().appendingPathComponent("watch-status.json")
    }

    public func encoded() throws -> Data { try CanonicalJSON.encode(self) }

    public static func read(_ url: URL) throws -> WatchStatus {
        try JSONDecoder().decode(WatchStatus.self, from: Data(contentsOf: url))
    }

    /// Whether the process that wrote this status still runs (and is a lightwork process: pids are reused).
    public var processAlive: Bool {
        guard state != .stopped, kill(pid, 0) == 0 || errno == EPERM else { return false }
        guard let cmdline = try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline")) else { return true }
        return String(decoding: cmdline, as: UTF8.self).contains("lightwork")
    }
}
