import Foundation

/// The app's dual-zone slider: UI −100…100 where each half is linear on its own.
///
/// UI −100 reaches `minValue`, UI +100 reaches `maxValue`, UI 0 is value 0 (the filter's neutral offset).
/// The signs are free: with minValue −6 and maxValue −0.5, UI −50 → −3 and UI +50 → −0.25. Because both
/// halves may cover the same values, a value alone cannot say which half it came from; the caller keeps
/// `useLeftRange` beside it (see `Recipe`).
public struct DualZoneRange: Sendable, Hashable, Codable {
    /// The filter value at UI −100.
    public let minValue: Double
    /// The filter value at UI +100.
    public let maxValue: Double

    /// The slider's extent.
    public static let uiRange: ClosedRange<Double> = -100...100

    public init(minValue: Double, maxValue: Double) {
        self.minValue = minValue
        self.maxValue = maxValue
    }

    /// UI → filter value: `uiV < 0`: `minValue · uiV / −100`; `uiV > 0`: `maxValue · uiV / 100`; 0 → 0.
    public func value(forUI ui: Double) -> Double {
        if ui < 0 { return minValue * ui / -100 }
        if ui > 0 { return maxValue * ui / 100 }
        return 0
    }

    /// Filter value → UI: left half `−100 · v / minValue`, right half `100 · v / maxValue`.
    /// A half whose end is 0 carries only the value 0, which maps to UI 0.
    public func ui(forValue value: Double, useLeftRange: Bool) -> Double {
        let end = useLeftRange ? minValue : maxValue
        if end == 0 { return 0 }
        return (useLeftRange ? -100 : 100) * value / end
    }

    /// Which half a UI position lies in (UI 0 counts as the right half, as the app stored it).
    public func useLeftRange(forUI ui: Double) -> Bool { ui < 0 }

    /// The values one half can produce: between 0 and that half's end, whatever its sign.
    public func values(useLeftRange: Bool) -> ClosedRange<Double> {
        let end = useLeftRange ? minValue : maxValue
        return Swift.min(0, end)...Swift.max(0, end)
    }

    /// Whether `value` is reachable on the given half (with a relative tolerance for values written as decimals).
    public func contains(value: Double, useLeftRange: Bool) -> Bool {
        let span = values(useLeftRange: useLeftRange)
        let slack = 1e-9 * Swift.max(1, abs(span.lowerBound), abs(span.upperBound))
        return value >= span.lowerBound - slack && value <= span.upperBound + slack
    }
}
