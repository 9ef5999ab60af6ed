import CShims
import Foundation
import LightWork

/// `demosaic-quality`: how close renders of a generated scene's DNG come to the scene's ideal rendering, the
/// comparison behind the demosaic table in docs/performance.md and `make bench`.
///
/// The ideal is the scene painted straight into linear sRGB in float (`SamplePNGWriter`'s colours, not rounded to
/// 8 bits), so every difference of a neutral render (as-shot balance, linear tone, sRGB) is the demosaic's and the
/// sensor noise's. Each IMAGE (a 16-bit sRGB TIFF or PNG of the same size) gets three figures, a 16-pixel frame left
/// out (every demosaic treats the border its own way). A render a few pixels smaller on each side (rawtherapee-cli
/// leaves out a 4-pixel border) is compared centred, with the same pixels left out:
/// - mean ΔE00 per pixel against the ideal;
/// - false colour: the mean chroma error √(Δa*² + Δb*²) on edge pixels (the ideal's L* changes by more than
///   `edgeStep` between the two neighbours across the pixel in either direction);
/// - zipper: on the same edge pixels, the mean |e − (e₋ + e₊)/2| of the L* error e along the edge (its two
///   neighbours in the direction of the smaller change): an error alternating pixel to pixel along an edge.
enum DemosaicQuality {
    /// The L* step across a pixel that makes it an edge pixel.
    static let edgeStep = 8.0
    /// Pixels left out at each side.
    static let frame = 16

    struct Figures { let meanDeltaE, falseColour, zipper: Double; let edgePixels: Int }

    static func run(_ arguments: ArraySlice<String>) throws {
        var scene = "photo", seed: UInt64 = 1, width = 3000, height = 2000, files: [String] = []
        var rest = arguments
        while let arg = rest.popFirst() {
            switch arg {
            case "--scene", "--seed", "--width", "--height":
                guard let value = rest.popFirst() else { throw LightWorkError.usage("\(arg) needs a value") }
                switch arg {
                case "--scene":
                    guard ["photo", "chart"].contains(value) else { throw LightWorkError.usage("--scene expects photo or chart, not '\(value)'") }
                    scene = value
                case "--seed":
                    guard let s = UInt64(value) else { throw LightWorkError.usage("--seed expects a whole number, not '\(value)'") }
                    seed = s
                default:
                    guard let n = Int(value), n > 0 else { throw LightWorkError.usage("\(arg) expects a positive whole number, not '\(value)'") }
                    if arg == "--width" { width = n } else { height = n }
                }
            default: files.append(arg)
            }
        }
        guard !files.isEmpty else {
            throw LightWorkError.usage("demosaic-quality [--scene photo|chart] [--seed N] [--width W] [--height H] IMAGE... (renders of make-sample-dng's DNG of the same options)")
        }
        let ideal = idealLab(scene: scene, seed: seed, width: width, height: height)
        for path in files {
            let file = try ImageFileReader.read(URL(fileURLWithPath: path))
            let (dx, dy) = (width - file.width, height - file.height)
            guard dx >= 0, dy >= 0, dx % 2 == 0, dy % 2 == 0, dx / 2 < frame, dy / 2 < frame, file.channels >= 3 else {
                throw LightWorkError.usage("\(path): \(file.width)x\(file.height)x\(file.channels) is not a \(width)x\(height) RGB render of the scene (or one cropped evenly by less than \(frame) pixels a side)")
            }
            let f = measure(lab(of: file), width: file.width, offset: (dx / 2, dy / 2), against: ideal, width: width, height: height)
            print(String(format: "%@ meanDE00 %.3f falseColour %.3f zipper %.3f edgePixels %d", path, f.meanDeltaE, f.falseColour, f.zipper, f.edgePixels))
        }
    }

