import Foundation
import LightWork

/// A photograph of a ColorChecker, with known truth (`make-chart-photo`): the chart (black body, 24 patches of
/// X-Rite's post-2014 values) placed by a homography — any position, size, rotation and keystone — into a cluttered
/// scene of seeded rectangles, discs and textured areas, with film-like grain and vignetting. The truth file gives
/// the chart's corners (the centres of patches 1, 6, 24, 19) and each patch's centre and vignetting factor.
struct ChartPhotoScene: ScenePainter {
    struct Placement: Sendable {
        /// Centre of the chart in fractions of the frame.
        var centre = SIMD2<Double>(0.5, 0.5)
        /// The chart body's width as a fraction of the frame's width.
        var size = 0.4
        /// Turn in degrees (clockwise on screen).
        var rotation = 0.0
        /// Perspective: the chart's right edge this much longer than its left (0.1 = 10 %), and its bottom `tilt` longer.
        var keystone = 0.0
        var tilt = 0.0
        /// Light lost at the frame's corners, in stops (cos⁴-like, falling as r²).
        var vignette = 0.0
        /// Multiplicative grain (standard deviation of a uniform distribution's, seeded per pixel).
        var grain = 0.0
        var chart = true
    }

    let width: Int
    let height: Int
    let seed: UInt64
    let placement: Placement
    let materials: [SIMD3<Double>]
    /// Chart coordinates (patch column, row; centres at whole numbers) → image pixels.
    let chartToImage: Homography
    let imageToChart: Homography
    let shapes: [(box: (Double, Double, Double, Double), ellipse: Bool, material: Int, textured: Bool)]

    static let bodyLab = SIMD3<Double>(14, 0, 0)
    /// The chart body reaches this far beyond the outer patch centres; a patch is this wide (pitch 1).
    static let border = 0.72
    static let patchSide = 0.84

    var bodyMaterial: Int { materials.count - 1 }
    func patchMaterial(_ k: Int) -> Int { materials.count - 25 + k }

    init(width: Int, height: Int, seed: UInt64, placement: Placement) {
        self.width = width
        self.height = height
        self.seed = seed
        self.placement = placement
        var rng = SeededRandom(seed: seed)
        var clutter: [SIMD3<Double>] = []
        var shapes: [(box: (Double, Double, Double, Double), ellipse: Bool, material: Int, textured: Bool)] = []
        for k in 0..<60 {
            // Moderate colours inside sRGB; sizes from a tenth of a patch to a fifth of the frame.
            clutter.append(SIMD3(25 + 65 * rng.unit(), 50 * (rng.unit() - 0.5), 50 * (rng.unit() - 0.5)))
            let w = 0.01 + 0.2 * rng.unit() * rng.unit(), h = 0.01 + 0.2 * rng.unit() * rng.unit()
            shapes.append(((rng.unit() * 1.1 - 0.05, rng.unit() * 1.1 - 0.05, w, h), rng.unit() < 0.4, k, rng.unit() < 0.25))
        }
        self.shapes = shapes
        materials = [SIMD3(55, 2, 8)] + clutter + ChartReference.colorChecker2014.patches.map(\.lab) + [ChartPhotoScene.bodyLab]
        // The body's corners in chart units, placed by size, rotation and keystone, then the map from them.
        let b = ChartPhotoScene.border
        let body = [SIMD2(-b, -b), SIMD2(5 + b, -b), SIMD2(5 + b, 3 + b), SIMD2(-b, 3 + b)]
        let W = Double(width), H = Double(height)
        let pitch = placement.size * W / (5 + 2 * b)
        let angle = placement.rotation * Double.pi / 180
        let centre = SIMD2(placement.centre.x * W, placement.centre.y * H)
        let image = body.map { p -> SIMD2<Double> in
            var q = (p - SIMD2(2.5, 1.5)) * pitch
            // Keystone: scale y by the x position (right edge longer), and x by the y position (bottom longer).
            q.y *= 1 + placement.keystone * (q.x / (pitch * (2.5 + b)))
            q.x *= 1 + placement.tilt * (q.y / (pitch * (1.5 + b)))
            return centre + SIMD2(q.x * cos(angle) - q.y * sin(angle), q.x * sin(angle) + q.y * cos(angle))
        }
        chartToImage = Homography.fit(from: body, to: image)!
        imageToChart = chartToImage.inverse!
    }

