import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The watch's memory across restarts: an append-only journal of `WatchRecord` lines beside the manifest
/// (`watch-journal.jsonl`), each written in one `write` and synced before the watch acts on it, so that
/// after a `kill -9` at any moment a restart knows what was converted, from which content, under which
/// name. A record cut short by the kill (no final newline) is dropped and the file trimmed to its last
/// whole line. The journal is locked (flock) while a watch runs: two watches on one output folder would
/// convert files twice. At open it is compacted: a finished file's `start`, `done` and `moved` become one `done`
/// record (a restart reads one line per file; the manifest entries themselves are kept by the folder's `ExportLedger`).
public final class WatchLedger {
    /// A file the journal knows, by its number.
    public struct FileState: Sendable, Equatable {
        public var seq: Int
        public var path: String
        public var sha256: String?
        public var signature: FileSignature?
        /// The output name given at start (converted files), if any.
        public var output: String?
        /// The outcome; nil while the file is started but not done (a restart converts it again, to the same name).
        public var status: Manifest.Status?
        public var movedTo: String?
    }

    public let url: URL
    private var fd: Int32
    private(set) var files: [Int: FileState] = [:]
    private var byPathHash: [String: Int] = [:]
    /// Settings digest + content hash → the first file converted from it.
    private var convertedByHash: [String: Int] = [:]
    /// The last finished record of each path: its signature tells a file already handled without hashing it.
    private var lastFinished: [String: Int] = [:]
    /// Output name → input path, for every output a start record claimed.
    public private(set) var owners: [String: String] = [:]
    /// Lines dropped at replay (a torn last record, or lines this version cannot read).
    public private(set) var droppedLines = 0
    public private(set) var nextSeq = 1

    /// Re-develops recorded (`redeveloped` records), in journal order: the next one is numbered `redevelopments + 1`.
    public private(set) var redevelopments = 0
    /// Outputs of re-develops started but not recorded when the journal was opened (a kill came between): the
    /// watch removes them at start, since no entry describes them. Compaction drops their start records.
    public private(set) var interruptedRedevelops: [String] = []

    /// The entries recorded `done`, in file order, then the re-develops', for the manifest (read once at open).
    public private(set) var replayedEntries: [(entry: Manifest.Entry, settingsDigest: String?)] = []

    /// Opens (creating) the journal at `url`, locks it and replays it.
    public init(url: URL) throws {
        self.url = url
        try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        fd = open(url.path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0o666)
        guard fd >= 0 else { throw WatchError("cannot open the watch journal \(url.path): \(String(cString: strerror(errno)))") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            throw WatchError("another lightwork watch is using \(url.deletingLastPathComponent().path) (its journal \(url.lastPathComponent) is locked); "
                             + "stop it first, or give this watch another output folder")
        }
        do { try replay() } catch { close(fd); throw error }
    }

    /// Lines the journal held at open, and the lines it was compacted to (equal when there was nothing to drop).
    public private(set) var linesAtOpen = 0
    public private(set) var linesAfterCompaction = 0

    deinit { close(fd) }

    private func replay() throws {
        let data = (try? Data(contentsOf: url)) ?? Data()
        var complete = data.count
        if let last = data.lastIndex(of: 0x0A) { complete = last + 1 } else { complete = 0 }
        if complete < data.count {
            droppedLines += 1
            guard ftruncate(fd, off_t(complete)) == 0 else {
                throw WatchError("cannot trim the torn last record of \(url.path): \(String(cString: strerror(errno)))")
            }
        }
        let decoder = JSONDecoder()
        var entries: [Int: (Manifest.Entry, String?)] = [:]
        var compact: [Int: WatchRecord] = [:]
        var redeveloped: [WatchRecord] = []
        var pendingRedevelops: [String: Int] = [:]
        for line in data.prefix(complete).split(separator: 0x0A) where !line.isEmpty {
            guard let record = try? decoder.decode(WatchRecord.self, from: Data(line)) else { droppedLines += 1; continue }
            linesAtOpen += 1
            apply(record)
            if record.op == .done, let e = record.entry { entries[record.seq] = (e, record.settingsDigest) }
            if let to = record.movedTo, record.op == .moved || record.op == .done { entries[record.seq]?.0.notes.append(WatchLedger.movedNote(to)) }
            switch record.op {
            case .start: compact[record.seq] = record
            case .done:
                var done = record
                done.output = record.output ?? files[record.seq]?.output
                compact[record.seq] = done
            case .moved: compact[record.seq]?.movedTo = record.movedTo
            case .redeveloped:
                // Re-develops run one at a time: a record (converted or failed, with or without output) ends the one started.
                redeveloped.append(record)
                pendingRedevelops.removeAll()
            case .redevelopStart:
                if let o = record.output { pendingRedevelops[o] = record.seq }
            }
        }
        interruptedRedevelops = pendingRedevelops.keys.sorted()
        replayedEntries = entries.keys.sorted().map { (entries[$0]!.0, entries[$0]!.1) }
            + redeveloped.compactMap { r in r.entry.map { ($0, r.settingsDigest) } }
        linesAfterCompaction = compact.count + redeveloped.count
        if linesAfterCompaction < linesAtOpen { try rewrite(compact.keys.sorted().map { compact[$0]! } + redeveloped) }
    }

