import Foundation

/// What `manifest.json` covers: every current record of the output folder (`folder`, the default) or this run's alone.
public enum ManifestScope: String, Codable, Sendable, CaseIterable {
    case folder, run
}

/// The manifest of a run as batch and watch build it and keep it on disk: entries kept in input order with
/// their summary, the settings digest, and atomic saves throttled to a tenth of the time (a 10,000-entry
/// manifest is megabytes of JSON; a file not yet recorded is only redone, and a watch's journal is what its
/// restart trusts). The one place reading and writing manifests goes through. With a ledger (`record(into:)`),
/// every entry also goes to the output folder's `ExportLedger`, in one transaction per checkpoint and always
/// before the manifest that lists it is written, and the manifest is rendered for its scope: by default the
/// folder's current entries of earlier runs (`FolderHistory`) followed by this run's.
public final class ManifestStore {
    public let url: URL
    /// The manifest as recorded (no notes about other settings; see `rendered`).
    public private(set) var manifest: Manifest
    /// Input index → the settings digest its entry was made with, where the client knows it (a watch's journal).
    private var digests: [Int: String] = [:]
    /// The same for entries without an input index (a watch's re-develops), by `FolderHistory.key`.
    private var unindexedDigests: [String: String] = [:]
    /// Seconds after which a pending change is saved however costly saving is (nil: only the tenth-of-the-time rule).
    private let maxStaleness: Double?
    public private(set) var hasUnsavedChanges = false
    private var lastSave = -Double.infinity
    private var lastSaveCost = 0.0
    /// The ledger this run records into, its run there, and the changes not yet committed.
    private var ledger: ExportLedger?
    /// This run's id in the ledger (0 before `record(into:)`).
    public private(set) var ledgerRun: Int64 = 0
    private var pending: [ExportLedger.Change] = []
    private var headerChanged = false
    private var lastCommit = -Double.infinity
    /// The folder's current entries from earlier runs (nil: none listed), of ledger `earlierLedger` alone when set,
    /// and what this store's manifest covers.
    private var earlier: FolderHistory?
    private var earlierLedger: String?
    /// With retained entries, the earlier runs' current entries as they were when this run began (a watch retires its
    /// journal's earlier runs from the ledger once this run holds their entries).
    private var earlierEntries: [FolderHistory.Current] = []
    public private(set) var scope = ManifestScope.run
    /// Whether this run's entries stay in `manifest.entries`. A batch recording into a ledger lets them go once
    /// committed and renders its part of the manifest from the ledger, so its memory does not grow with the batch
    /// (a watch keeps them: it looks entries up and changes them after the fact).
    public private(set) var retainsEntries = true
    /// Entries waiting for a checkpoint before they are committed (above it, or after `commitInterval`, they are).
    public static let checkpointEntries = 256
    static let commitInterval = 1.0

    /// A new manifest for a run with `settings`, to be saved at `url`.
    public init(url: URL, settings: ResolvedSettings, startedAt: Date = Date(), shard: Shard? = nil, maxStaleness: Double? = nil) {
        self.url = url
        self.maxStaleness = maxStaleness
        manifest = Manifest(tool: Manifest.ToolInfo(version: LightWorkVersion.current, libraries: LightWorkVersion.libraries),
                            settings: settings, host: ProcessInfo.processInfo.hostName, startedAt: startedAt)
        manifest.shard = shard.map { Manifest.ShardInfo(index: $0.index, count: $0.count) }
    }

    /// Records this run into `ledger` from now on (as a run of `command`), rendering the manifest for `scope` over
    /// `history`'s entries of earlier runs. Throws when the ledger refuses the run.
    /// `retainEntries: false` lets committed entries go (`retainsEntries`).
    public func record(into ledger: ExportLedger, command: String, history: FolderHistory, scope: ManifestScope,
                       retainEntries: Bool = true) throws(LightWorkError) {
        manifest.scope = scope
        ledgerRun = try ledger.beginRun(manifest, command: command)
        self.ledger = ledger
        self.scope = scope
        // A shard's manifest covers its own ledger (the shards' manifests are merged); a whole run's, the folder.
        let own = ledger.url.lastPathComponent
        let listed = manifest.shard == nil ? nil : own
        if scope == .folder, try !history.isEmpty(ledger: listed) {
            if retainEntries {
                do { try history.forEachCurrent(ledger: listed) { earlierEntries.append($0) } } catch {
                    throw error as? LightWorkError ?? .ledger("\(error)")
                }
            } else {
                earlier = history
                earlierLedger = listed
            }
        }
        pending = manifest.entries.map { .insert($0, settingsDigest: recordedDigest($0) ?? manifest.settingsDigest) }
        if !retainEntries {
            retainsEntries = false
            manifest.entries.forEach(noteOwn)
            manifest.entries = []
        }
    }

