import CShims
import XCTest
@testable import LightWork

/// The fused renderer (every filter in one sweep over bands, guides from the reduced copy, vector curve and
/// LUT kernels) against a straightforward reference: the whole image as one Float32 band, every filter on
/// its own, exact Double-precision conversions into its domain, and each guide computed from Double cell
/// means with a plain bilinear lookup per pixel.
final class RendererFusionTests: XCTestCase {
    typealias S = FilterTestSupport

    static let everything = RendererTests.everything

    func testFusedChainMatchesFilterByFilterReference() {
        // Wider than the guide grid (factor 2) and taller than one band, so cells and bands both matter.
        let rgb = S.scene(width: 600, height: 70)
        let raw = RendererFusionTests.linearProPhoto(rgb)
        let lut = FilmLookDesign.all[0].lut(size: 17)
        let chains: [(String, [String: Double])] = [
            ("everything", RendererFusionTests.everything),
            ("starts with clarity", ["clarity": 0.6, "clarity2": -0.4, "contrast": 0.2]),
            ("two guides in a row", ["clarity": -0.5, "clarity2": 0.7, "brightness": -0.7]),
        ]
        for (label, values) in chains {
            let chain = FilterChain.build(values: values, look: lut, strength: 0.8)
            for image in [rgb, raw] {
                let context = RenderContext(width: image.width, height: image.height, seed: 9)
                let expected = RendererFusionTests.reference(chain, image, context)
                for threads in [1, 2] {
                    // Kept in the last filter's domain (sRGB-encoded), so the one half-float store rounds by at most
                    // 2.4e-4 at white; a store in linear ProPhoto would be amplified up to tenfold when encoded.
                    let fused = S.applied(chain, to: image, seed: 9, threads: threads, keepFinalSpace: true)
                    XCTAssertEqual(fused.space, .deviceRGB)
                    var worst: Float = 0, total: Float = 0
                    for (p, q) in zip(S.pixels(fused), RendererFusionTests.encoded(expected, image.space)) {
                        let d = p - q
                        let e = max(abs(d.x), abs(d.y), abs(d.z))
                        worst = max(worst, e)
                        total += e
                    }
                    let mean = total / Float(fused.pixelCount)
                    XCTAssertLessThan(worst, 1e-3, "\(label), \(image.space), \(threads) threads: worst \(worst)")
                    XCTAssertLessThan(mean, 2e-4, "\(label), \(image.space), \(threads) threads: mean \(mean)")
                }
            }
        }
    }

    /// Frames down to one pixel and with ragged last grid cells (1030 = 343 cells of 3 and one of 1; 1100 rows = 366
    /// cells of 3 and one of 2): the reduced copy, its blur and the upsampled guides still agree with the reference.
    func testTinyAndRaggedFramesMatchTheReference() {
        let lut = FilmLookDesign.all[3].lut(size: 9)
        let chain = FilterChain.build(values: RendererFusionTests.everything, look: lut, strength: 0.7)
        for (w, h) in [(1, 1), (1, 7), (13, 2), (1030, 3), (2, 1100)] {
            let rgb = S.scene(width: w, height: h)
            for image in [rgb, RendererFusionTests.linearProPhoto(rgb)] {
                let context = RenderContext(width: w, height: h, seed: 2)
                let expected = RendererFusionTests.encoded(RendererFusionTests.reference(chain, image, context), image.space)
                for threads in [1, 2] {
                    let fused = S.pixels(S.applied(chain, to: image, seed: 2, threads: threads, keepFinalSpace: true))
                    let worst = zip(fused, expected).map { p, q in max(abs(p.x - q.x), abs(p.y - q.y), abs(p.z - q.z)) }.max() ?? .nan
                    XCTAssertLessThan(worst, 1e-3, "\(w)×\(h) \(image.space), \(threads) threads")
                }
            }
        }
    }

    /// `keepFinalSpace` (what the chain benchmark times) stores the chain's result in its last domain: the
    /// RAW path's values stay sRGB-encoded and agree with `apply` converted there; device RGB is unchanged.
    func testApplyKeepingTheFinalSpaceStoresTheLastFiltersDomain() {
        let rgb = S.scene(width: 300, height: 90)
        let raw = RendererFusionTests.linearProPhoto(rgb)
        let chain = FilterChain.build(values: RendererFusionTests.everything, look: FilmLookDesign.all[0].lut(size: 17), strength: 0.8)
        let renderer = Renderer(chain: chain)
        for image in [raw, rgb] {
            let context = RenderContext(width: image.width, height: image.height, seed: 5)
            let kept = image.copy()
            renderer.apply(to: kept, context: context, keepFinalSpace: true)
            XCTAssertEqual(kept.space, .deviceRGB, "\(image.space)")
            let stored = S.applied(chain, to: image, seed: 5)
            XCTAssertEqual(stored.space, image.space)
            if image.space == .deviceRGB {
                XCTAssertEqual(S.bits(kept), S.bits(stored))
                continue
            }
            var worst: Float = 0, total: Float = 0
            for (p, q) in zip(S.pixels(kept), RendererFusionTests.encoded(S.pixels(stored), image.space)) {
                let d = p - q
                let e = max(abs(d.x), abs(d.y), abs(d.z))
                worst = max(worst, e)
                total += e
            }
            // Last stores of different encodings (sRGB values vs linear ProPhoto), each rounded to half floats;
            // the same bounds as the fused-chain comparison above.
            XCTAssertLessThan(worst, 2e-3)
            XCTAssertLessThan(total / Float(kept.pixelCount), 5e-4)
        }
    }

