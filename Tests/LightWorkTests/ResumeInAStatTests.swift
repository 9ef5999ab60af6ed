import Foundation
import XCTest
@testable import LightWork

/// Resume in a stat (issue #21 item 3), through the real binary: a re-run trusts an input and output whose size,
/// mtime and inode are those recorded, without reading either; `--verify` reads and hashes them; a touched input is
/// read again, and converted again when its content changed.
final class ResumeInAStatTests: XCTestCase {
    /// Three generated DNGs whose mtimes lie an hour back (a fresh mtime is not trusted: `FileSignature.isSettled`).
    private func inputs(_ dir: URL) throws -> URL {
        let input = dir.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        for i in 1...3 {
            let url = input.appendingPathComponent("gen-\(i).dng")
            try BatchFixture.makeDNG(url, seed: 10 + i)
            try setMtime(url, seconds: Int(Date().timeIntervalSince1970) - 3600, nanos: 250_000_000)
        }
        return input
    }

    private func setMtime(_ url: URL, seconds: Int, nanos: Int) throws {
        var times = [timespec(tv_sec: seconds, tv_nsec: nanos), timespec(tv_sec: seconds, tv_nsec: nanos)]
        guard utimensat(AT_FDCWD, url.path, &times, 0) == 0 else { throw LightWorkTestError("utimensat \(url.path): \(String(cString: strerror(errno)))") }
    }

    private func entries(_ out: URL) throws -> [String: Manifest.Entry] {
        let m = try BatchFixture.manifest(out.appendingPathComponent("manifest.json"))
        return Dictionary(uniqueKeysWithValues: m.entries.map { ($0.input.relativePath, $0) })
    }

    func testRerunTrustsAStatVerifyReadsAndATouchedInputIsReadAgain() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let input = try inputs(dir)
        let out = dir.appendingPathComponent("out")
        let convert = ["convert", input.path, "-o", out.path, "--jobs", "2"]

        let first = try CLIRunner.run(convert)
        XCTAssertEqual(first.status, 0, first.stderr)
        let converted = try entries(out)
        for (rel, e) in converted {
            XCTAssertEqual(e.status, .converted, rel)
            let recorded = try XCTUnwrap(e.input.signature, "\(rel): the input's size, mtime and inode are recorded")
            XCTAssertEqual(recorded, FileSignature.of(input.appendingPathComponent(rel).path), rel)
            XCTAssertEqual(e.output?.signature, FileSignature.of(out.appendingPathComponent(e.output!.path).path), rel)
            XCTAssertNil(e.resumeCheck, rel)
        }

        // Nothing changed: every file is trusted on its stat.
        let second = try CLIRunner.run(convert)
        XCTAssertEqual(second.status, 0, second.stderr)
        for (rel, e) in try entries(out) {
            XCTAssertEqual(e.status, .skipped, rel)
            XCTAssertEqual(e.reason, ResumeIndex.skipReason, rel)
            XCTAssertEqual(e.resumeCheck, .stat, rel)
            XCTAssertEqual(e.output, converted[rel]?.output, "\(rel): the output record is carried over")
        }

        // gen-1's bytes change in place (same inode, same size) and its mtime is set back to the recorded one: only
        // reading it could tell. The default run trusts the stat, which shows it read nothing; --verify finds it.
        let gen1 = input.appendingPathComponent("gen-1.dng")
        let recorded = try XCTUnwrap(converted["gen-1.dng"]?.input.signature)
        let handle = try FileHandle(forUpdating: gen1)
        let middle = UInt64(recorded.size / 2)
        try handle.seek(toOffset: middle)
        let byte = try XCTUnwrap(handle.readData(ofLength: 1).first)
        try handle.seek(toOffset: middle)
        handle.write(Data([byte ^ 0x5A]))
        try handle.close()
        try setMtime(gen1, seconds: recorded.mtime, nanos: recorded.mtimeNanos)
        XCTAssertEqual(FileSignature.of(gen1.path), recorded, "the stat is as recorded")

