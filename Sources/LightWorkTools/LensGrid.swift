import CLensfun
import CShims
import Dispatch
import Foundation
import LightWork

/// A grid chart photographed through a real lens of lensfun's database: the lens's distortion, lateral CA and
/// vignetting applied forward by lensfun itself (a modifier in reverse mode), so the truth is the straight grid.
/// `measure` finds the grid's lines in a developed image and says how straight they are.
enum LensGrid {
    static let usage = """
          lightwork-tools make-lens-grid-dng -o FILE.dng [--width 1800 --height 1200] [--seed N]
                                      [--camera "Canon|Canon EOS 5D Mark II"] [--lens "Canon EF 20mm f/2.8 USM"]
                                      [--focal 20] [--aperture 2.8] [--noise SIGMA] [--effects distortion,tca,vignetting|none]
          lightwork-tools measure-lens-grid IMAGE [--json] [--lines]   straightness of the grid's lines (RGB or RAW file)
          lightwork-tools check-lens-correction   the correction alone on float planes (no mosaic), and the grid maps' error (JSON)
        """

    /// Grid pitch and line width in pixels of the undistorted scene, and the two reflectances.
    static let pitch = 90.0, lineWidth = 4.0
    static let background = 0.5, ink = 0.04
    /// Where measure-lens-grid's corner patches (48 × 48) are centred, from each corner.
    static let cornerPatchCentre = 28

    // MARK: making the file

    struct Request {
        var output: URL?
        var width = 1800, height = 1200
        var seed: UInt64 = 1
        var make = "Canon", model = "Canon EOS 5D Mark II"
        var lens = "Canon EF 20mm f/2.8 USM"
        var focal: Float = 20, aperture: Float = 2.8
        var noise = SyntheticCamera.noiseSigma
        var effects = Int32(LF_MODIFY_DISTORTION | LF_MODIFY_TCA | LF_MODIFY_VIGNETTING)

        init(_ arguments: ArraySlice<String>) throws {
            var rest = arguments
            func value(_ flag: String) throws -> String {
                guard let v = rest.popFirst() else { throw LightWorkError.usage("\(flag) needs a value") }
                return v
            }
            while let flag = rest.popFirst() {
                switch flag {
                case "-o", "--output": output = URL(fileURLWithPath: try value(flag))
                case "--width": width = Int(try value(flag)) ?? 0
                case "--height": height = Int(try value(flag)) ?? 0
                case "--seed": seed = UInt64(try value(flag)) ?? 1
                case "--camera":
                    let parts = try value(flag).split(separator: "|", maxSplits: 1).map(String.init)
                    guard parts.count == 2 else { throw LightWorkError.usage("--camera wants \"Maker|Model\"") }
                    (make, model) = (parts[0], parts[1])
                case "--lens": lens = try value(flag)
                case "--focal": focal = Float(try value(flag)) ?? 0
                case "--aperture": aperture = Float(try value(flag)) ?? 0
                case "--noise": noise = Float(try value(flag)) ?? -1
                case "--effects":
                    effects = 0
                    for e in try value(flag).split(separator: ",") {
                        switch e {
                        case "distortion": effects |= Int32(LF_MODIFY_DISTORTION)
                        case "tca": effects |= Int32(LF_MODIFY_TCA)
                        case "vignetting": effects |= Int32(LF_MODIFY_VIGNETTING)
                        case "none": break
                        default: throw LightWorkError.usage("--effects: give distortion, tca, vignetting or none, comma-separated")
                        }
                    }
                default: throw LightWorkError.usage("make-lens-grid-dng: unknown option \(flag)")
                }
            }
            guard output != nil else { throw LightWorkError.usage("make-lens-grid-dng needs -o FILE.dng") }
            guard width >= 64, height >= 64, width % 2 == 0, height % 2 == 0 else {
                throw LightWorkError.usage("make-lens-grid-dng: --width and --height must be even and at least 64")
            }
            guard focal > 0, aperture > 0 else { throw LightWorkError.usage("make-lens-grid-dng: --focal and --aperture must be positive") }
        }
    }

