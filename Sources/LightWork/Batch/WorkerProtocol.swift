import Foundation

/// The first line from the batch parent to a `lightwork worker` process: what every file it is sent becomes
/// (the spec) and the limits of this process. `WorkerJob` lines follow.
public struct WorkerStart: Codable, Sendable, Equatable {
    public var spec: ConvertSpec
    public var limits: WorkerLimits
}

/// One line from the batch parent to a `lightwork worker` process: convert this input, or report it as
/// skipped when `previous` (the last run's entry for it) is still valid. The worker answers each job with
/// exactly one `WorkerReply` line before it reads the next, so a worker never holds more than one file.
public struct WorkerJob: Codable, Sendable, Equatable {
    /// Position (from 1) in the run's whole input list.
    public var index: Int
    /// File system path of the input.
    public var path: String
    public var displayPath: String
    public var relativePath: String
    /// Where the output goes, relative to the output folder (the plan's name for it).
    public var output: String
    /// The plan's notes for this input (renames, pair decisions), added to its entry.
    public var notes: [String]
    /// The previous run's entry for this input, when one exists and `--force` was not given.
    public var previous: Manifest.Entry?
    /// Where to write a small JPEG of the render (and its capture facts beside it, `PreviewImage`), for the studio
    /// monitor; nil for none. Made from the pixels in memory: the output is never decoded again.
    public var preview: String?

    public init(index: Int, item: InputItem, output: String, notes: [String] = [], previous: Manifest.Entry?) {
        self.index = index
        self.output = output
        self.notes = notes
        path = item.url.path
        displayPath = item.displayPath
        relativePath = item.relativePath
        self.previous = previous
    }

    public var item: InputItem { InputItem(url: URL(fileURLWithPath: path), displayPath: displayPath, relativePath: relativePath) }
}

/// One line from a worker to the parent: the outcome of one job.
public struct WorkerReply: Codable, Sendable, Equatable {
    public var index: Int
    public var entry: Manifest.Entry
    /// The worker's peak resident memory so far (getrusage ru_maxrss), for the run's memory report.
    public var maxRSSKiB: Int

    public init(index: Int, entry: Manifest.Entry, maxRSSKiB: Int) {
        self.index = index
        self.entry = entry
        self.maxRSSKiB = maxRSSKiB
    }
}

/// The line framing both directions use: compact JSON (no newline inside) followed by "\n".
public enum WorkerLine {
    public static func encode<T: Encodable>(_ value: T) throws -> Data {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var d = try e.encode(value)
        d.append(0x0A)
        return d
    }

    public static func decode<T: Decodable>(_ type: T.Type, from line: Data) throws -> T {
        try JSONDecoder().decode(type, from: line)
    }
}

/// What one worker process may use, decided by the parent (its share of the cores, its memory) and applied by
/// the worker before it loads anything. None of it changes output bytes.
public struct WorkerLimits: Codable, Sendable, Equatable {
    /// Engine threads (and LibRaw's OpenMP threads) per file; nil leaves the worker's default (every core).
    public var threads: Int?
    /// Address space the worker may take (RLIMIT_AS), in bytes; nil for none.
    public var memoryLimit: Int?

    public init(threads: Int? = nil, memoryLimit: Int? = nil) {
        self.threads = threads
        self.memoryLimit = memoryLimit
    }
}
