import Foundation
import LightWork

/// A photo-like scene of known colours (`make-sample-dng --scene photo`): sky, clouds, hills, textured grass, a
/// white house with a red roof, a road, a tree, a person and a red car with specular glints beyond the sensor's
/// clipping. Unlike the chart it has no grey surround: most of its area is coloured, as in a landscape, so
/// white balance and exposure estimates meet what they meet in photographs. Proportional to the size.
struct PhotoScene: ScenePainter {
    enum Shape: Sendable { case rect, ellipse }

    /// One flat (or, for `second`, vertically graded or seeded-textured) area, painted in list order.
    struct Region: Sendable {
        let name: String
        let shape: Shape
        /// Bounds in fractions of the frame (x, y, w, h).
        let bounds: (Double, Double, Double, Double)
        let material: Int
        /// A second material: the sky grades to it downwards; grass mixes it in as texture.
        let second: Int?
        let textured: Bool
        /// Where the flat area is measured (fractions of the frame), clear of what is painted over it; nil when it
        /// is not listed in the truth file (graded, textured, partly covered, or a glint).
        let measure: (Double, Double, Double, Double)?
        var measured: Bool { measure != nil }
    }

    let width: Int
    let height: Int
    let seed: UInt64
    /// The grass texture's cell, in pixels: seed 1's 4, and finer for other seeds, where demosaics differ most.
    let textureCell: Int
    let materials: [SIMD3<Double>]
    let regions: [Region]

    /// The materials (CIELAB D50), named.
    static let palette: [(String, SIMD3<Double>)] = [
        ("sky top", [62, -2, -32]), ("sky horizon", [82, -3, -14]), ("cloud", [93, 0, 1]),
        ("far hill", [42, -20, 30]), ("near hill", [38, -18, 28]), ("grass", [48, -28, 42]), ("grass light", [56, -22, 48]),
        ("white wall", [88, 0.5, 3]), ("red roof", [38, 42, 28]), ("window", [20, 0, -3]), ("door", [30, 12, 20]),
        ("road", [42, 0, 1]), ("tree trunk", [28, 8, 16]), ("tree crown", [35, -22, 26]),
        ("skin", [66, 18, 18]), ("blue shirt", [40, 5, -40]), ("red car", [42, 55, 35]),
        // A glint: neutral (a specular reflection has the light's colour), twice a perfect white's luminance.
        ("specular", [140, 0, 0]),
    ]

    static func material(_ name: String) -> Int { palette.firstIndex { $0.0 == name }! }

