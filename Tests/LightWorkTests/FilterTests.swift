@testable import LightWork
import XCTest

/// Each filter: exactly neutral at 0, and moving the image in its documented direction.
final class FilterTests: XCTestCase {
    typealias S = FilterTestSupport

    /// Every filter at 0 says so, and even when forced to run leaves the pixels bit-identical
    /// (images stored in the filter's own domain, so the engine inserts no conversion).
    func testEveryFilterAtZeroIsBitwiseNeutral() {
        let chain = FilterChain.build(values: [:], look: TestLookup(), strength: 0)
        XCTAssertEqual(chain.count, FilterChain.slots.count)
        let raw = S.image(width: 40, height: 30, space: .rawLinear) { x, y in SIMD3(Float(x) / 20, Float(y) / 25, 0.3) }
        let rgb = S.scene(width: 40, height: 30)
        for filter in chain {
            XCTAssertTrue(filter.isNeutral, filter.name)
            let image = filter.domain == .linear ? raw : rgb
            XCTAssertEqual(S.bits(S.applied([ForcedActive(inner: filter)], to: image)), S.bits(image), filter.name)
            XCTAssertEqual(S.bits(S.applied([filter], to: image)), S.bits(image), filter.name)
        }
    }

    func testBrightnessRaisesMeanKeepsWhiteAndDarkensByExactFactor() {
        let greys: [Float] = [0, 0.01, 0.05, 0.18, 0.4, 0.7, 1, 2]
        let image = S.image(width: greys.count, height: 1, space: .rawLinear) { x, _ in SIMD3(repeating: greys[x]) }
        let up = S.pixels(S.applied([Brightness(ev: 1)], to: image)).map(\.x)
        XCTAssertGreaterThan(S.mean(Array(up[0..<7])), S.mean(Array(greys[0..<7])) + 0.08)
        XCTAssertGreaterThan(up[3], 0.3, "mid grey is brightened by most of the EV")
        XCTAssertEqual(up[1], 0.02, accuracy: 1e-4, "shadows get the full 2^EV gain")
        XCTAssertEqual(up[6], 1, accuracy: 2e-3, "white stays white")
        XCTAssertLessThan(up[7], 2, "RAW headroom above white is compressed, not doubled")
        for i in 1..<up.count { XCTAssertGreaterThan(up[i], up[i - 1], "monotonic") }
        let down = S.pixels(S.applied([Brightness(ev: -1)], to: image)).map(\.x)
        for (d, g) in zip(down, greys) { XCTAssertEqual(d, g / 2, accuracy: g * 1e-3) }
    }

    func testContrastSteepensAroundMidGreyAndKeepsBlackAndWhite() {
        let ramp = S.greyRamp()
        let values = S.pixels(ramp).map(\.x)
        let more = S.pixels(S.applied([Contrast(amount: 0.8)], to: ramp)).map(\.x)
        let less = S.pixels(S.applied([Contrast(amount: -1)], to: ramp)).map(\.x)
        let most = S.pixels(S.applied([Contrast(amount: 1)], to: ramp)).map(\.x)
        XCTAssertEqual(more.first, 0); XCTAssertEqual(more[63], 1)
        XCTAssertEqual(less.first, 0); XCTAssertEqual(less[63], 1)
        for i in 0..<64 where values[i] > 0.05 && values[i] < 0.4 { XCTAssertLessThan(more[i], values[i]) }
        for i in 0..<64 where values[i] > 0.55 && values[i] < 0.95 { XCTAssertGreaterThan(more[i], values[i]) }
        let spread = { (v: [Float]) in v[40] - v[20] }   // ≈ 0.32 … 0.63 around the pivot
        XCTAssertGreaterThan(spread(more), spread(values))
        XCTAssertLessThan(spread(less), spread(values))
        for v in [more, less, most] { for i in 1..<64 { XCTAssertGreaterThanOrEqual(v[i], v[i - 1], "monotonic") } }
    }

