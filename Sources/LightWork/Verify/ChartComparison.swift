import Foundation

/// Chart mode: a rendered chart measured against its patch-truth file. Each patch's safe area is averaged in the
/// file's code values, read as CIELAB through the file's own profile and compared by CIEDE2000 with the
/// reference Lab. An output smaller than the truth's grid (a resized case) has its areas scaled to fit.
public struct ChartComparison: Sendable, Codable {
    /// How measured colours are put on the reference's scale before comparing.
    public enum Exposure: String, Sendable, Codable, CaseIterable {
        /// As rendered: absolute accuracy, exposure included.
        case absolute
        /// Scaled in XYZ so the brightest grey-ramp step (else the lightest patch) has its reference luminance:
        /// colour accuracy with exposure factored out, as colour engineers compare charts.
        case matchWhite = "match-white"
    }

    /// One patch's result.
    public struct PatchResult: Sendable, Codable, Equatable {
        public var name: String
        public var reference: [Double]
        public var measured: [Double]
        public var deltaE: Double
    }

    public var patches: [PatchResult]
    public var statistics: DeltaEStatistics
    public var exposure: Exposure
    /// The luminance scale applied (1 for `absolute`).
    public var exposureScale: Double

    /// A photographed chart's measurement (`lightwork chart`) in the figures chart cases report.
    public init(photo m: ChartMeasurement, threshold: Double) {
        patches = m.patches.map { PatchResult(name: $0.name, reference: $0.reference, measured: $0.measured, deltaE: $0.deltaE) }
        statistics = DeltaEStatistics(patches.map(\.deltaE), threshold: threshold)
        exposure = .matchWhite
        exposureScale = m.exposureScale
    }

    /// Measures `file` against `truth`; `threshold` is the level the statistics count patches above.
    public init(file: ImageFile, truth: ChartTruth, exposure: Exposure, threshold: Double) throws {
        let reader = try ProfileLab(file)
        // A resized output: the same frame at another scale (aspect checked to a pixel).
        let sx = Double(file.width) / Double(truth.width), sy = Double(file.height) / Double(truth.height)
        guard abs(sx * Double(truth.height) - Double(file.height)) <= 1.5 || abs(sy * Double(truth.width) - Double(file.width)) <= 1.5 else {
            throw PixelComparison.Mismatch(description: "the chart is \(file.width)×\(file.height), its truth describes \(truth.width)×\(truth.height) (another frame, not a resize)")
        }
        func measure(_ r: ChartTruth.Rect) -> SIMD3<Double> {
            // Scaled and shrunk by a pixel on each side, so resampling at patch borders stays outside.
            let inset = (sx < 1 || sy < 1) ? 1 : 0
            let x0 = Int((Double(r.x) * sx).rounded(.up)) + inset, y0 = Int((Double(r.y) * sy).rounded(.up)) + inset
            let x1 = max(x0 + 1, Int((Double(r.x + r.w) * sx).rounded(.down)) - inset)
            let y1 = max(y0 + 1, Int((Double(r.y + r.h) * sy).rounded(.down)) - inset)
            var sum = SIMD3<Double>(0, 0, 0)
            let c = file.channels
            for y in min(y0, file.height - 1)..<min(y1, file.height) {
                for x in min(x0, file.width - 1)..<min(x1, file.width) {
                    let i = (y * file.width + x) * c
                    sum += c <= 2 ? SIMD3(repeating: Double(file.samples[i]))
                                  : SIMD3(Double(file.samples[i]), Double(file.samples[i + 1]), Double(file.samples[i + 2]))
                }
            }
            let n = Double((min(y1, file.height) - min(y0, file.height - 1)) * (min(x1, file.width) - min(x0, file.width - 1)))
            return reader.lab(sum / max(n, 1))
        }
        var measured = truth.patches.map { measure($0.centre) }
        var scale = 1.0
        if exposure == .matchWhite {
            let anchor: (measured: SIMD3<Double>, reference: [Double])
            if let top = truth.greyRamp?.max(by: { $0.labD50[0] < $1.labD50[0] }), top.labD50.count == 3 {
                anchor = (measure(top.centre), top.labD50)
            } else {
                let i = truth.patches.indices.max { truth.patches[$0].labD50[0] < truth.patches[$1].labD50[0] }!
                anchor = (measured[i], truth.patches[i].labD50)
            }
            let measuredY = CIE.labToXYZ(anchor.measured).y
            let referenceY = CIE.labToXYZ(SIMD3(anchor.reference[0], anchor.reference[1], anchor.reference[2])).y
            if measuredY > 0 { scale = referenceY / measuredY }
            measured = measured.map { CIE.xyzToLab(CIE.labToXYZ($0) * scale) }
        }
        patches = zip(truth.patches, measured).map { patch, lab in
            let reference = SIMD3(patch.labD50[0], patch.labD50[1], patch.labD50[2])
            return PatchResult(name: patch.name, reference: patch.labD50, measured: [lab.x, lab.y, lab.z].map { ($0 * 100).rounded() / 100 },
                               deltaE: CIE.deltaE2000(lab, reference))
        }
        statistics = DeltaEStatistics(patches.map(\.deltaE), threshold: threshold)
        self.exposure = exposure
        exposureScale = scale
    }
}
