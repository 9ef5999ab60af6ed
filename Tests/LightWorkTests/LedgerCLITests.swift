import Foundation
import XCTest
@testable import LightWork

/// The output folder's ledger through the real binary: the scenarios of issue #21's "one extra file erased the batch's
/// memory" (the manifest covers the folder, a film change redoes what LightWork wrote, any other skip is a warning and
/// exit 1), `--manifest-scope run`, a kill -9 mid-run, shards merged from their ledgers, and a folder from before the ledger.
final class LedgerCLITests: XCTestCase {
    /// `dir/shoot` with three JPEGs, and `dir/extra.png`.
    private func makeShoot(_ dir: URL) throws -> (shoot: URL, extra: URL) {
        let rgb = try TestPaths.sharedSamples("rgb")
        let shoot = dir.appendingPathComponent("shoot")
        try FileManager.default.createDirectory(at: shoot, withIntermediateDirectories: true)
        for i in 1...3 {
            try FileManager.default.copyItem(at: rgb.appendingPathComponent("orientation-\(i).jpg"), to: shoot.appendingPathComponent("frame-\(i).jpg"))
        }
        let extra = dir.appendingPathComponent("extra.png")
        try FileManager.default.copyItem(at: rgb.appendingPathComponent("iccp-srgb.png"), to: extra)
        return (shoot, extra)
    }

    private let shootOutputs = ["frame-1.jpg", "frame-2.jpg", "frame-3.jpg"]

    private func convert(_ inputs: [URL], _ out: URL, _ extra: [String] = []) throws -> CLIRunner.Result {
        try CLIRunner.run(["convert"] + inputs.map(\.path) + ["-o", out.path, "--format", "jpeg"] + extra)
    }

