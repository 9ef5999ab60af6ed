import Foundation

/// `lightwork chart`: a ColorChecker measured in a rendered photograph against a published reference.
///
/// The chart is found by `ChartDetector` on a copy reduced to at most `detectionEdge` pixels, or placed by the
/// four corners given. Each patch is sampled in a square of `sampleSide` of a patch pitch (0.4: under half of a
/// Classic patch's side, so a corner a fifth of a pitch off still samples the patch alone) around its centre, in
/// chart coordinates through the fitted homography; its pixels are read as CIELAB D50 through the file's ICC
/// profile (`ProfileLab`), turned into XYZ and averaged per channel with the lowest and highest `trim` dropped
/// (dust, glare, noise). Exposure is then matched by the white patch (19, "white 9.5"): every patch's XYZ is scaled
/// so the white's Y equals the reference white's Y, and each patch is compared with the reference by CIEDE2000.
public struct ChartMeasurement: Sendable, Codable {
    public static let detectionEdge = 640
    public static let sampleSide = 0.4
    public static let trim = 0.1

    /// Pixel coordinates: x right, y down, origin at the top-left corner of the top-left pixel (its centre is
    /// (0.5, 0.5)). Corners are the centres of patches 1 (dark skin), 6 (bluish green), 24 (black) and 19 (white):
    /// the chart's top-left, top-right, bottom-right and bottom-left in reading order.
    public struct Corners: Sendable, Codable, Equatable {
        public var points: [[Double]]
        public init(_ points: [SIMD2<Double>]) { self.points = points.map { [$0.x, $0.y] } }
        public var simd: [SIMD2<Double>] { points.map { SIMD2($0[0], $0[1]) } }

        /// Chart coordinates (column, row) of the four corner patches, in `points`' order.
        public static let chartPoints: [SIMD2<Double>] = [SIMD2(0, 0), SIMD2(5, 0), SIMD2(5, 3), SIMD2(0, 3)]

        /// `x1,y1,x2,y2,x3,y3,x4,y4`: pixels, or fractions of the width and height when every value is 0…1.
        public static func parse(_ text: String, width: Int, height: Int) throws -> Corners {
            let values = text.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard values.count == 8, values.allSatisfy({ $0 != nil && $0!.isFinite }) else {
                throw LightWorkError.usage("--corners takes 8 numbers x1,y1,x2,y2,x3,y3,x4,y4 (the centres of patches 1, 6, 24, 19), not '\(text)'")
            }
            let v = values.map { $0! }
            let fractions = v.allSatisfy { (0...1).contains($0) }
            return Corners((0..<4).map { k in
                fractions ? SIMD2(v[2 * k] * Double(width), v[2 * k + 1] * Double(height)) : SIMD2(v[2 * k], v[2 * k + 1])
            })
        }
    }

    /// One patch's figures.
    public struct Patch: Sendable, Codable, Equatable {
        /// 1-based, reading order.
        public var index: Int
        public var name: String
        public var reference: [Double]
        /// Lab D50 after exposure matching.
        public var measured: [Double]
        public var deltaE: Double
        /// The sampling square's corners in pixels (clockwise from the chart's top-left).
        public var square: [[Double]]
        public var pixels: Int
        /// Share of the sampled pixels with a channel at the file's largest code value (clipped).
        public var clipped: Double
    }

    /// How the chart was placed.
    public struct Placement: Sendable, Codable, Equatable {
        /// "detected" or "given".
        public var method: String
        public var corners: Corners
        public var cellsMatched: Int?
        public var residual: Double?
        public var greyRowChromaRatio: Double?
    }

    public var reference: String
    public var referenceSource: String
    public var placement: Placement
    /// What exposure matching held equal, and the scale it applied to XYZ.
    public var exposureMatch: String
    public var exposureScale: Double
    public var patches: [Patch]
    public var mean: Double
    public var median: Double
    public var max: Double
    /// 1-based index of the patch with the largest ΔE00.
    public var worst: Int
    public var profile: String

