import Foundation
import LightWork

/// `lightwork watch --status OUTDIR`: reads the status file a watch keeps beside its manifest and says
/// what it has waiting, queued, in progress, done and failed, and whether it still runs.
enum StatusReport {
    static func run(_ parsed: ParsedArguments) -> Int32 {
        guard let target = parsed.positionals.first ?? parsed.value("output"), parsed.positionals.count <= 1 else {
            return WatchCommand.usageError(LightWorkError.usage("--status takes one OUTDIR (or the watch-status.json file)"))
        }
        var isDir: ObjCBool = false
        let url: URL
        if FileManager.default.fileExists(atPath: target, isDirectory: &isDir), isDir.boolValue {
            url = WatchStatus.url(besideManifest: URL(fileURLWithPath: target).appendingPathComponent("manifest.json"))
        } else {
            url = URL(fileURLWithPath: target)
        }
        let status: WatchStatus
        do {
            status = try WatchStatus.read(url)
        } catch {
            FileHandle.standardError.write(Data("lightwork watch: no watch status at \(url.path) (has a watch ever run there?)\n".utf8))
            return 2
        }
        let alive = status.processAlive
        if parsed.has("json") {
            var s = status
            if !alive && s.state != .stopped { s.state = .notRunning }
            if let data = try? s.encoded() { FileHandle.standardOutput.write(data) }
            return alive ? 0 : 3
        }
        let state = alive ? "\(status.state.rawValue) (pid \(status.pid), \(status.mode), up \(ProgressMeter.clock(status.uptime)))"
            : status.state == .stopped ? "stopped at \(status.updatedAt)" : "not running (last update \(status.updatedAt); it was killed or crashed)"
        var lines = ["watch of \(status.inbox) -> \(status.output): \(state)",
                     "  \(status.waiting) being written or settling, \(status.queued) queued, \(status.inProgress) in progress",
                     "  \(status.converted) converted, \(status.skipped) skipped, \(status.failed) failed (since the watch began)"]
        lines.append("  film: \(status.film ?? "none"); recipe: \(status.recipe ?? "none")")
        func list(_ title: String, _ names: [String], _ count: Int) {
            guard !names.isEmpty else { return }
            lines.append("  \(title): " + names.prefix(10).joined(separator: ", ") + (count > 10 ? ", … (\(count - 10) more)" : ""))
        }
        list("in progress", status.inProgressFiles, status.inProgress)
        list("queued", status.queuedFiles, status.queued)
        list("settling", status.waitingFiles, status.waiting)
        for f in status.recentFailures.suffix(5) { lines.append("  failed \(f.at): \(f.path): \(f.reason)") }
        lines.append("  manifest: \(status.manifest)")
        print(lines.joined(separator: "\n"))
        return alive ? 0 : 3
    }
}