    /// The scene of `make-sample-dng --scene S --seed N` (D65 light) in CIELAB (D65 white), planar L, a, b.
    static func idealLab(scene kind: String, seed: UInt64, width: Int, height: Int) -> [[Float]] {
        let scene: any ScenePainter = kind == "photo" ? PhotoScene(width: width, height: height, seed: seed)
            : SceneGenerator(layout: SceneLayout(width: width, height: height, seed: seed))
        let camera = SyntheticCamera(illuminant: .d65, underexposure: 0)
        let palette = ScenePalette(scene.materials.map(camera.linearSRGB(lab:)))
        var out = [[Float]](repeating: [Float](repeating: 0, count: width * height), count: 3)
        let rows = UnsafeMutablePointer<Float>.allocate(capacity: 3 * width)
        defer { rows.deallocate() }
        let toXYZ = RGBPrimaries.sRGB.toXYZNative
        for y in 0..<height {
            scene.renderRow(y, palette: palette, r: rows, g: rows + width, b: rows + 2 * width)
            for x in 0..<width {
                // The render clips to the encoding's range, so the ideal does too (the specular glints).
                let rgb = SIMD3(Double(rows[x]), Double(rows[width + x]), Double(rows[2 * width + x])).clamped(lowerBound: .zero, upperBound: .one)
                let l = CIE.xyzToLab(toXYZ * rgb, white: CIE.d65)
                for c in 0..<3 { out[c][y * width + x] = Float(l[c]) }
            }
        }
        return out
    }

    /// An sRGB-encoded file in CIELAB (D65 white), planar.
    static func lab(of file: ImageFile) -> [[Float]] {
        let top = Double((1 << file.bitDepth) - 1)
        let decode = (0...Int(top)).map { i -> Double in
            let v = Double(i) / top
            return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
        }
        let n = file.width * file.height
        var out = [[Float]](repeating: [Float](repeating: 0, count: n), count: 3)
        let toXYZ = RGBPrimaries.sRGB.toXYZNative
        for p in 0..<n {
            let s = p * file.channels
            let rgb = SIMD3(decode[Int(file.samples[s])], decode[Int(file.samples[s + 1])], decode[Int(file.samples[s + 2])])
            let l = CIE.xyzToLab(toXYZ * rgb, white: CIE.d65)
            for c in 0..<3 { out[c][p] = Float(l[c]) }
        }
        return out
    }

    /// The three figures of `image` (planar CIELAB, `imageWidth` wide, its pixel (0, 0) at `offset` of the ideal)
    /// against `ideal` (planar CIELAB of width × height).
    static func measure(_ image: [[Float]], width imageWidth: Int, offset: (x: Int, y: Int), against ideal: [[Float]], width: Int, height: Int) -> Figures {
        let band = max(1, (height - 2 * frame) / 16)
        let parts = stride(from: frame, to: height - frame, by: band).map { $0..<min($0 + band, height - frame) }
        let sums = LockedBox([(Double, Double, Double, Int, Int)](repeating: (0, 0, 0, 0, 0), count: parts.count))
        DispatchQueue.concurrentPerform(iterations: parts.count) { k in
            var de = 0.0, chroma = 0.0, zip = 0.0, edges = 0, count = 0
            let (L, a, b) = (image[0], image[1], image[2]), (iL, ia, ib) = (ideal[0], ideal[1], ideal[2])
            for y in parts[k] {
                for x in frame..<(width - frame) {
                    let p = y * width + x, q = (y - offset.y) * imageWidth + x - offset.x
                    de += CIE.deltaE2000(SIMD3(Double(iL[p]), Double(ia[p]), Double(ib[p])), SIMD3(Double(L[q]), Double(a[q]), Double(b[q])))
                    count += 1
                    let across = abs(Double(iL[p + 1] - iL[p - 1])), down = abs(Double(iL[p + width] - iL[p - width]))
                    guard max(across, down) > edgeStep else { continue }
                    edges += 1
                    let da = Double(a[q] - ia[p]), db = Double(b[q] - ib[p])
                    chroma += (da * da + db * db).squareRoot()
                    // Along the edge: where the ideal changes less.
                    let (t, u) = across > down ? (width, imageWidth) : (1, 1)
                    func e(_ k: Int) -> Double { Double(L[q + k * u] - iL[p + k * t]) }
                    zip += abs(e(0) - (e(-1) + e(1)) / 2)
                }
            }
            sums.withLock { $0[k] = (de, chroma, zip, edges, count) }
        }
        let total = sums.withLock { $0 }.reduce((0.0, 0.0, 0.0, 0, 0)) { ($0.0 + $1.0, $0.1 + $1.1, $0.2 + $1.2, $0.3 + $1.3, $0.4 + $1.4) }
        let edges = max(1, total.3)
        return Figures(meanDeltaE: total.0 / Double(max(1, total.4)), falseColour: total.1 / Double(edges), zipper: total.2 / Double(edges), edgePixels: total.3)
    }
}
