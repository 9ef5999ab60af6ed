import Foundation

/// Summary of a set of CIEDE2000 differences (per pixel, or per chart patch): what a verdict is made from.
public struct DeltaEStatistics: Sendable, Codable, Equatable {
    /// How many differences were measured.
    public var count: Int
    /// The largest difference.
    public var max: Double
    /// The mean difference (summed in order, in Double: the same on every run).
    public var mean: Double
    /// The 99th percentile (nearest rank).
    public var p99: Double
    /// The level `countAbove` and `shareAbove` count against (the case's max threshold).
    public var threshold: Double
    /// How many differences exceed `threshold`.
    public var countAbove: Int
    /// `countAbove / count` (0…1).
    public var shareAbove: Double
    /// Where the largest difference is: the pixel index (y·width + x) or the patch index in its list.
    public var worstIndex: Int?

    /// Statistics of `values` counted against `threshold`; an empty list gives zeros.
    public init(_ values: [Double], threshold: Double) {
        count = values.count
        self.threshold = threshold
        var sum = 0.0, worst = -1.0, above = 0
        var worstAt: Int?
        for (i, v) in values.enumerated() {
            sum += v
            if v > worst { worst = v; worstAt = i }
            if v > threshold { above += 1 }
        }
        max = Swift.max(worst, 0)
        mean = count > 0 ? sum / Double(count) : 0
        countAbove = above
        shareAbove = count > 0 ? Double(above) / Double(count) : 0
        worstIndex = worstAt
        if count > 0 {
            let sorted = values.sorted()
            p99 = sorted[Swift.min(count - 1, Swift.max(0, Int((0.99 * Double(count)).rounded(.up)) - 1))]
        } else {
            p99 = 0
        }
    }
}

/// When a case fails (JSON `thresholds`): any given field overrides the suite's, which overrides the defaults.
/// The defaults are darktable's integration suite's: max ΔE00 2.3 (about one just-noticeable difference) and
/// mean 0.767.
public struct VerifyThresholds: Sendable, Codable, Equatable {
    /// Fail when any difference exceeds this (default 2.3) — unless `shareAbove` is given.
    public var max: Double?
    /// Fail when the mean difference exceeds this (default 0.767).
    public var mean: Double?
    /// When given, a few differences above `max` are tolerated: fail only when more than this share (0…1) of
    /// them exceed `max`.
    public var shareAbove: Double?

    public static let defaultMax = 2.3
    public static let defaultMean = 0.767

    public init(max: Double? = nil, mean: Double? = nil, shareAbove: Double? = nil) {
        self.max = max
        self.mean = mean
        self.shareAbove = shareAbove
    }

    /// `self`'s fields where given, else `base`'s.
    public func over(_ base: VerifyThresholds?) -> VerifyThresholds {
        VerifyThresholds(max: max ?? base?.max, mean: mean ?? base?.mean, shareAbove: shareAbove ?? base?.shareAbove)
    }

    /// Every field filled in: given values, else the defaults.
    public var resolved: VerifyThresholds {
        VerifyThresholds(max: max ?? Self.defaultMax, mean: mean ?? Self.defaultMean, shareAbove: shareAbove)
    }

    /// How these limits are looser than `reference` (both resolved), one phrase each; empty when they are not. A
    /// case passing only within looser limits is marked in the report, so a green badge cannot hide a large ΔE.
    public func loosenings(against reference: VerifyThresholds = VerifyThresholds()) -> [String] {
        let mine = resolved, ref = reference.resolved
        var out: [String] = []
        if mine.max! > ref.max! { out.append(String(format: "max %.3g > %.3g", mine.max!, ref.max!)) }
        if mine.mean! > ref.mean! { out.append(String(format: "mean %.3g > %.3g", mine.mean!, ref.mean!)) }
        if let share = mine.shareAbove, (ref.shareAbove.map { share > $0 } ?? true) {
            out.append(String(format: "up to %.3g %% above the max tolerated", share * 100))
        }
        return out
    }

    /// The limits as a reader sees them ("max 2.3 · mean 0.767 ΔE00").
    public var summary: String {
        let r = resolved
        let max = r.shareAbove.map { String(format: "max %.3g for all but %.3g %%", r.max!, $0 * 100) } ?? String(format: "max %.3g", r.max!)
        return String(format: "%@ · mean %.3g ΔE00", max, r.mean!)
    }

    /// Refuses negative or non-finite limits and a share outside 0…1 (`path` names the JSON place).
    func validate(file: String, path: String) throws {
        for (name, v) in [("max", max), ("mean", mean)] {
            if let v, !(v.isFinite && v >= 0) {
                throw LightWorkError.invalidDocument(file: file, path: "\(path).\(name)", reason: "a ΔE00 limit is a number ≥ 0, found \(v)")
            }
        }
        if let s = shareAbove, !(0...1).contains(s) {
            throw LightWorkError.invalidDocument(file: file, path: "\(path).shareAbove", reason: "a share is 0…1 (0.001 = 0.1 %), found \(s)")
        }
    }

    /// Why `stats` fails these (resolved) limits, one line per broken limit; empty when it passes.
    public func failures(_ stats: DeltaEStatistics, unit: String = "pixels") -> [String] {
        let limits = resolved
        var out: [String] = []
        if let share = limits.shareAbove {
            if stats.shareAbove > share {
                out.append(String(format: "%.3f %% of %@ above ΔE00 %.3g > %.3f %% allowed", stats.shareAbove * 100, unit, limits.max!, share * 100))
            }
        } else if stats.max > limits.max! {
            out.append(String(format: "max ΔE00 %.3f > %.3g", stats.max, limits.max!))
        }
        if stats.mean > limits.mean! {
            out.append(String(format: "mean ΔE00 %.3f > %.3g", stats.mean, limits.mean!))
        }
        return out
    }
}