    /// `render` hands the last pass straight to the output transform; it must agree with `apply` followed by
    /// the output conversion done exactly.
    func testRenderAgreesWithApplyThenExactOutputConversion() {
        let raw = RendererFusionTests.linearProPhoto(S.scene(width: 300, height: 90))
        let chain = FilterChain.build(values: RendererFusionTests.everything, look: FilmLookDesign.all[1].lut(size: 17), strength: 0.6)
        let context = RenderContext(width: raw.width, height: raw.height, seed: 3)
        let input = raw.copy()
        let rendered = Renderer(chain: chain).render(input, context: context,
                                                     output: OutputSpec(space: .adobeRGB, depth: .sixteen, keepAlpha: false))
        XCTAssertEqual(S.bits(input), S.bits(raw), "render leaves its input as it was")
        XCTAssertEqual(input.space, raw.space)
        let applied = S.pixels(S.applied(chain, to: raw, seed: 3))
        let m = RGBPrimaries.proPhoto.conversion(to: .adobeRGB).m
        let curve = OutputColorSpace.adobeRGB.transfer
        var worst = 0
        for (i, p) in applied.enumerated() {
            let x = Double(p.x), y = Double(p.y), z = Double(p.z)
            let v = [m[0] * x + m[1] * y + m[2] * z, m[3] * x + m[4] * y + m[5] * z, m[6] * x + m[7] * y + m[8] * z]
            for c in 0..<3 {
                let expected = Int((curve.encode(min(max(v[c], 0), 1)) * 65535).rounded())
                worst = max(worst, abs(Int(rendered.samples16[3 * i + c]) - expected))
            }
        }
        // `apply` stores half floats at the end (about 1/2048 relative); `render` does not.
        XCTAssertLessThanOrEqual(worst, 40, "largest difference \(worst) of 65535")
        XCTAssertGreaterThan(worst, 0, "the two paths round differently, so some codes must differ")
    }

    // MARK: - The reference

    /// Linear ProPhoto version of an sRGB-encoded image (what the RAW path stores).
    static func linearProPhoto(_ image: WorkingImage) -> WorkingImage {
        let m = RGBPrimaries.sRGB.conversion(to: .proPhoto)
        let pixels = S.pixels(image)
        return S.image(width: image.width, height: image.height, space: .rawLinear) { x, y in
            let p = pixels[y * image.width + x]
            let v = m * SIMD3([p.x, p.y, p.z].map { TransferFunction.sRGB.decode(Double($0)) })
            return SIMD3(Float(v.x), Float(v.y), Float(v.z))
        }
    }

    /// Colours of `space` as sRGB-encoded sRGB values.
    static func encoded(_ pixels: [SIMD3<Float>], _ space: WorkingSpace) -> [SIMD3<Float>] {
        if space == .deviceRGB { return pixels }
        let m = space.primaries.conversion(to: .sRGB).m
        let curve = TransferFunction.sRGB
        return pixels.map { p in
            let x = Double(p.x), y = Double(p.y), z = Double(p.z)
            return SIMD3(Float(curve.encode(m[0] * x + m[1] * y + m[2] * z)), Float(curve.encode(m[3] * x + m[4] * y + m[5] * z)),
                         Float(curve.encode(m[6] * x + m[7] * y + m[8] * z)))
        }
    }

    /// Planar Float32 pixels with exact Double-precision conversions between spaces.
    struct Planes {
        var r, g, b, a: [Float]
        var space: WorkingSpace
        let width, height: Int

        mutating func convert(to target: WorkingSpace) {
            if target == space { return }
            let m = space.primaries.conversion(to: target.primaries).m
            let from = space.encoding.transfer, to = target.encoding.transfer
            for i in 0..<r.count {
                let x = from.decode(Double(r[i])), y = from.decode(Double(g[i])), z = from.decode(Double(b[i]))
                r[i] = Float(to.encode(m[0] * x + m[1] * y + m[2] * z))
                g[i] = Float(to.encode(m[3] * x + m[4] * y + m[5] * z))
                b[i] = Float(to.encode(m[6] * x + m[7] * y + m[8] * z))
            }
            space = target
        }