    func testWarmthAndTintShiftGreyInTheirDirectionsAndKeepLuminance() {
        let grey = S.image(width: 4, height: 4, space: .deviceRGB) { _, _ in SIMD3(repeating: 0.5) }
        let warm = S.pixels(S.applied([WhiteBalanceShift(name: "warmth/tint", warmth: 0.5, tint: 0)], to: grey))[0]
        let cool = S.pixels(S.applied([WhiteBalanceShift(name: "warmth/tint", warmth: -0.5, tint: 0)], to: grey))[0]
        let magenta = S.pixels(S.applied([WhiteBalanceShift(name: "warmth/tint", warmth: 0, tint: 0.5)], to: grey))[0]
        XCTAssertGreaterThan(warm.x / warm.z, 1.05)
        XCTAssertLessThan(cool.x / cool.z, 0.95)
        XCTAssertLessThan(magenta.y, magenta.x)
        XCTAssertLessThan(magenta.y, magenta.z)
        for p in [warm, cool, magenta] {
            let linear = [p.x, p.y, p.z].map { TransferFunction.sRGB.decode(Double($0)) }
            let y = 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
            XCTAssertEqual(y, TransferFunction.sRGB.decode(0.5), accuracy: 2e-3, "grey keeps its luminance")
        }
    }

    /// The encoded-domain gain equals decode → multiply → encode (exact maths in Double).
    func testWhiteBalanceGainsAreLinearLightGains() {
        let shift = WhiteBalanceShift(name: "postWarmth/postTint", warmth: 0.7, tint: -0.4)
        let levels: [Float] = [-0.2, 0, 0.02, 0.04, 0.1, 0.3, 0.6, 0.9, 1, 1.3]
        let image = S.image(width: levels.count, height: 1, space: .deviceRGB) { x, _ in SIMD3(repeating: levels[x]) }
        let out = S.pixels(S.applied([shift], to: image))
        let k = shift.gains
        for (i, v) in levels.enumerated() {
            let stored = Double(S.pixels(image)[i].x)
            let expected = [k.x, k.y, k.z].map { TransferFunction.sRGB.encode($0 * TransferFunction.sRGB.decode(stored)) }
            XCTAssertEqual(Double(out[i].x), expected[0], accuracy: 2e-3, "R at \(v)")
            XCTAssertEqual(Double(out[i].y), expected[1], accuracy: 2e-3, "G at \(v)")
            XCTAssertEqual(Double(out[i].z), expected[2], accuracy: 2e-3, "B at \(v)")
        }
    }

    func testVignetteDarkensCornersAndLightensWhenNegative() {
        let flat = S.image(width: 60, height: 40, space: .deviceRGB) { _, _ in SIMD3(repeating: 0.6) }
        let dark = S.pixels(S.applied([Vignette(amount: 0.8)], to: flat))
        let light = S.pixels(S.applied([Vignette(amount: -0.8)], to: flat))
        let centre = 20 * 60 + 30, corner = 0
        XCTAssertEqual(dark[centre].x, 0.6, accuracy: 1e-3)
        XCTAssertLessThan(dark[corner].x, 0.45)
        XCTAssertGreaterThan(light[corner].x, 0.7)
        XCTAssertEqual(dark[corner].x, dark[59].x, accuracy: 1e-6, "symmetric")
        // The corner's linear-light gain is what `gain(atRadius:)` promises.
        let expected = TransferFunction.sRGB.encode(Vignette(amount: 0.8).gain(atRadius: 0.9834) * TransferFunction.sRGB.decode(Double(S.pixels(flat)[0].x)))
        XCTAssertEqual(Double(dark[corner].x), expected, accuracy: 4e-3)
    }

