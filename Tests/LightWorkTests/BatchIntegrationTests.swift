import Foundation
import XCTest
@testable import LightWork

/// The real `lightwork convert` binary over a folder of real and generated files with one corrupt file:
/// failures, re-runs, crashes, time limits, signals, kill -9, job counts and shards.
final class BatchIntegrationTests: XCTestCase {
    private func convert(_ input: URL, _ out: URL, _ extra: [String] = [], environment: [String: String] = [:]) throws -> CLIRunner.Result {
        try CLIRunner.run(["convert", input.path, "-o", out.path] + extra, environment: environment)
    }

    /// Exit 1, every other output valid, the corrupt file failed; a second run skips everything and rewrites nothing.
    func testCorruptFileFailsTheRestConvertAndARerunSkipsEverything() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let input = try BatchFixture.inputs(in: dir)
        let out = dir.appendingPathComponent("out")
        let total = BatchFixture.inputCount(input)

        let first = try convert(input, out, ["--jobs", "2"])
        XCTAssertEqual(first.status, 1, first.stderr)
        let m1 = try BatchFixture.manifest(out.appendingPathComponent("manifest.json"))
        XCTAssertEqual(m1.entries.count, total)
        XCTAssertEqual(m1.entries.map(\.input.index), Array(1...total).map { Optional($0) }, "entries in input order")
        XCTAssertEqual(m1.summary.converted, total - 1)
        let broken = try XCTUnwrap(m1.entries.first { $0.input.relativePath == BatchFixture.corrupt })
        XCTAssertEqual(broken.status, .failed)
        XCTAssertEqual(broken.failureKind, .decodeFailed, broken.reason ?? "")
        XCTAssertNil(broken.output)
        XCTAssertTrue(first.stderr.contains(BatchFixture.corrupt), first.stderr)
        try BatchFixture.assertOutputsValid(m1, in: out)
        XCTAssertNotNil(m1.finishedAt)
        XCTAssertNil(m1.interrupted)
        XCTAssertEqual(BatchFixture.temporaries(under: out), [])
        let times = try BatchFixture.modificationTimes(under: out)
        XCTAssertEqual(times.count, total - 1)

