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
    ///
    /// Slurm without `count`: the array is the whole split (index = task ID − MIN, count = the array's size).
    /// Slurm with `count`: task IDs are the shard indices themselves, so a resubmitted subset of the array
    /// (`sbatch --array=2 …` after task 2 failed) is still shard 2 of N; an array reaching past N − 1 is refused.
    public static func fromEnvironment(_ env: [String: String], count given: Int?) throws(LightWorkError) -> Shard {
        func int(_ name: String) throws(LightWorkError) -> Int? {
            guard let v = env[name]?.trimmingCharacters(in: .whitespaces), !v.isEmpty else { return nil }
            guard let n = Int(v), n >= 0 else { throw LightWorkError.usage("--shard auto: \(name)='\(v)' is not a whole number ≥ 0") }
            return n
        }
        if let given, given < 1 { throw LightWorkError.usage("--shard-count takes a whole number ≥ 1, not \(given)") }
        if let id = try int("SLURM_ARRAY_TASK_ID") {
            let low = try int("SLURM_ARRAY_TASK_MIN") ?? 0
            let size = try int("SLURM_ARRAY_TASK_COUNT")
            let high = try int("SLURM_ARRAY_TASK_MAX") ?? size.map { low + $0 - 1 }
            if let n = given {
                if let high, high >= n {
                    throw LightWorkError.usage("--shard auto --shard-count \(n): the Slurm array goes up to task \(high), but with --shard-count the task IDs are the shard indices 0…\(n - 1) (submit --array=0-\(n - 1), or a subset of it)")
                }
                guard id < n else { throw LightWorkError.usage("--shard auto: Slurm task \(id) is not a shard index of 0…\(n - 1) (--shard-count \(n))") }
                return try Shard(index: id, count: n)
            }
            guard let n = size ?? high.map({ $0 - low + 1 }) else {
                throw LightWorkError.usage("--shard auto: SLURM_ARRAY_TASK_ID is set but neither SLURM_ARRAY_TASK_COUNT nor SLURM_ARRAY_TASK_MAX; give --shard-count N")
            }
            guard (0..<n).contains(id - low) else {
                throw LightWorkError.usage("--shard auto: Slurm task \(id) of an array from \(low) with \(n) tasks is not a contiguous index (use --array=0-\(n - 1) without a step)")
            }
            return try Shard(index: id - low, count: n)
        }
        for name in ["JOB_COMPLETION_INDEX", "AWS_BATCH_JOB_ARRAY_INDEX"] {
            guard let id = try int(name) else { continue }
            guard let n = given else { throw LightWorkError.usage("--shard auto: \(name) gives this task's index but not the number of tasks; add --shard-count N") }
            guard id < n else { throw LightWorkError.usage("--shard auto: \(name)=\(id) is not a shard index of 0…\(n - 1) (--shard-count \(n))") }
            return try Shard(index: id, count: n)
        }
        throw LightWorkError.usage("--shard auto: no scheduler index found (SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX or AWS_BATCH_JOB_ARRAY_INDEX); run it as an array task or give --shard K/N")
    }
}
