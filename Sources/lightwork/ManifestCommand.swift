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
    one describing the whole batch, entries in input order. A folder stands for the shard manifests in it.
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
        var expected: Int?
        var fromFolder = false
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
                let found = shardManifests(in: path, count: expected)
                guard !found.isEmpty else {
                    throw LightWorkError.usage("\(path): no shard manifest (manifest.shard-K-of-\(expected.map(String.init) ?? "N").json) in this folder"
                                               + (expected.map { ": all \($0) shard(s) are missing" } ?? ""))
                }
                paths += found
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
        let result: ManifestMerge.Result
        do {
            result = try ManifestMerge.merge(inputs, expectedShardCount: expected)
            try AtomicFile.write(data: try result.manifest.encoded(), to: output)
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
        let s = result.manifest.summary
        console.result("\(s.total) file(s): \(s.converted) converted, \(s.skipped) skipped, \(s.failed) failed"
                       + (result.shardCount.map { ", \($0 - result.missingShards.count) of \($0) shard(s)" } ?? "") + " -> \(output.path)")
        return result.isComplete ? 0 : 1
    }

    /// `folder/manifest.shard-K-of-N.json` (of the given N, or of any), sorted by K.
    static func shardManifests(in folder: String, count: Int?) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        var found: [(k: Int, n: Int, name: String)] = []
        for name in names where name.hasPrefix("manifest.shard-") && name.hasSuffix(".json") {
            let parts = name.dropFirst("manifest.shard-".count).dropLast(".json".count).components(separatedBy: "-of-")
            guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]), count == nil || n == count else { continue }
            found.append((k, n, name))
        }
        return found.sorted { ($0.n, $0.k) < ($1.n, $1.k) }.map { (folder as NSString).appendingPathComponent($0.name) }
    }
}
