import Foundation
import XCTest
@testable import LightWork

/// When a hot-folder file counts as finished: unchanged size and mtime for the settling time after its last
/// change, and a whole structure (or no change for the give-up time).
final class FileStabilityTests: XCTestCase {
    private func signature(size: Int, mtime: Int) -> FileSignature {
        FileSignature(size: size, mtime: mtime, mtimeNanos: 0, inode: 7, device: 1)
    }

    /// A chunked upload: every new size restarts the wait; the file is handed on once, settle seconds after the last chunk.
    func testEachChunkRestartsTheWaitAndTheFileIsReadyOnceAfterTheLast() {
        var t = FileStability(settle: 0.5, giveUp: 10)
        var disk = ["a.dng": signature(size: 100, mtime: 1)]
        let look = { (p: String) in disk[p] }
        t.observe("a.dng", signature: disk["a.dng"], now: 0)
        for (time, size) in [(0.3, 200), (0.6, 300), (0.9, 400)] {
            XCTAssertEqual(t.collect(now: time, look: look, complete: { _ in true }), [], "not ready at \(time)")
            disk["a.dng"] = signature(size: size, mtime: Int(time * 10))
            t.observe("a.dng", signature: disk["a.dng"], now: time)
        }
        XCTAssertEqual(t.collect(now: 1.3, look: look, complete: { _ in true }), [], "0.4 s after the last chunk")
        let ready = t.collect(now: 1.4, look: look, complete: { _ in true })
        XCTAssertEqual(ready, [FileStability.Ready(relativePath: "a.dng", signature: signature(size: 400, mtime: 9), incomplete: false)])
        XCTAssertEqual(t.collect(now: 5, look: look, complete: { _ in true }), [], "handed on once")
        XCTAssertEqual(t.count, 0)
    }

    /// A change found only by the look at due time (no event came) also restarts the wait.
    func testAChangeSeenOnlyAtTheDueLookRestartsTheWait() {
        var t = FileStability(settle: 1, giveUp: 10)
        var disk = ["b.jpg": signature(size: 10, mtime: 1)]
        t.observe("b.jpg", signature: disk["b.jpg"], now: 0)
        disk["b.jpg"] = signature(size: 20, mtime: 2)
        XCTAssertEqual(t.collect(now: 1, look: { disk[$0] }, complete: { _ in true }), [])
        XCTAssertEqual(t.collect(now: 1.9, look: { disk[$0] }, complete: { _ in true }), [])
        XCTAssertEqual(t.collect(now: 2, look: { disk[$0] }, complete: { _ in true }).map(\.relativePath), ["b.jpg"])
    }

    /// Repeated looks that find the same signature (a polling watcher) do not postpone a quiet file.
    func testUnchangedLooksDoNotPostpone() {
        var t = FileStability(settle: 1, giveUp: 10)
        let s = signature(size: 10, mtime: 1)
        for time in stride(from: 0.0, to: 1.0, by: 0.25) { t.observe("c.png", signature: s, now: time) }
        XCTAssertEqual(t.collect(now: 1, look: { _ in s }, complete: { _ in true }).map(\.relativePath), ["c.png"])
    }

    /// A structurally incomplete file waits; with no change for the give-up time it is handed on, marked incomplete.
    func testIncompleteFileWaitsUntilGiveUp() {
        var t = FileStability(settle: 0.5, giveUp: 5)
        let s = signature(size: 10, mtime: 1)
        t.observe("d.dng", signature: s, now: 0)
        XCTAssertEqual(t.collect(now: 1, look: { _ in s }, complete: { _ in false }), [])
        XCTAssertEqual(t.collect(now: 4.9, look: { _ in s }, complete: { _ in false }), [])
        XCTAssertTrue(t.isTracking("d.dng"))
        XCTAssertEqual(t.collect(now: 5, look: { _ in s }, complete: { _ in false }),
                       [FileStability.Ready(relativePath: "d.dng", signature: s, incomplete: true)])
    }

    /// A file that disappears stops being tracked; at most `limit` files are handed on, oldest change first.
    func testVanishedFilesAreDroppedAndReadyFilesComeOldestFirstUpToTheLimit() {
        var t = FileStability(settle: 0.1, giveUp: 1)
        let s = signature(size: 1, mtime: 1)
        t.observe("gone.dng", signature: s, now: 0)
        for (i, name) in ["z.dng", "y.dng", "x.dng"].enumerated() { t.observe(name, signature: s, now: Double(i + 1) * 0.01) }
        let first = t.collect(now: 1, limit: 2, look: { $0 == "gone.dng" ? nil : s }, complete: { _ in true })
        XCTAssertEqual(first.map(\.relativePath), ["z.dng", "y.dng"])
        XCTAssertFalse(t.isTracking("gone.dng"))
        XCTAssertEqual(t.collect(now: 1, look: { _ in s }, complete: { _ in true }).map(\.relativePath), ["x.dng"])
        t.observe("w.dng", signature: nil, now: 2)
        XCTAssertEqual(t.count, 0, "observing a missing file tracks nothing")
    }
}