    /// Without retained entries: tells the history what this run's entry replaces (`FolderHistory.replace(with:)`).
    private func noteOwn(_ entry: Manifest.Entry) {
        earlier?.replace(with: entry)
    }

    public var settingsDigest: String { manifest.settingsDigest }
    public var summary: Manifest.Summary { manifest.summary }

    /// The last entry recorded for input index `index` (nil for every entry when entries are not retained).
    public func entry(index: Int) -> Manifest.Entry? { manifest.entries.last { $0.input.index == index } }

    // MARK: - Recording

    /// Records `entry` in input order (whatever order files finish in); `settingsDigest` is the digest it was
    /// made with when that may differ from the current one (see `rendered`).
    public func insert(_ entry: Manifest.Entry, settingsDigest: String? = nil) {
        remember(entry, settingsDigest)
        if retainsEntries {
            manifest.insertInInputOrder(entry)
        } else {
            manifest.summary.count(entry.status)
            noteOwn(entry)
        }
        if ledger != nil { pending.append(.insert(entry, settingsDigest: settingsDigest ?? manifest.settingsDigest)) }
        hasUnsavedChanges = true
    }

    /// Adds entries read back from a journal, in its order (the ledger has them already: they are not recorded again).
    public func merge(replayed: [(entry: Manifest.Entry, settingsDigest: String?)]) {
        for (entry, digest) in replayed {
            remember(entry, digest)
            manifest.entries.append(entry)
        }
        manifest.updateSummary()
        hasUnsavedChanges = true
    }

    private func remember(_ entry: Manifest.Entry, _ digest: String?) {
        guard let digest else { return }
        if let index = entry.input.index { digests[index] = digest } else { unindexedDigests[FolderHistory.key(entry)] = digest }
    }

    private func recordedDigest(_ entry: Manifest.Entry) -> String? {
        if let index = entry.input.index { return digests[index] }
        return unindexedDigests[FolderHistory.key(entry)]
    }

    /// The settings digest entry `index` was made with, when recorded.
    public func settingsDigest(ofEntryAt index: Int) -> String? { digests[index] }

    /// Changes the last entry recorded for input index `index` (a note added after the fact).
    public func updateEntry(index: Int, _ change: (inout Manifest.Entry) -> Void) {
        guard let i = manifest.entries.lastIndex(where: { $0.input.index == index }) else { return }
        change(&manifest.entries[i])
        manifest.updateSummary()
        if ledger != nil { pending.append(.update(index: index, manifest.entries[i])) }
        hasUnsavedChanges = true
    }

    /// The settings entries are made with from now on (a watch's reload); earlier entries keep theirs.
    public func changeSettings(_ settings: ResolvedSettings) {
        manifest.settings = settings
        manifest.settingsDigest = Manifest.digest(settings: settings, toolVersion: manifest.tool.version)
        headerChanged = true
        hasUnsavedChanges = true
    }

    /// The run ended: `interrupted` (a signal, a full disk) or finished at `date` (now).
    public func finish(interrupted: Bool, at date: Date = Date()) {
        if interrupted { manifest.interrupted = true } else { manifest.finishedAt = Manifest.timestamp(date) }
        headerChanged = true
        hasUnsavedChanges = true
    }

