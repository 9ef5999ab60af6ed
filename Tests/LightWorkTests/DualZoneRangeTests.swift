import XCTest
import LightWork

final class DualZoneRangeTests: XCTestCase {
    /// The notes' slider: −100 ↔ −6, 0 ↔ 0, +100 ↔ −0.5 (both ends negative).
    func testNotesExampleBothWays() {
        let z = DualZoneRange(minValue: -6, maxValue: -0.5)
        XCTAssertEqual(z.value(forUI: -50), -3, accuracy: 1e-12)
        XCTAssertEqual(z.value(forUI: 50), -0.25, accuracy: 1e-12)
        XCTAssertEqual(z.value(forUI: -100), -6, accuracy: 1e-12)
        XCTAssertEqual(z.value(forUI: 100), -0.5, accuracy: 1e-12)
        XCTAssertEqual(z.value(forUI: 0), 0)
        XCTAssertEqual(z.ui(forValue: -3, useLeftRange: true), -50, accuracy: 1e-12)
        XCTAssertEqual(z.ui(forValue: -0.25, useLeftRange: false), 50, accuracy: 1e-12)
        // The same value on the other half is another slider position: why the recipe keeps the flag.
        XCTAssertEqual(z.ui(forValue: -0.25, useLeftRange: true), -0.25 / 6 * 100, accuracy: 1e-12)
        XCTAssertTrue(z.useLeftRange(forUI: -50))
        XCTAssertFalse(z.useLeftRange(forUI: 50))
        XCTAssertFalse(z.useLeftRange(forUI: 0))
    }

    func testBothPositiveRange() {
        let z = DualZoneRange(minValue: 6, maxValue: 0.5)
        XCTAssertEqual(z.value(forUI: -50), 3, accuracy: 1e-12)
        XCTAssertEqual(z.value(forUI: 25), 0.125, accuracy: 1e-12)
        XCTAssertEqual(z.ui(forValue: 3, useLeftRange: true), -50, accuracy: 1e-12)
        XCTAssertEqual(z.ui(forValue: 0.125, useLeftRange: false), 25, accuracy: 1e-12)
        XCTAssertTrue(z.contains(value: 5, useLeftRange: true))
        XCTAssertFalse(z.contains(value: 5, useLeftRange: false))
        XCTAssertFalse(z.contains(value: -1, useLeftRange: true))
    }

    func testOppositeSignRangeIsTwoLinearHalves() {
        let z = DualZoneRange(minValue: -2, maxValue: 4)
        XCTAssertEqual(z.value(forUI: -100), -2, accuracy: 1e-12)
        XCTAssertEqual(z.value(forUI: -10), -0.2, accuracy: 1e-12)
        XCTAssertEqual(z.value(forUI: 10), 0.4, accuracy: 1e-12)
        XCTAssertEqual(z.value(forUI: 100), 4, accuracy: 1e-12)
    }

    /// UI → value → UI returns the position for every kind of range, with the half taken from the UI.
    func testRoundTrips() {
        let ranges = [(-6.0, -0.5), (6.0, 0.5), (-2.0, 2.0), (-100.0, 100.0), (0.3, 7.0), (-0.1, 0.3)]
        var rng = SystemRandomNumberGenerator()
        for (lo, hi) in ranges {
            let z = DualZoneRange(minValue: lo, maxValue: hi)
            for _ in 0..<200 {
                let ui = Double.random(in: -100...100, using: &rng)
                let v = z.value(forUI: ui)
                let left = z.useLeftRange(forUI: ui)
                XCTAssertTrue(z.contains(value: v, useLeftRange: left))
                XCTAssertEqual(z.ui(forValue: v, useLeftRange: left), ui, accuracy: 1e-9, "range \(lo)…\(hi) ui \(ui)")
            }
        }
    }

    /// A half whose end is 0 (grain's left half) carries only 0.
    func testZeroEndedHalf() {
        let z = DualZoneRange(minValue: 0, maxValue: 0.15)
        XCTAssertEqual(z.value(forUI: -70), 0)
        XCTAssertEqual(z.ui(forValue: 0, useLeftRange: true), 0)
        XCTAssertEqual(z.value(forUI: 100), 0.15, accuracy: 1e-12)
        XCTAssertFalse(z.contains(value: 0.01, useLeftRange: true))
    }
}
