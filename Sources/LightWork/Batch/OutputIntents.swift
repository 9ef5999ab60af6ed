import Foundation

/// The outputs a run is about to write, journaled beside its manifest (`.manifest.json.intents`, one JSON line
/// per file, appended before the file is dispatched). A `kill -9` can land after a worker renamed a finished
/// output into place and before the manifest recorded it; without this journal the next run would find a file
/// under that name that no manifest claims, take it for someone else's and skip the input (`--on-exist skip`).
/// With it, the next run knows the name is this export's own and converts the input again (the output is
/// replaced atomically). The journal is removed when a run finishes with its manifest complete.
public struct OutputIntents: Sendable {
    public let url: URL

    public init(manifestURL: URL) {
        url = manifestURL.deletingLastPathComponent().appendingPathComponent("." + manifestURL.lastPathComponent + ".intents")
    }

    private struct Line: Codable {
        var output: String
        var input: String
    }

    /// Output path → input relative path, for every intent recorded (later lines win); empty when there is none.
    public func read() -> [String: String] {
        guard let data = try? Data(contentsOf: url) else { return [:] }
        var out: [String: String] = [:]
        for line in data.split(separator: 0x0A) {
            if let l = try? JSONDecoder().decode(Line.self, from: Data(line)) { out[l.output] = l.input }
        }
        return out
    }

    /// Appends one intent (one write with O_APPEND, so concurrent lines never interleave). Best effort: a
    /// journal that cannot be written only loses this protection.
    public func record(output: String, input: String) {
        guard var data = try? JSONEncoder().encode(Line(output: output, input: input)) else { return }
        data.append(0x0A)
        let fd = open(url.path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o666)
        guard fd >= 0 else { return }
        defer { close(fd) }
        _ = data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }

    public func remove() { unlink(url.path) }

    /// The intents of every run that left a journal in `folder` (the whole run's and every shard split's, saved
    /// manifest or not) and of the run whose manifest is `first` (which wins where two disagree): a shard killed
    /// before recording an output still owns it when a whole run, or another split, plans the same folder.
    public static func all(first: URL, in folder: URL) -> [String: String] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
            .filter { $0.hasPrefix(".manifest") && $0.hasSuffix(".json.intents") }
            .sorted()
        let own = OutputIntents(manifestURL: first)
        var out = own.read()
        for name in names {
            let journal = OutputIntents(url: folder.appendingPathComponent(name))
            if journal.url.standardizedFileURL != own.url.standardizedFileURL { out.merge(journal.read()) { earlier, _ in earlier } }
        }
        return out
    }

    private init(url: URL) { self.url = url }
}
