import LightWork

/// A rectangle in output pixel coordinates (x right, y down, origin top-left).
struct PixelRect: Sendable, Codable, Equatable {
    var x: Int
    var y: Int
    var w: Int
    var h: Int

    var maxX: Int { x + w }
    var maxY: Int { y + h }

    /// The central part (`fraction` of each side) where demosaicing cannot reach the edges.
    func centre(fraction: Double = 0.5) -> PixelRect {
        let cw = Int((Double(w) * fraction).rounded()), ch = Int((Double(h) * fraction).rounded())
        return PixelRect(x: x + (w - cw) / 2, y: y + (h - ch) / 2, w: cw, h: ch)
    }
}

/// Stripes of two materials: 1-pixel-scale detail that exposes demosaicing artefacts.
struct LineGroup: Sendable {
    enum Direction: String, Sendable { case vertical, horizontal, diagonal }
    let rect: PixelRect
    let direction: Direction
    /// Stripe period in pixels (half of it is each material).
    let period: Int
    let phase: Int
    let materialA: Int
    let materialB: Int
}

/// A radial chirp cos(k·r²) between two materials, rising past the Nyquist frequency towards its corners.
struct ZonePlate: Sendable {
    let rect: PixelRect
    let centreX: Double
    let centreY: Double
    let k: Double
    let dark: Int
    let light: Int
}

/// Where everything sits in the synthetic scene and what colour (CIELAB D50) each flat material is.
/// Proportional to the image size, so the benchmark frame is the same picture at a higher resolution.
struct SceneLayout: Sendable {
    let width: Int
    let height: Int
    /// The 24 ColorChecker patches, reading order.
    let patches: [PixelRect]
    /// The grey ramp's steps, dark to light.
    let ramp: [PixelRect]
    /// The area holding the zone plate and the line groups (its content varies with the seed).
    let detailArea: PixelRect
    let zonePlate: ZonePlate
    let lineGroups: [LineGroup]
    /// Every material's CIELAB D50 colour, indexed as the constants below.
    let materials: [SIMD3<Double>]

    static let background = 0
    static func patchMaterial(_ i: Int) -> Int { 1 + i }
    static func rampMaterial(_ j: Int) -> Int { 1 + ColorChecker.patches.count + j }

    /// Neutral grey surround.
    static let backgroundLab = SIMD3<Double>(45, 0, 0)
    /// Grey ramp lightness steps: L* 8, 16 … 96, perfectly neutral.
    static let rampLightness: [Double] = (1...12).map { Double($0) * 8 }
    /// Coloured stripe pairs the seed picks from (all inside sRGB and giving positive raw values).
    static let linePairs: [(SIMD3<Double>, SIMD3<Double>)] = [
        ([45, 50, 30], [65, -30, -20]),
        ([55, -45, 40], [40, 45, -45]),
        ([70, 10, 60], [35, 15, -45]),
    ]

    static let minimumWidth = 240
    static let minimumHeight = 160

    init(width: Int, height: Int, seed: UInt64) {
        self.width = width
        self.height = height
        let W = Double(width), H = Double(height)
        func rect(_ x: Double, _ y: Double, _ w: Double, _ h: Double) -> PixelRect {
            let x0 = Int(x.rounded()), y0 = Int(y.rounded())
            return PixelRect(x: x0, y: y0, w: Int((x + w).rounded()) - x0, h: Int((y + h).rounded()) - y0)
        }

        // ColorChecker: 6 × 4 square patches in the left 63 % of the frame, top 70 %.
        let chartX = 0.03 * W, chartY = 0.05 * H, chartW = 0.60 * W, chartH = 0.65 * H
        let pitchX = chartW / Double(ColorChecker.columns), pitchY = chartH / Double(ColorChecker.rows)
        let side = 0.8 * min(pitchX, pitchY)
        var patches: [PixelRect] = []
        for r in 0..<ColorChecker.rows {
            for c in 0..<ColorChecker.columns {
                let cx = chartX + (Double(c) + 0.5) * pitchX, cy = chartY + (Double(r) + 0.5) * pitchY
                patches.append(rect(cx - side / 2, cy - side / 2, side, side))
            }
        }
        self.patches = patches

        // Grey ramp: a strip across the bottom.
        let steps = SceneLayout.rampLightness.count
        let rampX = 0.03 * W, rampW = 0.94 * W, rampY = 0.78 * H, rampH = 0.14 * H
        ramp = (0..<steps).map { j in
            rect(rampX + Double(j) * rampW / Double(steps), rampY, rampW / Double(steps), rampH)
        }

        // Detail area: zone plate on top, four line groups below.
        var rng = SeededRandom(seed: seed)
        let detail = rect(0.66 * W, 0.05 * H, 0.31 * W, 0.66 * H)
        detailArea = detail
        let zoneSide = min(Double(detail.w), 0.72 * Double(detail.h))
        let zoneRect = rect(Double(detail.x) + (Double(detail.w) - zoneSide) / 2, Double(detail.y), zoneSide, zoneSide)
        let half = zoneSide / 2
        // Local frequency k·r/π cycles per pixel reaches Nyquist (0.5) at 80 % of the half-side (± 8 % by seed).
        let k = Double.pi / (2 * 0.8 * half) * (0.92 + 0.16 * rng.unit())
        let firstLine = SceneLayout.detailBase
        zonePlate = ZonePlate(rect: zoneRect,
                              centreX: Double(zoneRect.x) + half + (rng.unit() - 0.5) * 0.06 * zoneSide,
                              centreY: Double(zoneRect.y) + half + (rng.unit() - 0.5) * 0.06 * zoneSide,
                              k: k, dark: firstLine, light: firstLine + 1)

        let linesTop = Double(zoneRect.maxY) + 0.02 * H
        let linesH = Double(detail.maxY) - linesTop
        let gap = 0.01 * W
        let groupW = (Double(detail.w) - 3 * gap) / 4
        let specs: [(LineGroup.Direction, Int, Bool)] = [(.vertical, 2, false), (.horizontal, 3, false), (.diagonal, 4, true), (.vertical, 5, true)]
        lineGroups = specs.enumerated().map { i, spec in
            LineGroup(rect: rect(Double(detail.x) + Double(i) * (groupW + gap), linesTop, groupW, linesH),
                      direction: spec.0, period: spec.1, phase: Int(rng.next() % UInt64(spec.1)),
                      materialA: spec.2 ? firstLine + 2 : firstLine, materialB: spec.2 ? firstLine + 3 : firstLine + 1)
        }

        let pair = SceneLayout.linePairs[Int(rng.next() % UInt64(SceneLayout.linePairs.count))]
        materials = [SceneLayout.backgroundLab] + ColorChecker.patches.map(\.lab)
            + SceneLayout.rampLightness.map { SIMD3($0, 0, 0) }
            + [SIMD3(20, 0, 0), SIMD3(85, 0, 0), pair.0, pair.1]
    }

    /// Index of the first detail material (zone plate dark, light, then the coloured stripe pair).
    static let detailBase = 1 + ColorChecker.patches.count + rampLightness.count
}