    /// Seed 1 is the reference layout the tests and truth files were measured on. Any other seed is another scene
    /// of the same kind: the house, the car, the person and the tree each moved as a group (glints with their car
    /// and window), the clouds and hills moved, the grass textured in 2- or 3-pixel cells instead of 4 and, in
    /// front of it, a fence of thin posts, 2 to 5 pixels wide at 3000 px, so the scenes a demosaic is compared on
    /// differ in what it finds hard, not only in their noise.
    init(width: Int, height: Int, seed: UInt64) {
        self.width = width
        self.height = height
        self.seed = seed
        materials = PhotoScene.palette.map(\.1)
        let varied = seed != 1
        textureCell = varied ? [2, 3][Int(seed % 2)] : 4
        var rng = SeededRandom(seed: seed, stream: 0x7068_6f74)   // "phot"
        /// A group's offset (fractions of the frame): none for seed 1.
        func offset(_ dx: Double, _ dy: Double) -> (Double, Double) {
            guard varied else { return (0, 0) }
            return ((rng.unit() * 2 - 1) * dx, (rng.unit() * 2 - 1) * dy)
        }
        func r(_ name: String, _ shape: Shape, _ b: (Double, Double, Double, Double), _ m: String, _ second: String? = nil,
               textured: Bool = false, measure: Bool = false, at box: (Double, Double, Double, Double)? = nil,
               moved o: (Double, Double) = (0, 0)) -> Region {
            let b = (b.0 + o.0, b.1 + o.1, b.2, b.3)
            // By default the middle of the bounds: half of each side (rectangles) or 40 % (ellipses).
            let f = shape == .ellipse ? 0.4 : 0.5
            let middle = (b.0 + b.2 * (1 - f) / 2, b.1 + b.3 * (1 - f) / 2, b.2 * f, b.3 * f)
            return Region(name: name, shape: shape, bounds: b, material: PhotoScene.material(m), second: second.map(PhotoScene.material),
                          textured: textured, measure: box.map { ($0.0 + o.0, $0.1 + o.1, $0.2, $0.3) } ?? (measure ? middle : nil))
        }
        // The ranges keep every measured area clear of what is painted after it (checked below): the person, for
        // one, could otherwise stand on the tree trunk's or the wall's measured patch.
        let clouds = offset(0.08, 0.02), hills = offset(0.1, 0.02), house = offset(0.12, 0.02), tree = offset(0.08, 0.01)
        let person = offset(0.06, 0.03), car = offset(0.1, 0.02)
        var list: [Region] = [
            r("sky", .rect, (0, 0, 1, 0.40), "sky top", "sky horizon"),
            r("cloud", .ellipse, (0.03, 0.05, 0.24, 0.10), "cloud", measure: true, moved: clouds),
            r("cloud small", .ellipse, (0.45, 0.10, 0.20, 0.08), "cloud", measure: true, moved: (-clouds.0, clouds.1)),
            r("far hill", .ellipse, (-0.1, 0.30, 0.8, 0.22), "far hill", moved: hills),
            r("near hill", .ellipse, (0.45, 0.33, 0.7, 0.20), "near hill", moved: (-hills.0, hills.1)),
            r("grass", .rect, (0, 0.44, 1, 0.56), "grass", "grass light", textured: true),
            r("red roof", .rect, (0.56, 0.30, 0.26, 0.07), "red roof", measure: true, moved: house),
            r("white wall", .rect, (0.58, 0.37, 0.22, 0.20), "white wall", at: (0.668, 0.40, 0.035, 0.12), moved: house),
            r("window", .rect, (0.61, 0.41, 0.05, 0.06), "window", measure: true, moved: house),
            r("door", .rect, (0.71, 0.45, 0.05, 0.12), "door", measure: true, moved: house),
            r("road", .rect, (0, 0.80, 1, 0.10), "road", measure: true),
        ]
        if varied {
            // Fence posts across the grass, in front of the house and behind the tree, person and car.
            let count = 24 + Int(rng.unit() * 16), top = 0.62 + rng.unit() * 0.04
            for k in 0..<count {
                let x = (Double(k) + 0.5 + (rng.unit() - 0.5) * 0.3) / Double(count), w = (2 + 3 * rng.unit()) / 3000
                list.append(r("fence post", .rect, (x - w / 2, top, w, 0.12), k % 2 == 0 ? "white wall" : "tree trunk"))
            }
        }
        list += [
            r("tree crown", .ellipse, (0.12, 0.24, 0.18, 0.20), "tree crown", moved: tree),
            r("tree trunk", .rect, (0.195, 0.42, 0.03, 0.25), "tree trunk", at: (0.2, 0.48, 0.02, 0.14), moved: tree),
            r("blue shirt", .rect, (0.40, 0.58, 0.04, 0.10), "blue shirt", measure: true, moved: person),
            r("skin", .ellipse, (0.405, 0.535, 0.03, 0.045), "skin", measure: true, moved: person),
            r("red car", .rect, (0.68, 0.70, 0.16, 0.08), "red car", measure: true, moved: car),
        ]
        // Glints: small spots at the car's and the window's edges, well under 1 % of the frame.
        for (x, y, o) in [(0.685, 0.705, car), (0.83, 0.705, car), (0.70, 0.765, car), (0.82, 0.77, car), (0.612, 0.412, house), (0.652, 0.462, house)] {
            list.append(r("specular", .ellipse, (x, y, 0.006, 0.008), "specular", moved: o))
        }
        regions = list
        // The truth file says each measured area is its material: nothing painted later may cover any of it.
        for (i, region) in list.enumerated() {
            guard let m = region.measure else { continue }
            for later in list[(i + 1)...] {
                let b = later.bounds
                let overlaps = m.0 < b.0 + b.2 && b.0 < m.0 + m.2 && m.1 < b.1 + b.3 && b.1 < m.1 + m.3
                // fatalError, not precondition: its message is printed in release builds too.
                if overlaps { fatalError("photo scene, seed \(seed): \(later.name) covers where \(region.name) is measured") }
            }
        }
    }

