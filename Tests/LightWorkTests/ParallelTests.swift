@testable import LightWork
import XCTest

/// How the engine hands bands to threads: every band exactly once, in runs that shrink towards the end.
final class ParallelTests: XCTestCase {
    func testRunClaimsCoverEveryIndexOnceInShrinkingRuns() {
        for (count, workers) in [(4000, 2), (334, 2), (7, 4), (1, 2), (100, 1)] {
            let claims = RunClaims(count: count, workers: workers, longestRun: 64)
            var runs: [Range<Int>] = []
            while let run = claims.next() { runs.append(run) }
            XCTAssertEqual(runs.flatMap { Array($0) }, Array(0..<count), "\(count) bands, \(workers) workers: each once, in order")
            XCTAssertTrue(runs.allSatisfy { (1...64).contains($0.count) }, "\(count): runs of 1…64")
            XCTAssertEqual(runs.last?.count, 1, "\(count): the last run is a single band")
            XCTAssertTrue(zip(runs, runs.dropFirst()).allSatisfy { $0.count >= $1.count }, "\(count): runs never grow")
        }
    }

    func testForEachVisitsEveryBandOnceOnAnyThreadCount() {
        for threads in [1, 2, 5] {
            let seen = UnsafeMutablePointer<Int>.allocate(capacity: 1000)
            defer { seen.deallocate() }
            seen.initialize(repeating: 0, count: 1000)
            let box = UncheckedSendable(seen)
            Parallel.forEach(1000, workers: threads) { _, i in box.value[i] += 1 }
            XCTAssertTrue((0..<1000).allSatisfy { seen[$0] == 1 }, "\(threads) threads")
        }
    }
}
