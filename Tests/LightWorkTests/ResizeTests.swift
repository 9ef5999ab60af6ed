import CShims
import Foundation
import XCTest
@testable import LightWork

/// Lanczos-3 resampling in linear light: values, sizes, alpha, both working spaces, determinism and speed.
final class ResizeTests: XCTestCase {
    /// IEC 61966-2-1, written out here so the test does not lean on the code's own curve tables.
    static func srgbEncode(_ v: Double) -> Double { v <= 0.0031308 ? 12.92 * v : 1.055 * pow(v, 1 / 2.4) - 0.055 }
    static func srgbDecode(_ v: Double) -> Double { v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }

    static func image(width: Int, height: Int, space: WorkingSpace, alpha: Bool = false, _ f: (Int, Int) -> SIMD4<Float>) -> WorkingImage {
        let image = WorkingImage(width: width, height: height, space: space, hasAlpha: alpha)
        var r = [Float](repeating: 0, count: width), g = r, b = r, a = r
        for y in 0..<height {
            for x in 0..<width {
                let c = f(x, y)
                r[x] = c.x; g[x] = c.y; b[x] = c.z; a[x] = c.w
            }
            lw_planar_to_rgba_half(r, g, b, a, image.row(y), width)
        }
        return image
    }

    func testConstantImageStaysConstant() {
        let colour = SIMD4<Float>(0.3, 0.5, 0.7, 1)
        for space in [WorkingSpace.rawLinear, .deviceRGB] {
            let src = Self.image(width: 97, height: 61, space: space) { _, _ in colour }
            let out = Resize.apply(src, width: 31, height: 17)
            XCTAssertEqual(out.width, 31)
            XCTAssertEqual(out.height, 17)
            XCTAssertEqual(out.space, space)
            for y in 0..<out.height {
                for x in 0..<out.width {
                    let p = out.pixel(x: x, y: y)
                    for c in 0..<4 { XCTAssertEqual(p[c], colour[c], accuracy: 1e-3, "\(space) (\(x),\(y)) channel \(c)") }
                }
            }
        }
    }

    /// A linear ramp resampled by a symmetric, normalised kernel stays the same ramp at the output pixel
    /// centres (away from the edges, where the edge pixel is replicated).
    func testLinearRampStaysLinear() {
        let w = 400, outW = 100
        let src = Self.image(width: w, height: 6, space: .rawLinear) { x, _ in
            let v = Float(x) / Float(w - 1)
            return SIMD4(v, 1 - v, 0.5 * v, 1)
        }
        let out = Resize.apply(src, width: outW, height: 3)
        let scale = Double(w) / Double(outW)
        for x in 3..<(outW - 3) {
            let centre = (Double(x) + 0.5) * scale - 0.5
            let v = centre / Double(w - 1)
            for y in 0..<3 {
                let p = out.pixel(x: x, y: y)
                XCTAssertEqual(Double(p.x), v, accuracy: 1e-3, "x \(x)")
                XCTAssertEqual(Double(p.y), 1 - v, accuracy: 1e-3, "x \(x)")
                XCTAssertEqual(Double(p.z), 0.5 * v, accuracy: 1e-3, "x \(x)")
            }
        }
    }

    /// A one-pixel black/white checkerboard halved is 50 % grey in linear light: encoded 0.735, not 0.5.
    func testDeviceRGBIsFilteredInLinearLight() {
        let src = Self.image(width: 64, height: 64, space: .deviceRGB) { x, y in
            let v: Float = (x + y) % 2 == 0 ? 1 : 0
            return SIMD4(v, v, v, 1)
        }
        let out = Resize.apply(src, width: 32, height: 32)
        let expected = Self.srgbEncode(0.5)
        for y in 4..<28 {
            for x in 4..<28 {
                XCTAssertEqual(Double(out.pixel(x: x, y: y).x), expected, accuracy: 2e-3, "(\(x),\(y))")
            }
        }
    }

    /// The same scene stored linear (RAW path) and sRGB-encoded (RGB path) resamples to the same light.
    func testRawAndRGBPathsAgree() {
        let light: (Int, Int) -> Double = { x, y in 0.02 + 0.9 * Double((x * 7 + y * 13) % 29) / 28 }
        let raw = Self.image(width: 90, height: 60, space: WorkingSpace(primaries: .sRGB, encoding: .linear)) { x, y in
            let v = Float(light(x, y)); return SIMD4(v, v, v, 1)
        }
        let rgb = Self.image(width: 90, height: 60, space: .deviceRGB) { x, y in
            let v = Float(Self.srgbEncode(light(x, y))); return SIMD4(v, v, v, 1)
        }
        let a = Resize.apply(raw, width: 37, height: 23), b = Resize.apply(rgb, width: 37, height: 23)
        var worst = 0.0
        for y in 0..<23 {
            for x in 0..<37 {
                let linear = Double(a.pixel(x: x, y: y).x)
                let decoded = Self.srgbDecode(Double(b.pixel(x: x, y: y).x))
                worst = max(worst, abs(linear - decoded) / max(0.05, linear))
            }
        }
        XCTAssertLessThan(worst, 0.01, "relative difference between the linear and sRGB-encoded paths")
    }

