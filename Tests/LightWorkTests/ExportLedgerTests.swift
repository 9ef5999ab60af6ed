import Foundation
import XCTest
@testable import LightWork

/// The export ledger of an output folder (`ExportLedger`, `FolderHistory`): its records round-trip whatever an entry
/// holds, the folder's current entries follow the runs, and recording an entry costs the same at 100,000 entries as
/// at 1,000.
final class ExportLedgerTests: XCTestCase {
    private func entry(_ input: String, output: String?, status: Manifest.Status = .converted, index: Int? = nil) -> Manifest.Entry {
        var e = Manifest.Entry(input: Manifest.Input(path: "/shoot/" + input, relativePath: input), status: status)
        e.input.index = index
        e.input.sha256 = SHA256.hex(Data(input.utf8))
        e.output = output.map { Manifest.Output(path: $0, sha256: SHA256.hex(Data($0.utf8)), size: 100, format: "jpeg", bitDepth: 8, channels: 3,
                                                colorSpace: "srgb", width: 4, height: 3) }
        if status == .failed { e.reason = "cannot decode: test"; e.failureKind = .decodeFailed }
        e.notes = ["a note with / and ü"]
        return e
    }

    private func header(_ digest: String, started: String) -> Manifest {
        var m = Manifest(tool: Manifest.ToolInfo(version: "test", libraries: [:]), settings: ConvertSpec(outputDirectory: URL(fileURLWithPath: "/o")).settings,
                         host: "h", startedAt: Date(timeIntervalSince1970: 0))
        m.settingsDigest = digest
        m.startedAt = started
        return m
    }

    /// Entries come back exactly as recorded (the JSON is stored whole), runs keep their headers, updates replace.
    func testRecordsRoundTripWithRunsAndUpdates() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let ledger = try ExportLedger.open(folder: dir, shard: nil)
        XCTAssertEqual(ledger.url.path, dir.appendingPathComponent(".lightwork/ledger.sqlite").path)
        let run = try ledger.beginRun(header("D1", started: "2026-01-01T00:00:00Z"), command: "convert")
        let a = entry("a.dng", output: "a.jpg", index: 1), b = entry("b.dng", output: nil, status: .failed, index: 2)
        try ledger.apply([.insert(a, settingsDigest: "D1"), .insert(b, settingsDigest: "D1")], run: run)
        var moved = a
        moved.notes.append("original moved to /archive/a.dng")
        try ledger.apply([.update(index: 1, moved)], run: run)
        var finished = header("D1", started: "2026-01-01T00:00:00Z")
        finished.finishedAt = "2026-01-01T00:01:00Z"
        try ledger.updateRun(run, header: finished)