    func testVignetteMatchesItsGainAtEveryPixelOfOddAndEvenFrames() {
        // Every pixel against the exact gain at its radius: checks the fitted polynomials and the bisection
        // that skips the unvignetted run, on frames whose centre falls on a column and between two.
        for (w, h) in [(61, 41), (60, 40), (7, 300), (1, 5)] {
            for amount in [0.9, 0.3, -0.7] {
                let vignette = Vignette(amount: amount, size: 0.3, feather: 0.4)
                let n = w * h, level = 0.6
                let planes = (0..<4).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: n) }
                defer { planes.forEach { $0.deallocate() } }
                for p in planes { p.initialize(repeating: Float(level), count: n) }
                vignette.apply(PixelBand(r: planes[0], g: planes[1], b: planes[2], a: planes[3], guide: nil, y0: 0, rows: h, width: w),
                               RenderContext(width: w, height: h, seed: 1))
                var worst = 0.0
                for y in 0..<h {
                    for x in 0..<w {
                        let u = (Double(x) + 0.5 - Double(w) / 2) / (Double(w) / 2), v = (Double(y) + 0.5 - Double(h) / 2) / (Double(h) / 2)
                        let radius = ((u * u + v * v) / 2).squareRoot()
                        let expected = TransferFunction.sRGB.encode(vignette.gain(atRadius: radius) * TransferFunction.sRGB.decode(level))
                        worst = max(worst, abs(Double(planes[1][y * w + x]) - expected))
                    }
                }
                XCTAssertLessThan(worst, 1e-5, "\(w)×\(h), amount \(amount)")
            }
        }
    }

    func testFadeLiftsBlacksAndNegativeDeepensShadows() {
        let ramp = S.greyRamp()
        let values = S.pixels(ramp).map(\.x)
        let matte = S.pixels(S.applied([Fade(amount: 1)], to: ramp)).map(\.x)
        let deep = S.pixels(S.applied([Fade(amount: -1)], to: ramp)).map(\.x)
        XCTAssertEqual(matte[0], 0.15, accuracy: 1e-3)
        XCTAssertEqual(matte[63], 1)
        XCTAssertEqual(deep[0], 0)
        XCTAssertEqual(deep[63], 1)
        XCTAssertLessThan(deep[8], values[8])
        for i in 1..<64 { XCTAssertGreaterThan(matte[i], matte[i - 1]); XCTAssertGreaterThan(deep[i], deep[i - 1]) }
    }

    func testSaturationMinusOneIsExactGreyAndPositiveAddsChroma() {
        let image = S.scene(width: 32, height: 24)
        for p in S.pixels(S.applied([Saturation(amount: -1)], to: image)) {
            XCTAssertEqual(p.x, p.y); XCTAssertEqual(p.y, p.z)
        }
        let before = S.pixels(image), after = S.pixels(S.applied([Saturation(amount: 0.5)], to: image))
        let chroma = { (p: SIMD3<Float>) in Double(p.max() - p.min()) }
        let luma = { (p: SIMD3<Float>) in 0.2126 * p.x + 0.7152 * p.y + 0.0722 * p.z }
        XCTAssertGreaterThan(before.map(chroma).reduce(0, +) * 1.2, 0)
        XCTAssertGreaterThan(after.map(chroma).reduce(0, +), 1.2 * before.map(chroma).reduce(0, +))
        for (a, b) in zip(after, before) { XCTAssertEqual(luma(a), luma(b), accuracy: 2e-3) }
    }

    func testClarityRaisesMidtoneLocalContrastButLeavesFlatFields() {
        let texture = S.image(width: 96, height: 64, space: .deviceRGB) { x, y in
            SIMD3(repeating: 0.5 + 0.08 * sin(Float(x) * 0.7) * sin(Float(y) * 0.5))
        }
        let deviation = { (v: [SIMD3<Float>]) -> Double in
            let m = S.mean(v.map(\.y))
            return (v.map { Double($0.y) - m }.map { $0 * $0 }.reduce(0, +) / Double(v.count)).squareRoot()
        }
        let up = S.applied([Clarity(amount: 1)], to: texture)
        let down = S.applied([Clarity(amount: -1)], to: texture)
        XCTAssertGreaterThan(deviation(S.pixels(up)), 1.15 * deviation(S.pixels(texture)))
        XCTAssertLessThan(deviation(S.pixels(down)), 0.85 * deviation(S.pixels(texture)))
        let flat = S.image(width: 48, height: 32, space: .deviceRGB) { _, _ in SIMD3(0.3, 0.5, 0.4) }
        for (a, b) in zip(S.pixels(S.applied([Clarity(amount: 1)], to: flat)), S.pixels(flat)) {
            XCTAssertEqual(a.x, b.x, accuracy: 1e-3); XCTAssertEqual(a.y, b.y, accuracy: 1e-3)
        }
    }

    /// A hard edge between two flat regions: clarity's halo limiter keeps the overshoot small.
    func testClarityMakesNoStrongHalosAtEdges() {
        let edge = S.image(width: 120, height: 40, space: .deviceRGB) { x, _ in SIMD3(repeating: x < 60 ? 0.25 : 0.75) }
        let out = S.pixels(S.applied([Clarity(amount: 1)], to: edge))
        for (p, q) in zip(out, S.pixels(edge)) { XCTAssertEqual(p.y, q.y, accuracy: 0.06) }
    }

    func testGrainAddsZeroMeanTextureAndDependsOnSeed() {
        let grey = S.image(width: 160, height: 120, space: .deviceRGB) { _, _ in SIMD3(repeating: 0.5) }
        let grained = S.pixels(S.applied([Grain(amount: 1)], to: grey, seed: 7))
        let values = grained.map(\.y)
        XCTAssertEqual(S.mean(values), 0.5, accuracy: 0.01)
        XCTAssertGreaterThan(Set(values).count, 100)
        XCTAssertTrue(grained.allSatisfy { $0.x == $0.y && $0.y == $0.z }, "monochrome grain")
        let other = S.pixels(S.applied([Grain(amount: 1)], to: grey, seed: 8)).map(\.y)
        XCTAssertNotEqual(values, other)
    }

    func testDustChangesOnlyAFewPixels() {
        let image = S.scene(width: 200, height: 150)
        let before = S.pixels(image), after = S.pixels(S.applied([Dust(density: 1)], to: image))
        let changed = zip(before, after).filter { $0 != $1 }.count
        XCTAssertGreaterThan(changed, 10)
        XCTAssertLessThan(Double(changed) / Double(before.count), 0.05)
    }

    /// Dust drawn band by band from the frame's shared layout equals every cell's particle drawn, in cell
    /// order, over the whole frame at once: the layout holds the same particles and skips only bands they
    /// cannot reach (including hairs at the largest size, which reach furthest).
    func testDustBandsMatchEveryParticleDrawnOverTheWholeFrame() {
        let width = 640, height = 480, n = width * height
        for (density, size, seed) in [(1.0, 1.0, UInt64(7)), (0.6, 0.2, 8), (1.0, 0.5, 9)] {
            let dust = Dust(density: density, size: size)
            let context = RenderContext(width: width, height: height, seed: seed)
            let original = (0..<(4 * n)).map { Float($0 % 997) / 997 }
            var banded = original, whole = original
            banded.withUnsafeMutableBufferPointer { p in
                let r = p.baseAddress!, g = r + n, b = g + n, a = b + n
                for y in 0..<height {
                    let o = y * width
                    dust.apply(PixelBand(r: r + o, g: g + o, b: b + o, a: a + o, guide: nil, y0: y, rows: 1, width: width), context)
                }
            }
            whole.withUnsafeMutableBufferPointer { p in
                let r = p.baseAddress!, band = PixelBand(r: r, g: r + n, b: r + 2 * n, a: r + 3 * n, guide: nil, y0: 0, rows: height, width: width)
                let le = Double(context.longEdge), key = LatticeHash.key(seed: seed, salt: Dust.salt)
                for cy in 0..<Int(ceil(Double(height) / le / Dust.cell)) {
                    for cx in 0..<Int(ceil(Double(width) / le / Dust.cell)) {
                        DustParticle(cellX: cx, cellY: cy, key: key, density: density, size: size)?.stroke(longEdge: le).draw(into: band)
                    }
                }
            }
            let changed = zip(whole, original).filter { $0 != $1 }.count
            XCTAssertGreaterThan(changed, 100, "dust \(density)/\(size) drew something")
            XCTAssertEqual(banded.map(\.bitPattern), whole.map(\.bitPattern), "dust \(density)/\(size)")
        }
    }

    /// Grain and dust depend on the seed and coordinates only: same bytes for 1 or 4 threads and on reruns.
    func testGrainAndDustAreDeterministicAcrossThreadsAndRuns() {
        let image = S.scene(width: 128, height: 600)   // several bands of 256 rows
        for filter in [Grain(amount: 0.8, size: 0.3), Dust(density: 1, size: 1)] as [any Filter] {
            let one = S.bits(S.applied([filter], to: image, seed: 99, threads: 1))
            XCTAssertEqual(one, S.bits(S.applied([filter], to: image, seed: 99, threads: 4)), filter.name)
            XCTAssertEqual(one, S.bits(S.applied([filter], to: image, seed: 99, threads: 4)), filter.name)
            XCTAssertNotEqual(one, S.bits(S.applied([filter], to: image, seed: 100, threads: 4)), filter.name)
        }
    }

    func testFilmLookMixesByStrength() {
        let image = S.scene(width: 24, height: 16)
        let full = S.pixels(S.applied([FilmLook(lookup: TestLookup(), strength: 1)], to: image))
        let half = S.pixels(S.applied([FilmLook(lookup: TestLookup(), strength: 0.5)], to: image))
        let before = S.pixels(image)
        for i in 0..<before.count {
            var r = [before[i].x], g = [before[i].y], b = [before[i].z]
            TestLookup().apply(r: &r, g: &g, b: &b, count: 1)
            XCTAssertEqual(full[i].x, r[0], accuracy: 1e-3)
            XCTAssertEqual(full[i].z, b[0], accuracy: 1e-3)
            XCTAssertEqual(half[i].y, (before[i].y + g[0]) / 2, accuracy: 1e-3)
        }
        XCTAssertTrue(FilmLook(lookup: nil, strength: 1).isNeutral)
    }

    /// Every UI position a recipe or `--set` can give moves the image: each slider at ±1, ±50 and ±100 (a
    /// sub-parameter with its main amount at UI 50) is either refused with its range, or renders differently from
    /// the slider at its default. Only the empty halves (grain and dust below 0) are refused. The frame's long
    /// edge is 2000 px so grain's cell size (at least a pixel) still follows grain.size. Prints the smallest change.
    func testEveryAcceptedUIPositionChangesTheImageAndTheRestAreRefused() throws {
        let ranges = FilterRanges.standard
        let image = S.scene(width: 2000, height: 400)
        func render(_ settings: [String: Double]) -> [UInt16] {
            var values: [String: Double] = [:]
            for (name, ui) in settings { values[name] = ranges.parameter(named: name)!.value(forUI: ui) }
            return S.bits(S.applied(FilterChain.build(values: values, look: nil, strength: 0), to: image))
        }
        var refused: [String] = []
        for name in ranges.parameterNames {
            let p = try XCTUnwrap(ranges.parameter(named: name))
            let main = name.split(separator: ".").first.map(String.init)!
            let base: [String: Double] = main == name ? [:] : [main: 50]
            let reference = render(base)
            var smallest = Int.max
            for ui in [-100.0, -50, -1, 1, 50, 100] {
                if let reason = p.refusal(ui: ui) {
                    refused.append("\(name)=\(Int(ui))")
                    XCTAssertTrue(reason.contains("0…100") && reason.contains("\(FilterParameter.format(p.minValue))…\(FilterParameter.format(p.maxValue))"), reason)
                    XCTAssertThrowsError(try Recipe.neutral.applying(overrides: [.slider(name: name, ui: ui)], ranges: ranges))
                    continue
                }
                let value = p.value(forUI: ui)
                XCTAssertEqual(p.clamp(value), value, "\(name)=\(ui): accepted, so inside what the filter uses")
                var settings = base
                settings[name] = ui
                let out = render(settings)
                let changed = zip(out, reference).filter { $0 != $1 }.count
                smallest = min(smallest, changed)
                XCTAssertGreaterThan(changed, 0, "\(name) at UI \(ui) (value \(value)) was accepted but changes nothing")
            }
            print("\(name): smallest change \(smallest) of \(reference.count) half-float samples over the accepted UI positions")
        }
        XCTAssertEqual(refused, ["grain=-100", "grain=-50", "grain=-1", "dust=-100", "dust=-50", "dust=-1"])
    }
}
