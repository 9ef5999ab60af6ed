import Foundation
import XCTest
@testable import LightWork

/// `kill -9` of a whole `lightwork convert` process group at random moments (seeded), twenty times, each
/// followed by a restart of the same command: after every kill, each file under a final name is a complete,
/// valid image and every output the manifest on disk records is there with its SHA-256; at the end each input
/// has exactly one output, none is duplicated, no temporary is left and the manifest is complete.
final class KillLoopTests: XCTestCase {
    /// A `lightwork` process started in its own process group (so the group can be killed at once).
    private struct GroupProcess {
        let pid: pid_t

        init(_ args: [String], log: URL) throws {
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 1, log.path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
            var attributes = posix_spawnattr_t()
            posix_spawnattr_init(&attributes)
            defer { posix_spawnattr_destroy(&attributes) }
            posix_spawnattr_setpgroup(&attributes, 0)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
            let argv = ([CLIRunner.binary.path] + args).map { strdup($0) } + [nil]
            defer { argv.forEach { free($0) } }
            var env = ProcessInfo.processInfo.environment
            env["SWIFT_BACKTRACE"] = "enable=no"
            let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer { envp.forEach { free($0) } }
            var child: pid_t = 0
            let rc = posix_spawn(&child, CLIRunner.binary.path, &actions, &attributes, argv, envp)
            guard rc == 0 else { throw LightWorkError.workerCrashed("posix_spawn: \(rc)") }
            pid = child
        }

        /// Exit status (128 + signal when killed), waiting at most `seconds` before killing the group.
        func wait(seconds: Double) -> Int32 {
            let deadline = Date().addingTimeInterval(seconds)
            var status: Int32 = 0
            while true {
                let r = waitpid(pid, &status, WNOHANG)
                if r == pid { break }
                if r < 0, errno == ECHILD { return 0 }   // already reaped (by a caller's WNOHANG check)
                if Date() > deadline { killGroup(); _ = waitpid(pid, &status, 0); break }
                usleep(10_000)
            }
            let low = status & 0x7f
            return low == 0 ? (status >> 8) & 0xff : 128 + low
        }

        /// SIGKILL to the whole group (the parent; its workers, in groups of their own, die with it).
        func killGroup() { _ = kill(-pid, SIGKILL) }
    }

    func testTwentyRandomKillsLoseNothingAndDuplicateNothing() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let input = dir.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input.appendingPathComponent("sub"), withIntermediateDirectories: true)
        // 20 inputs: 6 small DNGs and 14 copies of the sample scene PNG (1536×1024) under their own names.
        for i in 0..<6 { try BatchFixture.makeDNG(input.appendingPathComponent("dng-\(i).dng"), seed: 21 + i, width: 480, height: 320) }
        let png = SampleSceneTests.samples.appendingPathComponent("scene-srgb.png")
        for i in 0..<14 {
            try FileManager.default.copyItem(at: png, to: input.appendingPathComponent(i % 2 == 0 ? "png-\(i).png" : "sub/png-\(i).png"))
        }
        let out = dir.appendingPathComponent("out")
        let manifestURL = out.appendingPathComponent("manifest.json")
        let args = ["convert", input.path, "-o", out.path, "--format", "jpeg", "--jobs", "2", "--demosaic", "linear", "--timeout", "60"]
        let log = dir.appendingPathComponent("log.txt")

        var rng = SeededRandom(seed: 20251130)
        var kills = 0, killedAfterEnd = 0
        for round in 0..<20 {
            // Every other run re-converts everything (--force), so that kills keep landing mid-work once the batch
            // has completed on a fast machine; the runs between resume after them.
            let p = try GroupProcess(round % 2 == 0 ? args + ["--force"] : args, log: log)
            let delay = 0.02 + Double(rng.next() % 1_000) / 1_000 * 0.5   // 0.02 … 0.52 s
            usleep(UInt32(delay * 1e6))
            var status: Int32 = 0
            if waitpid(p.pid, &status, WNOHANG) == 0 {
                p.killGroup()
                kills += 1
            } else {
                killedAfterEnd += 1
            }
            _ = p.wait(seconds: 60)
            try checkInvariants(out: out, manifestURL: manifestURL, context: "after kill \(round + 1)")
        }
        // The last run is left alone and completes the batch.
        let final = try GroupProcess(args, log: log)
        XCTAssertEqual(final.wait(seconds: 300), 0, (try? String(contentsOf: log, encoding: .utf8)) ?? "")
        try checkInvariants(out: out, manifestURL: manifestURL, context: "final run")

        let m = try BatchFixture.manifest(manifestURL)
        XCTAssertNil(m.interrupted)
        XCTAssertEqual(m.entries.count, 20)
        XCTAssertEqual(m.summary.failed, 0, m.entries.compactMap(\.reason).joined(separator: "\n"))
        let outputs = try BatchFixture.outputDigests(under: out)
        let recorded = Set(m.entries.compactMap { $0.output?.path })
        let lost = m.entries.filter { $0.output.map { outputs[$0.path] == nil } ?? true }.count
        let duplicated = outputs.count - recorded.count
        XCTAssertEqual(recorded.count, 20, "one output per input")
        XCTAssertEqual(Set(outputs.keys), recorded, "no output the manifest does not record")
        XCTAssertEqual(BatchFixture.temporaries(under: out), [])
        print(String(format: "kill loop: %d runs, %d killed with -9 (%d finished before their kill), then one complete run: %d inputs, %d outputs, %d lost, %d duplicated, %d temporaries left",
                     21, kills, killedAfterEnd, m.entries.count, outputs.count, lost, duplicated, BatchFixture.temporaries(under: out).count))
        XCTAssertEqual(lost, 0)
        XCTAssertEqual(duplicated, 0)
        XCTAssertGreaterThanOrEqual(kills, 8, "most kills should land while the batch runs")
    }

    /// What must hold at any moment after a kill: every image under a final name decodes completely; the manifest
    /// on disk (if any yet) is valid and every output it records is present with its recorded SHA-256.
    private func checkInvariants(out: URL, manifestURL: URL, context: String) throws {
        // Final names only: a temporary a kill left behind is swept by the next run (checked at the end).
        let outputs = try BatchFixture.outputDigests(under: out).filter { !($0.key as NSString).lastPathComponent.hasPrefix(".") }
        for (path, _) in outputs {
            XCTAssertNoThrow(try ImageFileReader.read(out.appendingPathComponent(path)), "\(context): \(path) is not a complete image")
        }
        guard FileManager.default.fileExists(atPath: manifestURL.path) else { return }
        let m = try XCTUnwrap(try? BatchFixture.manifest(manifestURL), "\(context): the manifest is not valid")
        for e in m.entries where e.status != .failed {
            let o = try XCTUnwrap(e.output, context)
            XCTAssertEqual(outputs[o.path], o.sha256, "\(context): \(o.path) recorded but missing or different")
        }
    }
}

