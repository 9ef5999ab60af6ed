import Foundation

/// The record of a run: what went in, with which settings, what came out, and what failed.
/// Versioned; its JSON Schema is `docs/manifest.schema.json`. Written atomically after every file, so it is
/// valid JSON even when a run is interrupted between files.
public struct Manifest: Codable, Sendable, Equatable {
    public static let currentVersion = 1

    public var schema = "lightwork-manifest"
    public var version = Manifest.currentVersion
    public var tool: ToolInfo
    /// ISO 8601 (UTC) times of the run; excluded when comparing runs.
    public var startedAt: String
    public var finishedAt: String?
    /// True when the run was stopped by SIGINT/SIGTERM before every input was done (then `finishedAt` is absent).
    public var interrupted: Bool?
    /// The slice of the input set this run converted (`--shard K/N`); absent for a whole run and in merged manifests.
    public var shard: ShardInfo?
    /// What the entries cover: `folder`, every current record of the output folder's ledger (earlier runs' too), or
    /// `run`, this run's alone (`--manifest-scope`); absent in manifests written before the ledger, which cover their run.
    public var scope: ManifestScope?
    /// Host that produced it; excluded when comparing runs.
    public var host: String
    /// The resolved settings every entry was produced with.
    public var settings: ResolvedSettings
    /// SHA-256 of the settings and tool version: an output is reusable only when this is unchanged.
    public var settingsDigest: String
    public var summary: Summary
    public var entries: [Entry]

    public struct ToolInfo: Codable, Sendable, Equatable {
        public var name = "lightwork"
        public var version: String
        public var libraries: [String: String]

        package init(version: String, libraries: [String: String]) {
            self.version = version
            self.libraries = libraries
        }
    }

    /// Which of N deterministic slices of the inputs a run took (see `Shard`).
    public struct ShardInfo: Codable, Sendable, Equatable {
        public var index: Int
        public var count: Int

        public init(index: Int, count: Int) {
            self.index = index
            self.count = count
        }
    }

    public struct Summary: Codable, Sendable, Equatable {
        public var total = 0
        public var converted = 0
        public var skipped = 0
        public var failed = 0

        /// No entry counted.
        public init() {}

        init(total: Int, converted: Int, skipped: Int, failed: Int) {
            self.total = total
            self.converted = converted
            self.skipped = skipped
            self.failed = failed
        }

        /// Counts one more entry of `status`.
        public mutating func count(_ status: Status) {
            total += 1
            switch status {
            case .converted: converted += 1
            case .skipped: skipped += 1
            case .failed: failed += 1
            }
        }
    }

    public enum Status: String, Codable, Sendable {
        case converted, skipped, failed
    }

    /// One input and its outcome.
    public struct Entry: Codable, Sendable, Equatable {
        public var input: Input
        public var status: Status
        /// Why it failed or was skipped (one line).
        public var reason: String?
        /// What kind of failure it was (set on failed entries; absent in manifests written before it existed).
        public var failureKind: FailureKind?
        public var output: Output?
        /// Seconds per stage: decode, render, encode, total.
        public var timings: [String: Double]
        /// Facts worth knowing (assumed profiles, recoveries).
        public var notes: [String]
        /// On an entry skipped as already converted: how the previous run's output was found current (absent on
        /// other entries and in manifests from before LightWork recorded it).
        public var resumeCheck: ResumeCheck?

        public init(input: Input, status: Status, reason: String? = nil, failureKind: FailureKind? = nil, output: Output? = nil,
                    timings: [String: Double] = [:], notes: [String] = []) {
            self.input = input
            self.status = status
            self.reason = reason
            self.failureKind = failureKind
            self.output = output
            self.timings = timings
            self.notes = notes
        }
    }

    /// How a re-run found a previous output current without converting again.
    public enum ResumeCheck: String, Codable, Sendable {
        /// The input's and the output's size, mtime and inode equal those recorded: trusted without reading either.
        case stat
        /// Both files read and their SHA-256 compared with those recorded (`--verify`, or a stat that differed).
        case sha256
    }

    public struct Input: Codable, Sendable, Equatable {
        /// The path as given on the command line (or found under a folder given there).
        public var path: String
        /// Path relative to the input root (a folder input) or the file name: stable across machines.
        public var relativePath: String
        /// Position (from 1) in the run's whole input list, before any sharding: orders entries the same way
        /// whether one process or many shards produced them.
        public var index: Int?
        public var size: Int?
        public var sha256: String?
        /// Size, mtime, inode and device when it was read (before reading): a re-run that finds them unchanged
        /// trusts `sha256` without reading the file (`ResumeIndex`).
        public var signature: FileSignature?
        /// "raw" or "rgb".
        public var kind: String?
        public var make: String?
        public var model: String?
        public var width: Int?
        public var height: Int?
        public var sourceProfile: String?
        /// What the RAW decoder decided (`DecodedImage.decisionKeys`): whiteBalance, demosaic, colour,
        /// pixelAspect, orientation.
        public var decisions: [String: String]?

        public init(path: String, relativePath: String) {
            self.path = path
            self.relativePath = relativePath
        }
    }

    public struct Output: Codable, Sendable, Equatable {
        /// Relative to the output folder.
        public var path: String
        public var sha256: String
        public var size: Int
        public var format: String
        public var bitDepth: Int
        public var channels: Int
        public var colorSpace: String
        public var width: Int
        public var height: Int
        /// Size, mtime, inode and device once written: a re-run that finds them unchanged trusts `sha256`.
        public var signature: FileSignature?
    }

    public init(tool: ToolInfo, settings: ResolvedSettings, host: String, startedAt: Date) {
        self.tool = tool
        self.settings = settings
        self.host = host
        self.startedAt = Manifest.timestamp(startedAt)
        settingsDigest = Manifest.digest(settings: settings, toolVersion: tool.version)
        summary = Summary()
        entries = []
    }

    /// Inserts `entry` after every entry with a lower or equal input index (entries without one go last) and
    /// updates the summary: entries stay in input order whatever order their files finish in.
    public mutating func insertInInputOrder(_ entry: Entry) {
        let key = entry.input.index ?? Int.max
        var low = 0, high = entries.count
        while low < high {
            let mid = (low + high) / 2
            if (entries[mid].input.index ?? Int.max) <= key { low = mid + 1 } else { high = mid }
        }
        entries.insert(entry, at: low)
        // Counted, not recomputed: recounting every entry per insert made a 100,000-file run quadratic.
        summary.count(entry.status)
    }

    /// Recomputes the summary from the entries.
    public mutating func updateSummary() {
        summary = Summary(total: entries.count,
                          converted: entries.filter { $0.status == .converted }.count,
                          skipped: entries.filter { $0.status == .skipped }.count,
                          failed: entries.filter { $0.status == .failed }.count)
    }

    /// Canonical JSON (sorted keys, pretty-printed), as written to disk.
    public func encoded() throws -> Data { try CanonicalJSON.encode(self) }

    public static func decode(_ data: Data) throws -> Manifest {
        try JSONDecoder().decode(Manifest.self, from: data)
    }

    public static func timestamp(_ date: Date) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        return f.string(from: date)
    }

    /// SHA-256 of the canonical settings JSON plus the tool version.
    public static func digest(settings: ResolvedSettings, toolVersion: String) -> String {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys]
        var data = (try? e.encode(settings)) ?? Data()
        data.append(contentsOf: Array("|lightwork \(toolVersion)".utf8))
        return SHA256.hex(data)
    }
}
