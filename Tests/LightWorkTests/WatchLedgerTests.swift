import Foundation
import XCTest
@testable import LightWork

/// The watch journal: what a restart knows after a kill, torn records, and the lock against a second watch.
final class WatchLedgerTests: XCTestCase {
    private let sig = FileSignature(size: 1234, mtime: 1_700_000_000, mtimeNanos: 5, inode: 42, device: 9)

    private func converted(_ path: String, _ output: String, sha: String) -> Manifest.Entry {
        var e = Manifest.Entry(input: Manifest.Input(path: "/in/" + path, relativePath: path), status: .converted)
        e.input.sha256 = sha
        e.output = Manifest.Output(path: output, sha256: "out-" + sha, size: 10, format: "tiff16", bitDepth: 16, channels: 3,
                                   colorSpace: "srgb", width: 4, height: 3)
        return e
    }

    func testReplayAfterReopenKnowsWhatWasDoneAndWhatWasInFlight() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let url = dir.appendingPathComponent("watch-journal.jsonl")
        do {
            let l = try WatchLedger(url: url)
            XCTAssertEqual(l.takeSeq(), 1)
            try l.append(WatchRecord(op: .start, seq: 1, path: "a.dng", sha256: "AAA", signature: sig, output: "a.tif"))
            try l.append(WatchRecord(op: .done, seq: 1, path: "a.dng", sha256: "AAA", signature: sig, entry: converted("a.dng", "a.tif", sha: "AAA"), settingsDigest: "D1"))
            XCTAssertEqual(l.takeSeq(), 2)
            try l.append(WatchRecord(op: .start, seq: 2, path: "b.dng", sha256: "BBB", signature: sig, output: "b.tif"))
            try l.append(WatchRecord(op: .moved, seq: 1, movedTo: "/archive/a.dng"))
        }
        let l = try WatchLedger(url: url)
        XCTAssertEqual(l.droppedLines, 0)
        XCTAssertEqual(l.nextSeq, 3)
        XCTAssertTrue(l.alreadyHandled(path: "a.dng", signature: sig))
        var touched = sig
        touched.mtimeNanos += 1
        XCTAssertFalse(l.alreadyHandled(path: "a.dng", signature: touched), "a touched file is hashed again")
        XCTAssertEqual(l.record(path: "a.dng", sha256: "AAA")?.status, .converted)
        XCTAssertNil(l.record(path: "a.dng", sha256: "OTHER"))
        XCTAssertEqual(l.converted(sha256: "AAA", settingsDigest: "D1")?.path, "a.dng")
        XCTAssertNil(l.converted(sha256: "AAA", settingsDigest: "D2"), "new settings: not a duplicate")
        XCTAssertEqual(l.unfinished.map(\.path), ["b.dng"])
        XCTAssertEqual(l.unfinished.first?.output, "b.tif")
        XCTAssertEqual(l.owners, ["a.tif": "a.dng", "b.tif": "b.dng"])
        XCTAssertEqual(l.replayedEntries.count, 1)
        XCTAssertEqual(l.replayedEntries.first?.entry.notes, ["original moved to /archive/a.dng"])
        XCTAssertEqual(l.replayedEntries.first?.settingsDigest, "D1")
        XCTAssertEqual(l.finishedNotMoved.count, 0)
        XCTAssertEqual(l.counts.converted, 1)
    }

    /// A record cut by a kill (no final newline) is dropped and trimmed away; the next record is a whole line.
    func testTornLastRecordIsDroppedAndTrimmed() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let url = dir.appendingPathComponent("watch-journal.jsonl")
        do {
            let l = try WatchLedger(url: url)
            try l.append(WatchRecord(op: .start, seq: 1, path: "a.dng", sha256: "AAA", signature: sig, output: "a.tif"))
        }
        let whole = try Data(contentsOf: url)
        let h = try FileHandle(forWritingTo: url)
        try h.seekToEnd()
        try h.write(contentsOf: Data(#"{"op":"done","seq":1,"path":"a.d"#.utf8))
        try h.close()

        let l = try WatchLedger(url: url)
        XCTAssertEqual(l.droppedLines, 1)
        XCTAssertEqual(try Data(contentsOf: url), whole, "trimmed to the last whole record")
        XCTAssertEqual(l.unfinished.map(\.path), ["a.dng"], "the torn done does not count")
        try l.append(WatchRecord(op: .done, seq: 1, path: "a.dng", sha256: "AAA", signature: sig, entry: converted("a.dng", "a.tif", sha: "AAA")))
        let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, 2)
        for line in lines { XCTAssertNoThrow(try JSONDecoder().decode(WatchRecord.self, from: Data(line.utf8))) }
    }

    /// At open the journal is compacted to one record per file (a finished file's start, done and moved become one
    /// done), and a journal read back compacted knows exactly what the whole one did; the lock holds across the rewrite.
    func testJournalIsCompactedToOneRecordPerFileAndKnowsTheSame() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let url = dir.appendingPathComponent("watch-journal.jsonl")
        do {
            let l = try WatchLedger(url: url)
            try l.append(WatchRecord(op: .start, seq: 1, path: "a.dng", sha256: "AAA", signature: sig, output: "a.tif"))
            try l.append(WatchRecord(op: .done, seq: 1, path: "a.dng", sha256: "AAA", signature: sig, entry: converted("a.dng", "a.tif", sha: "AAA"), settingsDigest: "D1"))
            try l.append(WatchRecord(op: .moved, seq: 1, movedTo: "/archive/a.dng"))
            try l.append(WatchRecord(op: .start, seq: 2, path: "b.dng", sha256: "BBB", signature: sig, output: "b.tif"))
            var failed = Manifest.Entry(input: Manifest.Input(path: "/in/c.dng", relativePath: "c.dng"), status: .failed, reason: "cannot decode: x")
            failed.failureKind = .decodeFailed
            try l.append(WatchRecord(op: .start, seq: 3, path: "c.dng", sha256: "CCC", signature: sig, output: "c.tif"))
            try l.append(WatchRecord(op: .done, seq: 3, path: "c.dng", sha256: "CCC", signature: sig, entry: failed, settingsDigest: "D1"))
        }
        func state(_ l: WatchLedger) -> [String] {
            [l.files.keys.sorted().map { "\(l.files[$0]!)" }.joined(separator: "|"), "\(l.owners.sorted { $0.key < $1.key })",
             "\(l.replayedEntries.map { "\($0.entry)\($0.settingsDigest ?? "")" })", "\(l.unfinished.map(\.path))", "\(l.failedInPlace.sorted())",
             "\(l.finishedNotMoved.map(\.path))", "\(l.converted(sha256: "AAA", settingsDigest: "D1")?.output ?? "")", "\(l.nextSeq)"]
        }
        let whole: [String]
        do {
            let l = try WatchLedger(url: url)
            XCTAssertEqual(l.linesAtOpen, 6)
            XCTAssertEqual(l.linesAfterCompaction, 3)
            whole = state(l)
            XCTAssertThrowsError(try WatchLedger(url: url), "the compacted journal is locked too")
        }
        XCTAssertEqual(try String(contentsOf: url, encoding: .utf8).split(separator: "\n").count, 3)
        let compacted = try WatchLedger(url: url)
        XCTAssertEqual(compacted.linesAtOpen, 3)
        XCTAssertEqual(compacted.linesAfterCompaction, 3, "nothing more to drop")
        XCTAssertEqual(state(compacted), whole)
        XCTAssertEqual(compacted.replayedEntries.first?.entry.notes, ["original moved to /archive/a.dng"])
        XCTAssertEqual(compacted.unfinished.first?.output, "b.tif")
        XCTAssertEqual((try? FileManager.default.contentsOfDirectory(atPath: dir.path))?.sorted(), ["watch-journal.jsonl"], "no temporary left")
    }

    func testSecondLedgerOnTheSameJournalIsRefused() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let url = dir.appendingPathComponent("watch-journal.jsonl")
        let first = try WatchLedger(url: url)
        XCTAssertThrowsError(try WatchLedger(url: url)) { error in
            XCTAssertTrue("\(error)".contains("another lightwork watch is using"), "\(error)")
        }
        _ = first
    }
}
