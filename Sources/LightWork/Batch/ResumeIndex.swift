import Foundation

/// What the previous run into the same output folder left behind, for skipping work that is already done.
/// An entry is offered only when that run used the same settings digest (settings and tool version); the
/// file-level check (`reusableEntry`) then confirms the input is unchanged and the output intact.
public struct ResumeIndex: Sendable {
    private var byPath: [String: Manifest.Entry] = [:]
    private var byRelativePath: [String: Manifest.Entry] = [:]
    /// Why an existing manifest offers nothing (other settings, unreadable, --force), for a log line; nil
    /// when entries are offered or there was no previous run.
    public private(set) var unusableReason: String?

    public static let skipReason = "already converted (unchanged input and settings)"

    /// An index offering nothing (`--force`, or no previous run).
    public init(reason: String? = nil) { unusableReason = reason }

    /// Reads the manifest at `manifestURL`; a missing, unreadable or differently-configured manifest gives an
    /// empty index (everything is converted), never an error.
    public init(manifestURL: URL, settingsDigest: String, toolVersion: String) {
        guard let data = try? Data(contentsOf: manifestURL) else { return }
        guard let previous = try? Manifest.decode(data) else {
            unusableReason = "the previous manifest \(manifestURL.lastPathComponent) is not readable; converting everything"
            return
        }
        guard previous.settingsDigest == settingsDigest, previous.tool.version == toolVersion else {
            unusableReason = "settings or tool version changed since the previous run; converting everything"
            return
        }
        var relativeCount: [String: Int] = [:]
        for e in previous.entries { relativeCount[e.input.relativePath, default: 0] += 1 }
        for e in previous.entries where e.status != .failed && e.output != nil {
            byPath[e.input.path] = e
            if relativeCount[e.input.relativePath] == 1 { byRelativePath[e.input.relativePath] = e }
        }
    }

    /// The previous entry for `item`: matched by its path, else by its relative path when that is unambiguous.
    public func previous(for item: InputItem) -> Manifest.Entry? {
        byPath[item.displayPath] ?? byRelativePath[item.relativePath]
    }

    public var isEmpty: Bool { byPath.isEmpty }

    /// The entry to record instead of converting `item` again, or nil when it must be converted: the input's
    /// size and SHA-256 equal the recorded ones and the output is present with the recorded size and SHA-256.
    /// The entry carries the earlier input and output records, status `skipped`.
    public static func reusableEntry(previous: Manifest.Entry, item: InputItem, outputDirectory: URL) -> Manifest.Entry? {
        guard previous.status != .failed, let output = previous.output, let inputSHA = previous.input.sha256,
              let outputURL = try? ContainedPath.resolve(output.path, inside: outputDirectory) else { return nil }
        guard fileSize(item.url.path) == previous.input.size, fileSize(outputURL.path) == output.size else { return nil }
        guard (try? SHA256.hex(fileAt: item.url)) == inputSHA, (try? SHA256.hex(fileAt: outputURL)) == output.sha256 else { return nil }
        var entry = previous
        entry.input.path = item.displayPath
        entry.input.relativePath = item.relativePath
        entry.status = .skipped
        entry.reason = skipReason
        entry.timings = [:]
        return entry
    }

    /// Size of a regular file (following links), nil when it is not one.
    static func fileSize(_ path: String) -> Int? {
        var st = stat()
        guard stat(path, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return nil }
        return Int(st.st_size)
    }
}