    /// The manifest as written: an entry converted under settings other than the current ones carries a note
    /// saying so (after a reload, or a restart with a new recipe).
    /// In `folder` scope the earlier runs' current entries come first (less those this run's replace), noted likewise.
    public var rendered: Manifest {
        let current = manifest.settingsDigest
        var out = manifest
        if digests.values.contains(where: { $0 != current }) {
            for i in out.entries.indices {
                guard out.entries[i].status != .failed, let index = out.entries[i].input.index,
                      let digest = digests[index], digest != current else { continue }
                out.entries[i].notes.append(ManifestStore.otherSettingsNote(digest))
            }
        }
        guard !earlierEntries.isEmpty else { return out }
        // This run's entries replace the earlier ones of the same key, and those without output of an input they give one.
        let keys = Set(manifest.entries.map(FolderHistory.key))
        let inputsWithOutput = Set(manifest.entries.filter { $0.output != nil }.map(\.input.path))
        let others = earlierEntries.filter { c in !keys.contains(c.key) && !(c.entry.output == nil && inputsWithOutput.contains(c.entry.input.path)) }
        out.entries = others.map { FolderHistory.listed($0, settingsDigest: current) } + out.entries
        out.updateSummary()
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
        let due = force || stale || start - lastSave >= lastSaveCost * 10
        // The ledger first: a manifest on disk never lists an entry the ledger could lose.
        if due || pending.count >= ManifestStore.checkpointEntries || start - lastCommit >= ManifestStore.commitInterval { try commit() }
        guard due else { return false }
        defer {
            lastSave = JobScheduler.clock()
            lastSaveCost = lastSave - start
        }
        if retainsEntries { try ManifestStore.write(rendered, to: url) } else { try writeFromLedger() }
        hasUnsavedChanges = false
        return true
    }

    /// The manifest without retained entries: the earlier runs' current entries this run does not replace, then
    /// this run's, streamed from the ledger (just committed) in input order.
    private func writeFromLedger() throws(LightWorkError) {
        guard let ledger else { return }
        let current = manifest.settingsDigest
        var header = manifest
        if let earlier {
            let others = try earlier.summary(ledger: earlierLedger, replaced: false)
            header.summary.total += others.total
            header.summary.converted += others.converted
            header.summary.skipped += others.skipped
            header.summary.failed += others.failed
        }
        try ManifestStore.write(to: url) { output in
            try ManifestJSON.write(header: header, to: output) { emit in
                try earlier?.forEachCurrent(ledger: earlierLedger, replaced: false) { try emit(FolderHistory.listed($0, settingsDigest: current)) }
                try ledger.forEachEntry(run: ledgerRun, emit)
            }
        }
    }

    /// This run's manifest with its entries: read back from the ledger when they are not retained.
    public func runManifest() throws(LightWorkError) -> Manifest {
        guard !retainsEntries, let ledger else { return manifest }
        var m = manifest
        do { try ledger.forEachEntry(run: ledgerRun) { m.entries.append($0) } } catch let e as LightWorkError { throw e } catch {
            throw .ledger("\(ledger.url.path): \(error)")
        }
        return m
    }

    /// Commits the pending entries (and a changed header) to the ledger in one transaction: a checkpoint.
    public func commit() throws(LightWorkError) {
        guard let ledger else { return }
        lastCommit = JobScheduler.clock()
        if !pending.isEmpty {
            try ledger.apply(pending, run: ledgerRun)
            pending.removeAll(keepingCapacity: true)
        }
        if headerChanged {
            try ledger.updateRun(ledgerRun, header: manifest)
            headerChanged = false
        }
    }

    /// Saves when there is something unsaved and the throttle allows it.
    public func saveIfDue() throws(LightWorkError) {
        if hasUnsavedChanges || !pending.isEmpty { try save(force: false) }
    }

    // MARK: - Files

    /// Writes `manifest` to `url` atomically (creating its folder), its entries streamed (`ManifestJSON`).
    public static func write(_ manifest: Manifest, to url: URL) throws(LightWorkError) {
        try write(to: url) { output in
            try ManifestJSON.write(header: manifest, to: output) { emit in try manifest.entries.forEach(emit) }
        }
    }

    /// Writes the manifest `body` streams to `url` atomically (creating its folder).
    public static func write(to url: URL, _ body: (AtomicFile.Output) throws -> Void) throws(LightWorkError) {
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            _ = try AtomicFile.write(to: url, body)
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
