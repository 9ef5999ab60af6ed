import Foundation
import XCTest
@testable import LightWork

/// One writer per output folder (issue #21 item 2), through the real binary: the first run is held mid-conversion
/// by the fanotify gate on one of its inputs, so it surely holds the folder while the second one starts.
final class OutputLockTests: XCTestCase {
    /// Three generated DNGs (gen-1 … gen-3).
    private func inputs(_ dir: URL) throws -> URL {
        let input = dir.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        for i in 1...3 { try BatchFixture.makeDNG(input.appendingPathComponent("gen-\(i).dng"), seed: 20 + i) }
        return input
    }

    /// The pids holding a POSIX lock on `url`, from /proc/locks (by inode).
    private func lockHolders(_ url: URL) throws -> Set<pid_t> {
        let inode = try XCTUnwrap(FileSignature.of(url.path)).inode
        let text = try String(contentsOfFile: "/proc/locks", encoding: .utf8)
        var pids = Set<pid_t>()
        for line in text.split(separator: "\n") {
            // "1: POSIX  ADVISORY  WRITE 1234 08:01:5678 0 EOF"
            let f = line.split(separator: " ", omittingEmptySubsequences: true)
            guard f.count >= 6, f[1] == "POSIX", let pid = pid_t(f[4]), f[5].split(separator: ":").last.flatMap({ UInt64($0) }) == inode else { continue }
            pids.insert(pid)
        }
        return pids
    }

    func testASecondRunIntoTheFolderExitsTwoNamingTheFirstOrWaitsForIt() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let input = try inputs(dir)
        let out = dir.appendingPathComponent("out")
        let gate = try InputGate(input.appendingPathComponent("gen-2.dng"))
        defer { gate.release() }
        let first = try CLIRunner.Background(["convert", input.path, "-o", out.path, "--jobs", "1"], logs: dir)
        let worker = try XCTUnwrap(gate.heldWorker(seconds: 60), "no worker opened gen-2.dng")
        let pid = first.process.processIdentifier

        // The lock is the parent's alone: the worker converting under it holds none.
        let lockFile = out.appendingPathComponent(".lightwork/lock")
        XCTAssertEqual(try lockHolders(lockFile), [pid], "held by the batch parent, not by its worker \(worker)")

        let refused = try CLIRunner.run(["convert", input.path, "-o", out.path])
        XCTAssertEqual(refused.status, 2, refused.stderr)
        let lines = refused.stderr.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, refused.stderr)
        XCTAssertTrue(refused.stderr.hasPrefix("lightwork convert: the output folder \(out.path) is in use by pid \(pid) (lightwork convert \(input.path) -o \(out.path) --jobs 1); wait for it or pass --wait"),
                      refused.stderr)
        let watch = try CLIRunner.run(["watch", input.path, "-o", out.path, "--once"])
        XCTAssertEqual(watch.status, 2, "a watch into the folder is refused too: \(watch.stderr)")
        XCTAssertTrue(watch.stderr.contains("is in use by pid \(pid)"), watch.stderr)

        let waiting = try CLIRunner.Background(["convert", input.path, "-o", out.path, "--wait"], logs: dir)
        XCTAssertTrue(waiting.waitForStderr(containing: "waiting for pid \(pid) (lightwork convert", seconds: 30))
        usleep(300_000)
        XCTAssertTrue(waiting.process.isRunning, "it waits while the first holds the folder")
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.appendingPathComponent("gen-3.tif").path), "the first is still held")
        gate.release()
        let r1 = first.finish(within: 120)
        XCTAssertEqual(r1.status, 0, r1.stderr)
        let firstManifest = try BatchFixture.manifest(out.appendingPathComponent("manifest.json"))
        let r2 = waiting.finish(within: 120)
        XCTAssertEqual(r2.status, 0, r2.stderr)

        // The second run planned on what the first finished: it skipped every file, carrying the first's records.
        let m = try BatchFixture.manifest(out.appendingPathComponent("manifest.json"))
        XCTAssertEqual(m.summary.total, 3)
        XCTAssertEqual(m.summary.skipped, 3, "nothing converted twice")
        for e in m.entries {
            XCTAssertEqual(e.reason, ResumeIndex.skipReason, e.input.relativePath)
            XCTAssertEqual(e.output, firstManifest.entries.first { $0.input.relativePath == e.input.relativePath }?.output, e.input.relativePath)
        }
        try BatchFixture.assertOutputsValid(m, in: out)
    }

    /// Shards of one job run side by side into one folder; a whole run into it waits for none of them and is refused;
    /// a killed holder leaves no lock behind.
    func testShardsCoexistAWholeRunDoesNotAndAKilledHolderLeavesNoLock() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let input = try inputs(dir)
        let out = dir.appendingPathComponent("out")
        let held = try XCTUnwrap((1...3).map { "gen-\($0).dng" }.first { Shard.slot(of: $0, count: 2) == 0 }, "some input in shard 0")
        let gate = try InputGate(input.appendingPathComponent(held))
        defer { gate.release() }
        let shard0 = try CLIRunner.Background(["convert", input.path, "-o", out.path, "--shard", "0/2", "--jobs", "1"], logs: dir)
        XCTAssertNotNil(gate.heldWorker(seconds: 60), "no worker opened \(held)")

        let shard1 = try CLIRunner.run(["convert", input.path, "-o", out.path, "--shard", "1/2"])
        XCTAssertEqual(shard1.status, 0, "the other shard of the job runs beside it: \(shard1.stderr)")
        let again = try CLIRunner.run(["convert", input.path, "-o", out.path, "--shard", "0/2"])
        XCTAssertEqual(again.status, 2, "the same shard twice is refused: \(again.stderr)")
        let whole = try CLIRunner.run(["convert", input.path, "-o", out.path])
        XCTAssertEqual(whole.status, 2, whole.stderr)
        XCTAssertTrue(whole.stderr.contains("is in use by pid \(shard0.process.processIdentifier) (lightwork convert "), whole.stderr)

        shard0.send(SIGKILL)
        _ = shard0.finish(within: 30)
        gate.release()
        let after = try CLIRunner.run(["convert", input.path, "-o", out.path])
        XCTAssertEqual(after.status, 0, "the killed run's lock went with it: \(after.stderr)")
        let m = try BatchFixture.manifest(out.appendingPathComponent("manifest.json"))
        XCTAssertEqual(m.summary.total, 3)
        XCTAssertEqual(m.summary.failed, 0)
        try BatchFixture.assertOutputsValid(m, in: out)
    }
}
