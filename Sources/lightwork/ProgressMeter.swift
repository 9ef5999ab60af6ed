import Foundation
import LightWork

/// Counts a batch as it runs and says how it is going: files done of total, failures, images per minute,
/// megapixels per second, time left. Rates count only files that did work (converted or failed), so a
/// re-run that skips most files does not promise an ETA it cannot keep.
struct ProgressMeter {
    let total: Int
    let start: Date
    private(set) var done = 0
    private(set) var converted = 0
    private(set) var skipped = 0
    private(set) var failed = 0
    /// Input megapixels of the files that were decoded.
    private(set) var megapixels = 0.0

    init(total: Int, start: Date = Date()) {
        self.total = total
        self.start = start
    }

    mutating func record(_ entry: Manifest.Entry) {
        done += 1
        switch entry.status {
        case .converted: converted += 1
        case .skipped: skipped += 1
        case .failed: failed += 1
        }
        if entry.status != .skipped, let w = entry.input.width, let h = entry.input.height { megapixels += Double(w * h) / 1e6 }
    }

    /// Files that did work per minute, after `elapsed` seconds.
    func imagesPerMinute(elapsed: Double) -> Double {
        elapsed > 0 ? Double(converted + failed) / elapsed * 60 : 0
    }

    func megapixelsPerSecond(elapsed: Double) -> Double { elapsed > 0 ? megapixels / elapsed : 0 }

    /// Seconds left at the rate so far; nil before the first file that did work.
    func secondsLeft(elapsed: Double) -> Double? {
        let worked = converted + failed
        guard worked > 0, elapsed > 0 else { return nil }
        return Double(total - done) * elapsed / Double(worked)
    }

    /// The live line: `[12/2000] 1 failed · 23.4 img/min · 41.2 MP/s · ETA 1:02:03 · IMG_0012.CR2`.
    func line(current: String, now: Date = Date()) -> String {
        let elapsed = now.timeIntervalSince(start)
        var parts = ["[\(done)/\(total)]"]
        if failed > 0 { parts.append("\(failed) failed") }
        if skipped > 0 { parts.append("\(skipped) skipped") }
        parts.append(String(format: "%.1f img/min", imagesPerMinute(elapsed: elapsed)))
        parts.append(String(format: "%.1f MP/s", megapixelsPerSecond(elapsed: elapsed)))
        parts.append("ETA " + (secondsLeft(elapsed: elapsed).map(ProgressMeter.clock) ?? "--:--"))
        parts.append(current)
        return parts.joined(separator: " · ")
    }

    /// m:ss, or h:mm:ss from an hour.
    static func clock(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        return s >= 3600 ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60) : String(format: "%d:%02d", s / 60, s % 60)
    }
}
