import Foundation
import XCTest
@testable import LightWork

/// The real `lightwork watch` binary running in the background over a hot folder: files written slowly,
/// renamed into place, corrupt, in new subfolders, duplicated; kill -9 in a burst; SIGTERM; SIGHUP; status.
final class WatchIntegrationTests: XCTestCase {
    /// A DNG appended in four chunks with pauses longer than --settle (closed after each, as an FTP upload
    /// that reconnects): the watch waits for the structure to be whole and converts it once, complete.
    func testFileWrittenSlowlyInChunksIsConvertedOnceWhenComplete() throws {
        let f = try WatchFixture(self)
        let source = try f.makeDNGs(1)[0]
        let bytes = try Data(contentsOf: source)
        let run = try f.start()
        defer { run.send(SIGKILL); _ = run.finish(within: 10) }
        XCTAssertTrue(WatchFixture.wait { FileManager.default.fileExists(atPath: f.statusURL.path) }, "the watch started")

        let target = f.inbox.appendingPathComponent("slow.dng")
        let chunk = bytes.count / 4 + 1
        for k in 0..<4 {
            let piece = bytes[(k * chunk)..<min(bytes.count, (k + 1) * chunk)]
            if k == 0 { try piece.write(to: target) } else {
                let h = try FileHandle(forWritingTo: target)
                try h.seekToEnd()
                try h.write(contentsOf: piece)
                try h.close()
            }
            if k < 3 {
                usleep(1_000_000)     // longer than --settle 0.4: only the structure check holds the file back
                XCTAssertEqual(f.entries(for: "slow.dng").count, 0, "nothing converted after chunk \(k + 1) of 4")
            }
        }
        XCTAssertTrue(f.waitForEntries(["slow.dng"]), f.stderr(run))
        let entries = f.entries(for: "slow.dng")
        XCTAssertEqual(entries.count, 1)
        XCTAssertEqual(entries.first?.status, .converted, entries.first?.reason ?? "")
        XCTAssertEqual(entries.first?.input.size, bytes.count)
        XCTAssertEqual(entries.first?.input.sha256, SHA256.hex(bytes), "the whole file was converted")
        XCTAssertEqual(f.journal().filter { $0.op == .start && $0.path == "slow.dng" }.count, 1, "started once")
        try BatchFixture.assertOutputsValid(try XCTUnwrap(f.manifest()), in: f.out)
    }

    /// Written under `.part`, renamed when complete: ignored while `.part`, converted once after the rename.
    func testPartFileRenamedIntoPlaceIsConvertedOnce() throws {
        let f = try WatchFixture(self)
        let sources = try f.makeDNGs(2)
        let run = try f.start()
        defer { run.send(SIGKILL); _ = run.finish(within: 10) }
        try f.drop(sources[0], as: "upload.dng.part")
        try f.drop(sources[1], as: "sentinel.dng")       // arrives after the .part file is complete
        XCTAssertTrue(f.waitForEntries(["sentinel.dng"]), f.stderr(run))
        XCTAssertEqual(f.entries(for: "upload.dng.part").count, 0, "a .part file is never converted")
        let status = try WatchStatus.read(f.statusURL)
        XCTAssertFalse(status.waitingFiles.contains("upload.dng.part"), "nor even tracked")

        try FileManager.default.moveItem(at: f.inbox.appendingPathComponent("upload.dng.part"), to: f.inbox.appendingPathComponent("upload.dng"))
        XCTAssertTrue(f.waitForEntries(["upload.dng"]), f.stderr(run))
        XCTAssertEqual(f.entries(for: "upload.dng").map(\.status), [.converted])
        XCTAssertEqual(f.entries(for: "upload.dng").first?.input.sha256, try SHA256.hex(fileAt: sources[0]))
        XCTAssertEqual(try f.outputs(), ["sentinel.tif", "upload.tif"])
        XCTAssertEqual(f.doneCounts(), ["sentinel.dng": 1, "upload.dng": 1])
    }

