import Foundation

/// A per-thread Float buffer that filters borrow for the duration of one band (lookup copies, noise
/// lattices, row tables): allocated lazily on each engine thread, grown when a larger band needs it and
/// reused afterwards, so no band pays for a heap allocation. Swift only places up to 1 KiB of
/// `withUnsafeTemporaryAllocation` on the stack on Linux, which is too small for these.
///
/// One borrower at a time per thread: a filter takes the buffer in `apply` and does not call into
/// another filter while holding it.
enum ThreadScratch {
    private static let key: pthread_key_t = {
        var k = pthread_key_t()
        pthread_key_create(&k) { block in free(block) }
        return k
    }()

    /// Runs `body` with at least `count` floats of this thread's scratch memory (contents undefined).
    static func withFloats<R>(_ count: Int, _ body: (UnsafeMutablePointer<Float>) -> R) -> R {
        // Layout: one Int holding the capacity (in floats), then the floats (16-byte aligned).
        let header = 16
        var block = pthread_getspecific(key)
        if block == nil || block!.load(as: Int.self) < count {
            free(block)
            let capacity = max(count, 4096)
            block = malloc(header + 4 * capacity)
            guard let fresh = block else { fatalError("out of memory for \(capacity) scratch floats") }
            fresh.storeBytes(of: capacity, as: Int.self)
            pthread_setspecific(key, fresh)
        }
        return body((block! + header).assumingMemoryBound(to: Float.self))
    }
}
