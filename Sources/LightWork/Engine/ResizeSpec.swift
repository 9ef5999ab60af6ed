import Foundation

/// What size the user asked for (`--long-edge`, `--short-edge`, `--scale`), and the size that gives a
/// particular image. LightWork only shrinks: resampling cannot add detail, so an image already within the
/// bound keeps its size (the manifest notes it) and `--scale` above 1 is refused.
public struct ResizeSpec: Sendable, Equatable {
    public enum Mode: Sendable, Equatable {
        /// The longer side becomes N pixels.
        case longEdge(Int)
        /// The shorter side becomes N pixels.
        case shortEdge(Int)
        /// Both sides are multiplied by F, 0 < F ≤ 1.
        case scale(Double)
    }

    public let mode: Mode

    /// Validates the request; throws `LightWorkError.usage` for a bound below 1 or a scale outside (0, 1].
    public init(_ mode: Mode) throws {
        switch mode {
        case .longEdge(let n), .shortEdge(let n):
            guard n >= 1 else { throw LightWorkError.usage("an edge length must be a whole number of pixels ≥ 1, not \(n)") }
        case .scale(let f):
            guard f.isFinite, f > 0 else { throw LightWorkError.usage("--scale must be above 0, not \(f)") }
            guard f <= 1 else {
                throw LightWorkError.usage("--scale \(f) would enlarge: LightWork only shrinks (resampling cannot add detail)")
            }
        }
        self.mode = mode
    }

    /// The output size for a `width` × `height` image, or nil when it stays as it is (already within the
    /// bound, or scale 1). The constrained side is exact; the other is rounded to the nearest pixel
    /// (halves away from zero), at least 1.
    public func targetSize(width: Int, height: Int) -> (width: Int, height: Int)? {
        let factor: Double
        switch mode {
        case .longEdge(let n):
            let long = max(width, height)
            guard n < long else { return nil }
            factor = Double(n) / Double(long)
            return width >= height ? (n, ResizeSpec.rounded(Double(height) * factor)) : (ResizeSpec.rounded(Double(width) * factor), n)
        case .shortEdge(let n):
            let short = min(width, height)
            guard n < short else { return nil }
            factor = Double(n) / Double(short)
            return width <= height ? (n, ResizeSpec.rounded(Double(height) * factor)) : (ResizeSpec.rounded(Double(width) * factor), n)
        case .scale(let f):
            let size = (ResizeSpec.rounded(Double(width) * f), ResizeSpec.rounded(Double(height) * f))
            return size == (width, height) ? nil : size
        }
    }

    /// How the manifest's settings record it (it changes output bytes, so it enters the settings digest).
    public var setting: String {
        switch mode {
        case .longEdge(let n): return "long-edge \(n), lanczos3 linear"
        case .shortEdge(let n): return "short-edge \(n), lanczos3 linear"
        case .scale(let f): return "scale \(f), lanczos3 linear"
        }
    }

    /// Why an image was left at its size (a manifest note).
    public func keptNote(width: Int, height: Int) -> String {
        switch mode {
        case .longEdge(let n): return "not resized: \(width)×\(height) is within long edge \(n) (LightWork does not enlarge)"
        case .shortEdge(let n): return "not resized: \(width)×\(height) is within short edge \(n) (LightWork does not enlarge)"
        case .scale(let f): return "not resized: scale \(f) leaves \(width)×\(height) unchanged"
        }
    }

    static func rounded(_ v: Double) -> Int { max(1, Int(v.rounded(.toNearestOrAwayFromZero))) }
}
