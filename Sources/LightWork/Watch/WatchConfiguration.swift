import Foundation

/// How a folder watch runs: where it looks, how it decides a file is complete, what it does with originals,
/// and the batch engine's settings (jobs, worker isolation, time limit, memory budget) it converts with.
public struct WatchConfiguration: Sendable {
    /// The hot folder (watched with its subfolders, including those created later).
    public var inbox: URL
    /// The manifest; the journal and the status file sit beside it.
    public var manifestURL: URL
    /// Workers, time limit, memory budget (`shard` and `force` do not apply to a watch).
    public var batch: BatchConfiguration
    /// Output names and collisions (`--name`, `--on-exist`) and `--include`/`--exclude`; RAW+JPEG pairing does
    /// not apply (files arrive one by one).
    public var rules: PlanRules
    /// Seconds a file's size and mtime must stay unchanged after its last write, close or look.
    public var settle: Double = 2
    /// Seconds a structurally incomplete file (a JPEG without its end marker, a DNG whose strips lie past its
    /// end) is waited for after its last change before it is converted anyway (and fails as truncated).
    public var giveUp: Double = 60
    /// Look at the tree every this many seconds instead of using inotify (network shares); nil: inotify.
    public var poll: Double?
    /// Skip a file whose content was already converted under another name (recorded as skipped with a note).
    public var dedupe = true
    /// At start, try again the files the journal records failed whose originals are still in the inbox (`--retry-failed`);
    /// without it a failed file is tried again only when it is written again.
    public var retryFailed = false
    /// Move originals here after conversion (mirroring their folders); nil leaves them in place.
    public var archive: URL?
    /// Move originals that failed here, each with a `.error.txt` note; nil leaves them in place.
    public var failed: URL?
    /// Seconds between heartbeat events (nil: none).
    public var heartbeat: Double? = 60
    /// At most this many files are tracked (settling or queued) at once; beyond it new arrivals are picked up
    /// by a rescan of the tree once the queue has drained to half (bounded memory for any burst).
    public var queueLimit = 10_000
    /// Convert what is in the inbox, then exit instead of watching (cron jobs, tests).
    public var once = false

    public init(inbox: URL, manifestURL: URL, batch: BatchConfiguration, rules: PlanRules) {
        self.inbox = inbox
        self.manifestURL = manifestURL
        self.batch = batch
        self.rules = rules
    }

    /// The journal that makes the watch exactly-once across restarts.
    public var journalURL: URL { manifestURL.deletingLastPathComponent().appendingPathComponent("watch-journal.jsonl") }
    public var statusURL: URL { WatchStatus.url(besideManifest: manifestURL) }
}