    /// Reflectance of the ideal grid at scene position (u, v) averaged over a square of side `s` (pixel units):
    /// the lines' coverage is exact along each axis and combined as a union.
    static func reflectance(u: Double, v: Double, cx: Double, cy: Double, s: Double) -> Double {
        func coverage(_ t: Double) -> Double {
            // Lines centred on cx + (k + 1/2) · pitch: the frame's centre lies inside a cell.
            let phase = (t - pitch / 2).truncatingRemainder(dividingBy: pitch)
            let d = abs(phase < 0 ? phase + pitch : phase)
            let dist = min(d, pitch - d)
            let lo = dist - s / 2, hi = dist + s / 2, half = lineWidth / 2
            return max(0, min(hi, half) - max(lo, -half)) / s
        }
        let a = coverage(u - cx), b = coverage(v - cy)
        let dark = a + b - a * b
        return background * (1 - dark) + ink * dark
    }

    static func make(_ arguments: ArraySlice<String>) throws {
        let r = try Request(arguments)
        let db = try LensDatabase.shared.loaded()
        guard let camera = db.camera(make: r.make, model: r.model) else {
            throw LightWorkError.usage("camera \(r.make) \(r.model) is not in lensfun's database")
        }
        let lens = try db.lens(named: r.lens, camera: camera)
        let (w, h) = (r.width, r.height)
        let flags = r.effects
        let forward = LensModifier(lens: lens, crop: camera.pointee.CropFactor, width: w, height: h, focal: r.focal,
                                   aperture: r.aperture, distance: 1000, scale: 1, flags: flags, reverse: true)
        guard forward.flags & flags == flags else {
            throw LightWorkError.usage("\(LensDatabase.name(of: lens)) has no distortion, TCA and vignetting profile at \(r.focal) mm f/\(r.aperture)")
        }
        let sim = SyntheticCamera(illuminant: .d65)
        let white = sim.rawResponse(lab: SIMD3(100, 0, 0))
        let cx = Double(w - 1) / 2, cy = Double(h - 1) / 2
        let pattern = DNGLayout().cfa.pattern.map(Int.init)
        let black = Float(SyntheticCamera.blackLevel), whiteLevel = Float(SyntheticCamera.whiteLevel)
        let inverse = ExactInverse(lens: lens, crop: camera.pointee.CropFactor, width: w, height: h, focal: r.focal,
                                   aperture: r.aperture, flags: flags)
        // 4 × 4 sub-positions per pixel, each mapped into the scene (lensfun's reverse estimate made exact) and
        // box-averaged there; only the pixel's CFA channel is rendered.
        let sub = 4
        var samples = [UInt16](repeating: 0, count: w * h)
        samples.withUnsafeMutableBufferPointer { buffer in
            let out = SendablePointer(buffer.baseAddress!)
            DispatchQueue.concurrentPerform(iterations: h) { y in
                let positions = UnsafeMutablePointer<Float>.allocate(capacity: 6 * w)
                let gains = UnsafeMutablePointer<Float>.allocate(capacity: w)
                defer { positions.deallocate(); gains.deallocate() }
                var sums = [Double](repeating: 0, count: w)
                for j in 0..<sub {
                    for i in 0..<sub {
                        let ox = (Double(i) + 0.5) / Double(sub) - 0.5, oy = (Double(j) + 0.5) / Double(sub) - 0.5
                        forward.sourcePositions(x: Float(ox), y: Float(Double(y) + oy), count: w, into: positions)
                        for x in 0..<w {
                            let c = pattern[2 * (y & 1) + (x & 1)]
                            let scene = inverse.refine(channel: c, x: Double(x) + ox, y: Double(y) + oy,
                                                       from: (Double(positions[6 * x + 2 * c]), Double(positions[6 * x + 2 * c + 1])))
                            sums[x] += reflectance(u: scene.0, v: scene.1, cx: cx, cy: cy, s: 1 / Double(sub))
                        }
                    }
                }
                gains.initialize(repeating: 1, count: w)
                forward.vignettingGains(x: 0, y: Float(y), count: w, into: gains)
                var rng = SeededRandom(seed: r.seed, stream: UInt64(y))
                for x in 0..<w {
                    let c = pattern[2 * (y & 1) + (x & 1)]
                    let value = sums[x] / Double(sub * sub) * Double(gains[x]) * white[c]
                    let v = Float(value) + black + r.noise * rng.gaussian()
                    out.pointer[y * w + x] = UInt16(min(max(v.rounded(), 0), whiteLevel))
                }
            }
        }
        let mosaic = CFAMosaic(width: w, height: h, samples: samples, layout: DNGLayout())
        let url = r.output!
        try DNGWriter.write(mosaic, camera: sim, to: url, make: r.make, model: r.model)
        // The lens and the shot go into the EXIF IFD, where cameras write them, through exiftool (an
        // independent writer that darktable and RawTherapee read the same way).
        let exif = Process()
        exif.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        exif.arguments = ["exiftool", "-q", "-overwrite_original", "-LensModel=\(LensDatabase.name(of: lens))",
                          "-LensMake=\(LensDatabase.text(lens.pointee.Maker))", "-FocalLength=\(r.focal)",
                          "-FNumber=\(r.aperture)", "-ExposureTime=1/125", "-ISO=100", url.path]
        try exif.run()
        exif.waitUntilExit()
        guard exif.terminationStatus == 0 else {
            throw LightWorkError.missingTool("exiftool could not write the lens EXIF into \(url.path) (install libimage-exiftool-perl)")
        }
        // The model's vignetting at the centre of measure-lens-grid's corner patch (the gain at the centre is 1).
        var corner: Float = 1
        forward.vignettingGains(x: Float(cornerPatchCentre), y: Float(cornerPatchCentre), count: 1, into: &corner)
        print("wrote \(url.path): \(w)x\(h) grid through \(LensDatabase.name(of: lens)) on \(r.make) \(r.model) at \(r.focal) mm f/\(r.aperture); model vignetting at the corner \(String(format: "%.4f", corner))")
    }

