import CSQLite
import Foundation

/// What every run into one output folder recorded, from its ledgers (the whole-run one and every shard's;
/// `ExportLedger`), or from the manifests a folder written before the ledger existed holds. It answers which outputs
/// are LightWork's own (`owner(ofOutput:)`), which entries are current (what `manifest.json` lists by default), and
/// what a run may resume from (`previous(for:settingsDigest:)`).
///
/// An entry is current until a later run records the same output (or, for an entry without one, a failure or a
/// pair partner, the same input): every output any run wrote is listed once, with its latest record.
///
/// Nothing here holds the entries: `load` copies the ledgers' rows (keys, paths, status, digest and the entry's JSON)
/// into a private temporary SQLite database, whose pages beyond its small cache go to disk, and an entry is decoded
/// only when it is asked for. The ledgers are closed once read (100 shard ledgers kept open held 100 page caches).
/// A 100,000-file folder costs a run the same memory as a 1,000-file one.
public final class FolderHistory: @unchecked Sendable {
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

    /// The latest run of each ledger, by ledger file name (or legacy manifest file name).
    public private(set) var latestRuns: [String: ExportLedger.Run] = [:]

    /// The index (nil: nothing recorded) and, by source number, each source's (ledger's or legacy manifest's) file name.
    private let index: SQLiteDatabase?
    private var sources: [String] = []
    private let lock = NSLock()

    /// An empty history (a new folder, or `--force` reads nothing).
    public init() { index = nil }

    private init(index: SQLiteDatabase) { self.index = index }

    /// Reads every ledger in `folder`, and the legacy manifests (`manifest.json`, `manifest.shard-K-of-N.json`) whose
    /// ledger does not exist. Throws when a ledger cannot be read (a run must not forget what it cannot see).
    public static func load(folder: URL) throws(LightWorkError) -> FolderHistory {
        let ledgers = ExportLedger.all(in: folder)
        let names = Set(ledgers.map(\.lastPathComponent))
        let legacy = legacyManifests(in: folder, except: names).filter { !names.contains(legacyLedgerName($0.1)) }
        return try build(ledgers: ledgers, manifests: legacy, separately: false)
    }

    /// The history of one ledger alone (a shard's, for `manifest merge`).
    public static func load(ledger url: URL) throws(LightWorkError) -> FolderHistory {
        try build(ledgers: [url], manifests: [], separately: true)
    }

    /// The histories of several ledgers side by side, each alone (`manifest merge` of a split): an entry of one
    /// never replaces another's.
    public static func load(separately ledgers: [URL]) throws(LightWorkError) -> FolderHistory {
        try build(ledgers: ledgers, manifests: [], separately: true)
    }

    /// Indexes `ledgers` and `manifests`: together (a folder: runs ordered by start time across them) or `separately`
    /// (each its own history, its runs in the order it recorded them).
    private static func build(ledgers: [URL], manifests: [(String, Manifest)], separately: Bool) throws(LightWorkError) -> FolderHistory {
        let history = FolderHistory(index: try SQLiteDatabase(path: "", flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                                                              name: "the output folder's history index"))
        try history.build(ledgers: ledgers, manifests: manifests, separately: separately)
        return history
    }