    /// The pixel bounds of a region.
    func pixelBounds(_ region: Region) -> PixelRect { pixels(region.bounds) }

    /// Where a measured region is sampled, in pixels.
    func centre(_ region: Region) -> PixelRect { pixels(region.measure ?? region.bounds) }

    /// Fractions of the frame (x, y, w, h) in pixels, at least one a side.
    func pixels(_ f: (Double, Double, Double, Double)) -> PixelRect {
        let x0 = Int((f.0 * Double(width)).rounded()), y0 = Int((f.1 * Double(height)).rounded())
        return PixelRect(x: x0, y: y0, w: max(1, Int(((f.0 + f.2) * Double(width)).rounded()) - x0),
                         h: max(1, Int(((f.1 + f.3) * Double(height)).rounded()) - y0))
    }

    func renderRow(_ y: Int, palette: ScenePalette, r: UnsafeMutablePointer<Float>, g: UnsafeMutablePointer<Float>, b: UnsafeMutablePointer<Float>) {
        for region in regions {
            let box = pixelBounds(region)
            guard y >= box.y, y < box.maxY, box.w > 0, box.h > 0 else { continue }
            let cy = Double(box.y) + Double(box.h) / 2, ry = Double(box.h) / 2
            let cx = Double(box.x) + Double(box.w) / 2, rx = Double(box.w) / 2
            let dy = (Double(y) + 0.5 - cy) / ry
            var span = max(0, box.x)..<min(width, box.maxX)
            if region.shape == .ellipse {
                guard dy * dy < 1 else { continue }
                let half = rx * (1 - dy * dy).squareRoot()
                span = max(0, Int((cx - half).rounded()))..<min(width, Int((cx + half).rounded()))
            }
            guard !span.isEmpty else { continue }
            let m = region.material
            var t: Float = 0
            if region.second != nil, !region.textured { t = Float(Double(y - box.y) / Double(max(1, box.h - 1))) }
            for x in span {
                var k = t
                if region.textured, region.second != nil {
                    // Seeded, blocky texture (`textureCell` pixels square), the same for the DNG and the PNG.
                    var rng = SeededRandom(seed: seed, stream: UInt64((y / textureCell) * 65536 + x / textureCell))
                    k = Float(rng.unit())
                }
                let s = region.second ?? m
                r[x] = palette.r[m] + (palette.r[s] - palette.r[m]) * k
                g[x] = palette.g[m] + (palette.g[s] - palette.g[m]) * k
                b[x] = palette.b[m] + (palette.b[s] - palette.b[m]) * k
            }
        }
    }

    /// The truth file: the light, and each measured region's CIELAB D50 and centre.
    struct Truth: Codable {
        struct Area: Codable { let name: String; let labD50: [Double]; let centre: PixelRect }
        let version, width, height: Int
        let scene, sceneIlluminant: String
        /// The camera's response to the light (largest 1), as the DNG's AsShotNeutral.
        let asShotNeutral: [Double]
        /// The share of the frame covered by glints brighter than the sensor clips.
        let specularShare: Double
        let areas: [Area]
    }

    func truth(camera: SyntheticCamera) -> Truth {
        let n = camera.asShotNeutral
        let glints = regions.filter { $0.name == "specular" }.map { Double(pixelBounds($0).w * pixelBounds($0).h) * Double.pi / 4 }
        return Truth(version: 1, width: width, height: height, scene: "photo", sceneIlluminant: camera.illuminant.rawValue,
                     asShotNeutral: [n.x, n.y, n.z], specularShare: glints.reduce(0, +) / Double(width * height),
                     areas: regions.filter(\.measured).map { Truth.Area(name: $0.name, labD50: [materials[$0.material].x, materials[$0.material].y, materials[$0.material].z], centre: centre($0)) })
    }
}
