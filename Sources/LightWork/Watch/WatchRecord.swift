import Foundation

/// One line of the watch journal (`WatchLedger`): compact JSON, appended and synced before the watch acts
/// on it. A file's life is `start` (its content hash and the output name it was given, written before a
/// worker touches it), `done` (its manifest entry: converted, skipped as a duplicate, or failed) and,
/// when the original was moved, `moved`. A `redeveloped` record is an extra output made from a finished file on the
/// studio monitor's request (its entry, output and settings digest): it is no new file and changes no count. Its
/// `redevelopStart` (the output name, written before the worker is sent the job) lets a restart after a kill remove
/// an extra output that was written but never recorded.
public struct WatchRecord: Codable, Sendable, Equatable {
    public enum Operation: String, Codable, Sendable {
        case start, done, moved, redeveloped, redevelopStart
    }

    public var op: Operation
    /// The file's number in this watch (from 1, never reused): its manifest entry's `input.index`.
    public var seq: Int
    /// Relative to the inbox.
    public var path: String?
    public var sha256: String?
    public var signature: FileSignature?
    /// The output name (relative to the output folder) given at `start`.
    public var output: String?
    /// ISO 8601 time the record was written.
    public var at: String?
    /// The outcome, at `done`.
    public var entry: Manifest.Entry?
    /// The settings digest the file was converted with (a SIGHUP may have changed the recipe since).
    public var settingsDigest: String?
    /// Where the original went, at `moved`.
    public var movedTo: String?

    public init(op: Operation, seq: Int, path: String? = nil, sha256: String? = nil, signature: FileSignature? = nil, output: String? = nil,
                entry: Manifest.Entry? = nil, settingsDigest: String? = nil, movedTo: String? = nil, at: Date = Date()) {
        self.op = op
        self.seq = seq
        self.path = path
        self.sha256 = sha256
        self.signature = signature
        self.output = output
        self.entry = entry
        self.settingsDigest = settingsDigest
        self.movedTo = movedTo
        self.at = Manifest.timestamp(at)
    }
}