    /// The scene position a sensor position shows, per channel: the inverse of the correction's map C (lensfun's
    /// polynomials evaluated directly, as `--lens` uses them). lensfun's reverse mode inverts them by a few Newton
    /// steps to a loose tolerance (its round trip misses by up to 0.13 px in this lens's corners, which bent the
    /// corrected lines); here fixed-point steps p ← p + (q − C(p)) from its estimate, with C bilinear from a
    /// table of C at every pixel (1 px apart, C's curvature makes that exact to 1e-5 px), converge to 1e-6 px.
    struct ExactInverse {
        let width: Int, height: Int
        let margin = 24
        /// C at pixel (x − margin, y − margin): R x,y · G x,y · B x,y; empty without a geometric correction.
        let table: [Float]

        init(lens: UnsafePointer<lfLens>, crop: Float, width: Int, height: Int, focal: Float, aperture: Float, flags: Int32) {
            self.width = width; self.height = height
            let geometric = flags & Int32(LF_MODIFY_DISTORTION | LF_MODIFY_TCA)
            guard geometric != 0 else { table = []; return }
            let c = LensModifier(lens: lens, crop: crop, width: width, height: height, focal: focal, aperture: aperture,
                                 distance: 1000, scale: 1, flags: geometric, reverse: false)
            let tw = width + 2 * margin, th = height + 2 * margin, m = margin
            var t = [Float](repeating: 0, count: 6 * tw * th)
            t.withUnsafeMutableBufferPointer { b in
                for row in 0..<th { c.sourcePositions(x: Float(-m), y: Float(row - m), count: tw, into: b.baseAddress! + 6 * tw * row) }
            }
            table = t
        }

        /// C of channel `c` at (x, y), bilinear in the table.
        func corrected(_ c: Int, _ x: Double, _ y: Double) -> (Double, Double) {
            let tw = width + 2 * margin, th = height + 2 * margin
            let fx = min(max(x + Double(margin), 0), Double(tw - 2)), fy = min(max(y + Double(margin), 0), Double(th - 2))
            let ix = Int(fx), iy = Int(fy), ax = fx - Double(ix), ay = fy - Double(iy)
            func at(_ i: Int, _ j: Int, _ k: Int) -> Double { Double(table[6 * ((iy + j) * tw + ix + i) + 2 * c + k]) }
            func lerp(_ k: Int) -> Double {
                (at(0, 0, k) * (1 - ax) + at(1, 0, k) * ax) * (1 - ay) + (at(0, 1, k) * (1 - ax) + at(1, 1, k) * ax) * ay
            }
            return (lerp(0), lerp(1))
        }