        /// `f` on the whole image as one band.
        mutating func apply(_ f: any Filter, guide: [Float]?, _ context: RenderContext) {
            let (w, h) = (width, height)
            let g0 = guide ?? []
            r.withUnsafeMutableBufferPointer { rp in g.withUnsafeMutableBufferPointer { gp in
                b.withUnsafeMutableBufferPointer { bp in a.withUnsafeMutableBufferPointer { ap in
                    g0.withUnsafeBufferPointer { guidePointer in
                        let band = PixelBand(r: rp.baseAddress!, g: gp.baseAddress!, b: bp.baseAddress!, a: ap.baseAddress!,
                                             guide: guide != nil ? guidePointer.baseAddress! : nil, y0: 0, rows: h, width: w)
                        f.apply(band, context)
                    }
                } }
            } }
        }

        var luma: [Float] { (0..<r.count).map { 0.2126 * r[$0] + 0.7152 * g[$0] + 0.0722 * b[$0] } }
    }

    /// Every active filter on the whole image in turn; result in the image's own space.
    static func reference(_ chain: [any Filter], _ image: WorkingImage, _ context: RenderContext) -> [SIMD3<Float>] {
        let w = image.width, h = image.height, n = w * h
        var rgba = [Float](repeating: 0, count: 4 * n)
        lw_half_to_float(image.storage, &rgba, rgba.count)
        var planes = Planes(r: (0..<n).map { rgba[4 * $0] }, g: (0..<n).map { rgba[4 * $0 + 1] },
                            b: (0..<n).map { rgba[4 * $0 + 2] }, a: (0..<n).map { rgba[4 * $0 + 3] },
                            space: image.space, width: w, height: h)
        let active = chain.filter { !$0.isNeutral }
        let guides = referenceGuides(active, planes, context)
        for (f, guide) in zip(active, guides) {
            planes.convert(to: Renderer.space(for: f.domain, storage: image.space))
            planes.apply(f, guide: guide, context)
        }
        planes.convert(to: image.space)
        return (0..<n).map { SIMD3(planes.r[$0], planes.g[$0], planes.b[$0]) }
    }

    /// Each guided filter's guide as the engine defines it: the image's mean colour per grid cell (Double sums),
    /// the filters before it run over that grid (each guided one with the grid's own blurred luma), the luma
    /// there blurred, then looked up bilinearly per pixel.
    static func referenceGuides(_ active: [any Filter], _ image: Planes, _ context: RenderContext) -> [[Float]?] {
        let w = image.width, h = image.height
        let f = GuidePlane.factor(width: w, height: h)
        let gw = (w + f - 1) / f, gh = (h + f - 1) / f
        var sums = [[Double]](repeating: [Double](repeating: 0, count: gw * gh), count: 4)
        var counts = [Double](repeating: 0, count: gw * gh)
        for y in 0..<h {
            for x in 0..<w {
                let i = y * w + x, cell = (y / f) * gw + x / f
                for (c, plane) in [image.r, image.g, image.b, image.a].enumerated() { sums[c][cell] += Double(plane[i]) }
                counts[cell] += 1
            }
        }
        let means = sums.map { s in zip(s, counts).map { Float($0 / $1) } }
        var grid = Planes(r: means[0], g: means[1], b: means[2], a: means[3], space: image.space, width: gw, height: gh)
        let gridContext = RenderContext(width: gw, height: gh, seed: context.seed)
        var guides: [[Float]?] = []
        for filter in active {
            grid.convert(to: Renderer.space(for: filter.domain, storage: image.space))
            guard let radius = filter.guideRadius else {
                guides.append(nil)
                grid.apply(filter, guide: nil, gridContext)
                continue
            }
            let v = GuidePlane.gaussianApproximation(grid.luma, width: gw, height: gh, radius: radius * Double(max(w, h)) / Double(f), engine: .detected)
            guides.append(bilinear(v, gw, gh, f, w, h))
            grid.apply(filter, guide: v, gridContext)
        }
        return guides
    }

    /// A grid of `f`-pixel cells looked up at the centres of a `w × h` image's pixels.
    static func bilinear(_ v: [Float], _ gw: Int, _ gh: Int, _ f: Int, _ w: Int, _ h: Int) -> [Float] {
        var out = [Float](repeating: 0, count: w * h)
        for y in 0..<h {
            let gyf = max(0, (Double(y) + 0.5) / Double(f) - 0.5)
            let gy0 = min(Int(gyf), gh - 1), gy1 = min(gy0 + 1, gh - 1)
            let ty = Float(gyf - Double(gy0))
            for x in 0..<w {
                let gxf = max(0, (Double(x) + 0.5) / Double(f) - 0.5)
                let gx0 = min(Int(gxf), gw - 1), gx1 = min(gx0 + 1, gw - 1)
                let tx = Float(gxf - Double(gx0))
                let top = v[gy0 * gw + gx0] * (1 - tx) + v[gy0 * gw + gx1] * tx
                let bottom = v[gy1 * gw + gx0] * (1 - tx) + v[gy1 * gw + gx1] * tx
                out[y * w + x] = top * (1 - ty) + bottom * ty
            }
        }
        return out
    }
}
