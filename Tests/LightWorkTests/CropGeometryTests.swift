import CShims
import Foundation
import XCTest
@testable import LightWork

/// `rotate`, `crop` and `aspect`: exact output sizes, rectangles landing on known pixels, a tilted edge made
/// straight, refusals.
final class CropGeometryTests: XCTestCase {
    static let engine = EngineConfiguration(threads: 2)

    /// An image whose red is each pixel's column index and green its row index (blue 0.25, alpha optional).
    static func coordinateImage(width: Int, height: Int, alpha: Bool = false) -> PlanarImage {
        let image = PlanarImage(width: width, height: height, primaries: .proPhoto, hasAlpha: alpha)
        for y in 0..<height {
            for x in 0..<width {
                let i = y * width + x
                image.r[i] = Float(x); image.g[i] = Float(y); image.b[i] = 0.25
                image.alpha?[i] = 1
            }
        }
        return image
    }

    static func context() -> DevelopContext { DevelopContext(kind: .raw, metadata: ImageMetadata(), engine: engine) }

    /// Sizes worked out by hand: at 45° a landscape W×H frame keeps k = √2·H / (W + H).
    func testRotatedCropSizesAreTheLargestThatFit() {
        XCTAssertTrue(Rotate.croppedSize(width: 6000, height: 4000, degrees: 0) == (6000, 4000))
        XCTAssertTrue(Rotate.croppedSize(width: 6000, height: 4000, degrees: 45) == (3394, 2262))   // k = 0.565685
        XCTAssertTrue(Rotate.croppedSize(width: 6000, height: 4000, degrees: -45) == (3394, 2262))
        XCTAssertTrue(Rotate.croppedSize(width: 4000, height: 4000, degrees: 45) == (2828, 2828))   // k = 1/√2
        // Every angle: the crop, turned back, lies inside the frame, and 1.5 px more on the short side would not.
        for (w, h) in [(6000, 4000), (4000, 6000), (1000, 1000), (640, 200)] {
            for degrees in stride(from: -45.0, through: 45, by: 2.5) {
                let (cw, ch) = Rotate.croppedSize(width: w, height: h, degrees: degrees)
                let t = degrees * .pi / 180, c = abs(cos(t)), s = abs(sin(t))
                func fits(_ a: Double, _ b: Double) -> Bool { a * c + b * s <= Double(w) + 1e-6 && a * s + b * c <= Double(h) + 1e-6 }
                XCTAssertTrue(fits(Double(cw), Double(ch)), "\(w)×\(h) at \(degrees)°: \(cw)×\(ch)")
                let grow = 1 + 1.5 / Double(min(cw, ch))
                XCTAssertFalse(fits(Double(cw) * grow, Double(ch) * grow), "\(w)×\(h) at \(degrees)°: \(cw)×\(ch) is not the largest")
                // Each side loses under a pixel to the floor: the ratio moves by at most about max(ratio, 1) / short side.
                XCTAssertLessThan(abs(Double(cw) / Double(ch) - Double(w) / Double(h)), 2 * max(1, Double(w) / Double(h)) / Double(min(cw, ch)), "aspect kept")
            }
        }
    }

