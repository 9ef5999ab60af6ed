import Foundation
import LightWork

/// `lightwork worker` (hidden): started by `convert` with the same arguments, it builds the same options and
/// converts the files the parent sends over its stdin, one at a time (see `WorkerLoop`).
enum WorkerCommand {
    static func run(_ args: [String]) -> Int32 {
        do {
            let parsed = try CommandLineParser.parse(args, specs: ConvertCommand.specs)
            // First, so that everything the worker does (LUT loading included) is under the parent's limit.
            if let m = parsed.value("worker-memory"), let bytes = Int(m), bytes > 0, !WorkerLoop.limitAddressSpace(bytes: bytes) {
                FileHandle.standardError.write(Data("lightwork worker: cannot set the memory limit (\(String(cString: strerror(errno))))\n".utf8))
            }
            guard let out = parsed.value("output") else { throw LightWorkError.usage("worker needs the convert arguments, -o OUTDIR included") }
            var options = try ConvertCommand.makeOptions(parsed, outputDirectory: URL(fileURLWithPath: out))
            // The parent gives each worker its share of the cores (`--threads`): LibRaw's OpenMP uses the same share.
            let engine = try EngineArguments.configuration(parsed)
            // Images too large for this worker's address space are refused from their header, with a message.
            if let m = parsed.value("worker-memory"), let bytes = Int(m), bytes > 0 { options.decode.memoryLimit = bytes }
            return WorkerLoop.run(converter: FileConverter(options: options, engine: engine))
        } catch {
            FileHandle.standardError.write(Data("lightwork worker: \(error)\n".utf8))
            return 2
        }
    }
}
