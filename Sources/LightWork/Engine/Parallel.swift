import Dispatch
import Foundation

/// How the engine spreads work: bands of rows over a number of threads the caller gives (an
/// `EngineConfiguration`'s). The partition never changes a pixel's value (every kernel is per pixel), so
/// output is identical for any thread count.
public enum Parallel {
    /// Runs `body(band)` for `count` bands on up to `engine.threads` threads.
    public static func forEach(_ count: Int, on engine: EngineConfiguration, _ body: (Int) -> Void) {
        forEach(count, workers: engine.threads) { _, i in body(i) }
    }

    /// Runs `body(worker, band)` for `count` bands on up to `workers` threads; `worker` (0..<workers)
    /// lets a caller give each thread its own scratch memory.
    public static func forEach(_ count: Int, workers: Int, _ body: (Int, Int) -> Void) {
        let n = max(1, min(workers, count))
        if n == 1 {
            for i in 0..<count { body(0, i) }
            return
        }
        // Runs of consecutive bands per claim, so each thread's per-row memo tables (grain lattice rows,
        // vignette terms, interpolated guide rows) serve neighbouring rows. Runs shrink towards the end
        // (a quarter of each thread's share of what is left, at most 64), so the threads finish together.
        withoutActuallyEscaping(body) { body in
            let box = UncheckedSendable(body)
            let claims = RunClaims(count: count, workers: n, longestRun: 64)
            DispatchQueue.concurrentPerform(iterations: n) { worker in
                while let run = claims.next() {
                    for i in run { box.value(worker, i) }
                }
            }
        }
    }
}

/// Hands a non-Sendable value (a raw pointer, a closure over one) to threads the engine coordinates.
public struct UncheckedSendable<T>: @unchecked Sendable {
    public let value: T
    public init(_ value: T) { self.value = value }
}

/// Hands out consecutive runs of `0..<count` to workers under a lock: each run is a quarter of one worker's
/// share of what is left, between 1 and `longestRun` items (guided self-scheduling).
final class RunClaims: @unchecked Sendable {
    private var claimed = 0
    private let count: Int, workers: Int, longestRun: Int
    private let lock = NSLock()

    init(count: Int, workers: Int, longestRun: Int) {
        self.count = count
        self.workers = workers
        self.longestRun = longestRun
    }

    func next() -> Range<Int>? {
        lock.lock()
        defer { lock.unlock() }
        let left = count - claimed
        if left <= 0 { return nil }
        let run = max(1, min(longestRun, left / (4 * workers)))
        defer { claimed += run }
        return claimed..<(claimed + run)
    }
}