        /// The scene position p with C(p) = (x, y), from lensfun's reverse estimate.
        func refine(channel c: Int, x: Double, y: Double, from estimate: (Double, Double)) -> (Double, Double) {
            guard !table.isEmpty else { return estimate }
            var p = estimate
            for _ in 0..<4 {
                let q = corrected(c, p.0, p.1)
                p = (p.0 + (x - q.0), p.1 + (y - q.1))
            }
            return p
        }
    }

    // MARK: measuring

    /// Straightness of a developed grid: each line found near the centre is traced across the frame by the
    /// centroid of its darkness (per channel), and fitted by a straight line.
    struct Straightness: Codable {
        var lines = 0
        /// The largest distance of a traced point of the green channel from its line's fit, over all lines (pixels).
        var maxResidual = 0.0
        var rmsResidual = 0.0
        /// The same for the red and blue channels (their own fits).
        var maxResidualRedBlue = 0.0
        /// RMS distance between the red and blue traces of the same line (lateral CA left, pixels).
        var redBlueRMS = 0.0
        /// Mean background level in the four corner patches over the centre patch (linear light).
        var cornerToCentre = 0.0
    }

    static func measure(_ arguments: ArraySlice<String>) throws {
        guard let path = arguments.first else { throw LightWorkError.usage("measure-lens-grid IMAGE [--json]") }
        let url = URL(fileURLWithPath: path)
        let data = try Data(contentsOf: url)
        let engine = EngineConfiguration.detected
        let decoded = try CodecRegistry.decoder(for: data).decode(data: data, url: url, options: DecodeOptions(), engine: engine)
        let planes = PlanarImage(decoded.image, engine: engine)
        let s = straightness(planes, verbose: arguments.contains("--lines"))
        if arguments.contains("--json") {
            let enc = JSONEncoder(); enc.outputFormatting = [.sortedKeys]
            print(String(decoding: try enc.encode(s), as: UTF8.self))
        } else {
            print(String(format: "%@: %d lines, straightness (green) max %.3f px, rms %.3f px; red and blue max %.3f px; red-blue %.3f px rms; corner/centre %.4f",
                         path, s.lines, s.maxResidual, s.rmsResidual, s.maxResidualRedBlue, s.redBlueRMS, s.cornerToCentre))
        }
    }

    /// The least-squares line b = mb + slope · (a − ma) through a trace's points.
    struct LineFit {
        var ma = 0.0, mb = 0.0, slope = 0.0
        func at(_ a: Double) -> Double { mb + slope * (a - ma) }
    }

    static func fit(_ t: [(Double, Double)]) -> LineFit {
        let n = Double(t.count)
        let ma = t.map { $0.0 }.reduce(0, +) / n, mb = t.map { $0.1 }.reduce(0, +) / n
        let sab = t.map { ($0.0 - ma) * ($0.1 - mb) }.reduce(0, +), saa = t.map { ($0.0 - ma) * ($0.0 - ma) }.reduce(0, +)
        return LineFit(ma: ma, mb: mb, slope: saa > 0 ? sab / saa : 0)
    }

