import Foundation
import XCTest
@testable import LightWork

/// The one manifest store batch and watch share: input order, replayed journals, notes for entries made under
/// other settings, the throttled atomic save, and reading manifests back. Also the watch's state enum, whose
/// JSON strings the status file and docs/watch.md name.
final class ManifestStoreTests: XCTestCase {
    /// The default conversion's settings.
    private let settings = ConvertSpec(outputDirectory: URL(fileURLWithPath: "/nonexistent")).settings

    private func entry(_ index: Int, _ status: Manifest.Status = .converted) -> Manifest.Entry {
        var e = Manifest.Entry(input: Manifest.Input(path: "/in/\(index).dng", relativePath: "\(index).dng"), status: status,
                               reason: status == .converted ? nil : "reason \(index)")
        e.input.index = index
        return e
    }

    func testEntriesStayInInputOrderWithTheirSummary() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let store = ManifestStore(url: dir.appendingPathComponent("manifest.json"), settings: settings)
        for (i, status) in [(3, Manifest.Status.converted), (1, .failed), (2, .skipped), (5, .converted), (4, .converted)] {
            store.insert(entry(i, status))
        }
        XCTAssertEqual(store.manifest.entries.map(\.input.index), [1, 2, 3, 4, 5])
        XCTAssertEqual(store.summary, Manifest.Summary(total: 5, converted: 3, skipped: 1, failed: 1))
        store.updateEntry(index: 2) { $0.notes.append("moved") }
        XCTAssertEqual(store.entry(index: 2)?.notes, ["moved"])
        XCTAssertEqual(store.settingsDigest, Manifest.digest(settings: settings, toolVersion: LightWorkVersion.current))
    }

    /// A journal's entries keep the journal's order; entries made under other settings than the current ones
    /// carry one note in the manifest as written (not in the entries recorded), failures none.
    func testReplayedEntriesAndNotesForOtherSettings() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let url = dir.appendingPathComponent("manifest.json")
        let store = ManifestStore(url: url, settings: settings)
        let current = store.settingsDigest
        let old = String(repeating: "ab", count: 32)
        store.merge(replayed: [(entry(2), old), (entry(1), current), (entry(3, .failed), old), (entry(4), nil)])
        XCTAssertEqual(store.manifest.entries.map(\.input.index), [2, 1, 3, 4])
        XCTAssertEqual(store.summary.total, 4)
        let note = "converted with other settings (settings digest abababababababab…; the recipe was changed since)"
        XCTAssertEqual(store.rendered.entries.map(\.notes), [[note], [], [], []])
        XCTAssertTrue(store.manifest.entries.allSatisfy { $0.notes.isEmpty })
        try store.save(force: true)
        XCTAssertEqual(try XCTUnwrap(ManifestStore.load(url)).entries.map(\.notes), [[note], [], [], []])

        // A reload: the entry made now under the old digest's settings is current, the rest are not.
        var studio = settings
        studio.recipeName = "studio"
        store.changeSettings(studio)
        XCTAssertNotEqual(store.settingsDigest, current)
        store.insert(entry(5), settingsDigest: store.settingsDigest)
        let second = "converted with other settings (settings digest \(current.prefix(16))…; the recipe was changed since)"
        XCTAssertEqual(store.rendered.entries.map(\.notes), [[note], [second], [], [], []])
    }

    /// Saving costs time: a save right after another waits (at most a tenth of the time goes to saving), a forced
    /// one does not, and a change older than `maxStaleness` is saved however costly.
    func testSavesAreThrottledToATenthOfTheTime() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let url = dir.appendingPathComponent("manifest.json")
        let store = ManifestStore(url: url, settings: settings)
        store.merge(replayed: (1...5_000).map { (entry($0), nil) })
        let start = JobScheduler.clock()
        XCTAssertTrue(try store.save(force: false), "the first save is never held back")
        let cost = JobScheduler.clock() - start
        store.insert(entry(5_001))
        XCTAssertFalse(try store.save(force: false), "right after a save that took \(cost) s")
        XCTAssertTrue(store.hasUnsavedChanges)
        XCTAssertEqual(try XCTUnwrap(ManifestStore.load(url)).entries.count, 5_000, "the file on disk is the last save")
        Thread.sleep(forTimeInterval: cost * 10 + 0.01)
        try store.saveIfDue()
        XCTAssertFalse(store.hasUnsavedChanges)
        XCTAssertEqual(try XCTUnwrap(ManifestStore.load(url)).entries.count, 5_001)
        store.insert(entry(5_002))
        XCTAssertTrue(try store.save(force: true))
        print(String(format: "manifest of 5,000 entries: save %.1f ms; next unforced save waits %.0f ms", cost * 1000, cost * 10_000))

        let stale = ManifestStore(url: dir.appendingPathComponent("stale.json"), settings: settings, maxStaleness: 0)
        stale.merge(replayed: (1...5_000).map { (entry($0), nil) })
        XCTAssertTrue(try stale.save(force: false))
        stale.insert(entry(5_001))
        XCTAssertTrue(try stale.save(force: false), "older than maxStaleness (0 s): saved")
    }

    func testLoadingAndWriting() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        XCTAssertNil(try ManifestStore.load(dir.appendingPathComponent("none.json")))
        let junk = dir.appendingPathComponent("manifest.shard-0-of-2.json")
        try Data("{not json".utf8).write(to: junk)
        XCTAssertThrowsError(try ManifestStore.load(junk))
        let store = ManifestStore(url: dir.appendingPathComponent("sub/manifest.json"), settings: settings,
                                  shard: try Shard.parse("1/2"))
        store.insert(entry(1))
        store.finish(interrupted: true)
        try store.save(force: true)
        let back = try XCTUnwrap(ManifestStore.load(store.url))
        XCTAssertEqual(back, store.manifest)
        XCTAssertEqual(back.shard, Manifest.ShardInfo(index: 1, count: 2))
        XCTAssertEqual(back.interrupted, true)
        XCTAssertNil(back.finishedAt)
        // Earlier runs in a folder: the readable ones, the given one first.
        let whole = ManifestStore(url: dir.appendingPathComponent("manifest.json"), settings: settings)
        whole.insert(entry(7))
        try whole.save(force: true)
        let runs = ManifestStore.previousRuns(first: store.url, in: dir)
        XCTAssertEqual(runs.map { $0.entries.map(\.input.index) }, [[1], [7]])
    }

    func testWatchStatesKeepTheirJSONStrings() throws {
        XCTAssertEqual([WatchState.running, .reloading, .stopping, .stopped, .notRunning].map(\.rawValue),
                       ["running", "reloading", "stopping", "stopped", "not running"])
        var status = WatchStatus(pid: 1, inbox: "/in", output: "/out", manifest: "/out/manifest.json", mode: "inotify",
                                 startedAt: "2026-01-01T00:00:00Z", state: .reloading, recipe: nil, settingsDigest: "d")
        let json = String(decoding: try status.encoded(), as: UTF8.self)
        XCTAssertTrue(json.contains("\"state\" : \"reloading\""), json)
        status.state = .notRunning
        let back = try JSONDecoder().decode(WatchStatus.self, from: try status.encoded())
        XCTAssertEqual(back.state, .notRunning)
        XCTAssertThrowsError(try JSONDecoder().decode(WatchStatus.self, from: Data(json.replacingOccurrences(of: "reloading", with: "paused").utf8)))
    }

    /// The streamed manifest is the canonical encoder's document byte for byte (Foundation's JSONEncoder of the whole
    /// manifest is the independent reference), with no entries, one, and entries holding empty and nested values.
    func testStreamedManifestIsTheCanonicalJSON() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        for count in [0, 1, 3] {
            var m = Manifest(tool: Manifest.ToolInfo(version: "t", libraries: ["lib": "1/2"]), settings: settings, host: "h", startedAt: Date(timeIntervalSince1970: 0))
            for i in 0..<count {
                var e = entry(i + 1, i == 1 ? .failed : .converted)
                e.notes = i == 2 ? ["a \"quoted\" note", "path/with/slashes"] : []
                e.input.decisions = i == 0 ? [:] : ["demosaic": "ahd", "whiteBalance": "camera"]
                e.timings = ["total": 0.25 * Double(i)]
                m.insertInInputOrder(e)
            }
            let url = dir.appendingPathComponent("m\(count).json")
            try ManifestStore.write(m, to: url)
            XCTAssertEqual(try Data(contentsOf: url), try m.encoded(), "\(count) entries")
            XCTAssertEqual(try ManifestStore.load(url), m)
        }
    }

    /// A store that lets committed entries go renders the same manifest as one that keeps them: its part read back
    /// from the ledger, in input order, after the earlier runs' current entries it does not replace.
    func testLedgerRenderedManifestEqualsTheRetainedOne() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let first = try ExportLedger(url: dir.appendingPathComponent("l1.sqlite"))
        var old = Manifest(tool: Manifest.ToolInfo(version: LightWorkVersion.current, libraries: [:]), settings: settings, host: "h", startedAt: Date())
        for i in [1, 2] {
            var e = entry(i)
            e.output = Manifest.Output(path: "\(i).tif", sha256: "x", size: 1, format: "tiff16", bitDepth: 16, channels: 3, colorSpace: "srgb", width: 1, height: 1)
            old.insertInInputOrder(e)
        }
        try first.importRun(old, command: "convert")
        let history = try FolderHistory.load(ledger: first.url)
        var rendered: [Data] = []
        for retain in [true, false] {
            let ledger = try ExportLedger(url: dir.appendingPathComponent("run-\(retain).sqlite"))
            let url = dir.appendingPathComponent("manifest-\(retain).json")
            let store = ManifestStore(url: url, settings: settings, startedAt: Date(timeIntervalSince1970: 0))
            try store.record(into: ledger, command: "convert", history: history, scope: .folder, retainEntries: retain)
            for i in [3, 2, 4] {     // 2 replaces the earlier run's entry of the same output
                var e = entry(i, i == 4 ? .failed : .converted)
                if i != 4 { e.output = Manifest.Output(path: "\(i).tif", sha256: "y", size: 2, format: "tiff16", bitDepth: 16, channels: 3, colorSpace: "srgb", width: 1, height: 1) }
                store.insert(e)
            }
            // One end time for both stores: the timestamp has whole seconds, and a second boundary between the two
            // runs made their bytes differ (a flaky comparison).
            store.finish(interrupted: false, at: Date(timeIntervalSince1970: 60))
            try store.save(force: true)
            XCTAssertEqual(store.summary, Manifest.Summary(total: 3, converted: 2, skipped: 0, failed: 1), "retain \(retain): this run's own")
            XCTAssertEqual(try store.runManifest().entries.map(\.input.index), [2, 3, 4])
            let written = try XCTUnwrap(try ManifestStore.load(url))
            XCTAssertEqual(written.entries.map(\.input.relativePath), ["1.dng", "2.dng", "3.dng", "4.dng"])
            XCTAssertEqual(written.summary, Manifest.Summary(total: 4, converted: 3, skipped: 0, failed: 1))
            rendered.append(try Data(contentsOf: url))
        }
        XCTAssertEqual(rendered[0], rendered[1], "the ledger-rendered manifest is the retained one's")
    }
}