    /// The light reaching pixel (x, y) relative to the frame's centre.
    func vignette(_ x: Double, _ y: Double) -> Double {
        let dx = x / Double(width) - 0.5, dy = y / Double(height) - 0.5
        return exp2(-placement.vignette * (dx * dx + dy * dy) / 0.5)
    }

    func renderRow(_ y: Int, palette: ScenePalette, r: UnsafeMutablePointer<Float>, g: UnsafeMutablePointer<Float>, b: UnsafeMutablePointer<Float>) {
        let fy = Double(y) + 0.5
        for x in 0..<width {
            let fx = Double(x) + 0.5
            var m = 0
            var second: Int?
            for s in shapes {
                let (bx, by, bw, bh) = (s.box.0 * Double(width), s.box.1 * Double(height), s.box.2 * Double(width), s.box.3 * Double(height))
                guard fx >= bx, fx < bx + bw, fy >= by, fy < by + bh else { continue }
                if s.ellipse {
                    let u = (fx - bx) / bw * 2 - 1, v = (fy - by) / bh * 2 - 1
                    guard u * u + v * v < 1 else { continue }
                }
                m = 1 + s.material
                second = s.textured ? 1 + (s.material + 7) % 60 : nil
            }
            var t: Float = 0
            if second != nil {
                var rng = SeededRandom(seed: seed, stream: UInt64((y / 3) * 65536 + x / 3))
                t = Float(rng.unit())
            }
            if placement.chart {
                let u = imageToChart.apply(SIMD2(fx, fy))
                let bd = ChartPhotoScene.border
                if u.x >= -bd, u.x <= 5 + bd, u.y >= -bd, u.y <= 3 + bd {
                    m = bodyMaterial
                    second = nil
                    let c = u.x.rounded(), rr = u.y.rounded()
                    if c >= 0, c <= 5, rr >= 0, rr <= 3, abs(u.x - c) < ChartPhotoScene.patchSide / 2, abs(u.y - rr) < ChartPhotoScene.patchSide / 2 {
                        m = patchMaterial(Int(rr) * 6 + Int(c))
                    }
                }
            }
            var k = Float(vignette(fx, fy))
            if placement.grain > 0 {
                var rng = SeededRandom(seed: seed &+ 99, stream: UInt64(y * width + x))
                k *= Float(1 + placement.grain * 3.4641 * (rng.unit() - 0.5))
            }
            let s = second ?? m
            r[x] = (palette.r[m] + (palette.r[s] - palette.r[m]) * t) * k
            g[x] = (palette.g[m] + (palette.g[s] - palette.g[m]) * t) * k
            b[x] = (palette.b[m] + (palette.b[s] - palette.b[m]) * t) * k
        }
    }

    /// The truth file.
    struct Truth: Codable {
        struct Patch: Codable {
            let index: Int; let name: String; let labD50: [Double]; let centre: [Double]; let vignette: Double
            /// What the 8-bit sRGB PNG can hold of the patch: its colour clipped to the sRGB gamut (cyan is outside it).
            let srgbLabD50: [Double]
        }
        let version: Int
        let keys: [String: String]
        let width, height: Int
        let chart: Bool
        let corners: [[Double]]
        let patches: [Patch]
    }

