import Foundation
import LightWork

/// `lightwork manifest merge A.json B.json… -o all.json`: joins shard manifests into one.
enum ManifestCommand {
    static let specs: [OptionSpec] = [
        OptionSpec(name: "output", value: "FILE", help: "where the merged manifest goes; required", short: "o"),
        OptionSpec(name: "help", value: nil, help: "this text", short: "h"),
    ]

    static let help = """
    Usage: lightwork manifest merge MANIFEST... -o MERGED.json

    Joins the manifests that 'lightwork convert --shard K/N' runs wrote (manifest.shard-K-of-N.json) into
    one describing the whole batch, entries in input order. Refuses manifests made with different settings
    or LightWork versions. Reports shards that are missing or were interrupted, and failed files.

    Options:
    \(CommandLineParser.help(specs))

    Exit status: 0 complete with no failure, 1 merged but a shard is missing or interrupted or a file
    failed (the merged manifest is still written), 2 usage error or manifests that cannot be merged.

    Example:
      lightwork manifest merge out/manifest.shard-*-of-4.json -o out/manifest.json
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
        do {
            let parsed = try CommandLineParser.parse(Array(args.dropFirst()), specs: specs)
            if parsed.has("help") { print(help); return 0 }
            guard let o = parsed.value("output") else { throw LightWorkError.usage("manifest merge needs -o MERGED.json") }
            guard !parsed.positionals.isEmpty else { throw LightWorkError.usage("manifest merge needs at least one manifest") }
            output = URL(fileURLWithPath: o)
            for path in parsed.positionals {
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
            result = try ManifestMerge.merge(inputs)
            try AtomicFile.write(data: try result.manifest.encoded(), to: output)
        } catch {
            console.error("manifest merge: \(error)")
            return 2
        }
        if let n = result.shardCount {
            for k in result.missingShards { console.error("shard \(k)/\(n) is missing (no manifest.shard-\(k)-of-\(n).json given)") }
        }
        for name in result.interrupted { console.error("\(name): that run was interrupted before it finished; run the same command again") }
        for e in result.failed { console.error("\(e.input.path): \(e.reason ?? "failed")") }
        let s = result.manifest.summary
        console.result("\(s.total) file(s): \(s.converted) converted, \(s.skipped) skipped, \(s.failed) failed"
                       + (result.shardCount.map { ", \($0 - result.missingShards.count) of \($0) shard(s)" } ?? "") + " -> \(output.path)")
        return result.isComplete ? 0 : 1
    }
}