    /// A corrupt file is recorded failed and moved to --failed with a note saying why; the watch goes on;
    /// temporary names and non-images are ignored; a file in a subfolder created after the start is seen.
    func testCorruptFileFailsIntoTheFailedFolderAndTheWatchGoesOn() throws {
        let f = try WatchFixture(self)
        let sources = try f.makeDNGs(3)
        let rejected = f.dir.appendingPathComponent("rejected")
        let run = try f.start(["--failed", rejected.path])
        defer { run.send(SIGKILL); _ = run.finish(within: 10) }

        try Data("this is not an image at all".utf8).write(to: f.inbox.appendingPathComponent("broken.dng"))
        XCTAssertTrue(f.waitForEntries(["broken.dng"]), f.stderr(run))
        let broken = try XCTUnwrap(f.entries(for: "broken.dng").first)
        XCTAssertEqual(broken.status, .failed)
        XCTAssertEqual(broken.failureKind, .decodeFailed)
        let reason = try XCTUnwrap(broken.reason)
        XCTAssertTrue(WatchFixture.wait { FileManager.default.fileExists(atPath: rejected.appendingPathComponent("broken.dng.error.txt").path) })
        XCTAssertFalse(FileManager.default.fileExists(atPath: f.inbox.appendingPathComponent("broken.dng").path), "moved out of the inbox")
        XCTAssertEqual(try Data(contentsOf: rejected.appendingPathComponent("broken.dng")), Data("this is not an image at all".utf8))
        let note = try String(contentsOf: rejected.appendingPathComponent("broken.dng.error.txt"), encoding: .utf8)
        XCTAssertTrue(note.contains(reason), note)
        XCTAssertTrue(f.stderr(run).contains("broken.dng: \(reason)"), f.stderr(run))

        // The watch goes on: ignored names, a new subfolder tree made and filled at once, a normal file.
        try Data("notes".utf8).write(to: f.inbox.appendingPathComponent("readme.txt"))
        try f.drop(sources[0], as: "copy.dng.tmp")
        try f.drop(sources[0], as: ".hidden.dng")
        try f.drop(sources[0], as: "backup.dng~")
        try f.drop(sources[1], as: "day2/card1/b.dng")
        try f.drop(sources[2], as: "c.dng")
        XCTAssertTrue(f.waitForEntries(["day2/card1/b.dng", "c.dng"]), f.stderr(run))
        XCTAssertTrue(run.process.isRunning)
        XCTAssertEqual(Set(try f.outputs()), ["day2/card1/b.tif", "c.tif"])
        let m = try XCTUnwrap(f.manifest())
        XCTAssertEqual(Set(m.entries.map(\.input.relativePath)), ["broken.dng", "day2/card1/b.dng", "c.dng"], "ignored names never appear")
        XCTAssertEqual(m.summary.failed, 1)
        try BatchFixture.assertOutputsValid(m, in: f.out)
    }

    /// kill -9 in the middle of a burst of 20 files, then a restart: every file has exactly one valid output
    /// (same names, no duplicates), each recorded done once, no temporaries, nothing partial at any point.
    func testKillDuringABurstThenRestartGivesEveryFileExactlyOneOutput() throws {
        let f = try WatchFixture(self)
        let sources = try f.makeDNGs(20, width: 640, height: 480)     // big enough that the kill lands mid-burst
        let first = try f.start(["--jobs", "2"])
        for s in sources { try f.drop(s) }
        // Outputs appear under their final names as each file is done, while the manifest is saved only once its
        // cost is a tenth of the time gone by (ManifestStore.save): a fast burst could end before it showed three.
        XCTAssertTrue(WatchFixture.wait { ((try? f.outputs())?.count ?? 0) >= 3 }, f.stderr(first))
        first.send(SIGKILL)
        XCTAssertEqual(first.finish(within: 10).status, 128 + SIGKILL)
        try f.assertOutputsComplete()
        XCTAssertLessThan(try f.outputs().count, 20, "killed in the middle of the burst")

        let second = try f.start(["--jobs", "2"])
        let names = sources.map(\.lastPathComponent)
        XCTAssertTrue(f.waitForEntries(names), f.stderr(second))
        second.send(SIGTERM)
        let r = second.finish(within: 90)
        XCTAssertEqual(r.status, 0, r.stderr)

        XCTAssertEqual(try f.outputs(), names.map { ($0 as NSString).deletingPathExtension + ".tif" }.sorted())
        let m = try XCTUnwrap(f.manifest())
        XCTAssertEqual(m.entries.count, 20)
        XCTAssertEqual(Set(m.entries.map(\.input.relativePath)).count, 20)
        XCTAssertEqual(m.summary.converted, 20)
        try BatchFixture.assertOutputsValid(m, in: f.out)
        XCTAssertEqual(f.doneCounts().values.sorted(), Array(repeating: 1, count: 20), "each file recorded done once")
        XCTAssertEqual(BatchFixture.temporaries(under: f.out), [])
    }

