import CSQLite
import Foundation

/// Every record of every run into one output folder, kept in an embedded SQLite database
/// (`OUTDIR/.lightwork/ledger.sqlite`; a shard writes `ledger.shard-K-of-N.sqlite` beside it, so shards on
/// several machines never share one writer). Runs are rows of `runs`; each file's manifest entry is a row of
/// `entries`, stored as its JSON with the few keys the ledger looks things up by (input path, output path,
/// status, settings digest), so fields added to `Manifest.Entry` need no change here. WAL journal, and entries
/// are appended in batches, one transaction per checkpoint (`ManifestStore` decides when): the cost of recording
/// a file does not grow with the folder. `manifest.json` is rendered from it (`FolderHistory`).
public final class ExportLedger {
    /// The folder inside an output folder where LightWork keeps its bookkeeping (never an input, never an output name).
    public static let folderName = OutputLock.folderName
    public static let schemaVersion = 1

    public let url: URL
    private let database: SQLiteDatabase
    /// False for a ledger another run has just created and not yet given its tables (its `user_version` is still 0,
    /// set last): a reader then sees no runs, rather than failing on a missing table.
    private var hasSchema = true

    /// One run's row: what it was, and its manifest header (tool, settings, host, times) as JSON.
    public struct Run: Sendable {
        public var id: Int64
        /// `convert`, `watch`, `manifest merge` or `import` (a manifest.json found when the ledger was created).
        public var command: String
        public var settingsDigest: String
        /// The manifest fields of the run without its entries.
        public var header: Manifest

        public init(id: Int64, command: String, settingsDigest: String, header: Manifest) {
            self.id = id
            self.command = command
            self.settingsDigest = settingsDigest
            self.header = header
        }
    }

    /// One recorded entry: the run that made it and the settings digest it was made with.
    public struct Record: Sendable {
        public var run: Int64
        public var settingsDigest: String
        public var entry: Manifest.Entry
    }

    /// A change a run makes to its entries, applied in one transaction (`apply`).
    public enum Change: Sendable {
        case insert(Manifest.Entry, settingsDigest: String)
        /// The entry this run recorded for input index `index` changed (a note added after the fact).
        case update(index: Int, Manifest.Entry)
    }

    /// The ledger file of `folder` for `shard` (nil: a whole run or a watch).
    public static func url(in folder: URL, shard: Shard?) -> URL {
        folder.appendingPathComponent(folderName).appendingPathComponent(
            shard.map { "ledger.shard-\($0.index)-of-\($0.count).sqlite" } ?? "ledger.sqlite")
    }

