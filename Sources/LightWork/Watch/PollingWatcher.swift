import Foundation

/// Looks at the whole tree every `interval` seconds, for network shares (NFS, SMB) where inotify sees no
/// writes made by other machines. Reports files that are new or whose size or modification time changed
/// since the previous look, and files that disappeared; `FileStability` then wants the same size and
/// mtime on a later look before a file is taken.
public final class PollingWatcher {
    public let scanner: InboxScanner
    public let interval: Double
    private var previous: [String: FileSignature] = [:]
    /// When the next look is due (seconds on the caller's clock).
    public private(set) var nextLook: Double = 0

    public init(scanner: InboxScanner, interval: Double) {
        self.scanner = scanner
        self.interval = max(0.05, interval)
    }

    /// Walks the tree now; returns the changes since the previous look and schedules the next one.
    public func look(now: Double) -> [InboxChange] {
        nextLook = now + interval
        guard FileManager.default.fileExists(atPath: scanner.root.path) else { return [.inboxGone] }
        var current: [String: FileSignature] = [:]
        var changes: [InboxChange] = []
        for rel in scanner.scan().files {
            guard let signature = FileSignature.of(scanner.path(rel)) else { continue }
            current[rel] = signature
            if previous[rel] != signature { changes.append(.file(rel)) }
        }
        for rel in previous.keys where current[rel] == nil { changes.append(.removed(rel)) }
        previous = current
        return changes
    }
}