    static func straightness(_ image: PlanarImage, verbose: Bool = false) -> Straightness {
        let w = image.width, h = image.height
        var result = Straightness()
        var squares = 0.0, count = 0, rbSquares = 0.0, rbCount = 0
        // Every line traced: whether it runs along a row, where it was seeded, and its R, G, B traces (a, b).
        var found: [(horizontal: Bool, seed: Int, traces: [[(Double, Double)]])] = []
        for horizontal in [true, false] {
            let along = horizontal ? w : h, across = horizontal ? h : w
            let g = image.plane(1)
            func value(_ plane: UnsafeMutablePointer<Float>, _ a: Int, _ b: Int) -> Double {
                Double(horizontal ? plane[b * w + a] : plane[a * w + b])
            }
            // Seeds: dark minima of the profile across the lines, a quarter pitch off the centre (inside a cell).
            let seedAt = along / 2 + Int(pitch / 4)
            var seeds: [Int] = []
            let profile = (0..<across).map { value(g, seedAt, $0) }
            let bright = profile.sorted()[profile.count * 9 / 10]
            var b = 3
            while b < across - 3 {
                if profile[b] < 0.5 * bright, profile[b] == profile[(b - 3)...(b + 3)].min() { seeds.append(b); b += Int(pitch / 2) } else { b += 1 }
            }
            let half = Int(pitch / 3)
            for seed in seeds where seed > half + 4 && seed < across - half - 5 {
                var traces: [[(Double, Double)]] = [[], [], []]
                for c in 0..<3 {
                    let p = image.plane(c)
                    for direction in [1, -1] {
                        var centre = Double(seed)
                        var background: Double?
                        var a = seedAt
                        while a >= 8 && a < along - 8 {
                            let lo = Int(centre.rounded()) - half, hi = Int(centre.rounded()) + half
                            guard lo >= 0, hi < across else { break }
                            let window = (lo...hi).map { value(p, a, $0) }
                            // The line covers a tenth of the window: the median is the background here.
                            let bg = window.sorted()[window.count / 2]
                            let darkest = window.indices.min { window[$0] < window[$1] }!
                            // A crossing line darkens the whole window at once: no centroid where the background
                            // drops against the last one seen.
                            if window[darkest] < 0.6 * bg, bg > 0.95 * (background ?? bg) {
                                background = bg
                                // The centroid of darkness within a few pixels of the darkest point: the line alone.
                                var sw = 0.0, sp = 0.0
                                for k in max(0, darkest - 5)...min(window.count - 1, darkest + 5) {
                                    let d = max(0, bg - window[k])
                                    sw += d; sp += d * Double(lo + k)
                                }
                                let found = sp / sw
                                // A step of 3 pixels moves a line by well under 2: farther is another line, or none.
                                guard abs(found - centre) < 2 || traces[c].isEmpty && abs(found - centre) < 4 else { break }
                                centre = found
                                traces[c].append((Double(a), centre))
                            }
                            a += direction * 3
                        }
                    }
                }
                guard traces[1].count > along / 12 else { continue }
                found.append((horizontal, seed, traces))
            }
        }
        // A crossing line darkens the window unevenly near its edges and pulls the centroid: points within this
        // distance of a perpendicular line's green fit are left out (measured: up to 0.35 px of the worst points).
        let crossingMargin = lineWidth / 2 + 4
        let greenFits = found.map { fit($0.traces[1]) }
        for line in found {
            let crossing = found.indices.filter { found[$0].horizontal != line.horizontal }.map { greenFits[$0] }
            // Point (a, b) of this line lies at a on a perpendicular line when that line passes a at b.
            func clear(_ p: (Double, Double)) -> Bool { crossing.allSatisfy { abs(p.0 - $0.at(p.1)) >= crossingMargin } }
            let traces = line.traces.map { $0.filter(clear) }
            result.lines += 1
            var worst = (0.0, 0.0, 0), worstGreen = (0.0, 0.0)
            for c in 0..<3 where traces[c].count >= 2 {
                let f = fit(traces[c])
                for (a, bv) in traces[c] {
                    let r = abs(bv - f.at(a)) / (1 + f.slope * f.slope).squareRoot()
                    if c == 1 {
                        result.maxResidual = max(result.maxResidual, r)
                        squares += r * r; count += 1
                    } else {
                        result.maxResidualRedBlue = max(result.maxResidualRedBlue, r)
                    }
                    if r > worst.0 { worst = (r, a, c) }
                    if c == 1 && r > worstGreen.0 { worstGreen = (r, a) }
                }
            }
            if verbose {
                print(String(format: "  %@ line at %d: %d points, worst %.3f px at %.0f (channel %d), green %.3f px at %.0f", line.horizontal ? "row" : "column",
                             line.seed, traces[1].count, worst.0, worst.1, worst.2, worstGreen.0, worstGreen.1))
            }
            let red = Dictionary(traces[0].map { ($0.0, $0.1) }, uniquingKeysWith: { a, _ in a })
            for (a, blue) in traces[2] { if let rv = red[a] { rbSquares += (rv - blue) * (rv - blue); rbCount += 1 } }
        }
        result.rmsResidual = count > 0 ? (squares / Double(count)).squareRoot() : .nan
        result.redBlueRMS = rbCount > 0 ? (rbSquares / Double(rbCount)).squareRoot() : .nan
        // Background: the brighter pixels (off the lines) of 48-pixel patches at the corners and the centre.
        func level(_ x0: Int, _ y0: Int) -> Double {
            var v: [Float] = []
            for y in y0..<(y0 + 48) { for x in x0..<(x0 + 48) { v.append(image.g[y * w + x]) } }
            v.sort()
            let top = v[v.count * 95 / 100]
            let off = v.filter { $0 > 0.85 * top }
            return Double(off.reduce(0, +)) / Double(off.count)
        }
        let m = cornerPatchCentre - 24
        let corners = [level(m, m), level(w - 48 - m, m), level(m, h - 48 - m), level(w - 48 - m, h - 48 - m)]
        result.cornerToCentre = corners.reduce(0, +) / 4 / level(w / 2 - 24, h / 2 - 24)
        return result
    }
}

