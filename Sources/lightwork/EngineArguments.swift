import Foundation
import LightWork

/// `--threads` as the engine configuration every command that converts hands to its converter.
enum EngineArguments {
    /// `--threads N` (N ≥ 1), else `defaultThreads` (all cores unless the command shares them), with the CPU's features.
    static func configuration(_ parsed: ParsedArguments,
                              defaultThreads: Int = ProcessInfo.processInfo.activeProcessorCount) throws -> EngineConfiguration {
        guard let t = parsed.value("threads") else { return EngineConfiguration(threads: defaultThreads) }
        guard let n = Int(t), n >= 1 else { throw LightWorkError.usage("--threads takes a whole number ≥ 1, not '\(t)'") }
        return EngineConfiguration(threads: n)
    }
}
