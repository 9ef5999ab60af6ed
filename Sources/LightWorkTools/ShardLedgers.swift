import Foundation
import LightWork

/// `lightwork-tools make-shard-ledgers -o DIR --shards N --entries M`: the ledgers N finished shard tasks would leave
/// in DIR (`.lightwork/ledger.shard-K-of-N.sqlite`, M converted entries each, shaped like a RAW conversion's), for
/// timing `lightwork manifest merge DIR --shards N` (`make bench`).
enum ShardLedgers {
    static func run(_ arguments: ArraySlice<String>) throws {
        var output: URL?
        var shards = 100, entries = 1_000
        var args = arguments
        while let flag = args.popFirst() {
            guard let value = args.popFirst() else { throw LightWorkError.usage("\(flag) needs a value") }
            switch flag {
            case "-o", "--output": output = URL(fileURLWithPath: value)
            case "--shards": shards = Int(value) ?? 0
            case "--entries": entries = Int(value) ?? 0
            default: throw LightWorkError.usage("make-shard-ledgers: unknown option \(flag)")
            }
        }
        guard let output else { throw LightWorkError.usage("make-shard-ledgers needs -o DIR") }
        guard shards >= 1, entries >= 0 else { throw LightWorkError.usage("make-shard-ledgers: --shards ≥ 1 and --entries ≥ 0") }
        let settings = ConvertSpec(outputDirectory: output).settings
        for k in 0..<shards {
            let shard = try Shard(index: k, count: shards)
            let ledger = try ExportLedger.open(folder: output, shard: shard)
            var header = Manifest(tool: Manifest.ToolInfo(version: LightWorkVersion.current, libraries: LightWorkVersion.libraries),
                                  settings: settings, host: "node-\(k)", startedAt: Date(timeIntervalSince1970: 1_764_000_000))
            header.shard = Manifest.ShardInfo(index: k, count: shards)
            header.finishedAt = Manifest.timestamp(Date(timeIntervalSince1970: 1_764_000_600))
            let run = try ledger.beginRun(header, command: "convert")
            let changes = try (0..<entries).map { i in
                ExportLedger.Change.insert(try entry(index: k * entries + i + 1), settingsDigest: header.settingsDigest)
            }
            try ledger.apply(changes, run: run)
        }
        FileHandle.standardError.write(Data("wrote \(shards) shard ledger(s) of \(entries) entries into \(output.path)\n".utf8))
    }

    /// `lightwork-tools ledger-recording-cost -o DIR [--entries N]`: records N entries (default 100,000) into a new
    /// ledger in DIR in checkpoints, as a batch does, and prints what recording an entry costs at 1,000 entries and at
    /// N (the median of a few checkpoints at each), and what reading the folder's history back takes (`make bench`).
    static func recordingCost(_ arguments: ArraySlice<String>) throws {
        var output: URL?
        var total = 100_000
        var args = arguments
        while let flag = args.popFirst() {
            guard let value = args.popFirst() else { throw LightWorkError.usage("\(flag) needs a value") }
            switch flag {
            case "-o", "--output": output = URL(fileURLWithPath: value)
            case "--entries": total = Int(value) ?? 0
            default: throw LightWorkError.usage("ledger-recording-cost: unknown option \(flag)")
            }
        }
        guard let output else { throw LightWorkError.usage("ledger-recording-cost needs -o DIR") }
        let batch = ManifestStore.checkpointEntries
        guard total >= 4 * batch + 1_000 else { throw LightWorkError.usage("ledger-recording-cost: --entries ≥ \(4 * batch + 1_000)") }
        func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }
        let ledger = try ExportLedger.open(folder: output, shard: nil)
        var header = Manifest(tool: Manifest.ToolInfo(version: LightWorkVersion.current, libraries: LightWorkVersion.libraries),
                              settings: ConvertSpec(outputDirectory: output).settings, host: "bench", startedAt: Date(timeIntervalSince1970: 1_764_000_000))
        header.finishedAt = Manifest.timestamp(Date(timeIntervalSince1970: 1_764_000_600))
        let run = try ledger.beginRun(header, command: "convert")
        var perEntry: [Double] = []    // seconds per entry of each checkpoint
        for first in stride(from: 0, to: total, by: batch) {
            let changes = try (first..<min(total, first + batch)).map { i in
                ExportLedger.Change.insert(try entry(index: i + 1), settingsDigest: header.settingsDigest)
            }
            let start = now()
            try ledger.apply(changes, run: run)
            perEntry.append((now() - start) / Double(changes.count))
        }
        func median(_ xs: ArraySlice<Double>) -> Double { xs.sorted()[xs.count / 2] }
        let at1k = median(perEntry[0..<(1_000 / batch + 1)]), atTotal = median(perEntry[(perEntry.count - 4)...])
        let readStart = now()
        let read = try FolderHistory.load(folder: output).current.count
        let readSeconds = now() - readStart
        guard read == total else { throw LightWorkError.ledger("ledger-recording-cost: \(read) of \(total) entries read back") }
        print(String(format: "recording an entry: %.1f µs at 1,000 entries, %.1f µs at %d (%.2fx); reading %d back %.2f s",
                     at1k * 1e6, atTotal * 1e6, total, atTotal / at1k, total, readSeconds))
    }

    /// A converted RAW's entry, as a worker reports it (decoded from its JSON: the output record has no public initialiser).
    static func entry(index: Int) throws -> Manifest.Entry {
        let name = String(format: "day%02d/IMG_%06d", index % 7, index)
        let json: [String: Any] = [
            "input": ["path": "/shoot/\(name).CR2", "relativePath": "\(name).CR2", "index": index, "size": 25_000_000 + index,
                      "sha256": SHA256.hex(Data(name.utf8)), "kind": "raw", "make": "Canon", "model": "EOS 5D Mark IV", "width": 6720, "height": 4480,
                      "decisions": ["whiteBalance": "as shot", "demosaic": "ahd (LightWork)", "colour": "DNG colour model", "orientation": "1"]],
            "status": "converted",
            "output": ["path": "\(name).tif", "sha256": SHA256.hex(Data("\(name).tif".utf8)), "size": 180_000_000, "format": "tiff16",
                       "bitDepth": 16, "channels": 3, "colorSpace": "srgb", "width": 6720, "height": 4480],
            "timings": ["decode": 0.31, "render": 0.22, "encode": 0.18, "total": 0.71],
            "notes": [String](),
        ]
        return try JSONDecoder().decode(Manifest.Entry.self, from: JSONSerialization.data(withJSONObject: json))
    }
}