    /// `convert shoot -o m2`, then `convert extra.png -o m2`: the manifest still lists the shoot's outputs beside the extra one.
    func testOneExtraFileKeepsTheShootsEntries() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let (shoot, extra) = try makeShoot(dir)
        let out = dir.appendingPathComponent("m2")
        XCTAssertEqual(try convert([shoot], out, ["--film", "Daylight Slide 100"]).status, 0)
        let second = try convert([extra], out)
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertFalse(second.stderr.contains("settings or tool version changed"), "extra.png was never converted: \(second.stderr)")
        XCTAssertTrue(second.stdout.contains("1 converted, 0 skipped, 0 failed"), "the run's own summary: \(second.stdout)")
        let m = try BatchFixture.manifest(out.appendingPathComponent("manifest.json"))
        XCTAssertEqual(m.scope, .folder)
        XCTAssertEqual(m.entries.compactMap { $0.output?.path }, shootOutputs + ["extra.jpg"])
        XCTAssertEqual(m.summary, Manifest.Summary(total: 4, converted: 4, skipped: 0, failed: 0))
        try BatchFixture.assertOutputsValid(m, in: out)
        // The shoot's entries were made with the film: the manifest (whose settings are the last run's) says so.
        for e in m.entries.prefix(3) { XCTAssertTrue(e.notes.contains { $0.hasPrefix("converted with other settings") }, "\(e.notes)") }
        XCTAssertEqual(try BatchFixture.outputDigests(under: out).keys.sorted(), (shootOutputs + ["extra.jpg"]).sorted(), "the ledger is no output")
    }

    /// After `--film A`, an extra file, then `--film B` into the same folder: every output LightWork wrote is redone with B.
    func testFilmChangeRedoesTheOutputsLightWorkWrote() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let (shoot, extra) = try makeShoot(dir)
        let out = dir.appendingPathComponent("m2")
        XCTAssertEqual(try convert([shoot], out, ["--film", "Daylight Slide 100"]).status, 0)
        let daylight = try BatchFixture.outputDigests(under: out)
        XCTAssertEqual(try convert([extra], out).status, 0)
        let silver = try convert([shoot], out, ["--film", "Silver 400"])
        XCTAssertEqual(silver.status, 0, silver.stderr)
        XCTAssertTrue(silver.stdout.contains("3 converted, 0 skipped, 0 failed"), silver.stdout)
        XCTAssertFalse(silver.stderr.contains("no earlier LightWork run wrote it"), silver.stderr)
        let redone = try BatchFixture.outputDigests(under: out)
        for name in shootOutputs { XCTAssertNotEqual(redone[name], daylight[name], "\(name) has the new film") }
        let m = try BatchFixture.manifest(out.appendingPathComponent("manifest.json"))
        XCTAssertEqual(m.entries.compactMap { $0.output?.path }.sorted(), (shootOutputs + ["extra.jpg"]).sorted())
        try BatchFixture.assertOutputsValid(m, in: out)
        XCTAssertEqual(m.entries.filter { $0.notes.contains { $0.hasPrefix("converted with other settings") } }.compactMap { $0.output?.path },
                       ["extra.jpg"], "only the extra file was made with other settings than the manifest's")
    }

    /// A file LightWork never wrote under an output name is left alone: a warning naming the input, exit 1, never a silent 0.
    func testSkipForAForeignFileIsAWarningAndExitOne() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let (shoot, _) = try makeShoot(dir)
        let out = dir.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        try Data("the photographer's own file".utf8).write(to: out.appendingPathComponent("frame-2.jpg"))
        let r = try convert([shoot], out)
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("warning: 1 input(s) not converted"), r.stderr)
        XCTAssertTrue(r.stderr.contains("frame-2.jpg"), r.stderr)
        XCTAssertEqual(try Data(contentsOf: out.appendingPathComponent("frame-2.jpg")), Data("the photographer's own file".utf8))
        let m = try BatchFixture.manifest(out.appendingPathComponent("manifest.json"))
        XCTAssertEqual(m.entries.map(\.status), [.converted, .skipped, .converted])
        // A re-run that only resumes is a success again for what it did, and still warns about the foreign file.
        let again = try convert([shoot], out)
        XCTAssertEqual(again.status, 1, again.stderr)
        XCTAssertTrue(again.stderr.contains("warning: 1 input(s) not converted"), again.stderr)
    }

    /// `--manifest-scope run` lists this run's files only; the ledger still knows the others, and the next default run lists all.
    func testManifestScopeRunListsThisRunOnly() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let (shoot, extra) = try makeShoot(dir)
        let out = dir.appendingPathComponent("m2")
        let manifestURL = out.appendingPathComponent("manifest.json")
        XCTAssertEqual(try convert([shoot], out).status, 0)
        let r = try convert([extra], out, ["--manifest-scope", "run"])
        XCTAssertEqual(r.status, 0, r.stderr)
        var m = try BatchFixture.manifest(manifestURL)
        XCTAssertEqual(m.scope, .run)
        XCTAssertEqual(m.entries.compactMap { $0.output?.path }, ["extra.jpg"])
        XCTAssertEqual(try convert([extra], out).status, 0)
        m = try BatchFixture.manifest(manifestURL)
        XCTAssertEqual(m.scope, .folder)
        XCTAssertEqual(m.entries.compactMap { $0.output?.path }, shootOutputs + ["extra.jpg"])
        XCTAssertEqual(m.entries.last?.status, .skipped, "extra.png resumed")
        let bad = try convert([extra], out, ["--manifest-scope", "everything"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("--manifest-scope 'everything' is not one of: folder, run"), bad.stderr)
    }

    /// kill -9 of the batch while a worker holds the last file: the ledger keeps every entry it committed (at least
    /// those the manifest on disk lists), the next run resumes from it, and the folder ends with one record per output.
    func testLedgerSurvivesAKillMidRun() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let input = dir.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        for i in 0..<6 { try BatchFixture.makeDNG(input.appendingPathComponent("gen-\(i).dng"), seed: 40 + i, width: 240, height: 160) }
        let out = dir.appendingPathComponent("out")
        let manifestURL = out.appendingPathComponent("manifest.json")
        let gate = try InputGate(input.appendingPathComponent("gen-5.dng"))
        defer { gate.release() }
        let run = try CLIRunner.Background(["convert", input.path, "-o", out.path, "--format", "jpeg", "--jobs", "1"],
                                           environment: ["SWIFT_BACKTRACE": "enable=no"], logs: dir)
        XCTAssertNotNil(gate.heldWorker(seconds: 60), "a worker reached gen-5.dng")
        let listed = try XCTUnwrap(BatchFixture.waitForManifest(manifestURL, entries: 5, seconds: 30), "the first five are recorded")
        run.send(SIGKILL)
        _ = run.finish(within: 30)
        gate.release()
        XCTAssertNil(listed.finishedAt)

        let history = try FolderHistory.load(folder: out)
        let recorded = Set(history.current.map(\.entry.input.relativePath))
        XCTAssertTrue(Set(listed.entries.map(\.input.relativePath)).isSubset(of: recorded), "the ledger holds what the manifest listed")
        XCTAssertFalse(recorded.contains("gen-5.dng"))

        let rerun = try CLIRunner.run(["convert", input.path, "-o", out.path, "--format", "jpeg", "--jobs", "1"])
        XCTAssertEqual(rerun.status, 0, rerun.stderr)
        let m = try BatchFixture.manifest(manifestURL)
        XCTAssertNotNil(m.finishedAt)
        XCTAssertEqual(m.entries.map(\.input.relativePath), (0..<6).map { "gen-\($0).dng" })
        for e in m.entries where recorded.contains(e.input.relativePath) { XCTAssertEqual(e.reason, ResumeIndex.skipReason, e.input.relativePath) }
        XCTAssertEqual(m.entries.first { $0.input.relativePath == "gen-5.dng" }?.status, .converted)
        try BatchFixture.assertOutputsValid(m, in: out)
        XCTAssertEqual(Set(try BatchFixture.outputDigests(under: out).keys), Set(m.entries.compactMap { $0.output?.path }))
    }

    /// Three shards write a ledger each; `manifest merge OUTDIR --shards 3` merges them with no shard manifest left, the
    /// merged run joins the folder's ledger, and a whole run into the folder afterwards redoes nothing.
    func testShardLedgersAreMergedAndResumedFrom() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let input = try BatchFixture.inputs(in: dir, generated: 3, real: false)
        let single = dir.appendingPathComponent("single"), sharded = dir.appendingPathComponent("sharded")
        XCTAssertEqual(try CLIRunner.run(["convert", input.path, "-o", single.path]).status, 1)
        for k in 0..<3 {
            let r = try CLIRunner.run(["convert", input.path, "-o", sharded.path, "--shard", "\(k)/3"])
            XCTAssertTrue([0, 1].contains(r.status), r.stderr)
            XCTAssertTrue(FileManager.default.fileExists(atPath: sharded.appendingPathComponent(".lightwork/ledger.shard-\(k)-of-3.sqlite").path))
            try FileManager.default.removeItem(at: sharded.appendingPathComponent("manifest.shard-\(k)-of-3.json"))
        }
        let merge = try CLIRunner.run(["manifest", "merge", sharded.path, "--shards", "3", "-o", sharded.appendingPathComponent("manifest.json").path])
        XCTAssertEqual(merge.status, 1, "the corrupt file failed: \(merge.stderr)")
        let merged = try BatchFixture.manifest(sharded.appendingPathComponent("manifest.json"))
        let reference = try BatchFixture.manifest(single.appendingPathComponent("manifest.json"))
        XCTAssertEqual(BatchFixture.normalized(merged), BatchFixture.normalized(reference))
        let runs = try ExportLedger(url: ExportLedger.url(in: sharded, shard: nil), readOnly: true).runs()
        XCTAssertEqual(runs.map(\.command), ["manifest merge"])

        let times = try BatchFixture.modificationTimes(under: sharded)
        let whole = try CLIRunner.run(["convert", input.path, "-o", sharded.path])
        XCTAssertEqual(whole.status, 1, whole.stderr)
        let after = try BatchFixture.manifest(sharded.appendingPathComponent("manifest.json"))
        XCTAssertEqual(after.summary.converted, 0, "\(after.entries.map { ($0.input.relativePath, $0.status) })")
        XCTAssertEqual(after.summary.total, reference.summary.total)
        XCTAssertEqual(try BatchFixture.modificationTimes(under: sharded), times, "nothing rewritten")
    }

    /// A folder converted before the ledger existed (its manifest.json, no .lightwork/): its outputs stay LightWork's own.
    func testManifestFromBeforeTheLedgerIsTakenIn() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let (shoot, _) = try makeShoot(dir)
        let out = dir.appendingPathComponent("old")
        XCTAssertEqual(try convert([shoot], out, ["--manifest-scope", "run"]).status, 0)
        var legacy = try BatchFixture.manifest(out.appendingPathComponent("manifest.json"))
        legacy.scope = nil
        try legacy.encoded().write(to: out.appendingPathComponent("manifest.json"))
        try FileManager.default.removeItem(at: out.appendingPathComponent(ExportLedger.folderName))
        let before = try BatchFixture.outputDigests(under: out)
        let r = try convert([shoot], out, ["--film", "Silver 400"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("3 converted"), r.stdout)
        for name in shootOutputs { XCTAssertNotEqual(try BatchFixture.outputDigests(under: out)[name], before[name], name) }
        let runs = try ExportLedger(url: ExportLedger.url(in: out, shard: nil), readOnly: true).runs()
        XCTAssertEqual(runs.map(\.command), ["import", "convert"])
    }

    /// A watch into a folder `convert` exported to counts convert's outputs as LightWork's own: a new file of the same
    /// name replaces the output at its name rather than going beside it as name-2 (before, only the watch's journal
    /// made an output its own).
    func testWatchTreatsConvertsOutputsAsItsOwn() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let shoot = dir.appendingPathComponent("shoot"), inbox = dir.appendingPathComponent("inbox"), out = dir.appendingPathComponent("out")
        for folder in [shoot, inbox] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        let png = SampleSceneTests.samples.appendingPathComponent("scene-srgb.png")
        try FileManager.default.copyItem(at: png, to: shoot.appendingPathComponent("frame.png"))
        let c = try CLIRunner.run(["convert", shoot.path, "-o", out.path, "--format", "png", "-q"])
        XCTAssertEqual(c.status, 0, c.stderr)
        try FileManager.default.copyItem(at: png, to: inbox.appendingPathComponent("frame.png"))
        let w = try CLIRunner.run(["watch", inbox.path, "-o", out.path, "--format", "png", "--once", "--settle", "0.2", "--heartbeat", "0"])
        XCTAssertEqual(w.status, 0, w.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: out.appendingPathComponent("frame.png").path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.appendingPathComponent("frame-2.png").path), "convert's output is LightWork's own")
        let m = try BatchFixture.manifest(out.appendingPathComponent("manifest.json"))
        XCTAssertEqual(m.entries.filter { $0.output?.path == "frame.png" }.count, 1, "listed once, with its latest record")
        XCTAssertEqual(m.entries.count, 1, "\(m.entries.map(\.input.path))")
    }
}