    private func build(ledgers: [URL], manifests: [(String, Manifest)], separately: Bool) throws(LightWorkError) {
        guard let index else { return }
        try index.exec("""
            PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;
            CREATE TABLE h(ord INTEGER PRIMARY KEY, grp INTEGER NOT NULL, seq INTEGER NOT NULL, source INTEGER NOT NULL,
              run INTEGER NOT NULL, row INTEGER NOT NULL, input_index INTEGER, k TEXT NOT NULL, input_path TEXT NOT NULL, rel TEXT NOT NULL, has_output INTEGER NOT NULL,
              status TEXT NOT NULL, digest TEXT NOT NULL, json TEXT NOT NULL);
            CREATE TABLE own_keys(k TEXT PRIMARY KEY) WITHOUT ROWID;
            CREATE TABLE own_inputs(p TEXT PRIMARY KEY) WITHOUT ROWID;
            BEGIN
            """)
        // The runs, in the order their entries apply.
        var runs: [(started: String, order: Int, source: Int, run: ExportLedger.Run)] = []
        var opened: [Int: ExportLedger] = [:]
        for url in ledgers {
            let ledger = try ExportLedger(url: url, readOnly: true)
            sources.append(url.lastPathComponent)
            opened[sources.count - 1] = ledger
            for run in try ledger.runs() { runs.append((run.header.startedAt, runs.count, sources.count - 1, run)) }
        }
        for (name, manifest) in manifests {
            sources.append(name)
            runs.append((manifest.startedAt, runs.count, sources.count - 1,
                         ExportLedger.Run(id: 0, command: "import", settingsDigest: manifest.settingsDigest, header: manifest)))
        }
        if !separately { runs.sort { ($0.started, $0.order) < ($1.started, $1.order) } }
        let insert = try index.prepare("INSERT INTO h(grp, seq, source, run, row, input_index, k, input_path, rel, has_output, status, digest, json) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)")
        defer { sqlite3_finalize(insert) }
        let encoder = ExportLedger.encoder()
        for (seq, r) in runs.enumerated() {
            latestRuns[sources[r.source]] = r.run
            let group = separately ? Int64(r.source) : 0
            // Within a run the last entry of an input index wins: rows come in index order, so a row is kept when
            // the next one has another index.
            var pending: ExportLedger.IndexRow?
            func flush() throws(LightWorkError) {
                guard let row = pending else { return }
                let key = row.outputPath.map { "o:" + $0 } ?? "i:" + row.inputPath
                try index.step(insert, [.int(group), .int(Int64(seq)), .int(Int64(r.source)), .int(r.run.id), .int(row.id),
                                        row.inputIndex.map { .int($0) } ?? .null, .text(key), .text(row.inputPath),
                                        .text(row.relativePath), .int(row.outputPath == nil ? 0 : 1), .text(row.status), .text(row.settingsDigest),
                                        .text(row.json)])
                pending = nil
            }
            func add(_ row: ExportLedger.IndexRow) throws(LightWorkError) {
                if let p = pending, p.inputIndex == nil || p.inputIndex != row.inputIndex { try flush() }
                pending = row
            }
            if let ledger = opened[r.source] {
                try ledger.forEachIndexRow(run: r.run.id, add)
            } else {
                let digest = r.run.header.settingsDigest
                // Ordered as a ledger orders a run's entries: by input index, those without one last, as recorded.
                let ordered = r.run.header.entries.enumerated().sorted { a, b in
                    (a.element.input.index == nil ? 1 : 0, a.element.input.index ?? 0, a.offset)
                        < (b.element.input.index == nil ? 1 : 0, b.element.input.index ?? 0, b.offset)
                }
                for (position, e) in ordered {
                    try add(ExportLedger.IndexRow(id: Int64(position), inputIndex: e.input.index.map(Int64.init), inputPath: e.input.path,
                                                  relativePath: e.input.relativePath, outputPath: e.output?.path, status: e.status.rawValue,
                                                  settingsDigest: digest, json: try ExportLedger.json(e, encoder)))
                }
                latestRuns[sources[r.source]]?.header.entries = []
            }
            try flush()
        }
        // An entry is current unless a later run of its history records its key, or (for one without output) an output of its input.
        try index.exec("""
            CREATE INDEX h_k ON h(k, grp, seq);
            CREATE INDEX h_input ON h(input_path, grp, seq);
            DELETE FROM h WHERE EXISTS(SELECT 1 FROM h l WHERE l.k=h.k AND l.grp=h.grp AND l.seq>h.seq)
              OR (h.has_output=0 AND EXISTS(SELECT 1 FROM h l WHERE l.input_path=h.input_path AND l.grp=h.grp AND l.seq>h.seq AND l.has_output=1));
            CREATE INDEX h_rel ON h(rel);
            """)
    }

    /// The ledger a legacy manifest's entries belong to (so it is read only while that ledger does not exist).
    static func legacyLedgerName(_ manifest: Manifest) -> String {
        manifest.shard.map { "ledger.shard-\($0.index)-of-\($0.count).sqlite" } ?? "ledger.sqlite"
    }