    func truth() -> Truth {
        let reference = ChartReference.colorChecker2014
        func round3(_ v: Double) -> Double { (v * 1000).rounded() / 1000 }
        let camera = SyntheticCamera(illuminant: .d65)
        let toD50 = CIE.bradfordAdaptation(from: CIE.d65, to: CIE.d50) * RGBPrimaries.sRGB.toXYZNative
        let patches = (0..<24).map { k -> Truth.Patch in
            let p = chartToImage.apply(SIMD2(Double(k % 6), Double(k / 6)))
            let rgb = camera.linearSRGB(lab: reference.patches[k].lab).clamped(lowerBound: SIMD3(repeating: 0), upperBound: SIMD3(repeating: 1))
            let clipped = CIE.xyzToLab(toD50 * rgb)
            return Truth.Patch(index: k + 1, name: reference.patches[k].name, labD50: reference.patches[k].labD50,
                               centre: [round3(p.x), round3(p.y)], vignette: vignette(p.x, p.y),
                               srgbLabD50: [clipped.x, clipped.y, clipped.z].map(round3))
        }
        return Truth(version: 1, keys: [
            "corners": "centres of patches 1, 6, 24, 19 in pixels (x right, y down, origin at the top-left corner of the frame)",
            "patches": "index (1-based, reading order), reference labD50 painted, centre in pixels, vignette: the light there relative to the frame's centre (the measured patch is the reference dimmed by it)",
            "srgbLabD50": "per patch: the colour the sRGB PNG holds (clipped to the sRGB gamut), the truth for a JPEG made from it",
            "chart": "false when the frame holds no chart (corners and patches then say where it would have been)",
        ], width: width, height: height, chart: placement.chart,
                     corners: [0, 5, 23, 18].map { patches[$0].centre }, patches: patches)
    }
}

/// `make-chart-photo -o OUT.dng [--truth T.json] [--srgb-png P.png] [--seed N] [--width W] [--height H]
/// [--centre X,Y] [--size F] [--rotate DEG] [--keystone K] [--tilt T] [--vignette EV] [--grain G] [--iso N] [--no-chart]`
func makeChartPhoto(_ arguments: ArraySlice<String>) throws {
    var output: URL?, truthURL: URL?, png: URL?
    var seed: UInt64 = 1, width = 1200, height = 800, iso = 200
    var placement = ChartPhotoScene.Placement()
    var rest = arguments
    func value(_ flag: String) throws -> String {
        guard let v = rest.popFirst() else { throw LightWorkError.usage("\(flag) needs a value") }
        return v
    }
    func number(_ flag: String) throws -> Double {
        let text = try value(flag)
        guard let v = Double(text), v.isFinite else { throw LightWorkError.usage("\(flag) expects a number, not '\(text)'") }
        return v
    }
    while let flag = rest.popFirst() {
        switch flag {
        case "-o", "--output": output = URL(fileURLWithPath: try value(flag))
        case "--truth": truthURL = URL(fileURLWithPath: try value(flag))
        case "--srgb-png": png = URL(fileURLWithPath: try value(flag))
        case "--seed": seed = UInt64(try number(flag))
        case "--width": width = Int(try number(flag))
        case "--height": height = Int(try number(flag))
        case "--iso": iso = Int(try number(flag))
        case "--centre":
            let parts = try value(flag).split(separator: ",").compactMap { Double($0) }
            guard parts.count == 2 else { throw LightWorkError.usage("--centre expects X,Y in fractions of the frame") }
            placement.centre = SIMD2(parts[0], parts[1])
        case "--size": placement.size = try number(flag)
        case "--rotate": placement.rotation = try number(flag)
        case "--keystone": placement.keystone = try number(flag)
        case "--tilt": placement.tilt = try number(flag)
        case "--vignette": placement.vignette = try number(flag)
        case "--grain": placement.grain = try number(flag)
        case "--no-chart": placement.chart = false
        default: throw LightWorkError.usage("make-chart-photo: unknown option '\(flag)'")
        }
    }
    guard let output else { throw LightWorkError.usage("make-chart-photo needs -o FILE.dng") }
    guard width % 2 == 0, height % 2 == 0, width >= 64, height >= 64 else { throw LightWorkError.usage("width and height: even, at least 64") }
    let scene = ChartPhotoScene(width: width, height: height, seed: seed, placement: placement)
    let camera = SyntheticCamera(illuminant: .d65)
    let mosaic = CFAMosaic(scene: scene, camera: camera, seed: seed, noise: .iso(iso))
    try DNGWriter.write(mosaic, camera: camera, to: output)
    if let png { try SamplePNGWriter.write(scene: scene, camera: camera, to: png) }
    if let truthURL {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(scene.truth()).write(to: truthURL, options: .atomic)
    }
}
