import Foundation

/// Per-thread memo of tables that depend only on a filter's parameters and the image geometry (a vignette's
/// column term, grain's column weights and its lattice rows, hashed and interpolated, a guide's grid rows
/// interpolated across the image), so they are computed once per
/// thread rather than once per band and bands can stay one row high (in cache). A table's contents are a
/// pure function of its key, so which thread built it never changes a value.
enum ThreadTables {
    /// What a table is: `kind` names the filter's table, the other fields its parameters.
    struct Key: Hashable {
        let kind: UInt32
        let a: Int
        let b: UInt64
        let c: UInt64
        var d: UInt64 = 0
    }

    /// Tables kept per thread before the oldest generation is dropped: enough for what a run of 64 image rows
    /// shares (grain's lattice rows, hashed and interpolated across the image, about 70; two guides' grid rows,
    /// about 12; the column tables), and small enough that two generations of image-wide rows stay a few MB.
    static let limit = 96

    private final class Store {
        var tables: [Key: UnsafeMutablePointer<Float>] = [:]
        /// The previous generation: freed only at the next eviction, so pointers handed out just before an
        /// eviction stay valid for the rest of the caller's band.
        var retired: [UnsafeMutablePointer<Float>] = []

        deinit {
            tables.values.forEach { $0.deallocate() }
            retired.forEach { $0.deallocate() }
        }
    }

    private static let key: pthread_key_t = {
        var k = pthread_key_t()
        pthread_key_create(&k) { store in if let store { Unmanaged<AnyObject>.fromOpaque(store).release() } }
        return k
    }()

    private static var store: Store {
        if let p = pthread_getspecific(key) { return Unmanaged<Store>.fromOpaque(p).takeUnretainedValue() }
        let s = Store()
        pthread_setspecific(key, Unmanaged.passRetained(s).toOpaque())
        return s
    }

    /// This thread's table for `key` (`count` floats), built by `fill` the first time it is asked for.
    static func table(_ key: Key, count: Int, fill: (UnsafeMutablePointer<Float>) -> Void) -> UnsafePointer<Float> {
        let s = store
        if let t = s.tables[key] { return UnsafePointer(t) }
        if s.tables.count >= limit {
            s.retired.forEach { $0.deallocate() }
            s.retired = Array(s.tables.values)
            s.tables.removeAll(keepingCapacity: true)
        }
        let t = UnsafeMutablePointer<Float>.allocate(capacity: max(1, count))
        fill(t)
        s.tables[key] = t
        return UnsafePointer(t)
    }
}
