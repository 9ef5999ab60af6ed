import Foundation
import LightWork

/// `lightwork worker` (hidden): started by `convert` with the same arguments, it builds the same options and
/// converts the files the parent sends over its stdin, one at a time (see `WorkerLoop`).
enum WorkerCommand {
    static func run(_ args: [String]) -> Int32 {
        do {
            let parsed = try CommandLineParser.parse(args, specs: ConvertCommand.specs)
            guard let out = parsed.value("output") else { throw LightWorkError.usage("worker needs the convert arguments, -o OUTDIR included") }
            var options = try ConvertCommand.makeOptions(parsed, outputDirectory: URL(fileURLWithPath: out))
            if let t = parsed.value("threads"), let n = Int(t), n >= 1 { Parallel.threads = n }
            // The parent gives each worker its share of the cores: the demosaic (OpenMP) uses the same share.
            options.decode.libRawThreads = Parallel.threads
            return WorkerLoop.run(converter: FileConverter(options: options))
        } catch {
            FileHandle.standardError.write(Data("lightwork worker: \(error)\n".utf8))
            return 2
        }
    }
}
