import Foundation
import XCTest
@testable import LightWork

/// A worker that dies in the middle of a decode, not as it opens its input (where `InputGate` holds one): the test watches
/// the worker of a running batch from outside, through /proc, and signals it (SIGSEGV, and SIGKILL as the
/// out-of-memory killer would) once it is decoding the one large DNG: it has read the whole 48 MB file (`rchar` in
/// /proc/PID/io; the decoder reads its input first), its resident memory has since grown by 24 MB (LibRaw's 48 MB
/// raw buffer filling), and no temporary output for that file exists yet. Measured without the kill: the
/// temporary output appears over a second after the read. No hook in the shipped binary is involved.
final class MidDecodeCrashTests: XCTestCase {
    /// Bytes the process has read through read(2) and the like (`rchar`); nil once it is gone.
    private func bytesRead(_ pid: pid_t) -> Int? {
        guard let io = try? String(contentsOfFile: "/proc/\(pid)/io", encoding: .utf8) else { return nil }
        return io.split(separator: "\n").first { $0.hasPrefix("rchar:") }.flatMap { Int($0.dropFirst(6).trimmingCharacters(in: .whitespaces)) }
    }

    /// Resident set size in bytes and CPU time (user + system) in clock ticks; nil once the process is gone.
    private func usage(_ pid: pid_t) -> (rss: Int, cpuTicks: Int)? {
        guard let statm = try? String(contentsOfFile: "/proc/\(pid)/statm", encoding: .utf8),
              let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let pages = statm.split(separator: " ").dropFirst().first.flatMap({ Int($0) }),
              let close = stat.lastIndex(of: ")") else { return nil }
        // Fields after the command's closing parenthesis start at field 3 (state); utime and stime are fields 14, 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
        return (pages * Int(sysconf(Int32(_SC_PAGESIZE))), user + system)
    }

    func testWorkerSegfaultingMidDecodeFailsThatFileOnlyAndLeavesNoOutput() throws {
        try crashMidDecode(SIGSEGV, reason: "decoder crashed: signal 11 (SIGSEGV)")
    }

    /// SIGKILL, as the out-of-memory killer sends it: the reason says so.
    func testWorkerKilledMidDecodeFailsThatFileOnlyAndLeavesNoOutput() throws {
        try crashMidDecode(SIGKILL, reason: "decoder crashed: signal 9 (SIGKILL): killed from outside, often by the out-of-memory killer (try a lower --jobs or --max-memory)")
    }

    private func crashMidDecode(_ signal: Int32, reason: String) throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let input = dir.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        // The large file sorts first, so the first worker decodes it from an idle start; four small files follow.
        let large = "a-large.dng"
        try BatchFixture.makeDNG(input.appendingPathComponent(large), seed: 5, width: 6000, height: 4000)
        for i in 0..<4 { try BatchFixture.makeDNG(input.appendingPathComponent("b-small-\(i).dng"), seed: 31 + i) }
        let out = dir.appendingPathComponent("out")

        let p = Process()
        p.executableURL = CLIRunner.binary
        p.arguments = ["convert", input.path, "-o", out.path, "--format", "tiff16", "--jobs", "1"]
        var env = ProcessInfo.processInfo.environment
        env["SWIFT_BACKTRACE"] = "enable=no"
        p.environment = env
        let errURL = dir.appendingPathComponent("stderr.txt")
        FileManager.default.createFile(atPath: errURL.path, contents: nil)
        p.standardError = try FileHandle(forWritingTo: errURL)
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }

        // Find the worker, wait until it has read the large file, then until LibRaw's buffer grows its memory.
        let size = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: input.appendingPathComponent(large).path)[.size] as? Int)
        let deadline = Date().addingTimeInterval(120)
        var worker: pid_t = 0
        var afterRead: (rss: Int, cpuTicks: Int)?
        var atKill: (rss: Int, cpuTicks: Int)?
        let grown = 24 << 20
        let start = Date()
        var readAfter = 0.0, killedAfter = 0.0
        while Date() < deadline, p.isRunning {
            if worker == 0, let w = ProcessTree.descendants(of: p.processIdentifier).first(where: ProcessTree.isWorker) { worker = w }
            if worker != 0, afterRead == nil, let n = bytesRead(worker), n >= size { afterRead = usage(worker); readAfter = Date().timeIntervalSince(start) }
            if let afterRead, let u = usage(worker), u.rss > afterRead.rss + grown {
                // Not yet encoding: no temporary of the large file's output exists (AtomicFile names `.<name>.lwtmp-…`).
                XCTAssertFalse(BatchFixture.temporaries(under: out).contains { $0.contains("a-large") }, "the worker had reached the encode")
                kill(worker, signal)
                atKill = u
                killedAfter = Date().timeIntervalSince(start)
                break
            }
            usleep(1_000)
        }
        let killed = try XCTUnwrap(atKill, "the worker never read \(large) and grew by \(grown >> 20) MB")
        p.waitUntilExit()
        let stderr = (try? String(contentsOf: errURL, encoding: .utf8)) ?? ""

        XCTAssertEqual(p.terminationStatus, 1, "a failed file makes the batch exit 1: \(stderr)")
        let m = try BatchFixture.manifest(out.appendingPathComponent("manifest.json"))
        let crashed = try XCTUnwrap(m.entries.first { $0.input.relativePath == large })
        XCTAssertEqual(crashed.status, .failed)
        XCTAssertEqual(crashed.reason, reason)
        XCTAssertEqual(crashed.failureKind, .workerCrashed)
        XCTAssertTrue(stderr.contains(large) && stderr.contains(reason), stderr)
        XCTAssertEqual(m.summary.failed, 1)
        XCTAssertEqual(m.summary.converted, 4, "every small file converted in a new worker")
        try BatchFixture.assertOutputsValid(m, in: out)
        XCTAssertEqual(BatchFixture.temporaries(under: out), [], "the dead worker's temporary was swept")
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.appendingPathComponent("a-large.tif").path), "no output under the final name")
        let tick = Double(sysconf(Int32(_SC_CLK_TCK)))
        print(String(format: "mid-decode crash: worker %d read the %.0f MB file %.2f s into the batch (RSS %.0f MB) and was sent signal %d %.3f s later at RSS %.0f MB, %.2f s of CPU in; %@ failed (%@), %d converted",
                     worker, Double(size) / 1e6, readAfter, Double(afterRead?.rss ?? 0) / 1e6, signal, killedAfter - readAfter, Double(killed.rss) / 1e6, Double(killed.cpuTicks) / tick,
                     large, crashed.reason ?? "", m.summary.converted))
    }
}
