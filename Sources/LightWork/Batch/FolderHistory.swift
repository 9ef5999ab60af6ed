import Foundation

/// What every run into one output folder recorded, read once from its ledgers (the whole-run one and every shard's;
/// `ExportLedger`), or from the manifests a folder written before the ledger existed holds. It answers which outputs
/// are LightWork's own (`owners`), which entries are current (`current`: what `manifest.json` lists by default), and
/// what a run may resume from.
///
/// An entry is current until a later run records the same output (or, for an entry without one, a failure or a
/// pair partner, the same input): every output any run wrote is listed once, with its latest record.
public struct FolderHistory: Sendable {
    /// Which run of which ledger.
    public struct RunKey: Hashable, Sendable {
        public var ledger: String
        public var id: Int64
    }

    /// A current entry with the run that recorded it and the settings digest it was made with.
    public struct Current: Sendable {
        public var run: RunKey
        public var settingsDigest: String
        public var entry: Manifest.Entry
        /// "o:" + output path, or "i:" + input path for an entry without output.
        var key: String
    }

    /// The current entries, in the order their runs recorded them (oldest run first).
    public private(set) var current: [Current] = []
    /// The latest run of each ledger, by ledger file name (or legacy manifest file name).
    public private(set) var latestRuns: [String: ExportLedger.Run] = [:]

    /// An empty history (a new folder, or `--force` reads nothing).
    public init() {}

    /// Reads every ledger in `folder`, and the legacy manifests (`manifest.json`, `manifest.shard-K-of-N.json`) whose
    /// ledger does not exist. Throws when a ledger cannot be read (a run must not forget what it cannot see).
    public static func load(folder: URL) throws(LightWorkError) -> FolderHistory {
        var runs: [(started: String, order: Int, key: RunKey, run: ExportLedger.Run, records: [ExportLedger.Record])] = []
        var order = 0
        let ledgers = ExportLedger.all(in: folder)
        let names = Set(ledgers.map(\.lastPathComponent))
        for url in ledgers {
            let ledger = try ExportLedger(url: url, readOnly: true)
            let byRun = Dictionary(grouping: try ledger.records(), by: \.run)
            for run in try ledger.runs() {
                runs.append((run.header.startedAt, order, RunKey(ledger: url.lastPathComponent, id: run.id), run, byRun[run.id] ?? []))
                order += 1
            }
        }
        for (name, manifest) in legacyManifests(in: folder) where !names.contains(legacyLedgerName(manifest)) {
            let run = ExportLedger.Run(id: 0, command: "import", settingsDigest: manifest.settingsDigest, header: manifest)
            let records = manifest.entries.map { ExportLedger.Record(run: 0, settingsDigest: manifest.settingsDigest, entry: $0) }
            runs.append((manifest.startedAt, order, RunKey(ledger: name, id: 0), run, records))
            order += 1
        }
        runs.sort { ($0.started, $0.order) < ($1.started, $1.order) }
        var history = FolderHistory()
        for r in runs {
            history.add(run: r.key, r.records.map { ($0.entry, $0.settingsDigest) })
            history.latestRuns[r.key.ledger] = r.run
        }
        return history
    }

    /// The history of one ledger alone (a shard's, for `manifest merge`).
    public static func load(ledger url: URL) throws(LightWorkError) -> FolderHistory {
        let ledger = try ExportLedger(url: url, readOnly: true)
        let byRun = Dictionary(grouping: try ledger.records(), by: \.run)
        var history = FolderHistory()
        for run in try ledger.runs() {
            history.add(run: RunKey(ledger: url.lastPathComponent, id: run.id), (byRun[run.id] ?? []).map { ($0.entry, $0.settingsDigest) })
            history.latestRuns[url.lastPathComponent] = run
        }
        return history
    }

    /// The ledger a legacy manifest's entries belong to (so it is read only while that ledger does not exist).
    static func legacyLedgerName(_ manifest: Manifest) -> String {
        manifest.shard.map { "ledger.shard-\($0.index)-of-\($0.count).sqlite" } ?? "ledger.sqlite"
    }

    /// The readable `manifest.json` and `manifest.shard-*.json` in `folder`, by file name.
    static func legacyManifests(in folder: URL) -> [(String, Manifest)] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
            .filter { $0 == "manifest.json" || ($0.hasPrefix("manifest.shard-") && $0.hasSuffix(".json")) }
            .sorted()
        return names.compactMap { name in (try? ManifestStore.load(folder.appendingPathComponent(name))).flatMap { $0 }.map { (name, $0) } }
    }

    /// This history with one more run's entries after the others (a run not read from a ledger: a merge just imported).
    public func adding(_ run: ExportLedger.Run, ledger: String, _ entries: [(Manifest.Entry, String)]) -> FolderHistory {
        var out = self
        out.add(run: RunKey(ledger: ledger, id: run.id), entries)
        out.latestRuns[ledger] = run
        return out
    }

    /// Adds one run's entries after every run already added: they replace the current entries of their outputs
    /// (and of their inputs, for entries without output). Within a run, the last entry of an input index wins.
    mutating func add(run: RunKey, _ entries: [(Manifest.Entry, String)]) {
        var lastOfIndex: [Int: Int] = [:]
        for (i, e) in entries.enumerated() { if let index = e.0.input.index { lastOfIndex[index] = i } }
        let kept = entries.enumerated().filter { i, e in e.0.input.index.map { lastOfIndex[$0] == i } ?? true }.map(\.element)
        let incoming = kept.map { Current(run: run, settingsDigest: $0.1, entry: $0.0, key: FolderHistory.key($0.0)) }
        current = FolderHistory.superseded(current, by: incoming) + incoming
    }

    /// `earlier` without the entries `later` replaces: the same output, or the same input for an entry without output.
    static func superseded(_ earlier: [Current], by later: [Current]) -> [Current] {
        guard !later.isEmpty else { return earlier }
        let keys = Set(later.map(\.key))
        let inputsWithOutput = Set(later.filter { $0.entry.output != nil }.map(\.entry.input.path))
        return earlier.filter { !keys.contains($0.key) && !($0.entry.output == nil && inputsWithOutput.contains($0.entry.input.path)) }
    }

    static func key(_ e: Manifest.Entry) -> String { e.output.map { "o:" + $0.path } ?? "i:" + e.input.path }

    /// Output path → the input (relative path) whose current entry records it: outputs LightWork wrote here.
    public var owners: [String: String] {
        var out: [String: String] = [:]
        for c in current { if let o = c.entry.output { out[o.path] = c.entry.input.relativePath } }
        return out
    }

    /// The current entries made with `settingsDigest` that have an output, latest first (what a run may reuse),
    /// and the inputs (paths and relative paths) of those made with another digest.
    public func reusable(settingsDigest: String) -> (entries: [Manifest.Entry], otherSettings: Set<String>) {
        var out: [Manifest.Entry] = []
        var other: Set<String> = []
        for c in current.reversed() where c.entry.status != .failed && c.entry.output != nil {
            if c.settingsDigest == settingsDigest { out.append(c.entry) } else { other.formUnion([c.entry.input.path, c.entry.input.relativePath]) }
        }
        return (out, other)
    }

    /// The folder's manifest as one ledger (or the whole folder) describes it: the latest run's header with every
    /// current entry, those made with other settings noted.
    public func manifest(header: Manifest) -> Manifest {
        var m = header
        m.entries = current.map { c in
            var e = c.entry
            if e.status != .failed, c.settingsDigest != header.settingsDigest { e.notes.append(ManifestStore.otherSettingsNote(c.settingsDigest)) }
            return e
        }
        m.updateSummary()
        return m
    }
}