    /// Measures `file` (a render with an ICC profile, 16- or 8-bit RGB) against `reference`, finding the chart
    /// unless `corners` are given. Throws `ChartNotFound` when detection is not confident or a sampling square
    /// falls outside the frame.
    public init(file: ImageFile, reference: ChartReference, corners: Corners? = nil) throws {
        guard file.channels >= 3 else { throw LightWorkError.colour("chart measurement needs an RGB picture, the render has \(file.channels) channel(s)") }
        let reader = try ProfileLab(file)
        let chartToImage: Homography
        if let corners {
            guard let h = Homography.fit(from: Corners.chartPoints, to: corners.simd) else {
                throw ChartNotFound(reason: "the four corners given do not make a quadrilateral")
            }
            chartToImage = h
            placement = Placement(method: "given", corners: corners)
        } else {
            let step = Swift.max(1, Int((Double(Swift.max(file.width, file.height)) / Double(ChartMeasurement.detectionEdge)).rounded(.up)))
            let (w, h, lab) = ChartMeasurement.reducedLab(file, step: step, reader: reader)
            let found = try ChartDetector.detect(lab: lab, width: w, height: h)
            chartToImage = found.homography.scaled(by: Double(step))
            placement = Placement(method: "detected", corners: Corners(Corners.chartPoints.map(chartToImage.apply)),
                                  cellsMatched: found.cellsMatched, residual: (found.residual * 1000).rounded() / 1000,
                                  greyRowChromaRatio: (found.greyRowChromaRatio * 1000).rounded() / 1000)
        }
        guard let imageToChart = chartToImage.inverse else { throw ChartNotFound(reason: "the chart's corners are degenerate") }
        let top = Double((1 << file.bitDepth) - 1)
        var sampled: [(xyz: SIMD3<Double>, square: [[Double]], pixels: Int, clipped: Double)] = []
        let half = ChartMeasurement.sampleSide / 2
        for k in 0..<(ChartReference.columns * ChartReference.rows) {
            let c = SIMD2(Double(k % ChartReference.columns), Double(k / ChartReference.columns))
            let square = [SIMD2(-half, -half), SIMD2(half, -half), SIMD2(half, half), SIMD2(-half, half)].map { chartToImage.apply(c + $0) }
            let x0 = Int(square.map(\.x).min()!.rounded(.down)), x1 = Int(square.map(\.x).max()!.rounded(.up))
            let y0 = Int(square.map(\.y).min()!.rounded(.down)), y1 = Int(square.map(\.y).max()!.rounded(.up))
            guard x0 >= 0, y0 >= 0, x1 <= file.width, y1 <= file.height else {
                throw ChartNotFound(reason: "patch \(k + 1) (\(reference.patches[k].name)) would be sampled outside the frame")
            }
            var xyz: [[Double]] = [[], [], []]
            var clipped = 0
            for y in y0..<y1 {
                for x in x0..<x1 {
                    let u = imageToChart.apply(SIMD2(Double(x) + 0.5, Double(y) + 0.5)) - c
                    guard abs(u.x) <= half, abs(u.y) <= half else { continue }
                    let i = (y * file.width + x) * file.channels
                    let code = SIMD3(Double(file.samples[i]), Double(file.samples[i + 1]), Double(file.samples[i + 2]))
                    if code.max() >= top { clipped += 1 }
                    let v = CIE.labToXYZ(reader.lab(code))
                    xyz[0].append(v.x); xyz[1].append(v.y); xyz[2].append(v.z)
                }
            }
            guard xyz[0].count >= 4 else {
                throw ChartNotFound(reason: "patch \(k + 1) (\(reference.patches[k].name)) is under 4 pixels: the chart is too small to sample")
            }
            let mean = SIMD3(ChartMeasurement.trimmedMean(xyz[0]), ChartMeasurement.trimmedMean(xyz[1]), ChartMeasurement.trimmedMean(xyz[2]))
            sampled.append((mean, square.map { [($0.x * 100).rounded() / 100, ($0.y * 100).rounded() / 100] }, xyz[0].count, Double(clipped) / Double(xyz[0].count)))
        }
        let white = ChartReference.whiteIndex
        let referenceY = CIE.labToXYZ(reference.patches[white].lab).y
        guard sampled[white].xyz.y > 0 else { throw ChartNotFound(reason: "the white patch measures black") }
        // Exposure is matched by the white patch: clipped beyond what the trimmed mean drops, it would scale every
        // patch wrongly, so the measurement is refused rather than reported.
        guard sampled[white].clipped <= ChartMeasurement.trim else {
            throw ChartNotFound(reason: String(format: "patch 19 (%@), which the exposure is matched by, is clipped in %.0f %% of its pixels: expose the chart lower",
                                               reference.patches[white].name, sampled[white].clipped * 100))
        }
        let scale = referenceY / sampled[white].xyz.y
        exposureScale = scale
        exposureMatch = "Y of patch 19 (\(reference.patches[white].name)) scaled to the reference's (XYZ D50, every patch by the same factor)"
        patches = zip(reference.patches, sampled).enumerated().map { k, pair in
            let lab = CIE.xyzToLab(pair.1.xyz * scale)
            return Patch(index: k + 1, name: pair.0.name, reference: pair.0.labD50, measured: [lab.x, lab.y, lab.z].map { ($0 * 100).rounded() / 100 },
                         deltaE: CIE.deltaE2000(lab, pair.0.lab), square: pair.1.square, pixels: pair.1.pixels, clipped: pair.1.clipped)
        }
        let e = patches.map(\.deltaE), sorted = e.sorted()
        mean = e.reduce(0, +) / Double(e.count)
        median = (sorted[11] + sorted[12]) / 2
        max = sorted.last!
        worst = patches.max { $0.deltaE < $1.deltaE }!.index
        self.reference = reference.name
        referenceSource = reference.source
        profile = reader.profileDescription
    }

