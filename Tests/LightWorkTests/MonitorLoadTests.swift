import Foundation
import XCTest
@testable import LightWork

/// The monitor under load on loopback (`scripts/monitor-load.py`): 50 browsers' event streams while 200 files
/// convert. No file is dropped or done twice, every stream sees the last file, the watch's memory stays bounded.
/// (The rate with and without the server is compared by `make bench`, on a quiet machine.)
final class MonitorLoadTests: XCTestCase {
    func testFiftyEventStreamsWhile200FilesConvert() throws {
        let fixture = try WatchFixture(self)
        _ = try fixture.makeDNGs(200, prefix: "load")
        guard let python = MonitorFixture.tool("python3") else { throw MonitorTestError("python3 is needed (scripts/ensure-deps.sh --test)") }
        let work = fixture.dir.appendingPathComponent("load")
        let reportURL = fixture.dir.appendingPathComponent("load.json")
        let p = Process()
        p.executableURL = python
        p.arguments = [TestPaths.repoRoot.appendingPathComponent("scripts/monitor-load.py").path, CLIRunner.binary.path,
                       fixture.sources.path, work.path, reportURL.path, "--serve", "--clients", "50"]
        try p.run()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: reportURL)) as? [String: Any])
        XCTAssertEqual(report["done"] as? Int, 200, "\(report)")
        XCTAssertEqual(report["failed"] as? Int, 0)
        XCTAssertEqual(report["dropped"] as? Int, 0)
        XCTAssertEqual(report["exit"] as? Int, 0, "the watch stopped cleanly on SIGTERM with 50 streams open")
        let clients = try XCTUnwrap(report["clients"] as? [[String: Any]])
        XCTAssertEqual(clients.count, 50)
        XCTAssertEqual(Set(clients.map { $0["status"] as? Int }), [200], "every stream was accepted")
        XCTAssertEqual(Set(clients.map { $0["lastConverted"] as? Int }), [200], "every stream saw the last file done")
        let frames = clients.compactMap { $0["frames"] as? Int }
        XCTAssertGreaterThanOrEqual(frames.min() ?? 0, 200, "each stream had an event per file at least")
        // Bounded memory: the watch process (server threads, ring, status) grows by a few MiB at most
        // (measured: about 3 MiB over 45 MiB); 64 MiB would mean something grows with the files or streams.
        let before = try XCTUnwrap(report["watchRSSKiBBefore"] as? Int), peak = try XCTUnwrap(report["watchRSSKiBPeak"] as? Int)
        print("monitor load: 200 files in \(report["seconds"] ?? 0) s with 50 streams; watch RSS \(before) -> \(peak) KiB; frames per stream \(frames.min() ?? 0)…\(frames.max() ?? 0)")
        XCTAssertLessThan(peak - before, 64 * 1024)

        // Exactly once: the journal records each file done once, the manifest lists each once.
        let out = work.appendingPathComponent("out")
        let journal = try Data(contentsOf: out.appendingPathComponent("watch-journal.jsonl")).split(separator: 0x0A)
            .compactMap { try? JSONDecoder().decode(WatchRecord.self, from: Data($0)) }.filter { $0.op == .done }
        XCTAssertEqual(journal.count, 200)
        XCTAssertEqual(Set(journal.compactMap(\.path)).count, 200)
        let manifest = try BatchFixture.manifest(out.appendingPathComponent("manifest.json"))
        XCTAssertEqual(manifest.entries.filter { $0.status == .converted }.count, 200)
        // Previews are kept for the latest 200 files only, each with its facts.
        let previews = try FileManager.default.contentsOfDirectory(atPath: out.appendingPathComponent(WatchService.previewFolder).path)
        XCTAssertEqual(previews.filter { $0.hasSuffix(".jpg") }.count, 200)
        XCTAssertEqual(previews.filter { $0.hasSuffix(".json") }.count, 200)
        XCTAssertFalse(previews.contains { $0.hasPrefix(".") }, "no temporaries left")
    }
}
