import Foundation
import XCTest
@testable import LightWork

/// Re-developing a frame on the studio monitor (`POST /api/redevelop`): an extra output with another look, named and
/// recorded beside the file's own, which stays as it was; the inbox's accounting does not move.
final class MonitorRedevelopTests: XCTestCase {
    /// The page's CSRF token, read from the page as a browser gets it.
    private func csrf(_ m: MonitorFixture) throws -> String {
        let page = m.get("/").body
        let start = try XCTUnwrap(page.range(of: "name=\"lightwork-csrf\" content=\""))
        return String(page[start.upperBound...].prefix { $0 != "\"" })
    }

    private func post(_ m: MonitorFixture, _ json: String, csrf: String?) -> (status: Int, body: String) {
        m.raw("POST /api/redevelop HTTP/1.1\r\nHost: 127.0.0.1:\(m.port)\r\nContent-Type: application/json\r\n"
              + (csrf.map { "X-LightWork-CSRF: \($0)\r\n" } ?? "") + "Content-Length: \(json.utf8.count)\r\nConnection: close\r\n\r\n\(json)")
    }

    /// Frame 1 re-developed with a film at 60 %: the extra file is byte-identical to `lightwork convert` of the same input
    /// with that film and strength, the file's own output keeps its bytes, the manifest lists both (the extra with its
    /// note and the look's settings digest in the ledger), the counts stay; refusals: no CSRF token 403, an unknown frame
    /// 404, a failed frame 409, a frame whose input is gone 422. A restart keeps both entries (the journal holds them).
    func testAFrameReDevelopedWithAFilmIsAnExtraOutputBesideItsOwn() throws {
        let m = try MonitorFixture(self)
        let source = try m.watch.makeDNGs(1, prefix: "shoot", width: 600, height: 400)[0]
        try m.watch.drop(source)
        try m.start(["--jobs", "1", "--format", "jpeg"])
        defer { m.stop() }
        XCTAssertTrue(m.watch.waitForEntries(["shoot1.dng"]))
        let catalog = MonitorCatalog.load(profiles: try ProfilesDirectory.locate(), ownRecipe: nil)
        let film = try XCTUnwrap(catalog.films.first)
        let original = m.watch.out.appendingPathComponent("shoot1.jpg")
        XCTAssertTrue(WatchFixture.wait(seconds: 10) { FileManager.default.fileExists(atPath: original.path) })
        let originalBytes = try Data(contentsOf: original)
        let token = try csrf(m)
        XCTAssertEqual(token.count, 64)

        // Checked as a look change is; a frame must be one converted whose input is still there.
        let body = "{\"frame\": 1, \"film\": \"\(film.id)\", \"strength\": 60}"
        XCTAssertEqual(post(m, body, csrf: nil).status, 403, "no CSRF token")
        let unknown = post(m, "{\"frame\": 99, \"film\": \"\(film.id)\"}", csrf: token)
        XCTAssertEqual(unknown.status, 404, unknown.body)
        XCTAssertEqual(post(m, "{\"frame\": 1, \"film\": \"no-such-film\"}", csrf: token).status, 400, "a film not in the catalog (a locked one)")
        XCTAssertEqual(post(m, "{\"film\": \"\(film.id)\"}", csrf: token).status, 400, "no frame")

        let accepted = post(m, body, csrf: token)
        XCTAssertEqual(accepted.status, 202, accepted.body)
        XCTAssertTrue(WatchFixture.wait(seconds: 60) { m.events().contains { $0["event"] as? String == "redeveloped" } }, "\(m.events())")
        let event = try XCTUnwrap(m.events().first { $0["event"] as? String == "redeveloped" })
        let slug = FileNameSafety.slug(film.name, fallback: "film")
        let extraName = "shoot1-\(slug)-60.jpg"
        XCTAssertEqual(event["output"] as? String, extraName, "the plan's name with the look after it")
        XCTAssertEqual(event["index"] as? Int, 1)

        // Truth: a plain conversion of the same input with that film and strength.
        let reference = m.watch.dir.appendingPathComponent("reference")
        let r = try CLIRunner.run(["convert", source.path, "-o", reference.path, "--format", "jpeg", "--film", film.id, "--strength", "60"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let extra = try Data(contentsOf: m.watch.out.appendingPathComponent(extraName))
        XCTAssertEqual(extra, try Data(contentsOf: reference.appendingPathComponent("shoot1.jpg")), "byte-identical to convert --film --strength 60")
        XCTAssertEqual(try Data(contentsOf: original), originalBytes, "the file's own output is untouched")
        XCTAssertNotEqual(extra, originalBytes)

        // The manifest: both entries of the input, the extra one noted; the ledger has the look's digest for it.
        XCTAssertTrue(WatchFixture.wait(seconds: 10) { m.watch.entries(for: "shoot1.dng").count == 2 })
        let entries = m.watch.entries(for: "shoot1.dng")
        XCTAssertEqual(Set(entries.compactMap(\.output?.path)), ["shoot1.jpg", extraName])
        let redone = try XCTUnwrap(entries.first { $0.output?.path == extraName })
        XCTAssertTrue(redone.notes.contains { $0.hasPrefix("re-developed on the studio monitor from frame 1 with look film \(film.id), strength 60 %") },
                      "\(redone.notes)")
        XCTAssertNil(redone.input.index, "not an inbox file: the file's own entry keeps its number")
        XCTAssertEqual(redone.input.sha256, entries.first { $0.output?.path != extraName }?.input.sha256)
        let referenceManifest = try XCTUnwrap(try ManifestStore.load(reference.appendingPathComponent("manifest.json")))
        let journalRecord = try XCTUnwrap(m.watch.journal().first { $0.op == .redeveloped })
        XCTAssertEqual(journalRecord.settingsDigest, referenceManifest.settingsDigest, "the settings of that look, as convert records them")

        // The inbox's accounting did not move: one file, converted once.
        XCTAssertTrue(WatchFixture.wait(seconds: 10) { ((try? WatchStatus.read(m.watch.statusURL))?.recent?.count ?? 0) == 2 })
        let status = try WatchStatus.read(m.watch.statusURL)
        XCTAssertEqual([status.converted, status.skipped, status.failed], [1, 0, 0])
        XCTAssertEqual(status.recent?.last?.redevelopment, 1)
        XCTAssertEqual(status.recent?.last?.output, extraName)
        XCTAssertEqual(m.events().filter { $0["event"] as? String == "converted" }.count, 1)
        let preview = try XCTUnwrap(status.recent?.last?.preview)
        XCTAssertEqual(preview, WatchService.previewFolder + "/000001-r1.jpg")
        XCTAssertEqual(m.get("/previews/000001-r1.jpg").status, 200, "the re-develop's preview is served")
        XCTAssertEqual(m.get("/previews/000001-x1.jpg").status, 404)

        // Asked again: another name, never over the first.
        XCTAssertEqual(post(m, body, csrf: token).status, 202)
        XCTAssertTrue(WatchFixture.wait(seconds: 60) { m.events().filter { $0["event"] as? String == "redeveloped" }.count == 2 })
        XCTAssertEqual(m.events().filter { $0["event"] as? String == "redeveloped" }.last?["output"] as? String, "shoot1-\(slug)-60-2.jpg")
        XCTAssertEqual(try Data(contentsOf: m.watch.out.appendingPathComponent(extraName)), extra)

        // A failed frame: 409; an input gone: 422.
        try Data([0xFF, 0xD8, 0xFF, 0xD9]).write(to: m.watch.inbox.appendingPathComponent("broken.jpg"))
        XCTAssertTrue(m.watch.waitForEntries(["broken.jpg"]))
        let conflict = post(m, "{\"frame\": 2, \"film\": \"\(film.id)\"}", csrf: token)
        XCTAssertEqual(conflict.status, 409, conflict.body)
        try FileManager.default.removeItem(at: m.watch.inbox.appendingPathComponent("shoot1.dng"))
        let gone = post(m, body, csrf: token)
        XCTAssertEqual(gone.status, 422, gone.body)
        print("monitor: re-developed frame 1 as \(extraName) (\(extra.count) bytes, identical to convert); refusals 403 404 409 422")

        // A restart reads both entries back from the journal.
        m.stop()
        let again = try CLIRunner.run(["watch", m.watch.inbox.path, "-o", m.watch.out.path, "--format", "jpeg", "--once"])
        XCTAssertEqual(again.status, 0, again.stderr)   // nothing new: broken.jpg failed in an earlier run
        let after = m.watch.entries(for: "shoot1.dng")
        XCTAssertEqual(Set(after.compactMap(\.output?.path)), ["shoot1.jpg", extraName, "shoot1-\(slug)-60-2.jpg"])
    }

    /// On the page: a frame clicked in the filmstrip, a film chosen, *Re-develop*: the extra output arrives, is shown in
    /// the filmstrip, and the page had no console error.
    func testTheReDevelopButtonOnThePage() throws {
        let m = try MonitorFixture(self)
        let source = try m.watch.makeDNGs(1, prefix: "page", width: 600, height: 400)[0]
        try m.watch.drop(source)
        try m.start(["--jobs", "1", "--format", "jpeg"])
        defer { m.stop() }
        let film = try XCTUnwrap(MonitorCatalog.load(profiles: try ProfilesDirectory.locate(), ownRecipe: nil).films.first)
        let browser = try MonitorFixture.Browser(page: m.url, steps: [
            ["wait": "document.body.dataset.ready === '1' && Number(document.body.dataset.catalog) > 0", "timeout": 20],
            ["wait": "!!document.querySelector('#filmstrip li[data-input=\"page1.dng\"] img')", "timeout": 30],
            ["click": "#filmstrip li[data-input=\"page1.dng\"]"],
            ["select": "#film", "value": film.id],
            ["select": "#strength", "value": "60"],
            ["click": "#redevelop"],
            ["wait": "document.body.dataset.redevelopSent === '1'", "timeout": 10],
            ["wait": "!!document.querySelector('#filmstrip li[data-redevelopment=\"1\"] img')", "timeout": 60],
            ["eval": "document.body.dataset.redeveloped"],
        ], folder: m.watch.dir)
        let report = browser.finish()
        XCTAssertEqual(report["ok"] as? Bool, true, "\(report)")
        XCTAssertEqual(report["problems"] as? [String], [], "no console error, exception or failed load")
        let name = "page1-\(FileNameSafety.slug(film.name, fallback: "film"))-60.jpg"
        XCTAssertEqual(MonitorFixture.value(report, step: 8) as? String, name)
        XCTAssertTrue(FileManager.default.fileExists(atPath: m.watch.out.appendingPathComponent(name).path))
        XCTAssertEqual((try WatchStatus.read(m.watch.statusURL)).converted, 1)
    }

    /// The journal keeps a re-develop through compaction and a reopen: its entry is replayed after the file's own, its
    /// output is claimed by the input, and no count, seq or duplicate check sees it.
    func testTheJournalKeepsReDevelopsWithoutCountingThem() throws {
        let url = try TestPaths.temporaryDirectory(self).appendingPathComponent("watch-journal.jsonl")
        let sig = FileSignature(size: 1234, mtime: 1_700_000_000, mtimeNanos: 5, inode: 42, device: 9)
        func entry(_ output: String?, _ status: Manifest.Status = .converted) -> Manifest.Entry {
            var e = Manifest.Entry(input: Manifest.Input(path: "/in/a.dng", relativePath: "a.dng"), status: status)
            e.input.sha256 = "AAA"
            e.output = output.map { Manifest.Output(path: $0, sha256: "o", size: 10, format: "jpeg", bitDepth: 8, channels: 3,
                                                    colorSpace: "srgb", width: 4, height: 3) }
            return e
        }
        do {
            let l = try WatchLedger(url: url)
                XCTAssertEqual(l.takeSeq(), 1)
                try l.append(WatchRecord(op: .start, seq: 1, path: "a.dng", sha256: "AAA", signature: sig, output: "a.jpg"))
                try l.append(WatchRecord(op: .done, seq: 1, path: "a.dng", sha256: "AAA", signature: sig, entry: entry("a.jpg"), settingsDigest: "D1"))
                try l.append(WatchRecord(op: .redevelopStart, seq: 1, path: "a.dng", sha256: "AAA", output: "a-film-60.jpg", settingsDigest: "D2"))
                try l.append(WatchRecord(op: .redeveloped, seq: 1, path: "a.dng", sha256: "AAA", output: "a-film-60.jpg", entry: entry("a-film-60.jpg"),
                                         settingsDigest: "D2"))
                try l.append(WatchRecord(op: .redevelopStart, seq: 1, path: "a.dng", sha256: "AAA", output: "a-no-film.jpg", settingsDigest: "D1"))
                try l.append(WatchRecord(op: .redeveloped, seq: 1, path: "a.dng", sha256: "AAA", entry: entry(nil, .failed), settingsDigest: "D1"))
                // A third started and never recorded: a kill came before its `redeveloped` record.
                try l.append(WatchRecord(op: .redevelopStart, seq: 1, path: "a.dng", sha256: "AAA", output: "a-film-60-2.jpg", settingsDigest: "D2"))
                XCTAssertEqual(l.redevelopments, 2)
        }
        do {
            let l = try WatchLedger(url: url)
            XCTAssertEqual(l.linesAtOpen, 7)
            XCTAssertEqual(l.interruptedRedevelops, ["a-film-60-2.jpg"], "the start without its record, for the watch to remove")
            XCTAssertEqual(l.linesAfterCompaction, 3, "start+done became one record; both re-develops kept, their starts dropped")
            XCTAssertEqual(l.redevelopments, 2)
            XCTAssertEqual(l.nextSeq, 2, "a re-develop takes no file number")
            XCTAssertEqual(l.counts.converted, 1)
            XCTAssertEqual(l.counts.failed, 0, "a failed re-develop is not a failed file")
            XCTAssertEqual(l.file(1)?.status, .converted)
            XCTAssertEqual(l.owners["a-film-60.jpg"], "a.dng")
            XCTAssertEqual(l.converted(sha256: "AAA", settingsDigest: "D2")?.seq, nil, "not a converted file for dedupe")
            XCTAssertEqual(l.replayedEntries.map { $0.entry.output?.path }, ["a.jpg", "a-film-60.jpg", nil])
            XCTAssertEqual(l.replayedEntries.map(\.settingsDigest), ["D1", "D2", "D1"])
        }
        let reopened = try WatchLedger(url: url)
        XCTAssertEqual(reopened.linesAtOpen, 3)
        XCTAssertEqual(reopened.interruptedRedevelops, [], "resolved at the open that found it")
        XCTAssertEqual(reopened.replayedEntries.count, 3)
    }

    /// Preview names: a file's `NNNNNN` and a re-develop's `NNNNNN-rK`, nothing else.
    func testPreviewNames() {
        for ok in ["000001", "000001-r1", "123456-r200"] { XCTAssertTrue(MonitorServer.isPreviewStem(Substring(ok)), ok) }
        for bad in ["", "-r1", "000001-", "000001-r", "000001-x1", "000001-r1-r2", "00a001", "000001-r1a", "٣٣٣"] {
            XCTAssertFalse(MonitorServer.isPreviewStem(Substring(bad)), bad)
        }
    }
}
