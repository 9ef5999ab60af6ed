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
        self.init(manifestURLs: [manifestURL], settingsDigest: settingsDigest, toolVersion: toolVersion)
    }

    /// Reads several manifests (this run's own first, then others in the output folder: a whole run's or other
    /// shard splits'), so that re-sharding or switching between sharded and single runs still skips finished
    /// work. Earlier manifests win for an input recorded twice. Every offered entry is still checked file by file.
    public init(manifestURLs: [URL], settingsDigest: String, toolVersion: String) {
        self.init(previousRuns: ResumeIndex.load(manifestURLs), settingsDigest: settingsDigest, toolVersion: toolVersion)
    }

    /// The manifests at `urls`, in order: each loaded, or the error that made it unreadable; a missing one is left out.
    public static func load(_ urls: [URL]) -> [(url: URL, manifest: Result<Manifest, Error>)] {
        urls.compactMap { url in
            do { return try ManifestStore.load(url).map { (url, .success($0)) } } catch { return (url, .failure(error)) }
        }
    }

    /// Indexes manifests already read (`load`), so a run that planned from them does not decode them again: at
    /// 100,000 entries decoding took a fifth of a no-op re-run.
    public init(previousRuns: [(url: URL, manifest: Result<Manifest, Error>)], settingsDigest: String, toolVersion: String) {
        var rejected: String?
        var offered: [Manifest.Entry] = []
        for (url, loaded) in previousRuns {
            guard case .success(let previous) = loaded else {
                rejected = rejected ?? "the previous manifest \(url.lastPathComponent) is not readable; converting everything"
                continue
            }
            guard previous.settingsDigest == settingsDigest, previous.tool.version == toolVersion else {
                rejected = rejected ?? "settings or tool version changed since the previous run; converting everything"
                continue
            }
            offered += previous.entries.filter { $0.status != .failed && $0.output != nil }
        }
        index(offered)
        unusableReason = byPath.isEmpty ? rejected : nil
    }

    /// The current entries of the output folder's ledgers (`FolderHistory`) made with `settingsDigest` (which covers
    /// the tool version), the latest of an input offered; entries made with other settings are never offered. Each is
    /// looked up in the history when its input is planned, so the index holds nothing itself.
    public init(history: FolderHistory, settingsDigest: String) {
        if history.hasReusable(settingsDigest: settingsDigest) { offering = history } else { otherSettings = history }
        digest = settingsDigest
    }

    /// The history offering its entries made with `digest`, or (when it offers none) the one whose entries made with
    /// other settings are why.
    private var offering: FolderHistory?
    private var otherSettings: FolderHistory?
    private var digest = ""

    /// Why nothing is offered to `items`: `unusableReason`, or other settings made the outputs of some of them.
    public func unusableReason<Items: Sequence<InputItem>>(for items: Items) -> String? {
        if let unusableReason { return unusableReason }
        guard let otherSettings, items.contains(where: {
            otherSettings.hasOtherSettings(path: $0.displayPath, relativePath: $0.relativePath, settingsDigest: digest)
        }) else { return nil }
        return "settings or tool version changed since the previous run; converting everything"
    }

    /// Indexes `entries` by path (the first of a path wins) and by relative path where that names one input only.
    private mutating func index(_ entries: [Manifest.Entry]) {
        var relativeCount: [String: Int] = [:]
        var byRelative: [String: Manifest.Entry] = [:]
        for e in entries {
            if byPath[e.input.path] == nil { byPath[e.input.path] = e }
            if byRelative[e.input.relativePath]?.input.path != e.input.path {
                relativeCount[e.input.relativePath, default: 0] += 1
                if byRelative[e.input.relativePath] == nil { byRelative[e.input.relativePath] = e }
            }
        }
        byRelativePath = byRelative.filter { relativeCount[$0.key] == 1 }
    }

    /// The manifests in `folder` a run may resume from: `first`, then manifest.json and manifest.shard-*.json.
    public static func candidates(first: URL, in folder: URL) -> [URL] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
            .filter { $0 == "manifest.json" || ($0.hasPrefix("manifest.shard-") && $0.hasSuffix(".json")) }
            .sorted()
        return [first] + names.map { folder.appendingPathComponent($0) }.filter { $0.standardizedFileURL != first.standardizedFileURL }
    }

    /// The previous entry for `item`: matched by its path, else by its relative path when that is unambiguous.
    public func previous(for item: InputItem) -> Manifest.Entry? {
        if let offering { return offering.previous(path: item.displayPath, relativePath: item.relativePath, settingsDigest: digest) }
        return byPath[item.displayPath] ?? byRelativePath[item.relativePath]
    }

    public var isEmpty: Bool { byPath.isEmpty && offering == nil }

    /// The entry to record instead of converting `item` again without reading a byte, or nil when that cannot be
    /// trusted: the input's and the output's size, mtime and inode equal those the previous run recorded (the
    /// output at `output`, the path this run's plan names). Status `skipped`, `resumeCheck` `stat`.
    public static func trustedEntry(previous: Manifest.Entry, item: InputItem, output: String, outputDirectory: URL) -> Manifest.Entry? {
        guard previous.status != .failed, let recorded = previous.output, recorded.path == output, previous.input.sha256 != nil,
              let inputSignature = previous.input.signature, let outputSignature = recorded.signature,
              FileSignature.of(item.url.path)?.matches(inputSignature) == true,
              let outputURL = try? ContainedPath.resolve(recorded.path, inside: outputDirectory),
              FileSignature.of(outputURL.path)?.matches(outputSignature) == true else { return nil }
        return skipped(previous, item: item, check: .stat)
    }

    /// The entry to record instead of converting `item` again, or nil when it must be converted: the input's
    /// size and SHA-256 equal the recorded ones and the output is present with the recorded size and SHA-256.
    /// The entry carries the earlier input and output records (with the files' signatures now, so that the next
    /// run can trust a stat), status `skipped`, `resumeCheck` `sha256`.
    public static func reusableEntry(previous: Manifest.Entry, item: InputItem, outputDirectory: URL) -> Manifest.Entry? {
        guard previous.status != .failed, let output = previous.output, let inputSHA = previous.input.sha256,
              let outputURL = try? ContainedPath.resolve(output.path, inside: outputDirectory) else { return nil }
        // Taken before reading, as a conversion takes them: a write after this point changes the next run's stat.
        let inputSignature = FileSignature.of(item.url.path), outputSignature = FileSignature.of(outputURL.path)
        guard inputSignature?.size == previous.input.size, outputSignature?.size == output.size else { return nil }
        guard (try? SHA256.hex(fileAt: item.url)) == inputSHA, (try? SHA256.hex(fileAt: outputURL)) == output.sha256 else { return nil }
        var entry = skipped(previous, item: item, check: .sha256)
        entry.input.signature = inputSignature.flatMap { $0.isSettled(at: Date()) ? $0 : nil }
        entry.output?.signature = outputSignature
        return entry
    }

    private static func skipped(_ previous: Manifest.Entry, item: InputItem, check: Manifest.ResumeCheck) -> Manifest.Entry {
        var entry = previous
        entry.input.path = item.displayPath
        entry.input.relativePath = item.relativePath
        entry.status = .skipped
        entry.reason = skipReason
        entry.resumeCheck = check
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
