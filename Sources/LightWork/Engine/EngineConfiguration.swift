import CShims
import Foundation

/// How the engine runs on this machine: how many threads one image may use and which CPU features the kernels
/// found. A value handed to `Renderer`, `FileConverter` and the decoders and writers they call (the CLI builds it
/// from `--threads`), never a global: two conversions in one process may use different thread counts. Neither
/// field changes a single output byte (every kernel is per pixel or per tile, and each fast path gives its
/// baseline's bits); they change speed only.
public struct EngineConfiguration: Sendable, Codable, Equatable {
    /// Threads for one image's decode, render and encode (LibRaw's OpenMP demosaic included); at least 1.
    public var threads: Int
    /// The CPU features the C kernels take their fast paths for (as `Sources/CShims/cpu.c` detects them).
    public var cpu: CPUFeatures

    public init(threads: Int, cpu: CPUFeatures = .detected) {
        self.threads = max(1, threads)
        self.cpu = cpu
    }

    /// Every core of this machine, the CPU features it has.
    public static var detected: EngineConfiguration {
        EngineConfiguration(threads: ProcessInfo.processInfo.activeProcessorCount)
    }

    /// At most `threads` workers, and no more than there are `items` to share (at least 1).
    public func workers(for items: Int) -> Int { max(1, min(threads, items)) }
}

/// The CPU features LightWork's C kernels have fast paths for. The kernels ask `cpu.c` themselves (one detection
/// for all of them, one switch, `lw_cpu_force_baseline`, that tests use to hold each fast path to its baseline);
/// this value reports the same answers.
public struct CPUFeatures: Sendable, Codable, Equatable {
    /// AVX2: the demosaic, vector curve and 3D LUT paths.
    public var avx2: Bool
    /// F16C (with AVX): half-float conversions.
    public var f16c: Bool
    /// The SHA extensions (with SSE4.1 and SSSE3): SHA-256 of inputs and outputs.
    public var sha: Bool

    /// What the kernels use now (all false while a test forces the baseline).
    public static var detected: CPUFeatures {
        CPUFeatures(avx2: lw_cpu_avx2() != 0, f16c: lw_cpu_f16c() != 0, sha: lw_cpu_sha() != 0)
    }
}
