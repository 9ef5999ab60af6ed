import Foundation

/// Joins the manifests of shards (`--shard K/N`) into one that describes the whole batch as a single run
/// would: same settings, entries in input order, summary recomputed. Refuses manifests made with different
/// settings or tool versions; reports shards that are missing, interrupted, stopped without finishing (a
/// killed or still running task: its manifest has neither `finishedAt` nor `interrupted`), or have failed entries.
public enum ManifestMerge {
    public struct Result: Sendable {
        public var manifest: Manifest
        /// Shard indices of 0..<N for which no manifest was given.
        public var missingShards: [Int]
        /// N, when the inputs were shard manifests.
        public var shardCount: Int?
        /// Names of the manifests whose run was interrupted (SIGINT/SIGTERM, a full disk).
        public var interrupted: [String]
        /// Names of the manifests whose run stopped without saying so: killed (kill -9, a dead node) or still running.
        public var unfinished: [String]
        public var failed: [Manifest.Entry]

        /// True when the merged manifest describes a complete batch with no failure.
        public var isComplete: Bool { missingShards.isEmpty && interrupted.isEmpty && unfinished.isEmpty && failed.isEmpty }
    }

    /// `manifests`: (a name for messages, the manifest). `expectedShardCount`: the N the shards must have been
    /// cut with (`--shards N`), so that a split whose every manifest is absent but one is still checked.
    public static func merge(_ manifests: [(name: String, manifest: Manifest)], expectedShardCount: Int? = nil) throws(LightWorkError) -> Result {
        var result = try mergeHeaders(manifests, expectedShardCount: expectedShardCount)
        result.manifest.entries = inInputOrder(manifests.flatMap(\.manifest.entries))
        result.manifest.updateSummary()
        result.failed = result.manifest.entries.filter { $0.status == .failed }
        return result
    }

    /// `entries` by input index (those without one last), ties in the order given: a merged split's order.
    public static func inInputOrder(_ entries: [Manifest.Entry]) -> [Manifest.Entry] {
        entries.enumerated().sorted { a, b in
            let ka = a.element.input.index ?? Int.max, kb = b.element.input.index ?? Int.max
            return ka != kb ? ka < kb : a.offset < b.offset
        }.map(\.element)
    }

    /// `merge` without the entries: the manifests' headers checked and joined (`manifests`' entries are not read; the
    /// result has none, no failures and an empty summary), for a caller that streams the entries itself.
    public static func mergeHeaders(_ manifests: [(name: String, manifest: Manifest)], expectedShardCount: Int? = nil) throws(LightWorkError) -> Result {
        guard let first = manifests.first else { throw LightWorkError.usage("manifest merge needs at least one manifest") }
        for (name, m) in manifests.dropFirst() {
            guard m.settingsDigest == first.manifest.settingsDigest, m.tool.version == first.manifest.tool.version else {
                throw LightWorkError.usage("\(name) was made with other settings or another LightWork version than \(first.name) (settings digest \(m.settingsDigest.prefix(12))… vs \(first.manifest.settingsDigest.prefix(12))…): such runs cannot be merged")
            }
        }
        // Shard fields come from files: a count below 1 or an index outside 0..<count describes no shard.
        for (name, m) in manifests {
            if let s = m.shard, s.count < 1 || s.index < 0 || s.index >= s.count {
                throw LightWorkError.usage("\(name): shard \(s.index)/\(s.count) is not a shard (K/N needs N ≥ 1 and 0 ≤ K < N)")
            }
        }
        let shards = manifests.compactMap { $0.manifest.shard }
        var shardCount: Int?
        var missing: [Int] = []
        if !shards.isEmpty {
            guard shards.count == manifests.count, let n = shards.first?.count, shards.allSatisfy({ $0.count == n }) else {
                throw LightWorkError.usage("the manifests mix different shard counts (or shard and whole-run manifests): \(manifests.map { "\($0.name)=\($0.manifest.shard.map { "\($0.index)/\($0.count)" } ?? "whole")" }.joined(separator: ", "))")
            }
            var seen: [Int: String] = [:]
            for (name, m) in manifests {
                let k = m.shard!.index
                if let other = seen[k] { throw LightWorkError.usage("shard \(k)/\(n) is given twice: \(other) and \(name)") }
                seen[k] = name
            }
            if let expected = expectedShardCount, expected != n {
                throw LightWorkError.usage("the manifests are shards of \(n), not of \(expected) (--shards \(expected))")
            }
            shardCount = n
            missing = (0..<n).filter { seen[$0] == nil }
        } else if let expected = expectedShardCount {
            throw LightWorkError.usage("--shards \(expected): \(manifests.map(\.name).joined(separator: ", ")) are not shard manifests")
        }

        var merged = first.manifest
        merged.shard = nil
        merged.startedAt = manifests.map(\.manifest.startedAt).min() ?? first.manifest.startedAt
        let finished = manifests.map(\.manifest.finishedAt)
        merged.finishedAt = finished.contains(where: { $0 == nil }) || !missing.isEmpty ? nil : finished.compactMap { $0 }.max()
        let interrupted = manifests.filter { $0.manifest.interrupted == true }.map(\.name)
        let unfinished = manifests.filter { $0.manifest.interrupted != true && $0.manifest.finishedAt == nil }.map(\.name)
        merged.interrupted = interrupted.isEmpty && unfinished.isEmpty && missing.isEmpty ? nil : true
        merged.host = Array(Set(manifests.map(\.manifest.host))).sorted().joined(separator: ", ")
        merged.entries = []
        merged.updateSummary()
        return Result(manifest: merged, missingShards: missing, shardCount: shardCount, interrupted: interrupted,
                      unfinished: unfinished, failed: [])
    }
}
