import CSQLite
import Foundation

/// The jobs of a plan by position (input order): in memory (an array) or kept on disk (`StoredPlan`).
public protocol PlannedJobs {
    var count: Int { get }
    subscript(_ position: Int) -> PlannedJob { get }
}

extension Array: PlannedJobs where Element == PlannedJob {}

/// The RAW+JPEG pair group of an input (its folder and lower-cased stem), and which of the two it is.
struct PairMember {
    var group: String
    var isRaw: Bool
}

/// Where `BatchPlanner` keeps a plan while it makes it: the jobs by position, the pair groups and the output names
/// claimed (lower-cased path → the input that claimed it). One planning algorithm runs on either kind.
protocol PlanStorage: AnyObject {
    var count: Int { get }
    func append(_ job: PlannedJob, pair: PairMember?)
    func job(at position: Int) -> PlannedJob
    func replace(_ job: PlannedJob, at position: Int)
    /// Every group holding a RAW and a JPEG: their positions, ascending.
    func forEachPair(_ body: (_ raws: [Int], _ jpegs: [Int]) -> Void)
    func claimant(_ key: String) -> String?
    func claim(_ key: String, by owner: String)
}

/// A plan in memory: a watch's one file, or a caller that wants the jobs as an array (`BatchPlan`).
final class MemoryPlanStorage: PlanStorage {
    private(set) var jobs: [PlannedJob] = []
    private var groups: [String: (raws: [Int], jpegs: [Int])] = [:]
    private var claimed: [String: String] = [:]

    var count: Int { jobs.count }

    func append(_ job: PlannedJob, pair: PairMember?) {
        if let pair {
            if pair.isRaw { groups[pair.group, default: ([], [])].raws.append(jobs.count) } else { groups[pair.group, default: ([], [])].jpegs.append(jobs.count) }
        }
        jobs.append(job)
    }

    func job(at position: Int) -> PlannedJob { jobs[position] }
    func replace(_ job: PlannedJob, at position: Int) { jobs[position] = job }

    func forEachPair(_ body: (_ raws: [Int], _ jpegs: [Int]) -> Void) {
        for group in groups.values where !group.raws.isEmpty && !group.jpegs.isEmpty { body(group.raws, group.jpegs) }
    }

    func claimant(_ key: String) -> String? { claimed[key] }
    func claim(_ key: String, by owner: String) { claimed[key] = owner }
}

/// A plan in a private temporary SQLite database (`SQLiteDatabase` with an empty path: its pages beyond a small cache go
/// to an unlinked file), so the parent of a 100,000-file batch holds no array of its inputs, jobs or names. Its first
/// failure (a full temporary folder) is kept in `failure`: the planner throws it, and a job read after it fails with it.
final class SQLitePlanStorage: PlanStorage {
    private let database: SQLiteDatabase
    private let insertJob, selectJob, updateJob, insertPair, selectClaim, insertClaim: OpaquePointer
    private(set) var count = 0
    private(set) var failure: LightWorkError?

    init() throws(LightWorkError) {
        database = try SQLiteDatabase(path: "", flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, name: "the batch plan's temporary database")
        // One transaction for the whole plan, never synced: the database dies with the process.
        try database.exec("""
            PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA cache_size=-1024;
            CREATE TABLE job(pos INTEGER PRIMARY KEY, path TEXT NOT NULL, display TEXT NOT NULL, rel TEXT NOT NULL,
              action INTEGER NOT NULL, detail TEXT NOT NULL, kind TEXT, notes TEXT, left_alone TEXT);
            CREATE TABLE pair(grp TEXT NOT NULL, pos INTEGER NOT NULL, raw INTEGER NOT NULL);
            CREATE TABLE claim(k TEXT PRIMARY KEY, owner TEXT NOT NULL) WITHOUT ROWID;
            BEGIN
            """)
        insertJob = try database.prepare("INSERT INTO job(pos, path, display, rel, action, detail, kind, notes, left_alone) VALUES(?,?,?,?,?,?,?,?,?)")
        selectJob = try database.prepare("SELECT path, display, rel, action, detail, kind, notes, left_alone FROM job WHERE pos=?")
        updateJob = try database.prepare("UPDATE job SET action=?, detail=?, kind=?, notes=?, left_alone=? WHERE pos=?")
        insertPair = try database.prepare("INSERT INTO pair(grp, pos, raw) VALUES(?,?,?)")
        selectClaim = try database.prepare("SELECT owner FROM claim WHERE k=?")
        insertClaim = try database.prepare("INSERT OR REPLACE INTO claim(k, owner) VALUES(?,?)")
    }

    deinit {
        for statement in [insertJob, selectJob, updateJob, insertPair, selectClaim, insertClaim] { sqlite3_finalize(statement) }
    }

    private func attempt(_ body: () throws(LightWorkError) -> Void) {
        guard failure == nil else { return }
        do { try body() } catch { failure = error }
    }

    /// Action, detail (output or reason), failure kind, notes (JSON, NULL when none) and the file left alone.
    private static func columns(_ job: PlannedJob) -> [SQLiteDatabase.Value] {
        let notes: SQLiteDatabase.Value = job.notes.isEmpty ? .null
            : .text(String(decoding: (try? JSONEncoder().encode(job.notes)) ?? Data("[]".utf8), as: UTF8.self))
        let left: SQLiteDatabase.Value = job.leftAlone.map { .text($0) } ?? .null
        switch job.action {
        case .convert(let output): return [.int(0), .text(output), .null, notes, left]
        case .skip(let reason): return [.int(1), .text(reason), .null, notes, left]
        case let .fail(reason, kind): return [.int(2), .text(reason), .text(kind.rawValue), notes, left]
        }
    }