        let second = try convert(input, out, ["--jobs", "2"])
        XCTAssertEqual(second.status, 1, "the corrupt file is tried again and fails again: \(second.stderr)")
        let m2 = try BatchFixture.manifest(out.appendingPathComponent("manifest.json"))
        XCTAssertEqual(m2.entries.count, total, "the re-run's manifest describes every file")
        XCTAssertEqual(m2.summary.skipped, total - 1)
        XCTAssertEqual(m2.summary.converted, 0)
        for e in m2.entries where e.status == .skipped {
            let before = try XCTUnwrap(m1.entries.first { $0.input.relativePath == e.input.relativePath })
            XCTAssertEqual(e.reason, "already converted (unchanged input and settings)")
            XCTAssertEqual(e.output, before.output, "a skipped entry carries the earlier output record")
            XCTAssertEqual(e.input.sha256, before.input.sha256)
        }
        XCTAssertEqual(try BatchFixture.modificationTimes(under: out), times, "nothing rewritten")
    }

    /// A changed recipe redoes every file (new settings digest); --force redoes all; an unchanged re-run skips.
    func testChangedSettingsRedoEveryFileAndForceRedoesAll() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let input = try BatchFixture.inputs(in: dir, generated: 3, real: false)
        let out = dir.appendingPathComponent("out")
        let manifestURL = out.appendingPathComponent("manifest.json")
        let total = BatchFixture.inputCount(input)

        XCTAssertEqual(try convert(input, out).status, 1)
        let neutral = try BatchFixture.outputDigests(under: out)
        let r = try convert(input, out, ["--set", "contrast=30"])
        XCTAssertEqual(r.status, 1, r.stderr)
        let m = try BatchFixture.manifest(manifestURL)
        XCTAssertEqual(m.summary.converted, total - 1, "new settings: nothing reusable")
        let contrasted = try BatchFixture.outputDigests(under: out)
        XCTAssertEqual(Set(contrasted.keys), Set(neutral.keys))
        for (path, digest) in contrasted { XCTAssertNotEqual(digest, neutral[path], "\(path) was redone with the new recipe") }

        XCTAssertEqual(try BatchFixture.manifest(manifestURL).settingsDigest, m.settingsDigest)
        _ = try convert(input, out, ["--set", "contrast=30"])
        XCTAssertEqual(try BatchFixture.manifest(manifestURL).summary.skipped, total - 1)
        _ = try convert(input, out, ["--set", "contrast=30", "--force"])
        let forced = try BatchFixture.manifest(manifestURL)
        XCTAssertEqual(forced.summary.converted, total - 1, "--force redoes all")
        XCTAssertEqual(try BatchFixture.outputDigests(under: out), contrasted, "and gets the same bytes")
    }

    /// Output bytes and manifest content do not depend on the number of jobs or on worker isolation.
    func testOneJobTwoJobsAndInProcessGiveIdenticalOutputs() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let input = try BatchFixture.inputs(in: dir, generated: 3)
        var digests: [[String: String]] = []
        var manifests: [Manifest] = []
        for (name, flags) in [("one", ["--jobs", "1"]), ("two", ["--jobs", "2"]), ("inproc", ["--no-isolation"])] {
            let out = dir.appendingPathComponent(name)
            XCTAssertEqual(try convert(input, out, flags).status, 1)
            digests.append(try BatchFixture.outputDigests(under: out))
            manifests.append(BatchFixture.normalized(try BatchFixture.manifest(out.appendingPathComponent("manifest.json"))))
        }
        XCTAssertEqual(digests[0].count, BatchFixture.inputCount(input) - 1)
        XCTAssertEqual(digests[0], digests[1], "--jobs 1 vs --jobs 2")
        XCTAssertEqual(digests[0], digests[2], "worker vs in-process")
        XCTAssertEqual(manifests[0], manifests[1])
        XCTAssertEqual(manifests[0], manifests[2])
    }

    /// A decoder crash costs that file only: the worker that opens sub/gen-2.dng is held there (`InputGate`) and sent
    /// SIGSEGV from outside, as a decoder's heap overflow would end it.
    func testDecoderCrashCostsOnlyThatFile() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let input = try BatchFixture.inputs(in: dir, generated: 4)
        let out = dir.appendingPathComponent("out")
        let gate = try InputGate(input.appendingPathComponent("sub/gen-2.dng"))
        defer { gate.release() }
        // Without Swift's backtracer, which would catch the signal and take seconds to print a report.
        let run = try CLIRunner.Background(["convert", input.path, "-o", out.path, "--jobs", "2"],
                                           environment: ["SWIFT_BACKTRACE": "enable=no"], logs: dir)
        let worker = try XCTUnwrap(gate.heldWorker(seconds: 60), "no worker opened sub/gen-2.dng")
        XCTAssertEqual(kill(worker, SIGSEGV), 0)
        gate.release()
        let r = run.finish(within: 60)
        XCTAssertEqual(r.status, 1, r.stderr)
        let m = try BatchFixture.manifest(out.appendingPathComponent("manifest.json"))
        let crashed = try XCTUnwrap(m.entries.first { $0.input.relativePath == "sub/gen-2.dng" })
        XCTAssertEqual(crashed.status, .failed)
        XCTAssertEqual(crashed.reason, "decoder crashed: signal 11 (SIGSEGV)")
        XCTAssertEqual(crashed.failureKind, .workerCrashed)
        XCTAssertTrue(r.stderr.contains("decoder crashed: signal 11 (SIGSEGV)"), r.stderr)
        XCTAssertEqual(m.summary.failed, 2, "the crash and the corrupt file")
        XCTAssertEqual(m.summary.converted, BatchFixture.inputCount(input) - 2, "every file after the crash converted too")
        try BatchFixture.assertOutputsValid(m, in: out)
        XCTAssertEqual(BatchFixture.temporaries(under: out), [])
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.appendingPathComponent("sub/gen-2.tif").path))
    }

    /// A file past --timeout fails with the reason; its worker is replaced and the rest convert. The worker that
    /// opens gen-1.dng is held there (`InputGate`) for the whole run, so it hangs for real.
    func testFileOverTheTimeLimitFailsAndTheBatchGoesOn() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let input = try BatchFixture.inputs(in: dir, generated: 3, real: false)
        let out = dir.appendingPathComponent("out")
        let gate = try InputGate(input.appendingPathComponent("gen-1.dng"))
        defer { gate.release() }
        let start = Date()
        let r = try convert(input, out, ["--jobs", "2", "--timeout", "4"])
        XCTAssertNotNil(gate.heldWorker(seconds: 0), "a worker opened gen-1.dng and was held there")
        gate.release()
        XCTAssertLessThan(Date().timeIntervalSince(start), 25)
        XCTAssertEqual(r.status, 1, r.stderr)
        let m = try BatchFixture.manifest(out.appendingPathComponent("manifest.json"))
        let hung = try XCTUnwrap(m.entries.first { $0.input.relativePath == "gen-1.dng" })
        XCTAssertEqual(hung.status, .failed)
        XCTAssertEqual(hung.reason, "timed out: still converting after 4 s (raise --timeout); its worker was stopped")
        XCTAssertEqual(hung.failureKind, .workerTimedOut)
        XCTAssertEqual(m.summary.converted, BatchFixture.inputCount(input) - 2)
        try BatchFixture.assertOutputsValid(m, in: out)
    }

    /// SIGTERM: the file in flight finishes, the manifest is written (interrupted, no finish time), exit 143;
    /// the next run skips what was done and completes the batch.
    func testSIGTERMStopsWithAValidManifestAndTheNextRunCompletes() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let input = try BatchFixture.inputs(in: dir, generated: 6)
        let out = dir.appendingPathComponent("out")
        let manifestURL = out.appendingPathComponent("manifest.json")
        let total = BatchFixture.inputCount(input)
        // The corrupt file comes first in input order and fails at once; the CRW after it is then held where its
        // worker opens it (`InputGate`) until the parent has taken the signal, so it is surely in flight, however
        // fast decoding is.
        let gate = try InputGate(input.appendingPathComponent("canon-powershot-g2.crw"))
        defer { gate.release() }
        let run = try CLIRunner.Background(["convert", input.path, "-o", out.path, "--jobs", "1"], logs: dir)
        XCTAssertNotNil(gate.heldWorker(seconds: 30), "no worker opened the CRW")
        run.send(SIGTERM)
        XCTAssertTrue(run.waitForStderr(containing: "interrupted: finishing", seconds: 20), "the parent took the signal")
        gate.release()
        let r = run.finish(within: 30)
        XCTAssertEqual(r.status, 143, r.stderr)
        let m = try BatchFixture.manifest(manifestURL)
        XCTAssertEqual(m.interrupted, true)
        XCTAssertNil(m.finishedAt)
        XCTAssertGreaterThanOrEqual(m.entries.count, 2, "the file in flight was finished")
        XCTAssertTrue(r.stderr.contains("interrupted: finishing 1 file(s) in flight"), r.stderr)
        XCTAssertLessThan(m.entries.count, total)
        XCTAssertTrue(r.stdout.contains(", \(total - m.entries.count) never started"), "the summary counts what never started: \(r.stdout)")
        try BatchFixture.assertOutputsValid(m, in: out)
        XCTAssertEqual(BatchFixture.temporaries(under: out), [])

        let again = try convert(input, out)
        XCTAssertEqual(again.status, 1, again.stderr)
        let done = try BatchFixture.manifest(manifestURL)
        XCTAssertEqual(done.entries.count, total)
        XCTAssertEqual(done.summary.skipped, m.summary.converted)
        XCTAssertNil(done.interrupted)
        try BatchFixture.assertOutputsValid(done, in: out)
    }

    /// A `--force` run killed after its first manifest save (which lists only what it redid) must not make the
    /// earlier outputs someone else's: the next run resumes them, it never skips them as "already exists".
    func testForcedRunKilledEarlyKeepsEarlierOutputsTheExports() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let input = try BatchFixture.inputs(in: dir, generated: 4, real: false)
        let out = dir.appendingPathComponent("out")
        let manifestURL = out.appendingPathComponent("manifest.json")
        XCTAssertEqual(try convert(input, out, ["--jobs", "1"]).status, 1)
        let first = try BatchFixture.manifest(manifestURL)
        XCTAssertNotNil(first.finishedAt)

        // gen-1.dng, the first file after the corrupt one, is held where its worker opens it (`InputGate`): the sub/
        // files are never dispatched.
        let gate = try InputGate(input.appendingPathComponent("gen-1.dng"))
        defer { gate.release() }
        let run = try CLIRunner.Background(["convert", input.path, "-o", out.path, "--jobs", "1", "--force"], logs: dir)
        XCTAssertNotNil(gate.heldWorker(seconds: 30), "the forced run reached gen-1.dng")
        let deadline = Date().addingTimeInterval(30)
        var partial: Manifest?
        while Date() < deadline {
            if let m = try? BatchFixture.manifest(manifestURL), m.finishedAt == nil, m.entries.count >= 1 { partial = m; break }
            usleep(20_000)
        }
        run.send(SIGKILL)
        _ = run.finish(within: 10)
        gate.release()
        let killed = try XCTUnwrap(partial, "the forced run saved its own manifest")
        // The ledger keeps every earlier run's records, so even the killed forced run's manifest lists every earlier output.
        XCTAssertEqual(killed.entries.count, first.entries.count, "the killed manifest still lists every earlier output")

        let r = try convert(input, out, ["--jobs", "1"])
        XCTAssertEqual(r.status, 1, r.stderr)
        let m = try BatchFixture.manifest(manifestURL)
        XCTAssertEqual(m.entries.count, first.entries.count)
        XCTAssertEqual(m.summary.converted + m.summary.skipped, first.summary.converted, r.stderr)
        XCTAssertFalse(m.entries.contains { $0.reason?.contains("already exists") == true }, m.entries.compactMap(\.reason).joined(separator: "; "))
        try BatchFixture.assertOutputsValid(m, in: out)
    }

    /// kill -9 halfway: no incomplete file under a final name; the next run removes the temporaries and completes.
    func testSIGKILLHalfwayLeavesNoPartialOutputAndTheNextRunCompletes() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let input = try BatchFixture.inputs(in: dir, generated: 6)
        let out = dir.appendingPathComponent("out")
        let manifestURL = out.appendingPathComponent("manifest.json")
        // One late file is held where its worker opens it (`InputGate`), so the run is surely still going when it is killed.
        let gate = try InputGate(input.appendingPathComponent("sub/gen-6.dng"))
        defer { gate.release() }
        let run = try CLIRunner.Background(["convert", input.path, "-o", out.path, "--jobs", "2"], logs: dir)
        XCTAssertNotNil(gate.heldWorker(seconds: 30), "no worker opened sub/gen-6.dng")
        XCTAssertNotNil(BatchFixture.waitForManifest(manifestURL, entries: 2, seconds: 20))
        run.send(SIGKILL)
        XCTAssertEqual(run.finish(within: 10).status, 128 + SIGKILL)
        gate.release()
        usleep(200_000)     // the workers die with their parent (PDEATHSIG)
        // Temporaries (`.name.lwtmp-…`) may be cut short by the kill; every file under a final name must be whole.
        let temporaries = Set(BatchFixture.temporaries(under: out))
        for path in try BatchFixture.outputDigests(under: out).keys where !temporaries.contains(path) {
            XCTAssertNoThrow(try ImageFileReader.read(out.appendingPathComponent(path)), "\(path) is complete")
        }
        XCTAssertNoThrow(try BatchFixture.manifest(manifestURL), "the manifest is valid JSON")

        let r = try convert(input, out, ["--jobs", "2"])
        XCTAssertEqual(r.status, 1, r.stderr)
        let m = try BatchFixture.manifest(manifestURL)
        XCTAssertEqual(m.entries.count, BatchFixture.inputCount(input))
        XCTAssertEqual(m.summary.failed, 1)
        try BatchFixture.assertOutputsValid(m, in: out)
        XCTAssertEqual(BatchFixture.temporaries(under: out), [])
    }

    /// A run removes temporaries of its own outputs that a killed run left, and no one else's
    /// (another shard may be writing into the same folder).
    func testStaleTemporariesOfThisRunAreRemovedOthersKept() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let input = try BatchFixture.inputs(in: dir, generated: 2, real: false)
        let out = dir.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out.appendingPathComponent("sub"), withIntermediateDirectories: true)
        let stale = [".gen-1.tif.lwtmp-999999-1", "sub/.gen-2.tif.lwtmp-12-7", ".manifest.json.lwtmp-5-2"]
        let foreign = [".elsewhere.tif.lwtmp-999999-1", "gen-1.tif.lwtmp-notours"]
        for p in stale + foreign { try Data("partial".utf8).write(to: out.appendingPathComponent(p)) }
        let r = try convert(input, out)
        XCTAssertEqual(r.status, 1, r.stderr)
        for p in stale { XCTAssertFalse(FileManager.default.fileExists(atPath: out.appendingPathComponent(p).path), p) }
        for p in foreign { XCTAssertTrue(FileManager.default.fileExists(atPath: out.appendingPathComponent(p).path), p) }
    }

    /// Shards 0/3, 1/3, 2/3 into one folder produce exactly the single run's outputs, and their merged
    /// manifest equals the single run's in everything but timings, host and times.
    func testThreeShardsEqualTheSingleRun() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let input = try BatchFixture.inputs(in: dir, generated: 4)
        let single = dir.appendingPathComponent("single")
        let sharded = dir.appendingPathComponent("sharded")
        XCTAssertEqual(try convert(input, single, ["--jobs", "2"]).status, 1)

        var shardFiles: [String] = []
        var counts: [Int] = []
        for k in 0..<3 {
            let r = try convert(input, sharded, ["--shard", "\(k)/3", "--jobs", "1"])
            XCTAssertTrue([0, 1].contains(r.status), r.stderr)
            let url = sharded.appendingPathComponent("manifest.shard-\(k)-of-3.json")
            let m = try BatchFixture.manifest(url)
            XCTAssertEqual(m.shard, Manifest.ShardInfo(index: k, count: 3))
            counts.append(m.entries.count)
            shardFiles.append(url.path)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: sharded.appendingPathComponent("manifest.json").path), "shards never write manifest.json")
        XCTAssertEqual(counts.reduce(0, +), BatchFixture.inputCount(input))
        XCTAssertGreaterThan(counts.filter { $0 > 0 }.count, 1, "the inputs spread over more than one shard")
        XCTAssertEqual(try BatchFixture.outputDigests(under: sharded), try BatchFixture.outputDigests(under: single))

        let mergedURL = dir.appendingPathComponent("merged.json")
        let merge = try CLIRunner.run(["manifest", "merge"] + shardFiles + ["-o", mergedURL.path])
        XCTAssertEqual(merge.status, 1, "the corrupt file failed: \(merge.stderr)")
        XCTAssertTrue(merge.stderr.contains(BatchFixture.corrupt), merge.stderr)
        let merged = try BatchFixture.manifest(mergedURL)
        let reference = try BatchFixture.manifest(single.appendingPathComponent("manifest.json"))
        XCTAssertEqual(BatchFixture.normalized(merged), BatchFixture.normalized(reference))

        let partial = try CLIRunner.run(["manifest", "merge", shardFiles[0], shardFiles[2], "-o", dir.appendingPathComponent("partial.json").path])
        XCTAssertEqual(partial.status, 1)
        XCTAssertTrue(partial.stderr.contains("shard 1/3 is missing"), partial.stderr)

        // A whole run (or another split) into the same folder resumes from the shards' manifests.
        let times = try BatchFixture.modificationTimes(under: sharded)
        let whole = try convert(input, sharded, ["--shard", "0/2"])
        XCTAssertEqual(whole.status, 1, whole.stderr)
        let half = try BatchFixture.manifest(sharded.appendingPathComponent("manifest.shard-0-of-2.json"))
        XCTAssertEqual(half.summary.converted, 0, "nothing redone: \(half.entries.map { ($0.input.relativePath, $0.status) })")
        for e in half.entries where e.status == .skipped {
            XCTAssertEqual(e.reason, ResumeIndex.skipReason, "\(e.input.relativePath): the other split's outputs are recognised as this export's own")
            XCTAssertNotNil(e.output)
        }
        XCTAssertEqual(try BatchFixture.modificationTimes(under: sharded), times)
    }

    /// --shard auto takes the Slurm array task's slice and names its manifest after it; without a scheduler it fails clearly.
    func testShardAutoFromSlurmEnvironment() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let input = try BatchFixture.inputs(in: dir, generated: 2, real: false)
        let out = dir.appendingPathComponent("out")
        let slurm = ["SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "2", "SLURM_ARRAY_TASK_COUNT": ""]
        let r = try convert(input, out, ["--shard", "auto"], environment: slurm)
        XCTAssertTrue([0, 1].contains(r.status), r.stderr)
        let m = try BatchFixture.manifest(out.appendingPathComponent("manifest.shard-1-of-2.json"))
        let expected = InputWalker.items(for: [input.path]).filter { Shard.slot(of: $0.relativePath, count: 2) == 1 }.map(\.relativePath)
        XCTAssertEqual(m.entries.map(\.input.relativePath), expected)

        var env: [String: String] = [:]
        for name in ["SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX", "AWS_BATCH_JOB_ARRAY_INDEX"] { env[name] = "" }
        let none = try convert(input, out, ["--shard", "auto"], environment: env)
        XCTAssertEqual(none.status, 2)
        XCTAssertTrue(none.stderr.contains("no scheduler index found"), none.stderr)
    }

    /// Kubernetes and AWS Batch give only an index: --shard-count supplies N. `manifest merge OUTDIR --shards N`
    /// takes that split's manifests from the folder and reports the missing ones.
    func testShardAutoFromKubernetesAndAWSBatchMergedByFolder() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let input = try BatchFixture.inputs(in: dir, generated: 3, real: false)
        let out = dir.appendingPathComponent("out")
        let clean = ["SLURM_ARRAY_TASK_ID": "", "JOB_COMPLETION_INDEX": "", "AWS_BATCH_JOB_ARRAY_INDEX": ""]
        let k8s = clean.merging(["JOB_COMPLETION_INDEX": "0"]) { $1 }
        let aws = clean.merging(["AWS_BATCH_JOB_ARRAY_INDEX": "1"]) { $1 }

        let noCount = try convert(input, out, ["--shard", "auto"], environment: k8s)
        XCTAssertEqual(noCount.status, 2)
        XCTAssertTrue(noCount.stderr.contains("--shard-count"), noCount.stderr)

        let first = try convert(input, out, ["--shard", "auto", "--shard-count", "2"], environment: k8s)
        XCTAssertTrue([0, 1].contains(first.status), first.stderr)
        XCTAssertEqual(try BatchFixture.manifest(out.appendingPathComponent("manifest.shard-0-of-2.json")).shard, Manifest.ShardInfo(index: 0, count: 2))

        let merged = dir.appendingPathComponent("merged.json")
        let partial = try CLIRunner.run(["manifest", "merge", out.path, "--shards", "2", "-o", merged.path])
        XCTAssertEqual(partial.status, 1, partial.stderr)
        XCTAssertTrue(partial.stderr.contains("shard 1/2 is missing"), partial.stderr)

        let second = try convert(input, out, ["--shard", "auto", "--shard-count", "2"], environment: aws)
        XCTAssertTrue([0, 1].contains(second.status), second.stderr)
        let whole = try CLIRunner.run(["manifest", "merge", out.path, "--shards", "2", "-o", merged.path])
        XCTAssertFalse(whole.stderr.contains("missing"), whole.stderr)
        let m = try BatchFixture.manifest(merged)
        XCTAssertEqual(m.entries.count, BatchFixture.inputCount(input))
        XCTAssertEqual(m.entries.map(\.input.index), Array(1...m.entries.count).map { Optional($0) })
        XCTAssertEqual(whole.status, m.summary.failed > 0 ? 1 : 0, whole.stderr)

        let wrong = try CLIRunner.run(["manifest", "merge", out.path, "--shards", "3", "-o", merged.path])
        XCTAssertEqual(wrong.status, 2)
        XCTAssertTrue(wrong.stderr.contains("no shard manifest"), wrong.stderr)
    }
}