    /// SIGTERM while files convert: files in flight finish, exit 0, nothing half-written, the status says
    /// stopped; the next start (--once) converts the rest, each file once.
    func testSIGTERMDrainsAndExitsZeroAndTheNextStartCompletes() throws {
        let f = try WatchFixture(self)
        let sources = try f.makeDNGs(6, prefix: "big", seed: 700, width: 1200, height: 800)
        let run = try f.start(["--jobs", "1"])
        for s in sources { try f.drop(s) }
        XCTAssertTrue(WatchFixture.wait { (f.manifest()?.entries.count ?? 0) >= 1 }, f.stderr(run))
        run.send(SIGTERM)
        let r = run.finish(within: 90)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("watch stopped"), r.stderr)
        XCTAssertEqual(BatchFixture.temporaries(under: f.out), [])
        let m = try XCTUnwrap(f.manifest())
        XCTAssertNotNil(m.finishedAt)
        try BatchFixture.assertOutputsValid(m, in: f.out)
        XCTAssertEqual(try f.outputs().count, m.summary.converted, "every output under a final name is a recorded, complete one")
        XCTAssertEqual(try WatchStatus.read(f.statusURL).state, .stopped)

        let again = try CLIRunner.run(["watch", f.inbox.path, "-o", f.out.path, "--settle", "0.2", "--once", "--heartbeat", "0"])
        XCTAssertEqual(again.status, 0, again.stderr)
        let done = try XCTUnwrap(f.manifest())
        XCTAssertEqual(done.summary.converted, 6)
        XCTAssertEqual(f.doneCounts().values.sorted(), Array(repeating: 1, count: 6))
        try BatchFixture.assertOutputsValid(done, in: f.out)
    }

    /// The backlog is converted at start (in bounded pieces with a tiny --queue-limit), the same content under
    /// another name is skipped with a note (converted with --no-dedupe), originals go to --archive, and a
    /// restart converts nothing again.
    func testBacklogDedupeArchiveAndRestart() throws {
        let f = try WatchFixture(self)
        let sources = try f.makeDNGs(6)
        for s in sources { try f.drop(s, as: "shoot/" + s.lastPathComponent) }
        try f.drop(sources[0], as: "x-again/same-as-f1.dng")     // sorted after shoot/: the second copy
        let archive = f.dir.appendingPathComponent("archive")

        let r = try CLIRunner.run(["watch", f.inbox.path, "-o", f.out.path, "--settle", "0.2", "--once", "--queue-limit", "2",
                                   "--archive", archive.path, "--heartbeat", "0"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let m = try XCTUnwrap(f.manifest())
        XCTAssertEqual(m.summary.converted, 6, r.stderr)
        XCTAssertEqual(m.summary.skipped, 1)
        let dup = try XCTUnwrap(m.entries.first { $0.input.relativePath == "x-again/same-as-f1.dng" })
        XCTAssertEqual(dup.status, .skipped)
        XCTAssertEqual(dup.reason, "identical content already converted from shoot/f1.dng as shoot/f1.tif (--no-dedupe converts it again)")
        try BatchFixture.assertOutputsValid(m, in: f.out)
        for s in sources {
            XCTAssertEqual(try SHA256.hex(fileAt: archive.appendingPathComponent("shoot/" + s.lastPathComponent)), try SHA256.hex(fileAt: s))
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: archive.appendingPathComponent("x-again/same-as-f1.dng").path))
        XCTAssertEqual(try FileManager.default.subpathsOfDirectory(atPath: f.inbox.path).filter { $0.hasSuffix(".dng") }, [], "every original moved")

        // Without --archive the originals stay; a restart converts nothing again.
        let keep = try WatchFixture(self)
        for s in sources.prefix(3) { try keep.drop(s) }
        try keep.drop(sources[0], as: "dup.dng")
        XCTAssertEqual(try CLIRunner.run(["watch", keep.inbox.path, "-o", keep.out.path, "--settle", "0.2", "--once", "--no-dedupe"]).status, 0)
        XCTAssertEqual(keep.manifest()?.summary.converted, 4, "--no-dedupe converts the same content again")
        let times = try BatchFixture.modificationTimes(under: keep.out).filter { !$0.key.hasPrefix("watch-") }
        let rerun = try CLIRunner.run(["watch", keep.inbox.path, "-o", keep.out.path, "--settle", "0.2", "--once", "--no-dedupe"])
        XCTAssertEqual(rerun.status, 0, rerun.stderr)
        XCTAssertEqual(keep.manifest()?.entries.count, 4, "nothing recorded twice")
        XCTAssertEqual(try BatchFixture.modificationTimes(under: keep.out).filter { !$0.key.hasPrefix("watch-") }, times, "nothing rewritten")
    }

    /// SIGHUP reads the recipe again: the next file gets the new look, byte-identical to `convert` with that
    /// recipe; a recipe with a mistake is refused and the previous look stays.
    func testSIGHUPReloadsTheRecipe() throws {
        let f = try WatchFixture(self)
        let source = try f.makeDNGs(1)[0]
        let recipe = f.dir.appendingPathComponent("look.json")
        try Data(#"{"version": 1, "name": "soft", "filters": {"contrast": {"ui": -20}}}"#.utf8).write(to: recipe)
        let run = try f.start(["--recipe", recipe.path, "--json"])
        defer { run.send(SIGKILL); _ = run.finish(within: 10) }
        try f.drop(source, as: "before.dng")
        XCTAssertTrue(f.waitForEntries(["before.dng"]), f.stderr(run))

        try Data(#"{"version": 1, "name": "punchy", "filters": {"contrast": {"ui": 60}, "saturation": {"ui": 30}}}"#.utf8).write(to: recipe)
        run.send(SIGHUP)
        XCTAssertTrue(WatchFixture.wait { f.stdout(run).contains(#""event":"reloaded""#) }, f.stdout(run))
        try f.drop(source, as: "after.dng")      // same content, new settings: not a duplicate
        XCTAssertTrue(f.waitForEntries(["after.dng"]), f.stderr(run))

        let reference = f.dir.appendingPathComponent("reference")
        XCTAssertEqual(try CLIRunner.run(["convert", source.path, "-o", reference.path, "--recipe", recipe.path]).status, 0)
        let before = try SHA256.hex(fileAt: f.out.appendingPathComponent("before.tif"))
        let after = try SHA256.hex(fileAt: f.out.appendingPathComponent("after.tif"))
        XCTAssertNotEqual(before, after, "the new look applies")
        XCTAssertEqual(after, try SHA256.hex(fileAt: reference.appendingPathComponent(source.deletingPathExtension().lastPathComponent + ".tif")))
        let m = try XCTUnwrap(f.manifest())
        XCTAssertEqual(m.settings.recipeName, "punchy")
        XCTAssertTrue(m.entries.first { $0.input.relativePath == "before.dng" }?.notes.contains { $0.hasPrefix("converted with other settings") } == true)

        try Data(#"{"version": 1, "name": "typo", "filters": {"contrastt": {"ui": 10}}}"#.utf8).write(to: recipe)
        run.send(SIGHUP)
        XCTAssertTrue(WatchFixture.wait { f.stdout(run).contains("the recipe was not reloaded") }, f.stdout(run))
        XCTAssertTrue(run.process.isRunning)
        XCTAssertEqual(try WatchStatus.read(f.statusURL).recipe, "punchy")
    }

    /// SIGHUP sent to every lightwork process (`kill -HUP $(pidof lightwork)`), the watch and its worker, while a
    /// file is in flight (its worker held where it opens it, `InputGate`): the worker ignores it and the file is
    /// converted, not failed with "decoder crashed: signal 1"; the watch reloads once it is done.
    func testSIGHUPToEveryProcessLeavesTheFileInFlightConverted() throws {
        let f = try WatchFixture(self)
        let source = try f.makeDNGs(1)[0]
        try f.drop(source, as: "held.dng")
        let gate = try InputGate(f.inbox.appendingPathComponent("held.dng"))
        defer { gate.release() }
        let recipe = f.dir.appendingPathComponent("look.json")
        try Data(#"{"version": 1, "name": "soft", "filters": {"contrast": {"ui": -20}}}"#.utf8).write(to: recipe)
        let run = try f.start(["--recipe", recipe.path, "--json"])
        defer { run.send(SIGKILL); _ = run.finish(within: 10) }
        let worker = try XCTUnwrap(gate.heldWorker(seconds: 60), "no worker opened held.dng")
        let watch = run.process.processIdentifier
        let everyone = [watch] + ProcessTree.descendants(of: watch)
        XCTAssertTrue(everyone.contains(worker), "the held worker is the watch's")
        for pid in everyone { kill(pid, SIGHUP) }
        // A worker killed by the signal is a zombie (empty cmdline) or gone within a moment; one that ignores it stays.
        XCTAssertFalse(WatchFixture.wait(seconds: 2) { ProcessTree.argv(worker).isEmpty }, "the worker outlived SIGHUP")
        gate.release()
        XCTAssertTrue(f.waitForEntries(["held.dng"]), f.stderr(run))
        XCTAssertTrue(WatchFixture.wait { f.stdout(run).contains(#""event":"reloaded""#) }, f.stdout(run))
        let entry = try XCTUnwrap(f.entries(for: "held.dng").last)
        XCTAssertEqual(entry.status, .converted, entry.reason ?? "")
        XCTAssertTrue(FileManager.default.fileExists(atPath: f.out.appendingPathComponent("held.tif").path))
        XCTAssertFalse(f.stderr(run).contains("signal 1"), f.stderr(run))
        XCTAssertTrue(run.process.isRunning)
    }

    /// A file recorded failed is tried again when it is written again, even with the same bytes (a new mtime):
    /// before, its content hash matched the failure and it was never retried. A new mtime set without opening the
    /// file (touch -d, or touch of a file one may not write: IN_ATTRIB, no IN_CLOSE_WRITE) retries it too; before,
    /// the watch never saw it. A chmod alone (IN_ATTRIB too, same size, mtime and inode) does not.
    func testFailedFileWrittenAgainOrTouchedIsTriedAgain() throws {
        let f = try WatchFixture(self)
        let run = try f.start()
        defer { run.send(SIGKILL); _ = run.finish(within: 10) }
        let broken = f.inbox.appendingPathComponent("broken.dng")
        try Data("this is not an image at all".utf8).write(to: broken)
        XCTAssertTrue(WatchFixture.wait { f.doneCounts()["broken.dng"] == 1 }, f.stderr(run))
        // The manifest is saved a moment after the journal records the outcome.
        XCTAssertTrue(WatchFixture.wait { f.entries(for: "broken.dng").last?.status == .failed }, f.stderr(run))
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-3600)], ofItemAtPath: broken.path)
        XCTAssertTrue(WatchFixture.wait(seconds: 20) { f.doneCounts()["broken.dng"] == 2 }, "touched, retried: \(f.doneCounts()) \(f.stderr(run))")
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: broken.path)
        usleep(1_500_000)
        XCTAssertEqual(f.doneCounts()["broken.dng"], 2, "a chmod is not a retry")
        try Data("this is not an image at all".utf8).write(to: broken)      // the same bytes, a new mtime
        XCTAssertTrue(WatchFixture.wait { f.doneCounts()["broken.dng"] == 3 }, "written again, retried: \(f.doneCounts()) \(f.stderr(run))")
        let source = try f.makeDNGs(1)[0]
        try FileManager.default.removeItem(at: broken)
        try f.drop(source, as: "broken.dng")                                    // fixed: converted
        XCTAssertTrue(WatchFixture.wait { f.entries(for: "broken.dng").last?.status == .converted }, f.stderr(run))
        XCTAssertTrue(FileManager.default.fileExists(atPath: f.out.appendingPathComponent("broken.tif").path))
    }

    /// A failed file stays failed across restarts (the same bytes fail the same way) until `--retry-failed`, which
    /// tries each failed file still in the inbox once more at start.
    func testRetryFailedTriesAFailedFileAgainAtStart() throws {
        let f = try WatchFixture(self)
        try Data("this is not an image at all".utf8).write(to: f.inbox.appendingPathComponent("broken.dng"))
        let once = ["watch", f.inbox.path, "-o", f.out.path, "--settle", "0.2", "--once"]
        XCTAssertEqual(try CLIRunner.run(once).status, 1)
        XCTAssertEqual(try CLIRunner.run(once).status, 0, "nothing new: the failure is not tried again")
        XCTAssertEqual(f.doneCounts()["broken.dng"], 1)
        let retry = try CLIRunner.run(once + ["--retry-failed"])
        XCTAssertEqual(retry.status, 1, retry.stderr)
        XCTAssertEqual(f.doneCounts()["broken.dng"], 2, "tried once more")
        XCTAssertTrue(retry.stderr.contains("broken.dng"), retry.stderr)
    }

    /// --poll (for network shares) sees new files and files in new subfolders, and waits for a chunked
    /// upload to finish; --status tells what a watch is doing, and that it stopped.
    func testPollingModeAndStatus() throws {
        let f = try WatchFixture(self)
        let sources = try f.makeDNGs(2)
        let run = try f.start(["--poll", "0.3", "--film", "0001001"])
        try f.drop(sources[0], as: "nfs/a.dng")
        let bytes = try Data(contentsOf: sources[1])
        let target = f.inbox.appendingPathComponent("b.dng")
        try bytes.prefix(bytes.count / 2).write(to: target)
        XCTAssertTrue(f.waitForEntries(["nfs/a.dng"]), f.stderr(run))
        usleep(1_000_000)       // several looks agree on the half file: only its structure holds it back
        XCTAssertEqual(f.entries(for: "b.dng").count, 0)
        let h = try FileHandle(forWritingTo: target)
        try h.seekToEnd()
        try h.write(contentsOf: bytes.suffix(from: bytes.count / 2))
        try h.close()
        XCTAssertTrue(f.waitForEntries(["b.dng"]), f.stderr(run))
        XCTAssertEqual(f.entries(for: "b.dng").first?.input.sha256, SHA256.hex(bytes))
        XCTAssertEqual(f.entries(for: "b.dng").first?.status, .converted)

        XCTAssertTrue(WatchFixture.wait { (try? WatchStatus.read(f.statusURL).converted) == 2 })
        let status = try CLIRunner.run(["watch", "--status", f.out.path])
        XCTAssertEqual(status.status, 0, status.stderr)
        XCTAssertTrue(status.stdout.contains("running (pid \(run.process.processIdentifier), poll every 0.3 s"), status.stdout)
        XCTAssertTrue(status.stdout.contains("2 converted, 0 skipped, 0 failed"), status.stdout)
        XCTAssertTrue(status.stdout.contains("film: 0001001 Harbour"), "the film in use is named: \(status.stdout)")
        XCTAssertTrue(status.stdout.contains("; recipe: neutral"), status.stdout)
        run.send(SIGTERM)
        XCTAssertEqual(run.finish(within: 60).status, 0)
        let stopped = try CLIRunner.run(["watch", "--status", f.out.path, "--json"])
        XCTAssertEqual(stopped.status, 3)
        XCTAssertEqual(try JSONDecoder().decode(WatchStatus.self, from: Data(stopped.stdout.utf8)).state, .stopped)

        // A second watch on the same output folder is refused while one runs.
        let holder = try f.start()
        defer { holder.send(SIGKILL); _ = holder.finish(within: 10) }
        XCTAssertTrue(WatchFixture.wait { f.stderr(holder).contains("watching") })
        let second = try CLIRunner.run(["watch", f.inbox.path, "-o", f.out.path])
        XCTAssertEqual(second.status, 2, "the output folder's lock (OutputLock) refuses it before the journal's would")
        XCTAssertTrue(second.stderr.contains("is in use by pid \(holder.process.processIdentifier) (lightwork watch "), second.stderr)
    }

    /// Usage errors exit 2 before anything is touched; --help teaches with examples.
    func testUsageAndHelp() throws {
        let f = try WatchFixture(self)
        let help = try CLIRunner.run(["watch", "--help"])
        XCTAssertEqual(help.status, 0)
        for text in ["Examples:", "--poll", "--archive", "--failed", "--no-dedupe", "SIGHUP", "--status", "kill -9"] {
            XCTAssertTrue(help.stdout.contains(text), text)
        }
        XCTAssertEqual(try CLIRunner.run(["watch", f.inbox.path]).status, 2, "no -o")
        XCTAssertEqual(try CLIRunner.run(["watch", f.dir.appendingPathComponent("nope").path, "-o", f.out.path]).status, 2)
        XCTAssertEqual(try CLIRunner.run(["watch", f.inbox.path, "-o", f.out.path, "--shard", "0/2"]).status, 2, "batch-only flags refused")
        XCTAssertEqual(try CLIRunner.run(["watch", f.inbox.path, "-o", f.out.path, "--poll", "0"]).status, 2)
        XCTAssertFalse(FileManager.default.fileExists(atPath: f.out.path), "nothing touched")
    }
}

/// Backpressure: a burst far larger than --queue-limit is converted completely while the watch's tracked
/// files, descriptors and memory stay bounded (sampled from /proc while it runs).
final class WatchBurstTests: XCTestCase {
    func testBurstLargerThanTheQueueStaysBounded() throws {
        let f = try WatchFixture(self)
        let count = 400, limit = 40
        let run = try f.start(["--jobs", "2", "--settle", "0.2", "--queue-limit", String(limit)])
        defer { run.send(SIGKILL); _ = run.finish(within: 10) }
        XCTAssertTrue(WatchFixture.wait { (try? WatchStatus.read(f.statusURL).pid) == run.process.processIdentifier })
        let pid = run.process.processIdentifier
        for i in 0..<count {
            // Different content for every file (the first two samples carry the number), so none is a duplicate.
            var rows = (0..<8).map { y in (0..<24).map { x in UInt8((i * 31 + y * 7 + x * 3) & 0xFF) } }
            rows[0][0] = UInt8(i & 0xFF)
            rows[0][1] = UInt8(i >> 8)
            try PNGBuilder(width: 8, height: 8, colourType: 2).build(rows: rows)
                .write(to: f.inbox.appendingPathComponent(String(format: "burst/tiny-%03d.png", i)).createFolder())
        }
        var maxFDs = 0, maxRSSKiB = 0, maxTracked = 0
        let finished = WatchFixture.wait(seconds: 120) {
            maxFDs = max(maxFDs, (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? 0)
            if let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
               let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
               let kib = Int(line.split(separator: " ")[1]) { maxRSSKiB = max(maxRSSKiB, kib) }
            if let s = try? WatchStatus.read(f.statusURL) { maxTracked = max(maxTracked, s.waiting + s.queued) }
            return (try? WatchStatus.read(f.statusURL).converted) == count
        }
        XCTAssertTrue(finished, f.stderr(run))
        print("watch burst: \(count) files, queue limit \(limit): at most \(maxTracked) tracked, \(maxFDs) descriptors, \(maxRSSKiB / 1024) MiB resident")
        XCTAssertLessThanOrEqual(maxTracked, limit, "the queue limit holds")
        XCTAssertLessThan(maxFDs, 64, "descriptors do not grow with the burst")
        XCTAssertLessThan(maxRSSKiB, 256 * 1024, "memory does not grow with the burst")
        XCTAssertTrue(WatchFixture.wait { f.manifest()?.entries.count == count })
        XCTAssertEqual(f.doneCounts().count, count)
        XCTAssertEqual(f.doneCounts().values.max(), 1)
        XCTAssertEqual(try f.outputs().count, count)
    }
}

private extension URL {
    /// The URL, after creating its parent folder.
    func createFolder() throws -> URL {
        try FileManager.default.createDirectory(at: deletingLastPathComponent(), withIntermediateDirectories: true)
        return self
    }
}