    func append(_ job: PlannedJob, pair: PairMember?) {
        attempt { () throws(LightWorkError) in
            try database.step(insertJob, [.int(Int64(count)), .text(job.item.url.path), .text(job.item.displayPath), .text(job.item.relativePath)]
                              + SQLitePlanStorage.columns(job))
            if let pair { try database.step(insertPair, [.text(pair.group), .int(Int64(count)), .int(pair.isRaw ? 1 : 0)]) }
        }
        count += 1
    }

    func job(at position: Int) -> PlannedJob {
        var job: PlannedJob?
        attempt { () throws(LightWorkError) in
            try database.rows(selectJob, [.int(Int64(position))]) { (row: SQLiteDatabase.Row) throws(LightWorkError) in
                // Inputs are files: a URL asked to find out whether it is a folder would stat it at every read.
                let item = InputItem(url: URL(fileURLWithPath: row.text(0), isDirectory: false), displayPath: row.text(1), relativePath: row.text(2))
                let detail = row.text(4)
                let action: PlannedJob.Action = switch row.int(3) {
                case 0: .convert(output: detail)
                case 1: .skip(reason: detail)
                default: .fail(reason: detail, kind: FailureKind(rawValue: row.text(5)) ?? .other)
                }
                let notes = row.isNull(6) ? [] : (try? JSONDecoder().decode([String].self, from: Data(row.text(6).utf8))) ?? []
                job = PlannedJob(item: item, action: action, notes: notes)
                if !row.isNull(7) { job?.leftAlone = row.text(7) }
                return false
            }
            if job == nil { throw LightWorkError.ledger("\(database.name): no job at position \(position)") }
        }
        if let job { return job }
        // Never a silent success: the input is reported failed, with the database's words.
        let what = "plan position \(position + 1)"
        return PlannedJob(item: InputItem(url: URL(fileURLWithPath: "/"), displayPath: what, relativePath: what),
                          action: .fail(reason: failure?.description ?? "the plan cannot be read", kind: .ledger))
    }

    func replace(_ job: PlannedJob, at position: Int) {
        attempt { () throws(LightWorkError) in try database.step(updateJob, SQLitePlanStorage.columns(job) + [.int(Int64(position))]) }
    }

    func forEachPair(_ body: (_ raws: [Int], _ jpegs: [Int]) -> Void) {
        attempt { () throws(LightWorkError) in
            try database.exec("CREATE INDEX pair_grp ON pair(grp, pos)")
            var group = "", raws: [Int] = [], jpegs: [Int] = []
            // One group at a time: only those holding both a RAW and a JPEG, members in input order.
            try database.query("""
                SELECT grp, pos, raw FROM pair WHERE grp IN (SELECT grp FROM pair GROUP BY grp HAVING max(raw)=1 AND min(raw)=0)
                ORDER BY grp, pos
                """) { (row: SQLiteDatabase.Row) throws(LightWorkError) in
                let g = row.text(0)
                if g != group, !raws.isEmpty || !jpegs.isEmpty {
                    body(raws, jpegs)
                    raws = []
                    jpegs = []
                }
                group = g
                if row.int(2) == 1 { raws.append(Int(row.int(1))) } else { jpegs.append(Int(row.int(1))) }
            }
            if !raws.isEmpty || !jpegs.isEmpty { body(raws, jpegs) }
        }
    }

    func claimant(_ key: String) -> String? {
        var owner: String?
        attempt { () throws(LightWorkError) in
            try database.rows(selectClaim, [.text(key)]) { (row: SQLiteDatabase.Row) throws(LightWorkError) in
                owner = row.text(0)
                return false
            }
        }
        return owner
    }

    func claim(_ key: String, by owner: String) {
        attempt { () throws(LightWorkError) in try database.step(insertClaim, [.text(key), .text(owner)]) }
    }

    /// The number of jobs that convert.
    func convertingCount() -> Int {
        var n = 0
        attempt { () throws(LightWorkError) in
            try database.query("SELECT count(*) FROM job WHERE action=0") { (row: SQLiteDatabase.Row) throws(LightWorkError) in n = Int(row.int(0)) }
        }
        return n
    }
}

/// A batch's plan kept in a private temporary database (`BatchPlanner.store`): jobs are read back by position as the
/// runner needs them, so the parent's memory does not grow with the number of inputs.
public final class StoredPlan: PlannedJobs {
    private let storage: SQLitePlanStorage
    /// Files found but dropped by `--include`/`--exclude`.
    public let excluded: Int
    /// Files `--include`/`--exclude` kept but `--min-rating`/`--label` did not take, with why (in input order).
    public let filteredOut: [BatchPlan.FilteredInput]
    /// The jobs that convert.
    public let convertingCount: Int

    init(storage: SQLitePlanStorage, excluded: Int, filteredOut: [BatchPlan.FilteredInput]) {
        self.storage = storage
        self.excluded = excluded
        self.filteredOut = filteredOut
        convertingCount = storage.convertingCount()
    }

    public var count: Int { storage.count }
    public var isEmpty: Bool { storage.count == 0 }
    public subscript(_ position: Int) -> PlannedJob { storage.job(at: position) }
    /// The first failure of the temporary database after planning (a job read then fails with it); nil when none.
    public var failure: LightWorkError? { storage.failure }
}
