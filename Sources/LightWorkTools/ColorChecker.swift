import LightWork

/// One patch of the 24-patch ColorChecker: its printed name and its reference colour.
struct ColorCheckerPatch: Sendable {
    let name: String
    /// CIELAB under D50, 2° observer.
    let lab: SIMD3<Double>
}

/// The 24-patch ColorChecker Classic the generator paints, in reading order (dark skin top-left, black
/// bottom-right, 6 × 4): X-Rite's post-November-2014 values, declared once in LightWork's `ChartReference`.
enum ColorChecker {
    static let reference = ChartReference.colorChecker2014

    /// Where the reference values come from; also written into the truth file.
    static let source = reference.source

    static let columns = ChartReference.columns
    static let rows = ChartReference.rows

    static let patches: [ColorCheckerPatch] = reference.patches.map { ColorCheckerPatch(name: $0.name, lab: $0.lab) }
}
