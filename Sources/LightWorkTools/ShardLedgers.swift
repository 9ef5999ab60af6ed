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