    /// Replaces the journal with `records`: written to a temporary that is locked before it is renamed over the
    /// journal, so a second watch finds the old file or the new one locked at every moment, and a kill leaves one
    /// of the two whole.
    private func rewrite(_ records: [WatchRecord]) throws {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var data = Data()
        for r in records {
            data.append(try e.encode(r))
            data.append(0x0A)
        }
        let temporary = url.deletingLastPathComponent().appendingPathComponent("." + url.lastPathComponent + ".compact-\(getpid())")
        let next = open(temporary.path, O_RDWR | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o666)
        guard next >= 0 else { throw WatchError("cannot compact the watch journal \(url.path): \(String(cString: strerror(errno)))") }
        let code = flock(next, LOCK_EX | LOCK_NB) == 0 ? data.withUnsafeBytes { FullWrite.write(next, $0) } : EWOULDBLOCK
        guard code == 0, fdatasync(next) == 0, rename(temporary.path, url.path) == 0 else {
            close(next)
            unlink(temporary.path)
            throw WatchError("cannot compact the watch journal \(url.path): \(String(cString: strerror(code != 0 ? code : errno)))")
        }
        close(fd)
        fd = next
    }

    /// Appends `record` (one write, then fdatasync) and applies it. Throws when the disk refuses: the watch
    /// must not act on what it could not record.
    public func append(_ record: WatchRecord) throws {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var line = try e.encode(record)
        line.append(0x0A)
        let code = line.withUnsafeBytes { FullWrite.write(fd, $0) }
        if code != 0 { throw AtomicFile.failure(code, path: url.path, action: "append") }
        guard fdatasync(fd) == 0 else { throw AtomicFile.failure(errno, path: url.path, action: "fdatasync") }
        apply(record)
    }

    private func apply(_ r: WatchRecord) {
        nextSeq = max(nextSeq, r.seq + 1)
        var state = files[r.seq] ?? FileState(seq: r.seq, path: r.path ?? "")
        if let p = r.path { state.path = p }
        if let s = r.sha256 { state.sha256 = s }
        if let s = r.signature { state.signature = s }
        switch r.op {
        case .start:
            state.output = r.output
            if let o = r.output { owners[o] = state.path }
        case .done:
            // A compacted record carries its start's output name, and claims it as the start did.
            if let o = r.output { state.output = o; owners[o] = state.path }
            if let to = r.movedTo { state.movedTo = to }
            state.status = r.entry?.status ?? .failed
            if let o = r.entry?.output?.path, r.entry?.status == .converted { owners[o] = state.path }
            lastFinished[state.path] = r.seq
            if state.status == .converted, let sha = state.sha256 {
                let k = WatchLedger.key(r.settingsDigest ?? "", sha)
                if convertedByHash[k] == nil { convertedByHash[k] = r.seq }
            }
        case .moved:
            state.movedTo = r.movedTo
        case .redevelopStart:
            // The extra output's name is claimed while it converts; the file itself is unchanged.
            if let o = r.output { owners[o] = state.path }
            files[r.seq] = state
            return
        case .redeveloped:
            // An extra output of a finished file: claimed by its input, nothing else about the file changes.
            redevelopments += 1
            if let o = r.output { owners[o] = state.path }
            files[r.seq] = state
            return
        }
        files[r.seq] = state
        if let sha = state.sha256 { byPathHash[WatchLedger.key(state.path, sha)] = r.seq }
    }

    private static func key(_ path: String, _ sha: String) -> String { path + "\u{0}" + sha }

    /// The manifest note of an original moved out of the inbox.
    public static func movedNote(_ destination: String) -> String { "original moved to \(destination)" }

    /// Whether the file at `path` with this signature was already finished (same size, mtime and inode as
    /// when it was recorded): nothing to read, nothing to do.
    public func alreadyHandled(path: String, signature: FileSignature) -> Bool {
        guard let seq = lastFinished[path], let s = files[seq] else { return false }
        return s.signature == signature
    }

    /// The journal's record of `path` with this content, finished or not.
    public func record(path: String, sha256: String) -> FileState? {
        byPathHash[WatchLedger.key(path, sha256)].flatMap { files[$0] }
    }

    /// The first file converted from this content with these settings (for --dedupe: after a SIGHUP brings a
    /// new look, the same photo dropped again is converted with it).
    public func converted(sha256: String, settingsDigest: String) -> FileState? {
        convertedByHash[WatchLedger.key(settingsDigest, sha256)].flatMap { files[$0] }
    }

    /// Files started but never finished (a kill interrupted them).
    public var unfinished: [FileState] { files.values.filter { $0.status == nil && $0.output != nil }.sorted { $0.seq < $1.seq } }

    /// Finished files whose original has not been moved yet.
    public var finishedNotMoved: [FileState] { files.values.filter { $0.status != nil && $0.movedTo == nil }.sorted { $0.seq < $1.seq } }

    /// Paths whose last outcome is failed and whose original was not moved (what `--retry-failed` tries again).
    public var failedInPlace: Set<String> {
        Set(lastFinished.values.compactMap { files[$0] }.filter { $0.status == .failed && $0.movedTo == nil }.map(\.path))
    }

    /// Takes the next file number.
    public func takeSeq() -> Int {
        defer { nextSeq += 1 }
        return nextSeq
    }

    /// Counts of finished files by status.
    public var counts: (converted: Int, skipped: Int, failed: Int) {
        var c = (0, 0, 0)
        for s in files.values {
            switch s.status {
            case .converted?: c.0 += 1
            case .skipped?: c.1 += 1
            case .failed?: c.2 += 1
            case nil: break
            }
        }
        return c
    }

    public func file(_ seq: Int) -> FileState? { files[seq] }
}
