import Foundation

/// The manifest of a run as batch and watch build it and keep it on disk: entries kept in input order with
/// their summary, the settings digest, and atomic saves throttled to a tenth of the time (a 10,000-entry
/// manifest is megabytes of JSON; a file not yet recorded is only redone, and a watch's journal is what its
/// restart trusts). The one place reading and writing manifests goes through.
public final class ManifestStore {
    public let url: URL
    /// The manifest as recorded (no notes about other settings; see `rendered`).
    public private(set) var manifest: Manifest
    /// Input index → the settings digest its entry was made with, where the client knows it (a watch's journal).
    private var digests: [Int: String] = [:]
    /// Seconds after which a pending change is saved however costly saving is (nil: only the tenth-of-the-time rule).
    private let maxStaleness: Double?
    public private(set) var hasUnsavedChanges = false
    private var lastSave = -Double.infinity
    private var lastSaveCost = 0.0

    /// A new manifest for a run with `settings`, to be saved at `url`.
    public init(url: URL, settings: ResolvedSettings, startedAt: Date = Date(), shard: Shard? = nil, maxStaleness: Double? = nil) {
        self.url = url
        self.maxStaleness = maxStaleness
        manifest = Manifest(tool: Manifest.ToolInfo(version: LightWorkVersion.current, libraries: LightWorkVersion.libraries),
                            settings: settings, host: ProcessInfo.processInfo.hostName, startedAt: startedAt)
        manifest.shard = shard.map { Manifest.ShardInfo(index: $0.index, count: $0.count) }
    }

    public var settingsDigest: String { manifest.settingsDigest }
    public var summary: Manifest.Summary { manifest.summary }

    /// The last entry recorded for input index `index`.
    public func entry(index: Int) -> Manifest.Entry? { manifest.entries.last { $0.input.index == index } }

    // MARK: - Recording

    /// Records `entry` in input order (whatever order files finish in); `settingsDigest` is the digest it was
    /// made with when that may differ from the current one (see `rendered`).
    public func insert(_ entry: Manifest.Entry, settingsDigest: String? = nil) {
        remember(entry, settingsDigest)
        manifest.insertInInputOrder(entry)
        hasUnsavedChanges = true
    }

    /// Adds entries read back from a journal, in its order.
    public func merge(replayed: [(entry: Manifest.Entry, settingsDigest: String?)]) {
        for (entry, digest) in replayed {
            remember(entry, digest)
            manifest.entries.append(entry)
        }
        manifest.updateSummary()
        hasUnsavedChanges = true
    }

    private func remember(_ entry: Manifest.Entry, _ digest: String?) {
        if let index = entry.input.index, let digest { digests[index] = digest }
    }

    /// Changes the last entry recorded for input index `index` (a note added after the fact).
    public func updateEntry(index: Int, _ change: (inout Manifest.Entry) -> Void) {
        guard let i = manifest.entries.lastIndex(where: { $0.input.index == index }) else { return }
        change(&manifest.entries[i])
        manifest.updateSummary()
        hasUnsavedChanges = true
    }

    /// The settings entries are made with from now on (a watch's reload); earlier entries keep theirs.
    public func changeSettings(_ settings: ResolvedSettings) {
        manifest.settings = settings
        manifest.settingsDigest = Manifest.digest(settings: settings, toolVersion: manifest.tool.version)
        hasUnsavedChanges = true
    }

    /// The run ended: `interrupted` (a signal, a full disk) or finished now.
    public func finish(interrupted: Bool) {
        if interrupted { manifest.interrupted = true } else { manifest.finishedAt = Manifest.timestamp(Date()) }
        hasUnsavedChanges = true
    }

    /// The manifest as written: an entry converted under settings other than the current ones carries a note
    /// saying so (after a reload, or a restart with a new recipe).
    public var rendered: Manifest {
        let current = manifest.settingsDigest
        guard digests.values.contains(where: { $0 != current }) else { return manifest }
        var out = manifest
        for i in out.entries.indices {
            guard out.entries[i].status != .failed, let index = out.entries[i].input.index,
                  let digest = digests[index], digest != current else { continue }
            out.entries[i].notes.append(ManifestStore.otherSettingsNote(digest))
        }
        return out
    }

    static func otherSettingsNote(_ digest: String) -> String {
        "converted with other settings (settings digest " + String(digest.prefix(16)) + "…; the recipe was changed since)"
    }

    // MARK: - Saving

    /// Writes the manifest atomically: always when `force`, else after every change while that is cheap and at
    /// most a tenth of the time once it is not (or when a change is older than `maxStaleness`). Returns whether it wrote.
    @discardableResult
    public func save(force: Bool) throws(LightWorkError) -> Bool {
        let start = JobScheduler.clock()
        let stale = maxStaleness.map { start - lastSave > $0 } ?? false
        if !force, !stale, start - lastSave < lastSaveCost * 10 { return false }
        defer {
            lastSave = JobScheduler.clock()
            lastSaveCost = lastSave - start
        }
        try ManifestStore.write(rendered, to: url)
        hasUnsavedChanges = false
        return true
    }

    /// Saves when there is something unsaved and the throttle allows it.
    public func saveIfDue() throws(LightWorkError) {
        if hasUnsavedChanges { try save(force: false) }
    }

    // MARK: - Files

    /// Writes `manifest` to `url` atomically (creating its folder).
    public static func write(_ manifest: Manifest, to url: URL) throws(LightWorkError) {
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try AtomicFile.write(data: try manifest.encoded(), to: url)
        } catch let e as LightWorkError {
            throw e
        } catch {
            throw .writeFailed("manifest \(url.path): \(FileConverter.describe(error))")
        }
    }

    /// The manifest at `url`; nil when there is no file, throws when it is not a readable manifest.
    public static func load(_ url: URL) throws -> Manifest? {
        guard let data = try? Data(contentsOf: url) else { return nil }
        return try Manifest.decode(data)
    }

    /// The readable manifests earlier runs left in `folder`, `first` first (see `ResumeIndex.candidates`).
    public static func previousRuns(first: URL, in folder: URL) -> [Manifest] {
        ResumeIndex.candidates(first: first, in: folder).compactMap { try? load($0) }
    }
}