    /// Rotating a coordinate ramp: bicubic reproduces the ramps, so every interior output pixel holds the exact
    /// source position it came from. The field must be a rotation by θ about the centre, and the crop's corners
    /// must lie in the source frame with one of them on its edge (largest crop).
    func testRotationMapsPixelsByARotationAboutTheCentre() throws {
        let W = 301, H = 200
        for degrees in [7.0, -12.5, 30] {
            var context = Self.context()
            let out = try Rotate.apply(try Rotate.Setting(parsing: "\(degrees)"), to: Self.coordinateImage(width: W, height: H), context: &context)
            let t = degrees * .pi / 180
            let w = out.width, h = out.height
            XCTAssertTrue(Rotate.croppedSize(width: W, height: H, degrees: degrees) == (w, h))
            var worst = 0.0, sumX = 0.0, sumY = 0.0, n = 0.0
            for y in 3..<(h - 3) {
                for x in 3..<(w - 3) {
                    let p = out.pixel(x: x, y: y), right = out.pixel(x: x + 1, y: y), below = out.pixel(x: x, y: y + 1)
                    // One pixel right in the output is (cos θ, sin θ) in the source; one down is (−sin θ, cos θ).
                    worst = max(worst, abs(Double(right.x - p.x) - cos(t)), abs(Double(right.y - p.y) - sin(t)),
                                abs(Double(below.x - p.x) + sin(t)), abs(Double(below.y - p.y) - cos(t)))
                    sumX += Double(p.x); sumY += Double(p.y); n += 1
                }
            }
            // The symmetric interior's mean position is the source's centre (index coordinates).
            let centreError = max(abs(sumX / n - (Double(W) / 2 - 0.5)), abs(sumY / n - (Double(H) / 2 - 0.5)))
            // Corners of the output frame (continuous) mapped to the source, from the centre and the steps.
            let a0 = Double(W) / 2, b0 = Double(H) / 2
            var inside = Double.infinity
            for (cx, cy) in [(0.0, 0.0), (Double(w), 0), (0, Double(h)), (Double(w), Double(h))] {
                let dx = cx - Double(w) / 2, dy = cy - Double(h) / 2
                let sx = a0 + dx * cos(t) - dy * sin(t), sy = b0 + dx * sin(t) + dy * cos(t)
                inside = min(inside, sx, sy, Double(W) - sx, Double(H) - sy)
            }
            print(String(format: "rotate %+.1f° of %d×%d: crop %d×%d, step error %.2e px, centre error %.2e px, nearest corner %.3f px inside the frame",
                         degrees, W, H, w, h, worst, centreError, inside))
            XCTAssertLessThan(worst, 2e-4)
            XCTAssertLessThan(centreError, 1e-3)
            XCTAssertGreaterThanOrEqual(inside, -1e-9)
            XCTAssertLessThan(inside, 1)
        }
    }

    /// An edge tilted by φ (leaning right going down: the vertical turned counter-clockwise) comes out vertical
    /// after `--rotate -φ`.
    func testRotateUndoesATiltedEdge() throws {
        for phi in [3.0, -8.0, 20.0] {
            let size = 400
            let plane = SlantedEdge.render(width: size, height: size, angle: phi, sigma: 1, low: 0.1, high: 0.6)
            let image = PlanarImage(width: size, height: size, primaries: .proPhoto)
            for i in 0..<plane.count { image.r[i] = plane[i]; image.g[i] = plane[i]; image.b[i] = plane[i] }
            let tilted = SlantedEdge.measure(plane, width: size, height: size, rows: 8..<(size - 8), low: 0.1, high: 0.6)
            var context = Self.context()
            let out = try Rotate.apply(try Rotate.Setting(parsing: "\(-phi)"), to: image, context: &context)
            let straight = SlantedEdge.measure(Array(UnsafeBufferPointer(start: out.g, count: out.pixelCount)), width: out.width, height: out.height,
                                               rows: 8..<(out.height - 8), low: 0.1, high: 0.6)
            print(String(format: "rotate %+.1f°: edge at %+.3f° before, %+.4f° after; MTF50 %.4f -> %.4f cy/px",
                         -phi, tilted.angle, straight.angle, tilted.mtf50, straight.mtf50))
            XCTAssertEqual(tilted.angle, phi, accuracy: 0.05)
            XCTAssertEqual(straight.angle, 0, accuracy: 0.05)
        }
    }