    /// The readable `manifest.json` and `manifest.shard-*.json` in `folder`, by file name, but those whose file name
    /// says they belong to one of `ledgers` (a ledger file name): that ledger has them, and a 100,000-entry manifest
    /// decoded only to be left out took more memory than the rest of a no-op re-run.
    static func legacyManifests(in folder: URL, except ledgers: Set<String> = []) -> [(String, Manifest)] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
            .filter { $0 == "manifest.json" || ($0.hasPrefix("manifest.shard-") && $0.hasSuffix(".json")) }
            .filter { !ledgers.contains($0 == "manifest.json" ? "ledger.sqlite" : "ledger" + $0.dropFirst("manifest".count).dropLast(".json".count) + ".sqlite") }
            .sorted()
        return names.compactMap { name in (try? ManifestStore.load(folder.appendingPathComponent(name))).flatMap { $0 }.map { (name, $0) } }
    }

    static func key(_ e: Manifest.Entry) -> String { e.output.map { "o:" + $0.path } ?? "i:" + e.input.path }

    // MARK: - Looking up

    /// Runs `body` on the index under the lock; nil without an index.
    private func withIndex<T>(_ body: (SQLiteDatabase) throws(LightWorkError) -> T?) throws(LightWorkError) -> T? {
        guard let index else { return nil }
        lock.lock()
        defer { lock.unlock() }
        return try body(index)
    }

    /// The entry an index row holds the JSON of (`source` names the ledger or manifest it came from, for the message).
    private func entry(source: Int64, json: Data, decoder: JSONDecoder = JSONDecoder()) throws(LightWorkError) -> Manifest.Entry {
        try ExportLedger.entry(json: json, in: sources[Int(source)], decoder)
    }

    /// The input (relative path) whose current entry records output `path` (the latest, if several): an output
    /// LightWork wrote here. Nil for an output no entry records, and when the index cannot be read (the file then
    /// counts as someone else's: left alone, with a warning).
    public func owner(ofOutput path: String) -> String? {
        try? withIndex { (index: SQLiteDatabase) throws(LightWorkError) -> String? in
            var owner: String?
            try index.query("SELECT rel FROM h WHERE k=? ORDER BY ord DESC LIMIT 1", [.text("o:" + path)]) { (row: SQLiteDatabase.Row) in owner = row.text(0) }
            return owner
        } ?? nil
    }

    /// What a run may reuse: a current entry made with `settingsDigest` that has an output, not failed.
    private static let reusableRow = "has_output=1 AND status<>'failed'"

    /// The latest reusable entry (see `reusableRow`) of input `path`, else of relative path `relativePath` when every such
    /// entry of it has one input path. Nil when there is none, or the ledger cannot be read (the file is then converted).
    public func previous(path: String, relativePath: String, settingsDigest: String) -> Manifest.Entry? {
        try? withIndex { (index: SQLiteDatabase) throws(LightWorkError) -> Manifest.Entry? in
            var found: (source: Int64, json: Data)?
            try index.query("SELECT source, json FROM h WHERE input_path=? AND digest=? AND \(FolderHistory.reusableRow) ORDER BY ord DESC LIMIT 1",
                            [.text(path), .text(settingsDigest)]) { (row: SQLiteDatabase.Row) in
                found = (row.int(0), row.data(1))
            }
            if found == nil {
                var paths = Set<String>()
                try index.query("SELECT source, json, input_path FROM h WHERE rel=? AND digest=? AND \(FolderHistory.reusableRow) ORDER BY ord DESC",
                                [.text(relativePath), .text(settingsDigest)]) { (row: SQLiteDatabase.Row) in
                    if found == nil { found = (row.int(0), row.data(1)) }
                    paths.insert(row.text(2))
                }
                if paths.count != 1 { found = nil }
            }
            return try found.map { (f) throws(LightWorkError) in try entry(source: f.source, json: f.json) }
        } ?? nil
    }

    /// Whether any current entry made with `settingsDigest` may be reused.
    public func hasReusable(settingsDigest: String) -> Bool {
        exists("digest=? AND \(FolderHistory.reusableRow)", [.text(settingsDigest)])
    }

    /// Whether an input with `path` or `relativePath` has a current output made with other settings than `settingsDigest`.
    public func hasOtherSettings(path: String, relativePath: String, settingsDigest: String) -> Bool {
        exists("digest<>?1 AND \(FolderHistory.reusableRow) AND (input_path IN (?2, ?3) OR rel IN (?2, ?3))",
               [.text(settingsDigest), .text(path), .text(relativePath)])
    }

    /// Whether a row of `h` meets `condition`; false when the index cannot be read (nothing is then reused).
    private func exists(_ condition: String, _ values: [SQLiteDatabase.Value]) -> Bool {
        (try? existing(condition, values)) ?? false
    }

    private func existing(_ condition: String, _ values: [SQLiteDatabase.Value]) throws(LightWorkError) -> Bool {
        try withIndex { (index: SQLiteDatabase) throws(LightWorkError) -> Bool in
            var found = false
            try index.query("SELECT 1 FROM h WHERE \(condition) LIMIT 1", values) { (_: SQLiteDatabase.Row) in found = true }
            return found
        } ?? false
    }

    // MARK: - Current entries

    /// Whether the current entries (of ledger `ledger` alone, when given) are none. Throws when the index cannot be
    /// read: a manifest must not leave out the entries it could not see.
    public func isEmpty(ledger: String? = nil) throws(LightWorkError) -> Bool {
        guard let number = sourceNumber(ledger) else { return true }
        return try !existing(number < 0 ? "1" : "source=\(number)", [])
    }

    /// The source number of `ledger` (-1: every source; nil: a ledger not read).
    private func sourceNumber(_ ledger: String?) -> Int? {
        guard let ledger else { return -1 }
        return sources.firstIndex(of: ledger)
    }

    /// Notes that this run records `entry`: it replaces the current entry of the same key (and, when it has an
    /// output, the entries without output of its input) in what `forEachCurrent(replaced: false)` gives.
    func replace(with entry: Manifest.Entry) {
        _ = try? withIndex { (index: SQLiteDatabase) throws(LightWorkError) -> Bool? in
            try index.run("INSERT OR IGNORE INTO own_keys(k) VALUES(?)", [.text(FolderHistory.key(entry))])
            if entry.output != nil { try index.run("INSERT OR IGNORE INTO own_inputs(p) VALUES(?)", [.text(entry.input.path)]) }
            return nil
        }
    }

    /// The condition on `h` of the current entries of source `number` (-1: all) not replaced (`replace(with:)`), unless `replaced`.
    private static func condition(source number: Int, replaced: Bool) -> String {
        (number < 0 ? "1" : "source=\(number)")
            + (replaced ? "" : " AND NOT EXISTS(SELECT 1 FROM own_keys o WHERE o.k=h.k)"
                + " AND NOT (h.has_output=0 AND EXISTS(SELECT 1 FROM own_inputs o WHERE o.p=h.input_path))")
    }

    /// How many current entries there are of each status (of ledger `ledger` alone, when given; less those this
    /// run replaced unless `replaced`).
    public func summary(ledger: String? = nil, replaced: Bool = true) throws(LightWorkError) -> Manifest.Summary {
        var summary = Manifest.Summary()
        guard let number = sourceNumber(ledger) else { return summary }
        _ = try withIndex { (index: SQLiteDatabase) throws(LightWorkError) -> Bool? in
            try index.query("SELECT status FROM h WHERE \(FolderHistory.condition(source: number, replaced: replaced))") { (row: SQLiteDatabase.Row) in
                if let status = Manifest.Status(rawValue: row.text(0)) { summary.count(status) }
            }
            return nil
        }
        return summary
    }

    /// The current entries in the order their runs recorded them (oldest run first; of ledger `ledger` alone, when
    /// given; less those this run replaced unless `replaced`), one at a time. In `inputOrder` they come by input index
    /// instead (those without one last), ties in history order: a merged split's order. The first error `body`
    /// throws ends the reading and is rethrown.
    public func forEachCurrent(ledger: String? = nil, replaced: Bool = true, inputOrder: Bool = false,
                               _ body: (Current) throws -> Void) throws {
        guard let number = sourceNumber(ledger), let index else { return }
        lock.lock()
        defer { lock.unlock() }
        let order = inputOrder ? "ORDER BY input_index IS NULL, input_index, ord" : "ORDER BY ord"
        let decoder = JSONDecoder()
        try index.forEach("SELECT source, json, digest, k, run FROM h WHERE \(FolderHistory.condition(source: number, replaced: replaced)) \(order)") { row in
            let source = row.int(0)
            let e = try entry(source: source, json: row.data(1), decoder: decoder)
            try body(Current(run: RunKey(ledger: sources[Int(source)], id: row.int(4)), settingsDigest: row.text(2), entry: e, key: row.text(3)))
        }
    }

    /// Every current entry, held at once (a watch's ownership table, tests).
    public var current: [Current] {
        var out: [Current] = []
        try? forEachCurrent { out.append($0) }
        return out
    }

    /// Output path → the input (relative path) whose current entry records it, held at once (a watch; a batch asks
    /// `owner(ofOutput:)` as it plans).
    public var owners: [String: String] {
        var out: [String: String] = [:]
        for c in current { if let o = c.entry.output { out[o.path] = c.entry.input.relativePath } }
        return out
    }

    /// `entry` as the folder's manifest lists it beside entries made with `settingsDigest`: noted when made with others.
    public static func listed(_ c: Current, settingsDigest: String) -> Manifest.Entry {
        var e = c.entry
        if e.status != .failed, c.settingsDigest != settingsDigest { e.notes.append(ManifestStore.otherSettingsNote(c.settingsDigest)) }
        return e
    }

    /// Writes the folder's manifest as one ledger (or the whole folder) describes it to `url`: `header` with every
    /// current entry, those made with other settings noted, streamed (`ManifestJSON`).
    public func writeManifest(header: Manifest, ledger: String? = nil, to url: URL) throws(LightWorkError) {
        var head = header
        head.summary = try summary(ledger: ledger)
        try ManifestStore.write(to: url) { output in
            try ManifestJSON.write(header: head, to: output) { emit in
                try forEachCurrent(ledger: ledger) { try emit(FolderHistory.listed($0, settingsDigest: header.settingsDigest)) }
            }
        }
    }

    /// The folder's manifest as one ledger (or the whole folder) describes it, held at once: the latest run's header
    /// with every current entry, those made with other settings noted. Throws when the index cannot be read.
    public func manifest(header: Manifest, ledger: String? = nil) throws -> Manifest {
        var m = header
        m.entries = []
        try forEachCurrent(ledger: ledger) { m.entries.append(FolderHistory.listed($0, settingsDigest: header.settingsDigest)) }
        m.updateSummary()
        return m
    }
}
