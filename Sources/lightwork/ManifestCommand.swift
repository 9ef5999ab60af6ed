import Foundation
import LightWork

/// `lightwork manifest merge A.json B.json… -o all.json` (or an output folder and `--shards N`): joins shard
/// manifests into one.
enum ManifestCommand {
    static let specs: [OptionSpec] = [
        OptionSpec(name: "output", value: "FILE", help: "where the merged manifest goes; required", short: "o"),
        OptionSpec(name: "shards", value: "N", help: "the shards were cut N ways: take OUTDIR/manifest.shard-*-of-N.json from a folder given, and report every one of the N that is missing"),
        OptionSpec(name: "help", value: nil, help: "this text", short: "h"),
    ]

    static let help = """
    Usage: lightwork manifest merge MANIFEST... -o MERGED.json
           lightwork manifest merge OUTDIR --shards N -o OUTDIR/manifest.json

    Joins the manifests that 'lightwork convert --shard K/N' runs wrote (manifest.shard-K-of-N.json) into
    one describing the whole batch, entries in input order. A folder stands for the shards recorded in it:
    each shard's ledger (.lightwork/ledger.shard-K-of-N.sqlite; its manifest where a shard has none). The
    merged run then joins the folder's own ledger, and the merged manifest lists every current record of
    the folder, as 'convert' writes it.
    Refuses manifests made with different settings or LightWork versions. Reports shards that are missing,
    were interrupted or stopped without finishing (killed), and failed files.

    Options:
    \(CommandLineParser.help(specs))

    Exit status: 0 complete with no failure, 1 merged but a shard is missing, interrupted or unfinished or
    a file failed (the merged manifest is still written), 2 usage error, no manifest found, or manifests
    that cannot be merged.

    Examples:
      lightwork manifest merge out/manifest.shard-*-of-4.json -o out/manifest.json
      lightwork manifest merge out --shards 4 -o out/manifest.json
    """