extension LensGrid {
    /// `check-lens-correction`: the correction alone, without a mosaic or a demosaic. The grid is rendered straight
    /// into float planes (2 × 2 sub-positions a pixel) through the exact forward model (`ExactInverse`, distortion
    /// and TCA, no vignetting), corrected by `LensCorrection` (camera RGB = working RGB), and measured; and the
    /// coarse grid's interpolated maps are compared with lensfun's own position at every pixel, at this size and at 6000 × 4000.
    static func checkCorrection(_ arguments: ArraySlice<String>) throws {
        let (w, h) = (1800, 1200)
        let db = try LensDatabase.shared.loaded()
        guard let camera = db.camera(make: "Canon", model: "Canon EOS 5D Mark II") else { throw LightWorkError.usage("Canon EOS 5D Mark II not in lensfun") }
        let lens = try db.lens(named: "Canon EF 20mm f/2.8 USM", camera: camera)
        let flags = Int32(LF_MODIFY_DISTORTION | LF_MODIFY_TCA)
        let forward = LensModifier(lens: lens, crop: 1, width: w, height: h, focal: 20, aperture: 2.8, distance: 1000, scale: 1, flags: flags, reverse: true)
        let inverse = ExactInverse(lens: lens, crop: 1, width: w, height: h, focal: 20, aperture: 2.8, flags: flags)
        let image = PlanarImage(width: w, height: h, primaries: .proPhoto)
        let cx = Double(w - 1) / 2, cy = Double(h - 1) / 2
        let sub = 2
        let target = UncheckedSendable(image)
        DispatchQueue.concurrentPerform(iterations: h) { y in
            let positions = UnsafeMutablePointer<Float>.allocate(capacity: 6 * w)
            defer { positions.deallocate() }
            var sums = [Double](repeating: 0, count: 3 * w)
            for j in 0..<sub { for i in 0..<sub {
                let ox = (Double(i) + 0.5) / Double(sub) - 0.5, oy = (Double(j) + 0.5) / Double(sub) - 0.5
                forward.sourcePositions(x: Float(ox), y: Float(Double(y) + oy), count: w, into: positions)
                for x in 0..<w { for c in 0..<3 {
                    let p = inverse.refine(channel: c, x: Double(x) + ox, y: Double(y) + oy,
                                           from: (Double(positions[6 * x + 2 * c]), Double(positions[6 * x + 2 * c + 1])))
                    sums[3 * x + c] += reflectance(u: p.0, v: p.1, cx: cx, cy: cy, s: 1 / Double(sub))
                } }
            } }
            for x in 0..<w { for c in 0..<3 { target.value.plane(c)[y * w + x] = Float(sums[3 * x + c] / Double(sub * sub)) } }
        }
        var m = ImageMetadata()
        m.make = "Canon"; m.model = "Canon EOS 5D Mark II"; m.lens = "Canon EF 20mm f/2.8 USM"; m.focalLength = 20
        var context = DevelopContext(kind: .raw, metadata: m, details: ["cameraToWorking": "1 0 0; 0 1 0; 0 0 1"], engine: .detected)
        let before = straightness(image)
        let after = try straightness(LensCorrection.apply(.auto, to: image, context: &context))
        var figures: [String: Double] = [
            "linesBefore": Double(before.lines), "maxBefore": before.maxResidual,
            "lines": Double(after.lines), "maxResidual": after.maxResidual, "rmsResidual": after.rmsResidual,
            "maxResidualRedBlue": after.maxResidualRedBlue, "redBlueRMS": after.redBlueRMS,
        ]
        // The stage's geometry in one resampling (lens ∘ rotate 2° ∘ its crop) against two (the lens, then the
        // rotation of its output), both measured against the scene the grid shows there.
        let rotation = 2.0
        func developed(fused: Bool) throws -> PlanarImage {
            var c = DevelopContext(kind: .raw, metadata: m, details: ["cameraToWorking": "1 0 0; 0 1 0; 0 0 1"], engine: .detected)
            let copy = PlanarImage(width: w, height: h, primaries: .proPhoto)
            for p in 0..<3 { copy.plane(p).update(from: image.plane(p), count: w * h) }
            guard fused else { return try Rotate.apply(.degrees(rotation), to: LensCorrection.apply(.auto, to: copy, context: &c), context: &c) }
            var g = DevelopGeometry(source: copy)
            try LensCorrection.compose(.auto, onto: &g, context: &c)
            try Rotate.compose(.degrees(rotation), onto: &g, context: &c)
            return g.render(engine: .detected)
        }
        let fused = try developed(fused: true), twice = try developed(fused: false)
        let turned = straightness(fused)
        figures["rotatedLines"] = Double(turned.lines)
        figures["rotatedMaxResidual"] = turned.maxResidual
        let truthError = try geometryError([fused, twice], lens: lens, forward: forward, inverse: inverse, degrees: rotation, cx: cx, cy: cy)
        figures["fusedRMS"] = truthError[0]
        figures["twoPassRMS"] = truthError[1]
        for (gw, gh, key) in [(w, h, "gridError"), (6000, 4000, "gridError24MP")] {
            let modifier = LensModifier(lens: lens, crop: 1, width: gw, height: gh, focal: 20, aperture: 2.8, distance: 1000, scale: 0,
                                        flags: flags | Int32(LF_MODIFY_SCALE), reverse: false)
            figures[key] = gridError(modifier)
        }
        let enc = JSONEncoder(); enc.outputFormatting = [.sortedKeys]
        print(String(decoding: try enc.encode(figures), as: UTF8.self))
    }