        let reopened = try ExportLedger(url: ledger.url, readOnly: true)
        XCTAssertEqual(try reopened.records().map(\.entry), [moved, b])
        XCTAssertEqual(try reopened.records().map(\.settingsDigest), ["D1", "D1"])
        let runs = try reopened.runs()
        XCTAssertEqual(runs.map(\.command), ["convert"])
        XCTAssertEqual(runs.first?.header.finishedAt, "2026-01-01T00:01:00Z")
        XCTAssertEqual(runs.first?.header.entries, [])
        XCTAssertThrowsError(try ExportLedger(url: dir.appendingPathComponent("none/ledger.sqlite"), readOnly: true)) { error in
            XCTAssertEqual((error as? LightWorkError)?.kind, .ledger)
        }
    }

    /// The folder's current entries: a later run's record of an output replaces the earlier one, a later success
    /// replaces an input's failure, other outputs and failures stay; the owners are every current output's input.
    func testCurrentEntriesFollowTheRuns() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let ledger = try ExportLedger.open(folder: dir, shard: nil)
        let first = try ledger.beginRun(header("A", started: "2026-01-01T00:00:00Z"), command: "convert")
        try ledger.apply([.insert(entry("a.dng", output: "a.jpg", index: 1), settingsDigest: "A"),
                          .insert(entry("b.dng", output: nil, status: .failed, index: 2), settingsDigest: "A"),
                          .insert(entry("c.dng", output: "c.jpg", index: 3), settingsDigest: "A")], run: first)
        let second = try ledger.beginRun(header("B", started: "2026-01-01T00:05:00Z"), command: "convert")
        try ledger.apply([.insert(entry("a.dng", output: "a.jpg", index: 1), settingsDigest: "B"),
                          .insert(entry("b.dng", output: "b.jpg", index: 2), settingsDigest: "B"),
                          .insert(entry("x.png", output: nil, status: .failed, index: 3), settingsDigest: "B")], run: second)

        let history = try FolderHistory.load(folder: dir)
        XCTAssertEqual(history.current.map { $0.entry.input.relativePath }, ["c.dng", "a.dng", "b.dng", "x.png"])
        XCTAssertEqual(history.current.map(\.settingsDigest), ["A", "B", "B", "B"])
        XCTAssertEqual(history.owners, ["a.jpg": "a.dng", "b.jpg": "b.dng", "c.jpg": "c.dng"])
        // What a run with the first settings may reuse, and what other settings made.
        let inputs = history.current.map(\.entry.input)
        XCTAssertEqual(inputs.filter { history.previous(path: $0.path, relativePath: $0.relativePath, settingsDigest: "A") != nil }.map(\.relativePath),
                       ["c.dng"])
        XCTAssertEqual(inputs.filter { history.hasOtherSettings(path: $0.path, relativePath: $0.relativePath, settingsDigest: "A") }.map(\.relativePath),
                       ["a.dng", "b.dng"])
        let m = try history.manifest(header: header("B", started: "2026-01-01T00:05:00Z"))
        XCTAssertEqual(m.summary, Manifest.Summary(total: 4, converted: 3, skipped: 0, failed: 1))
        XCTAssertEqual(m.entries[0].notes.last, ManifestStore.otherSettingsNote("A"), "c.jpg was made with the first run's settings")

        // The keyed lookups a batch plans and resumes with answer what the whole lists say.
        XCTAssertEqual(history.owner(ofOutput: "a.jpg"), "a.dng")
        XCTAssertEqual(history.owner(ofOutput: "c.jpg"), "c.dng")
        XCTAssertNil(history.owner(ofOutput: "x.jpg"))
        XCTAssertEqual(history.previous(path: "/shoot/c.dng", relativePath: "c.dng", settingsDigest: "A"), entry("c.dng", output: "c.jpg", index: 3))
        XCTAssertEqual(history.previous(path: "/elsewhere/c.dng", relativePath: "c.dng", settingsDigest: "A")?.output?.path, "c.jpg",
                       "an input moved is found by its relative path")
        XCTAssertNil(history.previous(path: "/shoot/a.dng", relativePath: "a.dng", settingsDigest: "A"), "a.jpg was made again with B")
        XCTAssertEqual(history.previous(path: "/shoot/b.dng", relativePath: "b.dng", settingsDigest: "B")?.output?.path, "b.jpg")
        XCTAssertNil(history.previous(path: "/shoot/x.png", relativePath: "x.png", settingsDigest: "B"), "a failure is never reused")
        XCTAssertTrue(history.hasReusable(settingsDigest: "A"))
        XCTAssertFalse(history.hasReusable(settingsDigest: "C"))
        XCTAssertTrue(history.hasOtherSettings(path: "/shoot/a.dng", relativePath: "a.dng", settingsDigest: "A"))
        XCTAssertFalse(history.hasOtherSettings(path: "/shoot/c.dng", relativePath: "c.dng", settingsDigest: "A"))
        XCTAssertEqual(try history.summary(), m.summary)
        var streamed: [Manifest.Entry] = []
        try history.forEachCurrent { streamed.append(FolderHistory.listed($0, settingsDigest: "B")) }
        XCTAssertEqual(streamed, m.entries)
        // What a run records replaces the current entry of its output, and an input's entry without output.
        history.replace(with: entry("a.dng", output: "a.jpg", index: 1))
        history.replace(with: entry("x.png", output: "x.jpg", index: 3))
        var left: [String] = []
        try history.forEachCurrent(replaced: false) { left.append($0.entry.input.relativePath) }
        XCTAssertEqual(left, ["c.dng", "b.dng"])
        XCTAssertEqual(try history.summary(replaced: false), Manifest.Summary(total: 2, converted: 2, skipped: 0, failed: 0))
    }

    /// Reading a run's entries stops at the first error its reader throws, and that error comes out.
    func testReadingEntriesStopsAtTheReadersError() throws {
        struct Stop: Error {}
        let dir = try TestPaths.temporaryDirectory(self)
        let ledger = try ExportLedger.open(folder: dir, shard: nil)
        let run = try ledger.beginRun(header("D", started: "2026-01-01T00:00:00Z"), command: "convert")
        try ledger.apply((1...3).map { .insert(entry("f-\($0).dng", output: "f-\($0).jpg", index: $0), settingsDigest: "D") }, run: run)
        var read = 0
        XCTAssertThrowsError(try ledger.forEachEntry(run: run) { _ in
            read += 1
            throw Stop()
        }) { XCTAssertTrue($0 is Stop, "\($0)") }
        XCTAssertEqual(read, 1, "no entry is read after the reader's error")
        read = 0
        try ledger.forEachEntry(run: run) { _ in read += 1 }
        XCTAssertEqual(read, 3)
    }

    /// Recording an entry does not grow with the ledger: entries go in checkpoints of 256, an insert appends, and an
    /// update (a note added after the fact) and a run's reading find their rows by `entries_by_run` rather than
    /// scanning; 100,000 entries all come back. What recording costs at 1,000 and at 100,000 entries is `make
    /// bench`'s figure (`lightwork-tools ledger-recording-cost`): a timed test fails on a loaded machine.
    func testRecordingTo100000EntriesUsesTheRunIndex() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let ledger = try ExportLedger.open(folder: dir, shard: nil)
        let run = try ledger.beginRun(header("D", started: "2026-01-01T00:00:00Z"), command: "convert")
        let total = 100_000, batch = ManifestStore.checkpointEntries
        var checkpoints = 0
        for first in stride(from: 0, to: total, by: batch) {
            try ledger.apply((first..<min(total, first + batch)).map { i in
                ExportLedger.Change.insert(entry("f-\(i).dng", output: "f-\(i).jpg", index: i + 1), settingsDigest: "D")
            }, run: run)
            checkpoints += 1
        }
        XCTAssertEqual(checkpoints, (total + batch - 1) / batch)
        var updated = entry("f-49999.dng", output: "f-49999.jpg", index: 50_000)
        updated.notes.append("original moved")
        try ledger.apply([.update(index: 50_000, updated)], run: run)

        for sql in [ExportLedger.updateSQL, ExportLedger.runEntriesSQL] {
            var plan: [String] = []
            try ledger.query("EXPLAIN QUERY PLAN " + sql) { plan.append($0.text(3)) }
            XCTAssertTrue(plan.contains { $0.hasPrefix("SEARCH entries USING INDEX entries_by_run") }, "\(sql): \(plan)")
            XCTAssertFalse(plan.contains { $0.hasPrefix("SCAN entries") }, "\(sql): \(plan)")
        }
        var read = 0, noted = 0
        try ledger.forEachEntry(run: run) { e in
            read += 1
            if e.input.index == 50_000, e.notes.last == "original moved" { noted += 1 }
        }
        XCTAssertEqual(read, total)
        XCTAssertEqual(noted, 1, "the update changed the one entry of its index")
        let history = try FolderHistory.load(folder: dir)
        XCTAssertEqual(history.current.count, total)
    }
}