    /// The mean of `values` without its lowest and highest `trim` share.
    static func trimmedMean(_ values: [Double]) -> Double {
        let s = values.sorted(), drop = Int(Double(s.count) * trim)
        let kept = s[drop..<(s.count - drop)]
        return kept.reduce(0, +) / Double(kept.count)
    }

    /// The picture box-reduced by `step` (code values averaged) and read as Lab.
    static func reducedLab(_ file: ImageFile, step: Int, reader: ProfileLab) -> (Int, Int, [Double]) {
        let w = file.width / step, h = file.height / step, c = file.channels
        var small = [UInt16](repeating: 0, count: w * h * 3)
        for ty in 0..<h {
            for tx in 0..<w {
                var sum = SIMD3<Int>(0, 0, 0)
                for y in (ty * step)..<((ty + 1) * step) {
                    for x in (tx * step)..<((tx + 1) * step) {
                        let i = (y * file.width + x) * c
                        sum &+= SIMD3(Int(file.samples[i]), Int(file.samples[i + 1]), Int(file.samples[i + 2]))
                    }
                }
                let m = sum / (step * step)
                for k in 0..<3 { small[(ty * w + tx) * 3 + k] = UInt16(m[k]) }
            }
        }
        let reduced = ImageFile(format: file.format, width: w, height: h, channels: 3, bitDepth: file.bitDepth, iccProfile: file.iccProfile,
                                exif: nil, samples: small)
        let lab = (try? ProfileLab(reduced))?.labPixels(reduced) ?? []
        return (w, h, lab)
    }

    /// The result as one line per patch and a summary.
    public var text: String {
        var lines = ["reference: \(reference) (\(referenceSource))",
                     "read through: \(profile)",
                     String(format: "chart %@: corners (patch centres 1, 6, 24, 19) %@", placement.method,
                            placement.corners.points.map { String(format: "(%.1f, %.1f)", $0[0], $0[1]) }.joined(separator: " "))]
        if let cells = placement.cellsMatched, let r = placement.residual {
            lines.append(String(format: "  %d of 24 patches found as flat regions, grid RMS %.3f pitch, grey row chroma %.2f of the colours'", cells, r, placement.greyRowChromaRatio ?? 0))
        }
        lines.append(String(format: "exposure matched by the white patch: XYZ × %.4f (%@)", exposureScale, exposureMatch))
        lines.append(" #  patch            reference L a b            measured L a b          ΔE00  pixels")
        for p in patches {
            lines.append(String(format: "%2d  %@ %7.2f %7.2f %7.2f   %7.2f %7.2f %7.2f  %6.2f  %6d%@", p.index, p.name.padding(toLength: 15, withPad: " ", startingAt: 0),
                                p.reference[0], p.reference[1], p.reference[2], p.measured[0], p.measured[1], p.measured[2], p.deltaE, p.pixels,
                                p.clipped > 0.01 ? String(format: "  clipped %.0f %%", p.clipped * 100) : ""))
        }
        lines.append(String(format: "ΔE00 mean %.2f  median %.2f  max %.2f (patch %d, %@)", mean, median, max, worst, patches[worst - 1].name))
        return lines.joined(separator: "\n")
    }
}