    /// RMS difference (every channel, every 3rd pixel of every 3rd row, 8 px from the edges) between each image and
    /// the scene of the grid at its pixels: output pixel → the rotated frame's position → lensfun's corrected source
    /// position (auto scale, per pixel) → the scene point the generated file shows there (the exact inverse), the
    /// reflectance averaged over 2 × 2 sub-positions as the file was made.
    static func geometryError(_ images: [PlanarImage], lens: UnsafePointer<lfLens>, forward: LensModifier, inverse: ExactInverse,
                              degrees: Double, cx: Double, cy: Double) throws -> [Double] {
        let (w, h) = (inverse.width, inverse.height)
        let flags = Int32(LF_MODIFY_DISTORTION | LF_MODIFY_TCA | LF_MODIFY_SCALE)
        let correction = LensModifier(lens: lens, crop: 1, width: w, height: h, focal: 20, aperture: 2.8, distance: 1000, scale: 0, flags: flags, reverse: false)
        let out = images[0]
        precondition(images.allSatisfy { $0.width == out.width && $0.height == out.height }, "images of different sizes")
        let theta = degrees * .pi / 180, co = cos(theta), si = sin(theta)
        let rows = Array(stride(from: 8, to: out.height - 8, by: 3))
        let sums = LockedBox([Double](repeating: 0, count: images.count)), count = LockedBox(0)
        DispatchQueue.concurrentPerform(iterations: rows.count) { r in
            let y = rows[r]
            var local = [Double](repeating: 0, count: images.count), n = 0
            var q = [Float](repeating: 0, count: 6), e = [Float](repeating: 0, count: 6)
            for x in stride(from: 8, to: out.width - 8, by: 3) {
                var truth = [0.0, 0.0, 0.0]
                for j in 0..<2 { for i in 0..<2 {
                    let dx = Double(x) + (Double(i) + 0.5) / 2 - 0.5 + 0.5 - Double(out.width) / 2
                    let dy = Double(y) + (Double(j) + 0.5) / 2 - 0.5 + 0.5 - Double(out.height) / 2
                    let u = Double(w) / 2 - 0.5 + dx * co - dy * si, v = Double(h) / 2 - 0.5 + dx * si + dy * co
                    q.withUnsafeMutableBufferPointer { correction.sourcePositions(x: Float(u), y: Float(v), count: 1, into: $0.baseAddress!) }
                    for c in 0..<3 {
                        let sx = Double(q[2 * c]), sy = Double(q[2 * c + 1])
                        e.withUnsafeMutableBufferPointer { forward.sourcePositions(x: Float(sx), y: Float(sy), count: 1, into: $0.baseAddress!) }
                        let p = inverse.refine(channel: c, x: sx, y: sy, from: (Double(e[2 * c]), Double(e[2 * c + 1])))
                        truth[c] += reflectance(u: p.0, v: p.1, cx: cx, cy: cy, s: 0.5) / 4
                    }
                } }
                for (k, image) in images.enumerated() {
                    for c in 0..<3 { let d = Double(image.plane(c)[y * out.width + x]) - truth[c]; local[k] += d * d }
                }
                n += 3
            }
            sums.withLock { for k in 0..<local.count { $0[k] += local[k] } }
            count.withLock { $0 += n }
        }
        let n = Double(count.withLock { $0 })
        return sums.withLock { $0 }.map { ($0 / n).squareRoot() }
    }

