import CSQLite
import Foundation

/// One SQLite connection and the few calls LightWork makes on it (statements with bound values, rows read one at a
/// time), every failure a `LightWorkError.ledger` naming `name`. The export ledger (`ExportLedger`) and the folder
/// history's index (`FolderHistory`, a private temporary database) are its clients.
final class SQLiteDatabase {
    /// What messages call this database (its file, or what a temporary one is for).
    let name: String
    let handle: OpaquePointer

    enum Value { case null, int(Int64), text(String) }

    /// A row being read: valid only inside the closure it is given to.
    struct Row {
        let statement: OpaquePointer
        func int(_ column: Int32) -> Int64 { sqlite3_column_int64(statement, column) }
        func isNull(_ column: Int32) -> Bool { sqlite3_column_type(statement, column) == SQLITE_NULL }
        func text(_ column: Int32) -> String { sqlite3_column_text(statement, column).map { String(cString: $0) } ?? "" }
        func data(_ column: Int32) -> Data {
            guard let bytes = sqlite3_column_blob(statement, column) else { return Data() }
            return Data(bytes: bytes, count: Int(sqlite3_column_bytes(statement, column)))
        }
    }

    /// Opens `path` with `flags` ("" with read-write flags: a private temporary database, kept in memory up to its
    /// page cache and beyond it in a file of SQLite's temporary folder that it unlinks as it opens it, so no exit,
    /// not even a kill, leaves it behind).
    init(path: String, flags: Int32, name: String) throws(LightWorkError) {
        self.name = name
        var opened: OpaquePointer?
        let rc = sqlite3_open_v2(path, &opened, flags | SQLITE_OPEN_NOMUTEX, nil)
        guard rc == SQLITE_OK, let opened else {
            let message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
            sqlite3_close(opened)
            throw .ledger("cannot open \(name): \(message)")
        }
        handle = opened
    }

    deinit { sqlite3_close(handle) }

    func failure(_ what: String) -> LightWorkError {
        .ledger("\(name): \(what): \(String(cString: sqlite3_errmsg(handle)))")
    }

    func exec(_ sql: String) throws(LightWorkError) {
        var message: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(handle, sql, nil, nil, &message) == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(message)
            throw .ledger("\(name): \(text)")
        }
    }

    /// Runs `body` in one `BEGIN IMMEDIATE` transaction: committed when it returns, rolled back when it throws.
    func transaction(_ body: () throws(LightWorkError) -> Void) throws(LightWorkError) {
        try exec("BEGIN IMMEDIATE")
        do {
            try body()
            try exec("COMMIT")
        } catch {
            _ = sqlite3_exec(handle, "ROLLBACK", nil, nil, nil)
            throw error
        }
    }

    /// A prepared statement; the caller finalizes it (`sqlite3_finalize`).
    func prepare(_ sql: String) throws(LightWorkError) -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else { throw failure("prepare") }
        return statement
    }

    func bind(_ statement: OpaquePointer, _ values: [Value]) {
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

    /// Runs `statement` (a write) with `values`.
    func step(_ statement: OpaquePointer, _ values: [Value]) throws(LightWorkError) {
        bind(statement, values)
        guard sqlite3_step(statement) == SQLITE_DONE else { throw failure("write") }
    }

    func run(_ sql: String, _ values: [Value] = []) throws(LightWorkError) {
        let statement = try prepare(sql)
        defer { sqlite3_finalize(statement) }
        try step(statement, values)
    }

    /// Steps `statement` with `values`, giving each row to `each` until it returns false or the rows end.
    func rows(_ statement: OpaquePointer, _ values: [Value] = [], _ each: (Row) throws(LightWorkError) -> Bool) throws(LightWorkError) {
        bind(statement, values)
        defer { sqlite3_reset(statement) }
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { return }
            guard rc == SQLITE_ROW else { throw failure("read") }
            guard try each(Row(statement: statement)) else { return }
        }
    }

    /// Every row of `sql` with `values`, one at a time.
    func query(_ sql: String, _ values: [Value] = [], _ each: (Row) throws(LightWorkError) -> Void) throws(LightWorkError) {
        let statement = try prepare(sql)
        defer { sqlite3_finalize(statement) }
        try rows(statement, values) { (row: Row) throws(LightWorkError) in
            try each(row)
            return true
        }
    }

    /// Every row of `sql` with `values`, one at a time, to `each`, whose first error (of any type) ends the reading
    /// and is rethrown.
    func forEach(_ sql: String, _ values: [Value] = [], _ each: (Row) throws -> Void) throws {
        var failure: Error?
        let statement = try prepare(sql)
        defer { sqlite3_finalize(statement) }
        try rows(statement, values) { (row: Row) throws(LightWorkError) in
            do { try each(row) } catch {
                failure = error
                return false
            }
            return true
        }
        if let failure { throw failure }
    }
}
