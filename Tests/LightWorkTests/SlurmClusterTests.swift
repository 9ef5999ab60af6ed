import Foundation
import XCTest
@testable import LightWork

/// A real single-node Slurm cluster (scripts/slurm-test-cluster.sh: munged, slurmctld, slurmd of its own) runs
/// contrib/slurm/submit.sh: a folder of real and generated files converted as a 4-task job array plus the merge
/// job (--dependency=afterok). The outputs must be byte-identical to a one-process run and the merged manifest
/// must describe the same files; then a task is killed mid-run by `scontrol requeue`, runs again, resumes, and
/// the result is checked again. Every daemon the test started is stopped, even when it fails.
final class SlurmClusterTests: XCTestCase {
    private static let shards = 4
    private static let tools = ["munged", "mungekey", "slurmctld", "slurmd", "sbatch", "scontrol", "squeue"]

    /// A command's exit status and what it printed (stdout and stderr together).
    private struct Run {
        let status: Int32
        let output: String
    }

    /// Runs `arguments` (looked up on PATH) with `environment` added; output goes through a file, so daemons a
    /// script starts cannot hold a pipe open.
    /// Submits the folder as a shard array and its merge job (contrib/slurm/submit.sh); their job ids, nil when
    /// the submission failed (recorded as a test failure).
    private func submitArray(_ submit: String, input: URL, out: URL, env: [String: String], logs: URL) throws -> (String, String)? {
        let submitted = try run([submit, String(Self.shards), input.path, out.path], environment: env, in: logs, logs: logs)
        let ids = submitted.output.split(whereSeparator: \.isWhitespace).map(String.init)
        XCTAssertEqual(submitted.status, 0, submitted.output)
        guard submitted.status == 0, ids.count >= 2 else { return nil }
        return (ids[ids.count - 2], ids[ids.count - 1])
    }

    private func run(_ arguments: [String], environment: [String: String] = [:], in folder: URL? = nil, logs: URL) throws -> Run {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        env["PATH"] = Self.path
        p.environment = env
        if let folder { p.currentDirectoryURL = folder }
        let log = logs.appendingPathComponent("cmd-\(UUID().uuidString.prefix(8)).txt")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        defer { try? handle.close() }
        p.standardOutput = handle
        p.standardError = handle
        p.standardInput = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        return Run(status: p.terminationStatus, output: (try? String(contentsOf: log, encoding: .utf8)) ?? "")
    }

    /// PATH with the system folders the Debian packages install into (daemons in sbin), whatever the runner gave.
    private static let path = ((ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
                               + ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"]).joined(separator: ":")

    private static func onPath(_ tool: String) -> Bool {
        path.split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(tool)") }
    }

    /// The input folder: real camera files when the shared samples are present, the sample scene, and synthetic
    /// DNGs of different content (names fixed so the split is known from their hashes).
    private func makeInputs(in dir: URL) throws -> URL {
        let input = dir.appendingPathComponent("in")
        let sub = input.appendingPathComponent("sub")
        try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
        if let raw = try? TestPaths.sharedSamples("raw") {
            for name in ["kodak-dc50.kdc", "lg-g4-h815-lossy-linear.dng", "canon-powershot-g2.crw"] {
                let from = raw.appendingPathComponent(name)
                if FileManager.default.fileExists(atPath: from.path) { try FileManager.default.copyItem(at: from, to: input.appendingPathComponent(name)) }
            }
        }
        try FileManager.default.copyItem(at: SampleSceneTests.samples.appendingPathComponent("scene.dng"), to: input.appendingPathComponent("scene.dng"))
        for i in 1...5 {
            try BatchFixture.makeDNG((i % 2 == 0 ? sub : input).appendingPathComponent("frame-\(i).dng"), seed: 20 + i, width: 480, height: 320)
        }
        return input
    }

    /// Slurm's view of a job: `scontrol show job` fields (JobState, Reason, ExitCode, Restarts…).
    private func job(_ id: String, _ env: [String: String], logs: URL) throws -> [String: String] {
        let r = try run(["scontrol", "-o", "show", "job", id], environment: env, logs: logs)
        guard r.status == 0 else { return [:] }
        var fields: [String: String] = [:]
        for word in r.output.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            let kv = word.split(separator: "=", maxSplits: 1)
            if kv.count == 2, fields[String(kv[0])] == nil { fields[String(kv[0])] = String(kv[1]) }
        }
        return fields
    }

    /// Waits for job `id` to end; fails (with the cluster's logs) when it cannot: a never-satisfied dependency
    /// or `seconds` passed.
    private func waitForEnd(_ id: String, _ env: [String: String], seconds: Double, logs: URL, cluster: URL) throws -> [String: String] {
        let ended: Set<String> = ["COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE", "PREEMPTED"]
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let fields = try job(id, env, logs: logs)
            if let state = fields["JobState"], ended.contains(state) { return fields }
            if fields["Reason"] == "DependencyNeverSatisfied" { break }
            usleep(200_000)
        }
        let state = try job(id, env, logs: logs)
        let queue = try run(["squeue", "-a", "-t", "all"], environment: env, logs: logs).output
        let ctld = (try? String(contentsOf: cluster.appendingPathComponent("log/slurmctld.log"), encoding: .utf8)) ?? ""
        XCTFail("job \(id) did not end: \(state["JobState"] ?? "?") (\(state["Reason"] ?? "?"))\n\(queue)\n" + ctld.suffix(3000))
        throw XCTSkip("cannot go on without job \(id)")
    }

