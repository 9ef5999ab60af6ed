import Foundation
import XCTest
@testable import LightWork

/// BatchRunner with real `lightwork worker` processes: recycling after K files and replacement after a crash.
final class WorkerPoolTests: XCTestCase {
    private static var launch: WorkerLaunch {
        var launch = WorkerLaunch(executable: CLIRunner.binary.path, environment: ["OMP_NUM_THREADS": "1", "SWIFT_BACKTRACE": "enable=no"])
        launch.limits.threads = 1
        return launch
    }

    private static func run(_ items: [InputItem], out: URL, force: Bool, reserve: WorkerReserve? = nil) -> (BatchRunner, Manifest) {
        var config = BatchConfiguration()
        config.isolation = .workers(launch)
        config.jobs = 1
        config.recycleAfter = 3
        config.force = force
        let runner = BatchRunner(converter: try! FileConverter(spec: ConvertSpec(outputDirectory: out)),
                                 manifestURL: out.appendingPathComponent("manifest.json"), configuration: config)
        runner.workerReserve = reserve
        let converter = runner.converter
        let jobs = items.map { PlannedJob(item: $0, action: .convert(output: converter.relativeOutputPath(for: $0))) }
        let manifest = runner.run(jobs, onEvent: { _ in }, onManifestError: { XCTFail("\($0)") })
        return (runner, manifest)
    }

    /// A worker started before planning (`WorkerReserve`) becomes the pool's first worker when it was started for the
    /// same launch (no second process is started for the file); started for another launch (another environment),
    /// it is told to exit while the pool starts its own, and reaped at the end of the run; closed without a start
    /// message, it exits 0.
    func testAReservedWorkerIsAdoptedOnlyForItsOwnLaunch() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let input = dir.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        try BatchFixture.makeDNG(input.appendingPathComponent("one.dng"), seed: 40)
        let items = InputWalker.items(for: [input.path])

        let same = WorkerReserve(launch: Self.launch)
        guard case .holding(let pid) = same.state else { return XCTFail("not started: \(same.state)") }
        let (adopting, m1) = Self.run(items, out: dir.appendingPathComponent("out-1"), force: false, reserve: same)
        XCTAssertEqual(m1.summary.converted, 1)
        XCTAssertEqual(same.state, .adopted(pid: pid))
        XCTAssertEqual(adopting.workersStarted, 1)
        XCTAssertEqual(kill(pid, 0), -1, "the adopted worker was reaped at the end of the run")

        var other = Self.launch
        other.environment["OMP_NUM_THREADS"] = "2"
        let mismatched = WorkerReserve(launch: other)
        guard case .holding(let otherPid) = mismatched.state else { return XCTFail("not started: \(mismatched.state)") }
        let (starting, m2) = Self.run(items, out: dir.appendingPathComponent("out-2"), force: false, reserve: mismatched)
        XCTAssertEqual(m2.summary.converted, 1)
        XCTAssertEqual(mismatched.state, .closed(pid: otherPid, .exited(0)))
        XCTAssertEqual(starting.workersStarted, 1)

        let unused = WorkerReserve(launch: Self.launch)
        guard case .holding(let unusedPid) = unused.state else { return XCTFail("not started: \(unused.state)") }
        unused.discard()
        XCTAssertEqual(unused.state, .closed(pid: unusedPid, .exited(0)))
    }

    func testWorkersAreRecycledAfterKFilesAndReplacedAfterACrash() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let input = dir.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        for i in 1...6 { try BatchFixture.makeDNG(input.appendingPathComponent("gen-\(i).dng"), seed: 20 + i) }
        let items = InputWalker.items(for: [input.path])
        let out = dir.appendingPathComponent("out")

        let (plain, m1) = Self.run(items, out: out, force: false)
        XCTAssertEqual(m1.summary.converted, 6)
        XCTAssertEqual(plain.workersStarted, 2, "six files, a fresh worker every three")
        XCTAssertGreaterThan(plain.peakWorkerRSSKiB, 10_000, "workers report their peak memory")
        XCTAssertGreaterThanOrEqual(plain.peakTotalWorkerRSSKiB, plain.peakWorkerRSSKiB)

        // The worker that opens gen-2.dng is held there (`InputGate`) and sent SIGSEGV from outside; the batch runs on
        // another thread meanwhile.
        let gate = try InputGate(input.appendingPathComponent("gen-2.dng"))
        defer { gate.release() }
        let finished = DispatchSemaphore(value: 0)
        let result = LockedBox<(BatchRunner, Manifest)?>(nil)
        DispatchQueue.global().async {
            let r = Self.run(items, out: out, force: true)
            result.withLock { $0 = r }
            finished.signal()
        }
        let worker = gate.heldWorker(seconds: 60)
        XCTAssertNotNil(worker, "no worker opened gen-2.dng")
        if let worker { XCTAssertEqual(kill(worker, SIGSEGV), 0) }
        gate.release()
        XCTAssertEqual(finished.wait(timeout: .now() + 120), .success, "the batch finished")
        let (crashing, m2) = try XCTUnwrap(result.withLock { $0 })
        XCTAssertEqual(crashing.workersStarted, 3, "files 1 and 2 (crash), then 3-5, then 6")
        XCTAssertEqual(m2.summary.converted, 5)
        XCTAssertEqual(m2.entries[1].reason, "decoder crashed: signal 11 (SIGSEGV)")
        XCTAssertEqual(m2.entries[1].failureKind, .workerCrashed)
        XCTAssertEqual(m2.entries.map(\.input.index), [1, 2, 3, 4, 5, 6])
    }

    /// A worker ended by SIGABRT (how a C++ bad_alloc ends one) under --worker-memory is recorded as a crash whose
    /// reason names the limit; without a limit the reason is the bare signal. The worker is a shell that reads its
    /// job and aborts itself, so no test hook is involved.
    func testAnAbortedWorkerIsACrashAndNamesTheMemoryLimit() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let input = dir.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        try BatchFixture.makeDNG(input.appendingPathComponent("gen-1.dng"), seed: 31)
        let item = try XCTUnwrap(InputWalker.items(for: [input.path]).first)
        for limit in [1 << 30, nil] as [Int?] {
            let out = dir.appendingPathComponent("out-\(limit ?? 0)")
            var config = BatchConfiguration()
            config.isolation = .workers(WorkerLaunch(executable: "/bin/sh", arguments: ["-c", "ulimit -c 0; read job; kill -ABRT $$"]))
            config.workerMemoryLimit = limit
            let runner = BatchRunner(converter: try! FileConverter(spec: ConvertSpec(outputDirectory: out)),
                                     manifestURL: out.appendingPathComponent("manifest.json"), configuration: config)
            let job = PlannedJob(item: item, action: .convert(output: runner.converter.relativeOutputPath(for: item)))
            let m = runner.run([job], onEvent: { _ in }, onManifestError: { XCTFail("\($0)") })
            let entry = try XCTUnwrap(m.entries.first)
            XCTAssertEqual(entry.status, .failed)
            XCTAssertEqual(entry.failureKind, .workerCrashed)
            XCTAssertEqual(entry.reason, "decoder crashed: signal 6 (SIGABRT)"
                           + (limit == nil ? "" : " (a file needing more than --worker-memory 1.0 GiB also ends this way)"))
        }
    }
}
