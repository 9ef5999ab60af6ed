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

    /// A file the watch finished, as the studio monitor shows it (newest last in `recent`).
    public struct Frame: Codable, Sendable, Equatable {
        /// The file's number in the journal and manifest (`input.index`).
        public var index: Int
        public var input: String
        public var output: String?
        public var status: Manifest.Status
        public var reason: String?
        /// The preview JPEG, relative to the output folder (`--serve` only), nil when none was made.
        public var preview: String?
        /// The same development without the look (`PreviewImage.beforeURL`), nil when the file had no look.
        public var before: String?
        public var camera: String?
        public var exposure: String?
        /// The look it was converted with: recipe, film and strength (`WatchStatus.lookLabel`).
        public var look: String
        public var seconds: Double?
        public var at: String
        /// A re-develop's number (`NNNNNN-rK.jpg` is its preview); nil for the file as the inbox brought it.
        public var redevelopment: Int?
    }

    /// The look files that start now get, as the monitor's and `watch --status`'s one line.
    public static func lookLabel(_ settings: ResolvedSettings) -> String {
        var parts: [String] = [settings.recipeName ?? "no recipe"]
        if let film = settings.film {
            parts.append(film + (settings.strength.map { String(format: " at %g %%", $0) } ?? ""))
        }
        return parts.joined(separator: " · ")
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
    /// The film strength in use (percent), nil without a film or LUT.
    public var strength: Double?
    /// `lookLabel` of the settings in use.
    public var look: String?
    /// A look asked for (by the monitor) that applies once the files in flight are done; nil when none waits.
    public var nextLook: String?
    /// The latest finished files (at most `recentLimit`), newest last: the monitor's picture and filmstrip
    /// (optional, so `watch --status` still reads a status file an older LightWork wrote).
    public var recent: [Frame]?
    /// Files finished per minute over the last five minutes (nil before two have finished).
    public var perMinute: Double?
    /// Seconds until what is waiting, queued and converting is done at that rate (nil when unknown or empty).
    public var secondsToEmpty: Double?
    /// The studio monitor's address (`--serve`), nil when not serving.
    public var monitor: String?
    /// Set by `lightwork serve` on the status it serves, never by the watch: why the page is read-only (no watch
    /// runs), nil while the watch runs.
    public var servedNotice: String?
    /// Set by `lightwork serve`: look changes it handed to the watch (`requests/`) that the watch has not taken yet.
    public var handedLook: String?
    /// Re-develops asked for on the monitor that wait or convert (nil: none).
    public var redeveloping: Int?

    /// At most this many frames in `recent`.
    public static let recentLimit = 30

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