    /// Crop rectangles land on known pixels, with the documented rounding.
    func testCropLandsOnKnownPixels() throws {
        let setting = try Crop.Setting(parsing: "0.1,0.2,0.5,0.25")
        XCTAssertEqual(setting.text, "0.1,0.2,0.5,0.25")
        XCTAssertTrue(Crop.rectangle(setting, width: 6000, height: 4000) == (600, 800, 3000, 1000))
        // Halves round away from zero: x0 = round(50.5) = 51, x1 = 101; y0 = round(25.5) = 26, y1 = 51.
        XCTAssertTrue(Crop.rectangle(try Crop.Setting(parsing: "0.5,0.5,0.5,0.5"), width: 101, height: 51) == (51, 26, 50, 25))
        var context = Self.context()
        let out = try Crop.apply(try Crop.Setting(parsing: "0.25,0.1,0.5,0.8"), to: Self.coordinateImage(width: 40, height: 30, alpha: true), context: &context)
        XCTAssertEqual(out.width, 20); XCTAssertEqual(out.height, 24)
        XCTAssertEqual(out.pixel(x: 0, y: 0), SIMD3(10, 3, 0.25))
        XCTAssertEqual(out.pixel(x: 19, y: 23), SIMD3(29, 26, 0.25))
        XCTAssertEqual(out.alpha?[5], 1)
        XCTAssertEqual(context.decisions["crop"], "20×24 at 10,3 of 40×30")
        XCTAssertTrue(try Crop.Setting(parsing: "0,0,1,1").isOff)
        XCTAssertThrowsError(try Crop.apply(try Crop.Setting(parsing: "0.5,0.5,0.001,0.5"), to: Self.coordinateImage(width: 40, height: 30), context: &context)) {
            XCTAssertTrue("\($0)".contains("keeps no whole pixel"), "\($0)")
        }
    }

    /// Aspect sizes and offsets, worked out by hand for a 6000×4000 frame and its portrait twin.
    func testAspectRectangles() throws {
        func rect(_ text: String, _ w: Int, _ h: Int) throws -> [Int] {
            let r = Aspect.rectangle(try Aspect.Setting(parsing: text), width: w, height: h)
            return [r.x, r.y, r.width, r.height]
        }
        XCTAssertEqual(try rect("3:2", 6000, 4000), [0, 0, 6000, 4000])
        XCTAssertEqual(try rect("1:1", 6000, 4000), [1000, 0, 4000, 4000])
        XCTAssertEqual(try rect("16:9", 6000, 4000), [0, 312, 6000, 3375])
        XCTAssertEqual(try rect("4:5", 6000, 4000), [500, 0, 5000, 4000])   // turned to the frame: 5:4
        XCTAssertEqual(try rect("4:5", 4000, 6000), [0, 500, 4000, 5000])
        XCTAssertEqual(try rect("3:2", 4000, 6000), [0, 0, 4000, 6000])
        XCTAssertEqual(try rect("2.35:1", 6000, 4000), [0, 723, 6000, 2553])  // 6000 / 2.35 = 2553.19
        XCTAssertEqual(try rect("1:1", 7, 5), [1, 0, 5, 5])
        XCTAssertTrue(try Aspect.Setting(parsing: "original").isOff)
        for bad in ["0:1", "1:0", "-3:2", "3", "3:2:1", "a:b", "1000:1"] {
            XCTAssertThrowsError(try Aspect.Setting(parsing: bad), bad)
        }
        for bad in ["0.5,0.5,0.8,0.8", "0,0,0,1", "-0.1,0,0.5,0.5", "0.1,0.2,0.3", "nan,0,1,1"] {
            XCTAssertThrowsError(try Crop.Setting(parsing: bad), bad)
        }
        for bad in ["46", "-45.5", "x"] { XCTAssertThrowsError(try Rotate.Setting(parsing: bad), bad) }
    }

