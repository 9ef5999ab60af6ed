import Foundation

/// Decides when a file in the hot folder is finished: its signature (size, mtime) has not changed for
/// `settle` seconds since the last event or look, and its structure is complete (`FileCompleteness`).
/// A camera uploading in chunks closes and reopens the file, and every close, write or look that finds a
/// new signature starts the wait again, so a file is handed on once, after its last chunk.
///
/// A file whose structure stays incomplete but which nobody touches for `giveUp` seconds is handed on all
/// the same (marked `incomplete`): it is then a truncated file, and converting it records the failure.
public struct FileStability: Sendable {
    /// A file ready to be converted.
    public struct Ready: Sendable, Equatable {
        public var relativePath: String
        public var signature: FileSignature
        /// Still structurally incomplete after `giveUp` seconds without a change.
        public var incomplete: Bool
    }

    struct Tracked: Sendable {
        var signature: FileSignature
        /// When the signature last changed (or the file was first seen).
        var changedAt: Double
        /// When the file is looked at next.
        var due: Double
    }

    public let settle: Double
    public let giveUp: Double
    private(set) var tracked: [String: Tracked] = [:]

    public init(settle: Double, giveUp: Double) {
        self.settle = max(0, settle)
        self.giveUp = max(giveUp, settle)
    }

    /// Files being watched until they settle.
    public var count: Int { tracked.count }

    public func isTracking(_ relativePath: String) -> Bool { tracked[relativePath] != nil }

    /// The paths being watched, oldest change first (for the status file).
    public var paths: [String] { tracked.sorted { ($0.value.changedAt, $0.key) < ($1.value.changedAt, $1.key) }.map(\.key) }

    /// Something happened to `relativePath` (an event, a look): a new or changed signature restarts its wait;
    /// an unchanged one leaves it (so repeated looks of a polling watcher do not postpone a quiet file).
    /// A file that is gone stops being tracked.
    public mutating func observe(_ relativePath: String, signature: FileSignature?, now: Double) {
        guard let signature else { tracked[relativePath] = nil; return }
        if let t = tracked[relativePath], t.signature == signature { return }
        tracked[relativePath] = Tracked(signature: signature, changedAt: now, due: now + settle)
    }

    /// Stops tracking `relativePath` (it was removed or moved away).
    public mutating func forget(_ relativePath: String) { tracked[relativePath] = nil }

    /// The earliest time a tracked file is due for a look; nil when none is tracked.
    public var nextDue: Double? { tracked.values.map(\.due).min() }

    /// Looks at every file that is due: `look` gives its current signature, `complete` says whether its
    /// structure is whole. Returns the files that are ready (oldest first, at most `limit`), which are no
    /// longer tracked.
    public mutating func collect(now: Double, limit: Int = .max, look: (String) -> FileSignature?, complete: (String) -> Bool) -> [Ready] {
        var ready: [Ready] = []
        let due = tracked.filter { $0.value.due <= now }.sorted { ($0.value.changedAt, $0.key) < ($1.value.changedAt, $1.key) }
        for (path, t) in due {
            if ready.count >= limit { break }
            guard let current = look(path) else { tracked[path] = nil; continue }
            if current != t.signature {
                tracked[path] = Tracked(signature: current, changedAt: now, due: now + settle)
                continue
            }
            // Compared as sums, exactly as `due` was computed, so a look at the due time finds the file due.
            if now < t.changedAt + settle {
                tracked[path]?.due = t.changedAt + settle
                continue
            }
            if complete(path) {
                ready.append(Ready(relativePath: path, signature: current, incomplete: false))
                tracked[path] = nil
            } else if now >= t.changedAt + giveUp {
                ready.append(Ready(relativePath: path, signature: current, incomplete: true))
                tracked[path] = nil
            } else {
                tracked[path]?.due = min(now + settle, t.changedAt + giveUp)
            }
        }
        return ready
    }
}
