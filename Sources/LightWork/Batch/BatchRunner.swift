import Foundation

/// Converts a list of inputs one after another with one `FileConverter`, keeps the manifest on disk
/// current after every file (atomically), and reports each outcome as it happens.
public final class BatchRunner: @unchecked Sendable {
    public enum Event: Sendable {
        case started(total: Int)
        case finished(index: Int, total: Int, item: InputItem, entry: Manifest.Entry)
    }

    public let converter: FileConverter
    public let manifestURL: URL
    public private(set) var manifest: Manifest

    public init(converter: FileConverter, manifestURL: URL, startedAt: Date = Date()) {
        self.converter = converter
        self.manifestURL = manifestURL
        let host = ProcessInfo.processInfo.hostName
        manifest = Manifest(tool: Manifest.ToolInfo(version: LightWorkVersion.current, libraries: LightWorkVersion.libraries),
                            settings: converter.options.settings, host: host, startedAt: startedAt)
    }

    /// Runs the batch; returns the final manifest. Manifest write failures are reported through `onManifestError`.
    @discardableResult
    public func run(_ items: [InputItem], onEvent: (Event) -> Void, onManifestError: (LightWorkError) -> Void) -> Manifest {
        onEvent(.started(total: items.count))
        var claimed: [String: String] = [:]   // output path → input that claimed it
        for (i, item) in items.enumerated() {
            let target = converter.relativeOutputPath(for: item)
            let entry: Manifest.Entry
            if let owner = claimed[target] {
                // Two inputs would write one output: the first keeps it, the later one fails visibly.
                entry = Manifest.Entry(input: Manifest.Input(path: item.displayPath, relativePath: item.relativePath), status: .failed,
                                       reason: "its output \(target) is already produced by \(owner); rename one of them")
            } else {
                claimed[target] = item.displayPath
                entry = converter.convert(item)
            }
            manifest.entries.append(entry)
            manifest.updateSummary()
            if let e = save() { onManifestError(e) }
            onEvent(.finished(index: i + 1, total: items.count, item: item, entry: entry))
        }
        manifest.finishedAt = Manifest.timestamp(Date())
        if let e = save() { onManifestError(e) }
        return manifest
    }

    private func save() -> LightWorkError? {
        do {
            try FileManager.default.createDirectory(at: manifestURL.deletingLastPathComponent(), withIntermediateDirectories: true)
            try AtomicFile.write(data: try manifest.encoded(), to: manifestURL)
            return nil
        } catch let e as LightWorkError {
            return e
        } catch {
            return .writeFailed("manifest \(manifestURL.path): \(FileConverter.describe(error))")
        }
    }
}