    /// rotate ∘ crop ∘ aspect composed into one resampling (`DevelopGeometry`, as the stage runs them) read each
    /// output pixel from the source position the three maps give in turn (a coordinate image: bicubic reproduces
    /// it exactly), on 1 and 3 threads alike.
    func testComposedGeometryReadsTheComposedPositions() throws {
        let (W, H) = (240, 160)
        var results: [[Float]] = []
        for threads in [1, 3] {
            var context = DevelopContext(kind: .raw, metadata: ImageMetadata(), engine: EngineConfiguration(threads: threads))
            var g = DevelopGeometry(source: Self.coordinateImage(width: W, height: H))
            try Rotate.compose(.degrees(7), onto: &g, context: &context)
            let (rw, rh) = (g.width, g.height)
            let crop = try Crop.Setting(parsing: "0.1,0.05,0.8,0.9")
            try Crop.compose(crop, onto: &g, context: &context)
            let c = Crop.rectangle(crop, width: rw, height: rh)
            try Aspect.compose(.ratio(width: 1, height: 1), onto: &g, context: &context)
            let a = Aspect.rectangle(.ratio(width: 1, height: 1), width: c.width, height: c.height)
            XCTAssertEqual(g.width, a.width); XCTAssertEqual(g.height, a.height)
            let out = g.render(engine: context.engine)
            let theta = 7 * Double.pi / 180
            var worst = 0.0
            for y in 0..<out.height { for x in 0..<out.width {
                let dx = Double(x + a.x + c.x) + 0.5 - Double(rw) / 2, dy = Double(y + a.y + c.y) + 0.5 - Double(rh) / 2
                let sx = Double(W) / 2 - 0.5 + dx * cos(theta) - dy * sin(theta), sy = Double(H) / 2 - 0.5 + dx * sin(theta) + dy * cos(theta)
                let p = out.pixel(x: x, y: y)
                worst = max(worst, abs(Double(p.x) - sx), abs(Double(p.y) - sy))
            } }
            print(String(format: "composed rotate 7° ∘ crop ∘ aspect 1:1 (%d×%d of %d×%d): largest position error %.2e px", out.width, out.height, W, H, worst))
            XCTAssertLessThan(worst, 1e-3)
            results.append(Array(UnsafeBufferPointer(start: out.r, count: out.pixelCount)) + Array(UnsafeBufferPointer(start: out.g, count: out.pixelCount)))
        }
        XCTAssertEqual(results[0], results[1])
    }

    /// The bicubic kernels' AVX2 path (8 samples a step) against the baseline one, borders, NaN and spans
    /// included: the same bits; a row done in spans (`lw_bicubic_span`) is the row done whole.
    func testResamplingGivesTheSameBitsOnTheBaselineAndAVX2PathsAndInSpans() throws {
        let w = 97, h = 61
        var s: UInt64 = 5
        let planes: [[Float]] = (0..<2).map { _ in (0..<(w * h)).map { _ in
            s = s &* 6364136223846793005 &+ 1442695040888963407
            return Float(s >> 40) / Float(1 << 24)
        } }
        let n = 131
        let xs = (0..<n).map { k -> Float in k == 40 ? .nan : Float(k) * 0.77 - 3.3 }, ys = (0..<n).map { k -> Float in Float(k) * 0.41 + 0.7 }
        func run() -> [UInt32] {
            var values: [Float] = []
            planes[0].withUnsafeBufferPointer { p0 in planes[1].withUnsafeBufferPointer { p1 in
                let sources: [UnsafePointer<Float>?] = [p0.baseAddress, p1.baseAddress]
                var o0 = [Float](repeating: 0, count: n), o1 = [Float](repeating: 0, count: n)
                o0.withUnsafeMutableBufferPointer { a in o1.withUnsafeMutableBufferPointer { b in
                    var outs = [a.baseAddress, b.baseAddress]
                    lw_bicubic_row(sources, 2, Int32(w), Int32(h), xs, ys, Int32(n), &outs)
                    values += Array(a) + Array(b)
                    for (x0, y0) in [(-2.5, 3.25), (10.1, 20.7), (90.0, 58.0)] {
                        lw_bicubic_line(sources, 2, Int32(w), Int32(h), x0, y0, 0.6993, 0.0349, Int32(n), &outs)
                        let whole = Array(a) + Array(b)
                        for first in stride(from: 0, to: n, by: 29) {
                            lw_bicubic_span(sources, 2, Int32(w), Int32(h), x0, y0, 0.6993, 0.0349, Int32(first), Int32(min(29, n - first)), &outs)
                        }
                        XCTAssertEqual((Array(a) + Array(b)).map(\.bitPattern), whole.map(\.bitPattern), "spans from (\(x0), \(y0))")
                        values += whole
                    }
                } }
            } }
            return values.map(\.bitPattern)
        }
        let fast = run()
        lw_cpu_force_baseline(1)
        let baseline = run()
        lw_cpu_force_baseline(0)
        print("bicubic kernels: AVX2 \(lw_cpu_avx2() == 1 ? "on" : "not available"), \(fast.count) samples compared with the baseline path")
        XCTAssertEqual(fast, baseline)
    }