    /// The largest distance between the grid-interpolated source positions (`lw_grid_row`) and lensfun's own,
    /// over the pixels of every 16th row and column (all channels) of the modifier's frame.
    static func gridError(_ modifier: LensModifier) -> Double {
        let (w, h) = (modifier.width, modifier.height)
        let (nodes, across) = modifier.grid(vignetting: false, engine: .detected)
        let worst = LockedBox(0.0)
        nodes.withUnsafeBufferPointer { grid in
            let g = UncheckedSendable(grid.baseAddress!)
            DispatchQueue.concurrentPerform(iterations: h) { y in
                let exact = UnsafeMutablePointer<Float>.allocate(capacity: 6 * w), fields = UnsafeMutablePointer<Float>.allocate(capacity: 7 * w)
                defer { exact.deallocate(); fields.deallocate() }
                var rows = (0..<7).map { Optional(fields + $0 * w) }
                lw_grid_row(g.value, Int32(across), 7, Int32(LensModifier.gridSpacing), Int32(y), Int32(w), &rows)
                // lensfun's own positions one pixel at a time (its row call takes an SSE path whose square
                // roots are approximate: it strays from these by up to 0.5 px at 24 MP), every 16th row and column.
                guard y % 16 == 5 else { return }
                var e = 0.0, one = [Float](repeating: 0, count: 6)
                for x in stride(from: 3, to: w, by: 16) {
                    one.withUnsafeMutableBufferPointer { modifier.sourcePositions(x: Float(x), y: Float(y), count: 1, into: $0.baseAddress!) }
                    for k in 0..<6 { exact[6 * x + k] = one[k] }
                    for c in 0..<3 {
                    e = max(e, Double(hypot(fields[2 * c * w + x] - exact[6 * x + 2 * c], fields[(2 * c + 1) * w + x] - exact[6 * x + 2 * c + 1])))
                } }
                worst.withLock { $0 = max($0, e) }
            }
        }
        return worst.withLock { $0 }
    }
}