    /// Opaque white beside fully transparent pixels that hold some colour (red here; PNG writers leave anything
    /// there): with premultiplication that colour carries no weight, so the white edge neither darkens nor tints.
    func testAlphaEdgesDoNotDarken() {
        let src = Self.image(width: 64, height: 8, space: .deviceRGB, alpha: true) { x, _ in
            x < 32 ? SIMD4(1, 1, 1, 1) : SIMD4(1, 0, 0, 0)
        }
        let out = Resize.apply(src, width: 16, height: 2)
        XCTAssertTrue(out.hasAlpha)
        var sawEdge = false
        for x in 0..<16 {
            let p = out.pixel(x: x, y: 0)
            XCTAssertGreaterThanOrEqual(p.w, 0)
            XCTAssertLessThanOrEqual(p.w, 1)
            if p.w > 0.01 {
                for c in 0..<3 { XCTAssertEqual(p[c], 1, accuracy: 2e-3, "channel \(c) at x \(x) (alpha \(p.w))") }
            }
            if p.w > 0.05 && p.w < 0.95 { sawEdge = true }
        }
        XCTAssertTrue(sawEdge, "the edge should be partly transparent")
    }

    func testOpaqueImagesKeepAlphaOne() {
        let src = Self.image(width: 50, height: 50, space: .rawLinear) { x, _ in x < 25 ? SIMD4(1, 1, 1, 1) : SIMD4(0, 0, 0, 1) }
        let out = Resize.apply(src, width: 20, height: 20)
        XCTAssertFalse(out.hasAlpha)
        for x in 0..<20 { XCTAssertEqual(out.pixel(x: x, y: 10).w, 1) }
    }

    func testSameBytesForAnyThreadCount() {
        let src = Self.image(width: 301, height: 203, space: .deviceRGB, alpha: true) { x, y in
            SIMD4(Float((x * 31 + y * 7) % 256) / 255, Float((x * y) % 97) / 96, Float(y % 13) / 12, Float((x + y) % 5) / 4)
        }
        let one = Resize.apply(src, width: 120, height: 77, engine: EngineConfiguration(threads: 1))
        let three = Resize.apply(src, width: 120, height: 77, engine: EngineConfiguration(threads: 3))
        XCTAssertEqual(FilterTestSupport.bits(one), FilterTestSupport.bits(three))
    }

    func testTargetSizes() throws {
        func size(_ mode: ResizeSpec.Mode, _ w: Int, _ h: Int) throws -> [Int]? {
            try ResizeSpec(mode).targetSize(width: w, height: h).map { [$0.width, $0.height] }
        }
        XCTAssertEqual(try size(.longEdge(2048), 6000, 4000), [2048, 1365])    // 4000 · 2048/6000 = 1365.3
        XCTAssertEqual(try size(.longEdge(2048), 4000, 6000), [1365, 2048])
        XCTAssertEqual(try size(.longEdge(1000), 3000, 3000), [1000, 1000])
        XCTAssertEqual(try size(.shortEdge(1000), 6000, 4000), [1500, 1000])
        XCTAssertEqual(try size(.shortEdge(1000), 4000, 6000), [1000, 1500])
        XCTAssertEqual(try size(.scale(0.5), 6000, 4000), [3000, 2000])
        XCTAssertEqual(try size(.scale(0.5), 3, 5), [2, 3])                    // 1.5 and 2.5 round away from zero
        XCTAssertEqual(try size(.longEdge(10), 1000, 1), [10, 1])              // never below one pixel
        XCTAssertNil(try size(.longEdge(6000), 6000, 4000), "already within the bound: kept")
        XCTAssertNil(try size(.longEdge(8000), 6000, 4000), "never enlarged")
        XCTAssertNil(try size(.shortEdge(5000), 6000, 4000))
        XCTAssertNil(try size(.scale(1), 6000, 4000))
        XCTAssertThrowsError(try ResizeSpec(.scale(1.5)))
        XCTAssertThrowsError(try ResizeSpec(.scale(0)))
        XCTAssertThrowsError(try ResizeSpec(.longEdge(0)))
    }

    func testWeightsSumToOneAndStayInside() {
        for (n, m) in [(10, 3), (4000, 1365), (7, 7), (5, 1), (3, 2)] {
            let w = ResampleWeights(inCount: n, outCount: m)
            for i in 0..<m {
                XCTAssertGreaterThanOrEqual(w.start[i], 0)
                XCTAssertLessThanOrEqual(w.start[i] + w.taps, n)
                let sum = w.weights[(i * w.taps)..<((i + 1) * w.taps)].reduce(0, +)
                XCTAssertEqual(sum, 1, accuracy: 1e-5, "\(n)→\(m) output \(i)")
            }
        }
    }

}