    /// Rotation is the same bytes at any thread count.
    func testRotationIsTheSameAtAnyThreadCount() throws {
        var results: [[Float]] = []
        for threads in [1, 3] {
            var context = DevelopContext(kind: .raw, metadata: ImageMetadata(), engine: EngineConfiguration(threads: threads))
            let out = try Rotate.apply(.degrees(11), to: Self.coordinateImage(width: 123, height: 77), context: &context)
            results.append(Array(UnsafeBufferPointer(start: out.r, count: out.pixelCount)) + Array(UnsafeBufferPointer(start: out.g, count: out.pixelCount)))
        }
        XCTAssertEqual(results[0], results[1])
    }

    /// End to end: rotate, crop and aspect then `--long-edge` through the CLI give the documented size; refusals
    /// exit 2 with one line naming the flag and the reason (and the CLI's usual pointer to --help).
    func testCLIGeometryAndRefusals() throws {
        let input = SampleSceneTests.samples.appendingPathComponent("scene.dng")
        let dir = try TestPaths.temporaryDirectory(self)
        let plain = try CLIRunner.run(["convert", input.path, "-o", dir.appendingPathComponent("plain").path, "--quiet"])
        XCTAssertEqual(plain.status, 0, plain.stderr)
        let plainFile = try ImageFileReader.read(dir.appendingPathComponent("plain/scene.tif"))
        let r = try CLIRunner.run(["convert", input.path, "-o", dir.appendingPathComponent("geo").path, "--quiet",
                                   "--rotate", "4", "--crop", "0.1,0,0.8,1", "--aspect", "1:1", "--long-edge", "200"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let file = try ImageFileReader.read(dir.appendingPathComponent("geo/scene.tif"))
        let rotated = Rotate.croppedSize(width: plainFile.width, height: plainFile.height, degrees: 4)
        let cropped = Crop.rectangle(try Crop.Setting(parsing: "0.1,0,0.8,1"), width: rotated.width, height: rotated.height)
        let square = min(cropped.width, cropped.height)
        print("geometry end to end: \(plainFile.width)×\(plainFile.height) → rotate 4° \(rotated.width)×\(rotated.height) → crop \(cropped.width)×\(cropped.height) → 1:1 \(square)² → long edge \(file.width)×\(file.height)")
        XCTAssertEqual(file.width, min(200, square)); XCTAssertEqual(file.height, min(200, square))

        for (flag, value, words) in [("--crop", "0.5,0.5,0.8,0.8", "outside the frame"), ("--aspect", "0:1", "W:H"), ("--rotate", "90", "-45 and 45")] {
            let bad = try CLIRunner.run(["convert", input.path, "-o", dir.appendingPathComponent("bad").path, flag, value])
            XCTAssertEqual(bad.status, 2, bad.stderr)
            let lines = bad.stderr.split(separator: "\n")
            XCTAssertEqual(lines.count, 2, bad.stderr)
            XCTAssertTrue(lines.first?.hasPrefix("lightwork convert: \(flag) \(value): ") == true, bad.stderr)
            XCTAssertTrue(lines.first?.contains(words) == true, bad.stderr)
            XCTAssertEqual(lines.last, "Run 'lightwork convert --help' for usage.")
            XCTAssertFalse(FileManager.default.fileExists(atPath: dir.appendingPathComponent("bad").path), "nothing written")
        }
    }
}
