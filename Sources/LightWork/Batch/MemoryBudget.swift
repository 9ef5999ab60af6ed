import Foundation

/// How much memory the files in flight may take together (`--max-memory`): a file is dispatched only while
/// the estimates of those in flight plus its own stay under the limit, and one file is always allowed, so
/// a batch of 100-MP files runs fewer at once where a batch of 24-MP files runs many.
public struct MemoryBudget: Sendable, Equatable {
    /// Bytes.
    public let limit: Int

    public init(limit: Int) { self.limit = limit }

    /// Peak bytes per pixel of one conversion, measured: LibRaw's buffers, the half-float working image and
    /// 16-bit output samples (a 24-MP DNG through the film chain peaks near 550 MB resident).
    public static let bytesPerPixel = 24
    /// A worker's own footprint (code, profiles, LUTs).
    public static let baseBytes = 64 << 20

    /// The default: half of the physical memory (or of the cgroup's limit, when one is set and smaller).
    public static func defaultBudget() -> MemoryBudget {
        MemoryBudget(limit: max(256 << 20, (physicalMemory() ?? (4 << 30)) / 2))
    }

    /// `8G`, `512M`, `1.5GiB`, `40%` (of physical memory) or a number of bytes.
    public static func parse(_ text: String, flag: String = "--max-memory") throws(LightWorkError) -> MemoryBudget {
        let t = text.trimmingCharacters(in: .whitespaces).uppercased()
        let bad = LightWorkError.usage("\(flag) takes a size such as 8G, 512M or 40%, not '\(text)'")
        if t.hasSuffix("%") {
            guard let p = Double(t.dropLast()), p > 0, p <= 100 else { throw bad }
            return MemoryBudget(limit: Int(Double(physicalMemory() ?? (4 << 30)) * p / 100))
        }
        var number = Substring(t)
        for unit in ["IB", "B"] where number.hasSuffix(unit) { number = number.dropLast(unit.count); break }
        var scale = 1.0
        if let last = number.last, let power = ["K": 1, "M": 2, "G": 3, "T": 4][String(last)] {
            scale = pow(1024, Double(power))
            number = number.dropLast()
        }
        guard let v = Double(number), v > 0, v * scale >= 1_048_576, v * scale < 1e18 else { throw bad }
        return MemoryBudget(limit: Int(v * scale))
    }

    /// Estimated peak bytes of converting `url`: pixels from its header (or, for RAW formats the probe does
    /// not read, one pixel per byte of file, which over-estimates compressed RAWs only mildly), plus the
    /// file itself, which is read whole.
    public static func estimate(for url: URL) -> Int {
        let size = ResumeIndex.fileSize(url.path) ?? 0
        let pixels = ImageSizeProbe.pixels(at: url) ?? size
        return baseBytes + size + min(pixels, 1 << 40) * bytesPerPixel
    }

    /// Whether a file estimated at `bytes` may start while `inFlight` bytes are already budgeted.
    public func allows(_ bytes: Int, inFlight: Int, filesInFlight: Int) -> Bool {
        filesInFlight == 0 || inFlight + bytes <= limit
    }

    /// MemTotal from /proc/meminfo, lowered to the cgroup memory limit when one applies.
    public static func physicalMemory() -> Int? {
        var total: Int?
        if let text = try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8),
           let line = text.split(separator: "\n").first(where: { $0.hasPrefix("MemTotal:") }),
           let kib = Int(line.split(separator: " ").dropFirst().first ?? "") {
            total = kib * 1024
        }
        for path in ["/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"] {
            if let text = try? String(contentsOfFile: path, encoding: .utf8),
               let limit = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)), limit > 0 {
                total = min(total ?? limit, limit)
            }
        }
        return total
    }
}
