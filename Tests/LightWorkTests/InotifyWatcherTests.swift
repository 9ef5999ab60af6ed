import Foundation
import XCTest
@testable import LightWork

/// The inotify watcher over a real tree: bursts (kernel queue overflow → rescan), folders created later,
/// renames into place, ignored names, and no descriptor growth.
final class InotifyWatcherTests: XCTestCase {
    private func openDescriptors() -> Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1 }

    /// Collects what the watcher reports until `done` holds (rescanning when events were lost), 60 s at most.
    private func drain(_ w: InotifyWatcher, until done: (Set<String>) -> Bool) -> (files: Set<String>, rescans: Int) {
        var seen = Set<String>()
        var rescans = 0
        let deadline = Date().addingTimeInterval(60)
        while !done(seen) && Date() < deadline {
            var fds = [pollfd(fd: w.fd, events: Int16(POLLIN), revents: 0)]
            _ = poll(&fds, 1, 100)
            for change in w.read() {
                switch change {
                case .file(let rel): seen.insert(rel)
                case .rescan:
                    rescans += 1
                    seen.formUnion(w.scanner.scan().files)
                default: break
                }
            }
        }
        return (seen, rescans)
    }

    /// A burst of over 5,000 files written before any event is read — more events than the kernel queues
    /// (3 per file against fs.inotify.max_queued_events), so the queue overflows — then a folder made and
    /// filled while events are being lost: every file is reported (through the rescan), the lost folder is
    /// watched again (a file written into it afterwards is reported), and the watcher holds one descriptor.
    func testBurstPastTheKernelQueueIsSeenCompletelyWithBoundedDescriptors() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let queued = Int((try? String(contentsOfFile: "/proc/sys/fs/inotify/max_queued_events", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 16384
        let count = min(20_000, max(5000, queued / 3 + 1000))
        let before = openDescriptors()
        let w = try InotifyWatcher(scanner: InboxScanner(root: dir, rules: WatchNameRules()))
        XCTAssertEqual(openDescriptors(), before + 1)
        var expected = Set<String>()
        func write(_ rel: String) {
            let fd = open(dir.appendingPathComponent(rel).path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            XCTAssertGreaterThanOrEqual(fd, 0, rel)
            var bytes = [UInt8](repeating: 0xAB, count: 64)
            XCTAssertEqual(Glibc.write(fd, &bytes, bytes.count), 64)
            close(fd)
            expected.insert(rel)
        }
        for i in 0..<count { write(String(format: "burst-%05d.jpg", i)) }
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("later/deeper"), withIntermediateDirectories: true)
        for i in 0..<50 { write("later/deeper/f\(i).png") }
        let result = drain(w) { expected.isSubset(of: $0) }
        XCTAssertEqual(expected.subtracting(result.files), [], "every file reported")
        XCTAssertEqual(result.files.subtracting(expected), [], "nothing else reported")
        if count * 3 > queued { XCTAssertGreaterThanOrEqual(result.rescans, 1, "the kernel queue overflowed") }
        XCTAssertEqual(w.folderCount, 3, "the folders made while events were lost are watched")
        try Data([1, 2, 3]).write(to: dir.appendingPathComponent("later/deeper/after.png"))
        var changes: [InboxChange] = []
        XCTAssertTrue(WatchFixture.wait(seconds: 20) { changes += w.read(); return changes.contains(.file("later/deeper/after.png")) })
        XCTAssertEqual(openDescriptors(), before + 1, "no descriptor per file or folder")
        print("inotify burst: \(count + 50) files, kernel queue \(queued) events, \(result.rescans) rescan(s) after it overflowed")
    }

    /// Only final names: a `.part` renamed into place is reported under its final name only; temporary,
    /// hidden and non-image names never; a removed file is reported removed.
    func testRenamesIntoPlaceAndIgnoredNames() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let w = try InotifyWatcher(scanner: InboxScanner(root: dir, rules: WatchNameRules()))
        let payload = Data(repeating: 1, count: 16)
        for name in ["a.dng.part", "b.jpg.crdownload", ".c.png", "d.nef~", "e.tmp", "notes.txt"] {
            try payload.write(to: dir.appendingPathComponent(name))
        }
        try FileManager.default.moveItem(at: dir.appendingPathComponent("a.dng.part"), to: dir.appendingPathComponent("a.dng"))
        try payload.write(to: dir.appendingPathComponent("z.png"))
        var changes: [InboxChange] = []
        XCTAssertTrue(WatchFixture.wait(seconds: 20) {
            changes += w.read()
            return changes.contains(.file("z.png"))
        })
        XCTAssertEqual(changes.filter { if case .file = $0 { return true }; return false }, [.file("a.dng"), .file("z.png")])
        try FileManager.default.removeItem(at: dir.appendingPathComponent("z.png"))
        XCTAssertTrue(WatchFixture.wait(seconds: 20) { w.read().contains(.removed("z.png")) })
    }

    /// Folders the watch writes into (output, archive, failed) are never watched even inside the inbox.
    func testExcludedFoldersAreNotWatched() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let out = dir.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let w = try InotifyWatcher(scanner: InboxScanner(root: dir, rules: WatchNameRules(excludedFolders: [out])))
        XCTAssertEqual(w.folderCount, 1)
        try Data([1]).write(to: out.appendingPathComponent("converted.jpg"))
        try Data([1]).write(to: dir.appendingPathComponent("input.jpg"))
        var changes: [InboxChange] = []
        XCTAssertTrue(WatchFixture.wait(seconds: 20) { changes += w.read(); return changes.contains(.file("input.jpg")) })
        XCTAssertFalse(changes.contains(.file("out/converted.jpg")))
        XCTAssertEqual(InboxScanner(root: dir, rules: WatchNameRules(excludedFolders: [out])).scan().files, ["input.jpg"])
    }
}
