import Foundation

/// Converts a list of inputs one after another with one `FileConverter`, keeps the manifest on disk
/// current after every file (atomically), and reports each outcome as it happens.
public final class BatchRunner: @unchecked Sendable {
    public enum Event: Sendable {
        case started(total: Int)
        /// A file starts converting (for "current file" in progress displays).
        case converting(index: Int, total: Int, item: InputItem)
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

    /// Runs a planned batch (`BatchPlanner`: names and collisions are already decided); returns the final
    /// manifest. Manifest write failures are reported through `onManifestError`.
    @discardableResult
    public func run(_ jobs: [PlannedJob], onEvent: (Event) -> Void, onManifestError: (LightWorkError) -> Void) -> Manifest {
        onEvent(.started(total: jobs.count))
        for (i, job) in jobs.enumerated() {
            if job.outputPath != nil { onEvent(.converting(index: i + 1, total: jobs.count, item: job.item)) }
            let entry = converter.convert(job)
            manifest.entries.append(entry)
            manifest.updateSummary()
            if let e = save() { onManifestError(e) }
            onEvent(.finished(index: i + 1, total: jobs.count, item: job.item, entry: entry))
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
