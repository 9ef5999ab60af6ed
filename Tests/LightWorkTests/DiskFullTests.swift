import Foundation
import XCTest
@testable import LightWork

/// A disk that fills up during a batch: the file being written fails cleanly (`disk full: …`, its temporary
/// removed, nothing truncated under a final name), the run stops as docs/batch.md says (exit 1, manifest
/// `interrupted`, valid and listing what was done), and the same command after space is freed completes the
/// batch, keeping the earlier outputs.
///
/// The disk is a real small tmpfs, mounted in a private mount namespace (`unshare --mount` as root, with
/// `--user --map-root-user` otherwise) so nothing outside the test sees it. Where no namespace can be made the
/// test fails: a file size limit is no substitute, as it fails the first output and leaves nothing to check.
final class DiskFullTests: XCTestCase {
    private let copies = 8

    private func inputs(_ dir: URL) throws -> URL {
        let input = dir.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        let png = SampleSceneTests.samples.appendingPathComponent("scene-srgb.png")
        for i in 0..<copies { try FileManager.default.copyItem(at: png, to: input.appendingPathComponent("frame-\(i).png")) }
        return input
    }

    /// Each output: 200×133 16-bit RGB TIFF, about 160 KB.
    private func convertArguments(_ input: String, _ out: String) -> [String] {
        ["convert", input, "-o", out, "--format", "tiff16", "--long-edge", "200", "--jobs", "1"]
    }

    /// Runs `script` (sh, with the arguments) in a private mount namespace; nil when none can be made here.
    private func inMountNamespace(_ script: String, _ args: [String]) throws -> Int32? {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else { return nil }
        let namespace = geteuid() == 0 ? ["--mount"] : ["--user", "--map-root-user", "--mount"]
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        p.arguments = namespace + ["--propagation", "private", "/bin/sh", "-c", script, "sh"] + args
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        // The script leaves a mark once its tmpfs is mounted; without it, no namespace or mount was possible.
        return FileManager.default.fileExists(atPath: args[1] + "/mounted") ? p.terminationStatus : nil
    }

    func testFullDiskFailsThatFileCleanlyStopsTheRunAndTheNextRunCompletes() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let input = try inputs(dir)
        let results = dir.appendingPathComponent("results")
        let mountPoint = dir.appendingPathComponent("disk")
        for d in [results, mountPoint] { try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true) }
        let bin = CLIRunner.binary.path
        let first = convertArguments(input.path, "$MNT/out").map { "\"\($0)\"" }.joined(separator: " ")
        // 680 KiB: three outputs, the manifest and the ledger (.lightwork/, ~110 KiB with its WAL) fit, the fourth output does not.
        let script = """
            MNT="$1"; RES="$2"; BIN="$3"
            mount -t tmpfs -o size=680k,mode=0755 tmpfs "$MNT" || exit 90
            touch "$RES/mounted"
            "$BIN" \(first) >"$RES/run1.out" 2>"$RES/run1.err"; echo $? >"$RES/run1.status"
            cp -a "$MNT/out" "$RES/out1"
            mount -o remount,size=16m "$MNT" || exit 91
            "$BIN" \(first) >"$RES/run2.out" 2>"$RES/run2.err"; echo $? >"$RES/run2.status"
            cp -a "$MNT/out" "$RES/out2"
            """
        // A per-file size limit (RLIMIT_FSIZE), the old fallback, cannot stand in: it fails the first output, so
        // nothing is converted and the checks below on kept outputs pass as 0 == 0. Without a real small disk, fail.
        guard let scriptStatus = try inMountNamespace(script, [mountPoint.path, results.path, bin]) else {
            return XCTFail("no mount namespace with a tmpfs could be made here (unshare --mount, or --user --map-root-user when not root): "
                + "the full-disk test needs one; run it as root or where user namespaces are allowed")
        }
        XCTAssertEqual(scriptStatus, 0, "the namespace script failed")
        let how = "a 680 KiB tmpfs"

        func status(_ n: Int) throws -> Int32 {
            Int32(try String(contentsOf: results.appendingPathComponent("run\(n).status"), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        }
        let err1 = (try? String(contentsOf: results.appendingPathComponent("run1.err"), encoding: .utf8)) ?? ""

        // Run 1: stopped on the full disk.
        let out1 = results.appendingPathComponent("out1")
        XCTAssertEqual(try status(1), 1, err1)
        XCTAssertTrue(err1.contains("disk full") && err1.contains("stopping"), err1)
        let m1 = try BatchFixture.manifest(out1.appendingPathComponent("manifest.json"))
        XCTAssertEqual(m1.interrupted, true)
        XCTAssertNil(m1.finishedAt)
        let failed = m1.entries.filter { $0.status == .failed }
        XCTAssertEqual(failed.count, 1, "only the file being written when the disk filled fails")
        XCTAssertTrue(failed.first?.reason?.hasPrefix("disk full") == true, failed.first?.reason ?? "")
        XCTAssertEqual(failed.first?.failureKind, .diskFull)
        XCTAssertLessThan(m1.entries.count, copies, "the run stopped instead of failing every remaining file")
        XCTAssertEqual(m1.summary.converted, 3, "three outputs fit the disk before it filled (else the kept-output checks are empty)")
        try BatchFixture.assertOutputsValid(m1, in: out1)
        let written1 = try BatchFixture.outputDigests(under: out1)
        XCTAssertEqual(Set(written1.keys), Set(m1.entries.compactMap { $0.output?.path }), "no output beyond those recorded (nothing truncated)")
        XCTAssertEqual(BatchFixture.temporaries(under: out1), [])

        // Run 2, with space: completes, the earlier outputs are kept as they were.
        let out2 = results.appendingPathComponent("out2")
        XCTAssertEqual(try status(2), 0, (try? String(contentsOf: results.appendingPathComponent("run2.err"), encoding: .utf8)) ?? "")
        let m2 = try BatchFixture.manifest(out2.appendingPathComponent("manifest.json"))
        XCTAssertEqual(m2.summary.total, copies)
        XCTAssertEqual(m2.summary.failed, 0)
        XCTAssertEqual(m2.summary.skipped, m1.summary.converted)
        try BatchFixture.assertOutputsValid(m2, in: out2)
        let written2 = try BatchFixture.outputDigests(under: out2)
        for (path, sha) in written1 { XCTAssertEqual(written2[path], sha, path) }
        print("disk full (\(how)): run 1 converted \(m1.summary.converted), failed \(failed.count) (disk full) and stopped with \(copies - m1.entries.count) not started; run 2 skipped \(m2.summary.skipped), converted \(m2.summary.converted), failed \(m2.summary.failed)")
    }
}