    /// The ledgers present in `folder`: the whole-run one first, then the shards' in name order.
    public static func all(in folder: URL) -> [URL] {
        let dir = folder.appendingPathComponent(folderName)
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? [])
            .filter { $0.hasPrefix("ledger") && $0.hasSuffix(".sqlite") }
            .sorted { ($0 == "ledger.sqlite" ? 0 : 1, $0) < ($1 == "ledger.sqlite" ? 0 : 1, $1) }
        return names.map { dir.appendingPathComponent($0) }
    }

    /// The ledger a run into `folder` records into (`shard`'s own for a shard), created when missing; a new ledger
    /// first takes in the manifest a run before the ledger existed left for it (`manifest.json` or its shard's), so
    /// that folder's outputs stay LightWork's own.
    public static func open(folder: URL, shard: Shard?) throws(LightWorkError) -> ExportLedger {
        let url = url(in: folder, shard: shard)
        let existed = FileManager.default.fileExists(atPath: url.path)
        let ledger = try ExportLedger(url: url)
        if !existed, let legacy = try? ManifestStore.load(folder.appendingPathComponent(shard?.manifestFileName ?? "manifest.json")),
           legacy.shard.map({ $0.index == shard?.index && $0.count == shard?.count }) ?? (shard == nil), legacy.scope == nil {
            try ledger.importRun(legacy, command: "import")
        }
        return ledger
    }

    /// Opens the ledger at `url`, creating it (and its folder) unless `readOnly`.
    public init(url: URL, readOnly: Bool = false) throws(LightWorkError) {
        self.url = url
        if !readOnly {
            do { try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true) } catch {
                throw .ledger("cannot create \(url.deletingLastPathComponent().path): \(FileConverter.describe(error))")
            }
        }
        database = try SQLiteDatabase(path: url.path, flags: readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                                      name: url.path)
        // Shards and a watch may read a ledger while its run writes it: wait for a lock rather than fail.
        sqlite3_busy_timeout(database.handle, 30_000)
        if readOnly {
            try database.query("PRAGMA user_version") { (row: SQLiteDatabase.Row) throws(LightWorkError) in hasSchema = row.int(0) != 0 }
            // A reader goes through its ledger once (`FolderHistory` copies what it needs): a small page cache, so a
            // folder of 100 shard ledgers read side by side does not hold 100 caches of 2 MiB.
            try exec("PRAGMA cache_size=-128")
        } else {
            // WAL: a commit appends to the log; NORMAL: no fsync per commit (a killed process loses nothing
            // committed; a power cut may lose the last checkpoints, whose files are then only converted again).
            try exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL")
            try exec("""
                CREATE TABLE IF NOT EXISTS runs(
                  id INTEGER PRIMARY KEY, command TEXT NOT NULL, shard TEXT, settings_digest TEXT NOT NULL,
                  tool_version TEXT NOT NULL, started TEXT NOT NULL, finished TEXT, interrupted INTEGER NOT NULL DEFAULT 0,
                  header TEXT NOT NULL);
                CREATE TABLE IF NOT EXISTS entries(
                  id INTEGER PRIMARY KEY, run INTEGER NOT NULL REFERENCES runs(id), input_index INTEGER,
                  input_path TEXT NOT NULL, output_path TEXT, status TEXT NOT NULL, settings_digest TEXT NOT NULL,
                  entry TEXT NOT NULL);
                CREATE INDEX IF NOT EXISTS entries_by_run ON entries(run, input_index);
                PRAGMA user_version=\(ExportLedger.schemaVersion)
                """)
        }
    }


    // MARK: - Writing

    /// Adds a run with `header` (its entries are ignored); returns its id.
    public func beginRun(_ header: Manifest, command: String) throws(LightWorkError) -> Int64 {
        var bare = header
        bare.entries = []
        let json = try ExportLedger.json(bare)
        try run("INSERT INTO runs(command, shard, settings_digest, tool_version, started, finished, interrupted, header) VALUES(?,?,?,?,?,?,?,?)",
                [.text(command), header.shard.map { .text("\($0.index)/\($0.count)") } ?? .null, .text(header.settingsDigest),
                 .text(header.tool.version), .text(header.startedAt), header.finishedAt.map { .text($0) } ?? .null,
                 .int(header.interrupted == true ? 1 : 0), .text(json)])
        return sqlite3_last_insert_rowid(db)
    }

    /// Replaces run `id`'s header (its settings after a reload, its end).
    public func updateRun(_ id: Int64, header: Manifest) throws(LightWorkError) {
        var bare = header
        bare.entries = []
        try run("UPDATE runs SET settings_digest=?, finished=?, interrupted=?, header=? WHERE id=?",
                [.text(header.settingsDigest), header.finishedAt.map { .text($0) } ?? .null, .int(header.interrupted == true ? 1 : 0),
                 .text(try ExportLedger.json(bare)), .int(id)])
    }

    /// Applies `changes` to run `id`'s entries in one transaction (all or nothing).
    public func apply(_ changes: [Change], run id: Int64) throws(LightWorkError) {
        guard !changes.isEmpty else { return }
        try database.transaction { () throws(LightWorkError) in
            let insert = try prepare(ExportLedger.insertSQL)
            defer { sqlite3_finalize(insert) }
            let update = try prepare(ExportLedger.updateSQL)
            defer { sqlite3_finalize(update) }
            let encoder = ExportLedger.encoder()
            for change in changes {
                switch change {
                case let .insert(e, digest):
                    try step(insert, try ExportLedger.insertValues(e, settingsDigest: digest, run: id, encoder))
                case let .update(index, e):
                    try step(update, [e.output.map { .text($0.path) } ?? .null, .text(e.status.rawValue), .text(try ExportLedger.json(e, encoder)),
                                      .int(id), .int(Int64(index))])
                }
            }
        }
    }

    private static let insertSQL = "INSERT INTO entries(run, input_index, input_path, output_path, status, settings_digest, entry) VALUES(?,?,?,?,?,?,?)"
    /// Finds its row by `entries_by_run` (ExportLedgerTests checks the plan): an update costs the same in any ledger.
    static let updateSQL = "UPDATE entries SET output_path=?, status=?, entry=? WHERE run=? AND input_index=?"
    /// A run's entries (`forEachEntry`), found by `entries_by_run`.
    static let runEntriesSQL = "SELECT entry FROM entries WHERE run=? ORDER BY input_index IS NULL, input_index, id"

    /// `insertSQL`'s values for entry `e` of run `id`.
    private static func insertValues(_ e: Manifest.Entry, settingsDigest: String, run id: Int64, _ encoder: JSONEncoder) throws(LightWorkError) -> [Value] {
        [.int(id), e.input.index.map { .int(Int64($0)) } ?? .null, .text(e.input.path), e.output.map { .text($0.path) } ?? .null,
         .text(e.status.rawValue), .text(settingsDigest), .text(try json(e, encoder))]
    }

    /// Adds the entries `produce` gives (each with the settings digest it was made with) to run `id`, in one
    /// transaction: all or none, without the entries held at once (`manifest merge` of a large split).
    public func insertAll(run id: Int64, _ produce: (_ add: (Manifest.Entry, String) throws(LightWorkError) -> Void) throws(LightWorkError) -> Void)
        throws(LightWorkError) {
        try database.transaction { () throws(LightWorkError) in
            let insert = try prepare(ExportLedger.insertSQL)
            defer { sqlite3_finalize(insert) }
            let encoder = ExportLedger.encoder()
            try produce { (e: Manifest.Entry, digest: String) throws(LightWorkError) in
                try step(insert, try ExportLedger.insertValues(e, settingsDigest: digest, run: id, encoder))
            }
        }
    }

    /// Adds `manifest` as a finished run of `command` with all its entries (a shard split merged, a legacy
    /// manifest.json); returns the run's id.
    @discardableResult
    public func importRun(_ manifest: Manifest, command: String) throws(LightWorkError) -> Int64 {
        let id = try beginRun(manifest, command: command)
        try apply(manifest.entries.map { .insert($0, settingsDigest: manifest.settingsDigest) }, run: id)
        return id
    }

    /// Removes every run of `command` but `keep`, with their entries (a watch restarted carries its journal's
    /// entries into its new run, so the earlier runs' copies go: the ledger holds each once).
    public func retireRuns(command: String, keeping keep: Int64) throws(LightWorkError) {
        try database.transaction { () throws(LightWorkError) in
            try run("DELETE FROM entries WHERE run IN (SELECT id FROM runs WHERE command=? AND id<>?)", [.text(command), .int(keep)])
            try run("DELETE FROM runs WHERE command=? AND id<>?", [.text(command), .int(keep)])
        }
    }

    // MARK: - Reading

    /// Every run, oldest first.
    public func runs() throws(LightWorkError) -> [Run] {
        var out: [Run] = []
        guard hasSchema else { return out }
        try query("SELECT id, command, settings_digest, header FROM runs ORDER BY id") { (row: Row) throws(LightWorkError) in
            let header: Manifest
            do { header = try JSONDecoder().decode(Manifest.self, from: row.data(3)) } catch {
                throw .ledger("\(url.path): run \(row.int(0)) has a header this version cannot read (\(error))")
            }
            out.append(Run(id: row.int(0), command: row.text(1), settingsDigest: row.text(2), header: header))
        }
        return out
    }

    /// Run `id`'s entries in input order (those without an input index last, as recorded), one at a time: what a
    /// batch renders its part of `manifest.json` from without holding the run in memory. The first error `body`
    /// throws ends the reading and is rethrown.
    public func forEachEntry(run id: Int64, _ body: (Manifest.Entry) throws -> Void) throws {
        guard hasSchema else { return }
        let decoder = JSONDecoder()
        try database.forEach(ExportLedger.runEntriesSQL, [.int(id)]) { row in
            try body(try ExportLedger.entry(json: row.data(0), in: url.path, decoder))
        }
    }

    /// The entry `json` (a row of `source`, named in the message) holds.
    static func entry(json: Data, in source: String, _ decoder: JSONDecoder) throws(LightWorkError) -> Manifest.Entry {
        do { return try decoder.decode(Manifest.Entry.self, from: json) } catch {
            throw .ledger("\(source): an entry is not readable (\(error))")
        }
    }

    /// What the folder history indexes of one entry (`FolderHistory`): its row, the entry's JSON not decoded.
    struct IndexRow {
        var id: Int64
        var inputIndex: Int64?
        var inputPath: String
        var relativePath: String
        var outputPath: String?
        var status: String
        var settingsDigest: String
        var json: String
    }

    /// Run `id`'s entries as `IndexRow`s, in the order `forEachEntry` gives them.
    func forEachIndexRow(run id: Int64, _ body: (IndexRow) throws(LightWorkError) -> Void) throws(LightWorkError) {
        guard hasSchema else { return }
        try query("""
            SELECT id, input_index, input_path, json_extract(entry, '$.input.relativePath'), output_path, status, settings_digest, entry
            FROM entries WHERE run=? ORDER BY input_index IS NULL, input_index, id
            """, [.int(id)]) { (row: Row) throws(LightWorkError) in
            try body(IndexRow(id: row.int(0), inputIndex: row.isNull(1) ? nil : row.int(1), inputPath: row.text(2), relativePath: row.text(3),
                              outputPath: row.isNull(4) ? nil : row.text(4), status: row.text(5), settingsDigest: row.text(6), json: row.text(7)))
        }
    }

    /// Every entry: by run, in input order within a run (entries without an input index last, as recorded).
    public func records() throws(LightWorkError) -> [Record] {
        var rows: [(run: Int64, digest: String, json: Data)] = []
        guard hasSchema else { return [] }
        try query("SELECT run, settings_digest, entry FROM entries ORDER BY run, input_index IS NULL, input_index, id") { (row: Row) throws(LightWorkError) in
            rows.append((row.int(0), row.text(1), row.data(2)))
        }
        // Decoding is most of the cost of reading a ledger back: on every core, in slices.
        let slice = 2_048, slices = (rows.count + slice - 1) / slice
        let decoded = LockedBox([Int: Result<[Manifest.Entry], LightWorkError>]())
        Parallel.forEach(slices, workers: ProcessInfo.processInfo.activeProcessorCount) { _, k in
            let decoder = JSONDecoder()
            var entries: [Manifest.Entry] = []
            var result: Result<[Manifest.Entry], LightWorkError>
            do throws(LightWorkError) {
                for r in rows[(k * slice)..<min(rows.count, (k + 1) * slice)] { entries.append(try ExportLedger.entry(json: r.json, in: url.path, decoder)) }
                result = .success(entries)
            } catch {
                result = .failure(error)
            }
            decoded.withLock { $0[k] = result }
        }
        var out: [Record] = []
        out.reserveCapacity(rows.count)
        let all = decoded.withLock { $0 }
        for k in 0..<slices {
            let entries = try all[k]!.get()
            for (i, e) in entries.enumerated() {
                let r = rows[k * slice + i]
                out.append(Record(run: r.run, settingsDigest: r.digest, entry: e))
            }
        }
        return out
    }

    // MARK: - SQLite

    typealias Value = SQLiteDatabase.Value
    typealias Row = SQLiteDatabase.Row

    private var db: OpaquePointer { database.handle }
    private func exec(_ sql: String) throws(LightWorkError) { try database.exec(sql) }
    private func prepare(_ sql: String) throws(LightWorkError) -> OpaquePointer { try database.prepare(sql) }
    private func step(_ statement: OpaquePointer, _ values: [Value]) throws(LightWorkError) { try database.step(statement, values) }
    private func run(_ sql: String, _ values: [Value]) throws(LightWorkError) { try database.run(sql, values) }
    func query(_ sql: String, _ values: [Value] = [], _ each: (Row) throws(LightWorkError) -> Void) throws(LightWorkError) {
        try database.query(sql, values, each)
    }

    /// Compact JSON with sorted keys: what the ledger stores.
    static func encoder() -> JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return e
    }

    static func json<T: Encodable>(_ value: T, _ encoder: JSONEncoder = encoder()) throws(LightWorkError) -> String {
        do { return String(decoding: try encoder.encode(value), as: UTF8.self) } catch { throw .ledger("cannot encode a record: \(error)") }
    }
}
