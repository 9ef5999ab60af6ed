import Foundation
import LightWork

/// A scene pushed past the sensor's white in some channels, with the truth known beyond the clip: three bands of
/// one colour each (warm: red past white; yellow: red and green; sky: green and blue) whose brightness ramps
/// left to right from well below the clip to several times it, with a fine texture so that detail inside the
/// clipped part can be judged. Written twice with the synthetic camera's tags: `clipped` at the exposure that
/// clips, and `truth` the same scene `truthStops` darker, where nothing clips (its decode × 2^truthStops is the
/// truth of the clipped file's decode, rendered the same way).
struct HighlightScene: Sendable {
    /// One band: its name, balanced camera RGB at gain 1 (1 = where green, the least-amplified channel, saturates)
    /// and the gain at the band's right end.
    struct Band: Sendable {
        let name: String
        let colour: SIMD3<Double>
        let peakGain: Double
    }

    static let bands = [
        Band(name: "warm (red past white)", colour: [1, 0.30, 0.20], peakGain: 3.2),
        Band(name: "yellow (red and green past white)", colour: [1, 0.75, 0.28], peakGain: 2.8),
        Band(name: "sky (green and blue past white)", colour: [0.45, 0.75, 1], peakGain: 2.2),
    ]
    /// Gain at each band's left end (nothing clips there).
    static let startGain = 0.4
    /// The surround, balanced grey.
    static let background = 0.15
    /// How much darker the truth file is exposed (nothing of the scene clips at 1/4 of the exposure).
    static let truthStops = 2.0

    let width: Int
    let height: Int

    /// The rectangle (x, y, w, h) of band `i` in the upright image: full width less a margin, a quarter of the height.
    func bandRect(_ i: Int) -> (x: Int, y: Int, w: Int, h: Int) {
        let margin = width / 16, bh = height / 4, gap = (height - 3 * bh) / 4
        return (margin, gap + i * (bh + gap), width - 2 * margin, bh)
    }

    /// Balanced camera RGB of the scene at (x, y) (values above 1 clip in the green channel, and so on).
    func balanced(x: Int, y: Int) -> SIMD3<Double> {
        for (i, band) in Self.bands.enumerated() {
            let r = bandRect(i)
            guard x >= r.x, x < r.x + r.w, y >= r.y, y < r.y + r.h else { continue }
            let t = Double(x - r.x) / Double(r.w - 1)
            let gain = Self.startGain + (band.peakGain - Self.startGain) * t
            let texture = 1 + 0.08 * sin(2 * Double.pi * Double(y) / 9) * sin(2 * Double.pi * Double(x) / 13)
            return band.colour * gain * texture
        }
        return SIMD3(repeating: Self.background)
    }

    /// The mosaic at `stops` below the scene's exposure (0: the clipped file), RGGB, seeded noise as `CFAMosaic`.
    func mosaic(camera: SyntheticCamera, stops: Double, seed: UInt64) -> CFAMosaic {
        let neutral = camera.asShotNeutral
        let range = Double(SyntheticCamera.whiteLevel - SyntheticCamera.blackLevel)
        let black = Float(SyntheticCamera.blackLevel), white = Float(SyntheticCamera.whiteLevel)
        let pattern = CFALayout.rggb.pattern.map(Int.init)
        let scale = exp2(-stops)
        var samples = [UInt16](repeating: 0, count: width * height)
        for y in 0..<height {
            var rng = SeededRandom(seed: seed, stream: UInt64(y))
            for x in 0..<width {
                let c = pattern[2 * (y & 1) + (x & 1)]
                // Raw above black: the balanced value undone by the white balance (raw = balanced · neutral).
                let v = Float(balanced(x: x, y: y)[c] * scale * neutral[c] * range) + black + SyntheticCamera.noiseSigma * rng.gaussian()
                samples[y * width + x] = UInt16(min(max(v.rounded(), 0), white))
            }
        }
        return CFAMosaic(width: width, height: height, samples: samples, layout: DNGLayout())
    }

    /// Where each band clips, for the tests (JSON): its rectangle, the first column where every pixel has a
    /// channel past white (the compared part), and the last column where none comes within 15 % of it.
    func bandsJSON() throws -> Data {
        let rows: [[String: Any]] = Self.bands.enumerated().map { i, band in
            let r = bandRect(i), peak = band.colour.max()
            func column(gain: Double) -> Int {
                r.x + Int((Double(r.w - 1) * (gain - Self.startGain) / (band.peakGain - Self.startGain)).rounded())
            }
            return ["name": band.name, "x": r.x, "y": r.y, "w": r.w, "h": r.h,
                    "clippedFromX": column(gain: 1 / (peak * 0.92)), "unclippedToX": column(gain: 0.85 / (peak * 1.08))]
        }
        return try JSONSerialization.data(withJSONObject: ["truthStops": Self.truthStops, "bands": rows], options: [.sortedKeys])
    }

    /// `make-highlight-dng -o clipped.dng --truth truth.dng [--bands bands.json] [--width W --height H --seed N]`.
    static func run(_ arguments: ArraySlice<String>) throws {
        var output: URL?, truth: URL?, bands: URL?, width = 480, height = 320, seed: UInt64 = 1
        var rest = arguments
        while let flag = rest.popFirst() {
            guard let value = rest.popFirst() else { throw LightWorkError.usage("\(flag) needs a value") }
            switch flag {
            case "-o", "--output": output = URL(fileURLWithPath: value)
            case "--truth": truth = URL(fileURLWithPath: value)
            case "--bands": bands = URL(fileURLWithPath: value)
            case "--width": width = Int(value) ?? 0
            case "--height": height = Int(value) ?? 0
            case "--seed": seed = UInt64(value) ?? 1
            default: throw LightWorkError.usage("make-highlight-dng: unknown option \(flag)")
            }
        }
        guard let output, let truth else { throw LightWorkError.usage("make-highlight-dng needs -o FILE and --truth FILE") }
        guard width >= 64, height >= 64, width % 2 == 0, height % 2 == 0 else {
            throw LightWorkError.usage("make-highlight-dng: --width and --height must be even and at least 64")
        }
        let scene = HighlightScene(width: width, height: height)
        let camera = SyntheticCamera(illuminant: .d65)
        try DNGWriter.write(scene.mosaic(camera: camera, stops: 0, seed: seed), camera: camera, to: output)
        try DNGWriter.write(scene.mosaic(camera: camera, stops: truthStops, seed: seed), camera: camera, to: truth)
        if let bands { try scene.bandsJSON().write(to: bands) }
        FileHandle.standardError.write(Data("wrote \(output.path) and \(truth.path) (\(width) x \(height), truth \(truthStops) EV darker)\n".utf8))
    }
}

extension CFAMosaic {
    /// A mosaic from samples already rendered (row-major, `width × height`).
    init(width: Int, height: Int, samples: [UInt16], layout: DNGLayout) {
        self.width = width
        self.height = height
        self.samples = samples
        self.layout = layout
    }
}