    static func run(_ args: [String]) -> Int32 {
        guard args.first == "merge" else {
            if args.first == "--help" || args.first == "-h" { print(help); return 0 }
            FileHandle.standardError.write(Data("lightwork manifest: expected 'merge'\n\n\(help)\n".utf8))
            return 2
        }
        let console = Console(mode: .normal, json: false)
        let output: URL
        var inputs: [(name: String, manifest: Manifest)] = []
        // Shards recorded in ledgers: their entries are streamed from there, never held at once.
        var ledgerShards: [(name: String, url: URL, header: Manifest)] = []
        var expected: Int?
        var fromFolder = false
        var folders: [String] = []
        do {
            let parsed = try CommandLineParser.parse(Array(args.dropFirst()), specs: specs)
            if parsed.has("help") { print(help); return 0 }
            guard let o = parsed.value("output") else { throw LightWorkError.usage("manifest merge needs -o MERGED.json") }
            guard !parsed.positionals.isEmpty else { throw LightWorkError.usage("manifest merge needs at least one manifest") }
            output = URL(fileURLWithPath: o)
            if let n = parsed.value("shards") {
                guard let v = Int(n), v >= 1 else { throw LightWorkError.usage("--shards takes a whole number ≥ 1, not '\(n)'") }
                expected = v
            }
            var paths: [String] = []
            for path in parsed.positionals {
                var isDir: ObjCBool = false
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir), isDir.boolValue else { paths.append(path); continue }
                fromFolder = true
                folders.append(path)
                let found = try shardRecords(in: path, count: expected)
                guard !found.isEmpty else {
                    throw LightWorkError.usage("\(path): no shard manifest or ledger (manifest.shard-K-of-\(expected.map(String.init) ?? "N").json, "
                                               + ".lightwork/ledger.shard-K-of-\(expected.map(String.init) ?? "N").sqlite) in this folder"
                                               + (expected.map { ": all \($0) shard(s) are missing" } ?? ""))
                }
                for (name, source) in found {
                    switch source {
                    case .manifest(let file): paths.append(file)
                    case let .ledger(url, header): ledgerShards.append((name, url, header))
                    }
                }
            }
            for path in paths {
                guard let data = FileManager.default.contents(atPath: path) else { throw LightWorkError.usage("\(path): cannot read it") }
                do {
                    inputs.append((path, try Manifest.decode(data)))
                } catch {
                    throw LightWorkError.usage("\(path): not a LightWork manifest (\(error))")
                }
            }
        } catch {
            FileHandle.standardError.write(Data("lightwork manifest merge: \(error)\nRun 'lightwork manifest --help' for usage.\n".utf8))
            return 2
        }
        var result: ManifestMerge.Result
        var summary = Manifest.Summary()
        do {
            result = try ManifestMerge.mergeHeaders(ledgerShards.map { ($0.name, $0.header) } + inputs, expectedShardCount: expected)
            let shards = try FolderHistory.load(separately: ledgerShards.map(\.url))
            let fromFiles = ManifestMerge.inInputOrder(inputs.flatMap(\.manifest.entries))
            summary = try shards.summary()
            for e in fromFiles { summary.count(e.status) }
            var failed: [Manifest.Entry] = []
            // The ledgers' entries in input order, the manifest files' among them (after them on a tie, as they were given).
            func forEachMerged(_ body: (Manifest.Entry) throws -> Void) throws {
                var next = fromFiles.startIndex
                func take(_ e: Manifest.Entry) throws {
                    if e.status == .failed { failed.append(e) }
                    try body(e)
                }
                try shards.forEachCurrent(inputOrder: true) { c in
                    let key = c.entry.input.index ?? Int.max
                    while next < fromFiles.endIndex, (fromFiles[next].input.index ?? Int.max) < key {
                        try take(fromFiles[next])
                        next += 1
                    }
                    try take(FolderHistory.listed(c, settingsDigest: result.manifest.settingsDigest))
                }
                for e in fromFiles[next...] { try take(e) }
            }
            var run = result.manifest
            run.summary = summary
            if folders.count == 1, let folder = folders.first {
                // One folder's split: the merged run joins the folder's ledger, and the manifest covers the folder.
                let ledger = try ExportLedger.open(folder: URL(fileURLWithPath: folder), shard: nil)
                run.scope = .folder
                let id = try ledger.beginRun(run, command: "manifest merge")
                try ledger.insertAll(run: id) { (add: (Manifest.Entry, String) throws(LightWorkError) -> Void) throws(LightWorkError) in
                    do { try forEachMerged { try add($0, run.settingsDigest) } } catch {
                        throw error as? LightWorkError ?? .ledger("\(error)")
                    }
                }
                try FolderHistory.load(ledger: ledger.url).writeManifest(header: run, to: output)
            } else {
                try ManifestStore.write(to: output) { file in
                    try ManifestJSON.write(header: run, to: file) { emit in try forEachMerged(emit) }
                }
            }
            result.failed = failed
        } catch {
            console.error("manifest merge: \(error)" + (fromFolder && expected == nil ? " (give --shards N to take one split's manifests)" : ""))
            return 2
        }
        if let n = result.shardCount {
            for k in result.missingShards { console.error("shard \(k)/\(n) is missing (no manifest.shard-\(k)-of-\(n).json given)") }
        }
        for name in result.interrupted { console.error("\(name): that run was interrupted before it finished; run the same command again") }
        for name in result.unfinished {
            console.error("\(name): that run stopped without finishing (killed, or still running); run the same command again to complete it")
        }
        for e in result.failed { console.error("\(e.input.path): \(e.reason ?? "failed")") }
        let s = summary
        console.result("\(s.total) file(s): \(s.converted) converted, \(s.skipped) skipped, \(s.failed) failed"
                       + (result.shardCount.map { ", \($0 - result.missingShards.count) of \($0) shard(s)" } ?? "") + " -> \(output.path)")
        return result.isComplete ? 0 : 1
    }

    enum ShardSource {
        /// A shard's ledger, with its latest run's header (no entries).
        case ledger(URL, header: Manifest)
        /// A shard manifest written before the ledger existed.
        case manifest(String)
    }

    /// Each shard of `folder` (of the given N, or of any), sorted by N and K: its ledger
    /// (`.lightwork/ledger.shard-K-of-N.sqlite`) where there is one, else its `manifest.shard-K-of-N.json`.
    static func shardRecords(in folder: String, count: Int?) throws(LightWorkError) -> [(name: String, source: ShardSource)] {
        func shards(in dir: String, prefix: String, suffix: String) -> [(k: Int, n: Int, path: String)] {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
            return names.compactMap { name in
                guard name.hasPrefix(prefix), name.hasSuffix(suffix) else { return nil }
                let parts = name.dropFirst(prefix.count).dropLast(suffix.count).components(separatedBy: "-of-")
                guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]), count == nil || n == count else { return nil }
                return (k, n, (dir as NSString).appendingPathComponent(name))
            }
        }
        let ledgerDir = (folder as NSString).appendingPathComponent(ExportLedger.folderName)
        var found: [String: (k: Int, n: Int, name: String, source: ShardSource)] = [:]
        for s in shards(in: folder, prefix: "manifest.shard-", suffix: ".json") { found["\(s.k)/\(s.n)"] = (s.k, s.n, s.path, .manifest(s.path)) }
        for s in shards(in: ledgerDir, prefix: "ledger.shard-", suffix: ".sqlite") {
            let url = URL(fileURLWithPath: s.path)
            guard let run = try ExportLedger(url: url, readOnly: true).runs().last else { continue }
            found["\(s.k)/\(s.n)"] = (s.k, s.n, s.path, .ledger(url, header: run.header))
        }
        return found.values.sorted { ($0.n, $0.k) < ($1.n, $1.k) }.map { ($0.name, $0.source) }
    }
}
