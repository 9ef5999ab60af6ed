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
    private let db: OpaquePointer
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

    /// Opens the ledger at `url`, creating it (and its folder) unless `readOnly`. `created` tells whether it was new.
    public init(url: URL, readOnly: Bool = false) throws(LightWorkError) {
        self.url = url
        if !readOnly {
            do { try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true) } catch {
                throw .ledger("cannot create \(url.deletingLastPathComponent().path): \(FileConverter.describe(error))")
            }
        }
        var handle: OpaquePointer?
        let flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(url.path, &handle, flags, nil)
        guard rc == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
            sqlite3_close(handle)
            throw .ledger("cannot open \(url.path): \(message)")
        }
        db = handle
        // Shards and a watch may read a ledger while its run writes it: wait for a lock rather than fail.
        sqlite3_busy_timeout(db, 30_000)
        do {
            if readOnly {
                var statement: OpaquePointer?
                if sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &statement, nil) == SQLITE_OK, sqlite3_step(statement) == SQLITE_ROW {
                    hasSchema = sqlite3_column_int64(statement, 0) != 0
                }
                sqlite3_finalize(statement)
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
        } catch {
            sqlite3_close(db)
            throw error
        }
    }

    deinit { sqlite3_close(db) }

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
        try exec("BEGIN IMMEDIATE")
        do {
            let insert = try prepare("INSERT INTO entries(run, input_index, input_path, output_path, status, settings_digest, entry) VALUES(?,?,?,?,?,?,?)")
            defer { sqlite3_finalize(insert) }
            let update = try prepare("UPDATE entries SET output_path=?, status=?, entry=? WHERE run=? AND input_index=?")
            defer { sqlite3_finalize(update) }
            let encoder = ExportLedger.encoder()
            for change in changes {
                switch change {
                case let .insert(e, digest):
                    try step(insert, [.int(id), e.input.index.map { .int(Int64($0)) } ?? .null, .text(e.input.path),
                                      e.output.map { .text($0.path) } ?? .null, .text(e.status.rawValue), .text(digest),
                                      .text(try ExportLedger.json(e, encoder))])
                case let .update(index, e):
                    try step(update, [e.output.map { .text($0.path) } ?? .null, .text(e.status.rawValue), .text(try ExportLedger.json(e, encoder)),
                                      .int(id), .int(Int64(index))])
                }
            }
            try exec("COMMIT")
        } catch {
            _ = sqlite3_exec(db, "ROLLBACK", nil, nil, nil)
            throw error
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
        try exec("BEGIN IMMEDIATE")
        do {
            try run("DELETE FROM entries WHERE run IN (SELECT id FROM runs WHERE command=? AND id<>?)", [.text(command), .int(keep)])
            try run("DELETE FROM runs WHERE command=? AND id<>?", [.text(command), .int(keep)])
            try exec("COMMIT")
        } catch {
            _ = sqlite3_exec(db, "ROLLBACK", nil, nil, nil)
            throw error
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
    /// batch renders its part of `manifest.json` from without holding the run in memory.
    public func forEachEntry(run id: Int64, _ body: (Manifest.Entry) throws -> Void) throws {
        guard hasSchema else { return }
        let decoder = JSONDecoder()
        var failure: Error?
        try query("SELECT entry FROM entries WHERE run=\(id) ORDER BY input_index IS NULL, input_index, id") { (row: Row) throws(LightWorkError) in
            guard failure == nil else { return }
            let entry: Manifest.Entry
            do { entry = try decoder.decode(Manifest.Entry.self, from: row.data(0)) } catch {
                throw .ledger("\(url.path): an entry is not readable (\(error))")
            }
            do { try body(entry) } catch let e as LightWorkError { throw e } catch { failure = error }
        }
        if let failure { throw failure }
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
            do {
                for r in rows[(k * slice)..<min(rows.count, (k + 1) * slice)] { entries.append(try decoder.decode(Manifest.Entry.self, from: r.json)) }
                result = .success(entries)
            } catch {
                result = .failure(.ledger("\(url.path): an entry is not readable (\(error))"))
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

    enum Value { case null, int(Int64), text(String) }

    struct Row {
        let statement: OpaquePointer
        func int(_ column: Int32) -> Int64 { sqlite3_column_int64(statement, column) }
        func text(_ column: Int32) -> String { sqlite3_column_text(statement, column).map { String(cString: $0) } ?? "" }
        func data(_ column: Int32) -> Data {
            guard let bytes = sqlite3_column_blob(statement, column) else { return Data() }
            return Data(bytes: bytes, count: Int(sqlite3_column_bytes(statement, column)))
        }
    }

    private func failure(_ what: String) -> LightWorkError {
        .ledger("\(url.path): \(what): \(String(cString: sqlite3_errmsg(db)))")
    }

    private func exec(_ sql: String) throws(LightWorkError) {
        var message: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(db, sql, nil, nil, &message) == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(db))
            sqlite3_free(message)
            throw .ledger("\(url.path): \(text)")
        }
    }

    private func prepare(_ sql: String) throws(LightWorkError) -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else { throw failure("prepare") }
        return statement
    }

    private func bind(_ statement: OpaquePointer, _ values: [Value]) {
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
        for (i, value) in values.enumerated() {
            let column = Int32(i + 1)
            switch value {
            case .null: sqlite3_bind_null(statement, column)
            case .int(let v): sqlite3_bind_int64(statement, column, v)
            case .text(let s): sqlite3_bind_text(statement, column, s, -1, lw_sqlite_transient())
            }
        }
    }

    private func step(_ statement: OpaquePointer, _ values: [Value]) throws(LightWorkError) {
        bind(statement, values)
        guard sqlite3_step(statement) == SQLITE_DONE else { throw failure("write") }
    }

    private func run(_ sql: String, _ values: [Value]) throws(LightWorkError) {
        let statement = try prepare(sql)
        defer { sqlite3_finalize(statement) }
        try step(statement, values)
    }

    private func query(_ sql: String, _ each: (Row) throws(LightWorkError) -> Void) throws(LightWorkError) {
        let statement = try prepare(sql)
        defer { sqlite3_finalize(statement) }
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { return }
            guard rc == SQLITE_ROW else { throw failure("read") }
            try each(Row(statement: statement))
        }
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