    /// The manifest as it describes files: a file the re-run found complete ("skipped", already converted) is
    /// described as the run that converted it described it.
    private static func described(_ m: Manifest) -> Manifest {
        var m = BatchFixture.normalized(m)
        m.entries = m.entries.map { e in
            var e = e
            if e.status == .skipped, e.reason == ResumeIndex.skipReason { e.status = .converted; e.reason = nil }
            return e
        }
        m.updateSummary()
        return m
    }

    /// Processes whose environment holds every one of `entries` (`NAME=value`).
    private static func processes(withEnvironment entries: [String]) -> [Int32] {
        let pids = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { Int32($0) }
        return pids.filter { pid in
            guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/environ") else { return false }
            let env = Set(data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) })
            return entries.allSatisfy(env.contains)
        }
    }

    private func logText(_ folder: URL) -> String {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".out") }.sorted().map { name in
            "== \(name)\n" + ((try? String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)) ?? "")
        }.joined(separator: "\n")
    }

    func testFourTaskArrayWithMergeJobEqualsOneProcessRunAndResumesAfterARequeue() throws {
        let missing = Self.tools.filter { !Self.onPath($0) }
        guard missing.isEmpty else {
            throw XCTSkip("Slurm/munge not installed (\(missing.joined(separator: ", ")) not in \(Self.path)): make test installs them (scripts/ensure-deps.sh --test)")
        }
        guard getuid() == 0 else { throw XCTSkip("the test cluster needs root (slurmd starts jobs as their user)") }

        let dir = try TestPaths.temporaryDirectory(self)
        let logs = dir.appendingPathComponent("logs")
        let cluster = dir.appendingPathComponent("cluster")
        try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
        let script = TestPaths.repoRoot.appendingPathComponent("scripts/slurm-test-cluster.sh").path
        let submit = TestPaths.repoRoot.appendingPathComponent("contrib/slurm/submit.sh").path

        let input = try makeInputs(in: dir)
        let items = InputWalker.items(for: [input.path])
        let single = dir.appendingPathComponent("single")
        let reference = try CLIRunner.run(["convert", input.path, "-o", single.path, "--no-isolation"])
        XCTAssertEqual(reference.status, 0, reference.stderr)
        let singleManifest = try BatchFixture.manifest(single.appendingPathComponent("manifest.json"))
        let singleDigests = try BatchFixture.outputDigests(under: single)
        XCTAssertEqual(singleManifest.summary.converted, items.count)

        // Teardown blocks run last-registered first: the cluster stops before its folder is removed.
        addTeardownBlock { [self] in
            let stop = try? run([script, "stop", cluster.path], logs: logs)
            XCTAssertEqual(stop?.status, 0, "stopping the test cluster: \(stop?.output ?? "")")
        }
        let start = try run([script, "start", cluster.path], logs: logs)
        guard start.status == 0 else {
            XCTFail("the test cluster did not start: \(start.output)")
            return
        }
        // LIGHTWORK_TEST_CLUSTER marks the jobs' processes, so that the stop finds them by their environment.
        let env = ["SLURM_CONF": cluster.appendingPathComponent("slurm.conf").path, "LIGHTWORK_TEST_CLUSTER": cluster.path,
                   "LIGHTWORK": CLIRunner.binary.path]

        // 1. The whole folder as a 4-task array and the merge job.
        let out = dir.appendingPathComponent("out")
        guard let (array, merge) = try submitArray(submit, input: input, out: out, env: env, logs: logs) else { return }
        let merged = try waitForEnd(merge, env, seconds: 90, logs: logs, cluster: cluster)
        XCTAssertEqual(merged["JobState"], "COMPLETED", logText(logs))
        XCTAssertEqual(merged["ExitCode"], "0:0", logText(logs))
        for k in 0..<Self.shards {
            let task = try job("\(array)_\(k)", env, logs: logs)
            XCTAssertEqual(task["JobState"], "COMPLETED", "task \(k)")
            let shard = try BatchFixture.manifest(out.appendingPathComponent("manifest.shard-\(k)-of-\(Self.shards).json"))
            XCTAssertEqual(shard.shard, Manifest.ShardInfo(index: k, count: Self.shards))
            XCTAssertEqual(shard.entries.map(\.input.relativePath), items.map(\.relativePath).filter { Shard.slot(of: $0, count: Self.shards) == k })
        }
        XCTAssertEqual(try BatchFixture.outputDigests(under: out), singleDigests, "the 4 tasks wrote exactly the one-process run's bytes")
        let manifest = try BatchFixture.manifest(out.appendingPathComponent("manifest.json"))
        XCTAssertNil(manifest.shard)
        XCTAssertEqual(BatchFixture.normalized(manifest), BatchFixture.normalized(singleManifest),
                       "the merged manifest equals the one-process run's in every field but timings, host and times")
        XCTAssertEqual(BatchFixture.temporaries(under: out), [])

        // 2. Again into a fresh folder, with one task held on its last file and killed there by a requeue.
        let counts = (0..<Self.shards).map { k in items.filter { Shard.slot(of: $0.relativePath, count: Self.shards) == k }.count }
        let victim = counts.indices.max { counts[$0] < counts[$1] }!
        let victimItems = items.filter { Shard.slot(of: $0.relativePath, count: Self.shards) == victim }
        XCTAssertGreaterThanOrEqual(victimItems.count, 2, "\(counts)")
        let held = victimItems.last!.relativePath
        // The task's worker is held where it opens `held` (`InputGate`) until the requeue has killed it.
        let gate = try InputGate(input.appendingPathComponent(held))
        defer { gate.release() }
        let out2 = dir.appendingPathComponent("out2")
        guard let (array2, merge2) = try submitArray(submit, input: input, out: out2, env: env, logs: logs) else { return }
        let task = "\(array2)_\(victim)"
        // The victim task's processes (its batch parent and workers) carry these in their environment.
        let victimMarks = ["LIGHTWORK_TEST_CLUSTER=\(cluster.path)", "SLURM_ARRAY_JOB_ID=\(array2)", "SLURM_ARRAY_TASK_ID=\(victim)"]
        let shardURL = out2.appendingPathComponent("manifest.shard-\(victim)-of-\(Self.shards).json")
        // Held means: the files before `held` are written (the manifest, saved at most every tenth of the run's
        // time, may not list them all yet).
        let outputOf = Dictionary(uniqueKeysWithValues: singleManifest.entries.map { ($0.input.relativePath, $0.output?.path ?? "") })
        let earlier = victimItems.dropLast().map { out2.appendingPathComponent(outputOf[$0.relativePath] ?? "").path }
        let before = try XCTUnwrap(BatchFixture.waitForManifest(shardURL, entries: 1, seconds: 60), "task \(victim) started: \(logText(logs))")
        let worker = gate.heldWorker(seconds: 60)
        XCTAssertNotNil(worker, "task \(victim) reached \(held)")
        XCTAssertTrue(worker.map { Self.processes(withEnvironment: victimMarks).contains($0) } ?? false, "the held worker is task \(victim)'s")
        let holdDeadline = Date().addingTimeInterval(60)
        while Date() < holdDeadline, !earlier.allSatisfy({ FileManager.default.fileExists(atPath: $0) }) { usleep(50_000) }
        XCTAssertTrue(earlier.allSatisfy { FileManager.default.fileExists(atPath: $0) }, "task \(victim) wrote the files before \(held)")
        XCTAssertEqual(try job(task, env, logs: logs)["JobState"], "RUNNING")
        XCTAssertNil(before.finishedAt, "the task is mid-run")

        let requeue = try run(["scontrol", "requeue", task], environment: env, logs: logs)
        XCTAssertEqual(requeue.status, 0, requeue.output)
        // The killed attempt must be gone (SIGTERM, then SIGKILL after KillWait) before the held file is let through.
        var state = ""
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            state = try job(task, env, logs: logs)["JobState"] ?? ""
            if state == "PENDING" { break }
            usleep(100_000)
        }
        XCTAssertEqual(state, "PENDING", "requeued")
        while Date() < deadline, !Self.processes(withEnvironment: victimMarks).isEmpty { usleep(100_000) }
        XCTAssertEqual(Self.processes(withEnvironment: victimMarks), [], "the killed attempt's processes are gone")
        let afterKill = try BatchFixture.manifest(shardURL)
        XCTAssertNil(afterKill.finishedAt, "the killed attempt did not finish")
        XCTAssertFalse(afterKill.entries.contains { $0.input.relativePath == held })
        let recorded = Set(afterKill.entries.map(\.input.relativePath))
        XCTAssertFalse(recorded.isEmpty)
        gate.release()
        // A requeued job waits ~2 minutes before it may start again: let it start now.
        let now = try run(["scontrol", "update", "JobId=\(task)", "StartTime=now"], environment: env, logs: logs)
        XCTAssertEqual(now.status, 0, now.output)

        let merged2 = try waitForEnd(merge2, env, seconds: 90, logs: logs, cluster: cluster)
        XCTAssertEqual(merged2["JobState"], "COMPLETED", logText(logs))
        XCTAssertEqual(merged2["ExitCode"], "0:0", logText(logs))
        let rerun = try job(task, env, logs: logs)
        XCTAssertEqual(rerun["JobState"], "COMPLETED")
        XCTAssertEqual(rerun["Restarts"], "1", "the task ran a second time")
        let resumed = try BatchFixture.manifest(shardURL)
        XCTAssertNotNil(resumed.finishedAt)
        XCTAssertEqual(resumed.entries.map(\.input.relativePath), victimItems.map(\.relativePath))
        for e in resumed.entries {
            if recorded.contains(e.input.relativePath) {
                XCTAssertEqual(e.status, .skipped, "\(e.input.relativePath): recorded complete before the kill, not redone")
                XCTAssertEqual(e.reason, ResumeIndex.skipReason)
            } else {
                // The held file, and any the killed attempt wrote but had not recorded yet: converted (again).
                XCTAssertEqual(e.status, .converted, "\(e.input.relativePath): \(e.reason ?? "")")
            }
        }
        XCTAssertEqual(BatchFixture.temporaries(under: out2), [], "no partial file left")
        XCTAssertEqual(try BatchFixture.outputDigests(under: out2), singleDigests, "after the kill and requeue: still the one-process run's bytes")
        let manifest2 = try BatchFixture.manifest(out2.appendingPathComponent("manifest.json"))
        XCTAssertEqual(Self.described(manifest2), Self.described(singleManifest), "the merged manifest describes the same files")
        XCTAssertEqual(manifest2.summary.total, items.count)
        XCTAssertEqual(manifest2.summary.failed, 0)
    }
}