        let trusting = try CLIRunner.run(convert)
        XCTAssertEqual(trusting.status, 0, trusting.stderr)
        XCTAssertEqual(try entries(out)["gen-1.dng"]?.resumeCheck, .stat, "trusted without reading")

        let verified = try CLIRunner.run(convert + ["--verify"])
        XCTAssertEqual(verified.status, 0, verified.stderr)
        let afterVerify = try entries(out)
        XCTAssertEqual(afterVerify["gen-1.dng"]?.status, .converted, "--verify reads it and finds other bytes")
        XCTAssertNotEqual(afterVerify["gen-1.dng"]?.input.sha256, converted["gen-1.dng"]?.input.sha256)
        XCTAssertNotEqual(afterVerify["gen-1.dng"]?.output?.sha256, converted["gen-1.dng"]?.output?.sha256, "converted again from the new bytes")
        for rel in ["gen-2.dng", "gen-3.dng"] {
            XCTAssertEqual(afterVerify[rel]?.status, .skipped, rel)
            XCTAssertEqual(afterVerify[rel]?.resumeCheck, .sha256, "\(rel): --verify hashed it")
        }

        // Touched: gen-2 gets a new mtime, same bytes (read again and found unchanged, not converted); gen-3 is
        // rewritten with other bytes and a new mtime (converted again). gen-1 is trusted again on its stat.
        try setMtime(input.appendingPathComponent("gen-2.dng"), seconds: Int(Date().timeIntervalSince1970) - 1800, nanos: 0)
        try BatchFixture.makeDNG(input.appendingPathComponent("gen-3.dng"), seed: 99)
        try setMtime(input.appendingPathComponent("gen-3.dng"), seconds: Int(Date().timeIntervalSince1970) - 1800, nanos: 0)
        let touched = try CLIRunner.run(convert)
        XCTAssertEqual(touched.status, 0, touched.stderr)
        let afterTouch = try entries(out)
        XCTAssertEqual(afterTouch["gen-1.dng"]?.resumeCheck, .stat)
        XCTAssertEqual(afterTouch["gen-2.dng"]?.status, .skipped)
        XCTAssertEqual(afterTouch["gen-2.dng"]?.resumeCheck, .sha256, "a touched input is read again")
        XCTAssertEqual(afterTouch["gen-2.dng"]?.input.signature, FileSignature.of(input.appendingPathComponent("gen-2.dng").path),
                       "its new stat is recorded, so the next run trusts it")
        XCTAssertEqual(afterTouch["gen-3.dng"]?.status, .converted, "a touched input with new bytes is converted again")
        XCTAssertNotEqual(afterTouch["gen-3.dng"]?.input.sha256, converted["gen-3.dng"]?.input.sha256)
        try BatchFixture.assertOutputsValid(BatchFixture.manifest(out.appendingPathComponent("manifest.json")), in: out)
    }

    /// An input modified less than two seconds before it was read gets no signature (a write in the same mtime step
    /// could go unseen), so the next run hashes it rather than trusting its stat.
    func testAFreshMtimeIsNotTrusted() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let input = dir.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        let url = input.appendingPathComponent("fresh.dng")
        try BatchFixture.makeDNG(url, seed: 5)
        try setMtime(url, seconds: Int(Date().timeIntervalSince1970) + 60, nanos: 0)   // in the future: never settled before the run
        let out = dir.appendingPathComponent("out")
        XCTAssertEqual(try CLIRunner.run(["convert", input.path, "-o", out.path]).status, 0)
        XCTAssertNil(try entries(out)["fresh.dng"]?.input.signature)
        XCTAssertEqual(try CLIRunner.run(["convert", input.path, "-o", out.path]).status, 0)
        XCTAssertEqual(try entries(out)["fresh.dng"]?.resumeCheck, .sha256)
        XCTAssertEqual(try CLIRunner.run(["convert", input.path, "-o", out.path, "--force", "--verify"]).status, 2, "--force and --verify exclude each other")
    }
}
