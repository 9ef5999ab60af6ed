import Foundation
import XCTest
@testable import LightWork

/// The watch under repeated `kill -9` at random moments of a burst, restarted each time: in the end every
/// input has exactly one valid output; none lost, none duplicated, nothing half-written at any point.
final class WatchKillLoopTests: XCTestCase {
    func testRepeatedKillsDuringABurstLoseAndDuplicateNothing() throws {
        let f = try WatchFixture(self)
        // 40 DNGs of 1200×800: about five seconds of work for two workers here, so the kills land across it.
        let inputs = 40
        let sources = try f.makeDNGs(inputs, prefix: "k", seed: 900, width: 1200, height: 800)
        for (i, s) in sources.enumerated() { try f.drop(s, as: (i % 3 == 0 ? "card2/" : "") + s.lastPathComponent) }
        let expected = sources.enumerated().map { (i, s) in (i % 3 == 0 ? "card2/" : "") + s.deletingPathExtension().lastPathComponent + ".tif" }

        // Random moments, reproducible: 0–700 ms after each watch is up (replaying, sweeping, hashing, converting,
        // renaming, recording…). Should a loaded machine let no file finish between kills, the loop goes on with
        // longer moments until one did, so the kills are known to have landed in the middle of the work.
        var rng = SeededRandom(seed: 20_241_129)     // LightWork's SplitMix64
        var partialSeen: [String] = []
        var kills = 0
        while kills < 15 || (f.doneCounts().isEmpty && kills < 30) {
            let run = try f.start(["--jobs", "2", "--settle", "0.1"])
            XCTAssertTrue(WatchFixture.wait(seconds: 30) { (try? WatchStatus.read(f.statusURL).pid) == run.process.processIdentifier })
            usleep(UInt32(rng.next() % 700_001) + (kills >= 15 ? 1_000_000 : 0))
            run.send(SIGKILL)
            _ = run.finish(within: 10)
            kills += 1
            // Whatever sits under a final name now must be complete.
            for path in try f.outputs() where (try? ImageFileReader.read(f.out.appendingPathComponent(path))) == nil {
                partialSeen.append(path)
            }
        }
        let convertedBetweenKills = f.doneCounts().count
        let final = try CLIRunner.run(["watch", f.inbox.path, "-o", f.out.path, "--jobs", "2", "--settle", "0.1", "--once", "--heartbeat", "0"])
        XCTAssertEqual(final.status, 0, final.stderr)

        let outputs = try f.outputs()
        let m = try XCTUnwrap(f.manifest())
        let done = f.doneCounts()
        let lost = expected.filter { !outputs.contains($0) }
        let duplicated = outputs.filter { !expected.contains($0) } + done.filter { $0.value > 1 }.map(\.key)
        print("watch kill loop: inputs \(inputs), outputs \(outputs.count), kills \(kills), lost \(lost.count), duplicated \(duplicated.count), "
              + "partial outputs seen \(partialSeen.count), converted between kills \(convertedBetweenKills), by the final run \(inputs - convertedBetweenKills)")
        XCTAssertGreaterThan(convertedBetweenKills, 0, "the kills landed while files were being converted")
        XCTAssertEqual(partialSeen, [], "no half-written file under a final name after any kill")
        XCTAssertEqual(lost, [])
        XCTAssertEqual(duplicated, [])
        XCTAssertEqual(outputs.sorted(), expected.sorted())
        XCTAssertEqual(m.entries.count, inputs)
        XCTAssertEqual(m.summary.converted, inputs)
        XCTAssertEqual(done.count, inputs)
        try BatchFixture.assertOutputsValid(m, in: f.out)
        XCTAssertEqual(BatchFixture.temporaries(under: f.out), [])
    }
}
