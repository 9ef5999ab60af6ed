import Foundation

/// The K-th of N deterministic slices of an input set (`--shard K/N`, K from 0): an input belongs to the
/// slice its relative path hashes to (SHA-256), so every machine and every re-run agrees on the split
/// without talking to the others, and the slices together are exactly the whole set.
public struct Shard: Sendable, Equatable, CustomStringConvertible {
    public let index: Int
    public let count: Int

    public init(index: Int, count: Int) throws(LightWorkError) {
        guard count >= 1 else { throw LightWorkError.usage("a shard count must be at least 1, not \(count)") }
        guard (0..<count).contains(index) else {
            throw LightWorkError.usage("shard index \(index) is outside 0..\(count - 1) (shards count from 0: --shard 0/\(count) … \(count - 1)/\(count))")
        }
        self.index = index
        self.count = count
    }

    public var description: String { "\(index)/\(count)" }

    /// Where this shard's manifest goes in the shared output folder, so shards never race on one file.
    public var manifestFileName: String { "manifest.shard-\(index)-of-\(count).json" }

    /// Whether the input with this path relative to its input root belongs to this shard.
    public func contains(relativePath: String) -> Bool { Shard.slot(of: relativePath, count: count) == index }

    /// The slice `relativePath` falls in: the first 64 bits of its SHA-256, modulo `count`.
    public static func slot(of relativePath: String, count: Int) -> Int {
        let hex = SHA256.hex(Data(relativePath.utf8))
        return Int((UInt64(hex.prefix(16), radix: 16) ?? 0) % UInt64(count))
    }

    /// `K/N`.
    public static func parse(_ text: String) throws(LightWorkError) -> Shard {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]) else {
            throw LightWorkError.usage("--shard takes K/N (e.g. 0/4, counting from 0) or auto, not '\(text)'")
        }
        return try Shard(index: k, count: n)
    }

    /// The shard a cluster scheduler's array task is: Slurm (`SLURM_ARRAY_TASK_ID` with `SLURM_ARRAY_TASK_COUNT`,
    /// or `SLURM_ARRAY_TASK_MIN`/`MAX`), Kubernetes Indexed Jobs (`JOB_COMPLETION_INDEX`) or AWS Batch array jobs
    /// (`AWS_BATCH_JOB_ARRAY_INDEX`); the latter two give no count, so `count` (`--shard-count`) is needed there.
    public static func fromEnvironment(_ env: [String: String], count given: Int?) throws(LightWorkError) -> Shard {
        func int(_ name: String) throws(LightWorkError) -> Int? {
            guard let v = env[name], !v.isEmpty else { return nil }
            guard let n = Int(v) else { throw LightWorkError.usage("\(name)='\(v)' is not a whole number") }
            return n
        }
        if let id = try int("SLURM_ARRAY_TASK_ID") {
            let low = try int("SLURM_ARRAY_TASK_MIN") ?? 0
            var count = try int("SLURM_ARRAY_TASK_COUNT")
            if count == nil, let high = try int("SLURM_ARRAY_TASK_MAX") { count = high - low + 1 }
            guard let n = given ?? count else {
                throw LightWorkError.usage("--shard auto: SLURM_ARRAY_TASK_ID is set but neither SLURM_ARRAY_TASK_COUNT nor SLURM_ARRAY_TASK_MAX; give --shard-count N")
            }
            if let count, let given, count != given {
                throw LightWorkError.usage("--shard-count \(given) disagrees with the Slurm array's \(count) tasks")
            }
            do {
                return try Shard(index: id - low, count: n)
            } catch {
                throw LightWorkError.usage("--shard auto: Slurm task \(id) of an array \(low)… with \(n) tasks is not a contiguous index (use --array=0-\(n - 1) without a step)")
            }
        }
        for name in ["JOB_COMPLETION_INDEX", "AWS_BATCH_JOB_ARRAY_INDEX"] {
            guard let id = try int(name) else { continue }
            guard let n = given else { throw LightWorkError.usage("--shard auto: \(name) gives this task's index but not the number of tasks; add --shard-count N") }
            return try Shard(index: id, count: n)
        }
        throw LightWorkError.usage("--shard auto: no scheduler index found (SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX or AWS_BATCH_JOB_ARRAY_INDEX); run it as an array task or give --shard K/N")
    }
}
