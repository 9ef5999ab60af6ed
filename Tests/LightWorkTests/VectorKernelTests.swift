import CShims
@testable import LightWork
import XCTest

/// The vector paths (AVX2 permutes and transposes, chosen at run time) against the plain definitions they
/// replace: the same bits, or the exact curve within 1e-6.
final class VectorKernelTests: XCTestCase {
    /// Deterministic pseudo-random floats in `range`.
    private func values(_ count: Int, in range: ClosedRange<Float>, seed: UInt64) -> [Float] {
        var s = seed
        return (0..<count).map { _ in
            s = s &* 6364136223846793005 &+ 1442695040888963407
            return range.lowerBound + (range.upperBound - range.lowerBound) * Float(s >> 40) / Float(1 << 24)
        }
    }

    /// The kernels' CPU answers are the kernel's own (/proc/cpuinfo's flags), and the one switch turns every fast
    /// path off and back on.
    func testCPUFeaturesMatchTheKernelsFlagsAndOneSwitchForcesTheBaseline() throws {
        let cpuinfo = try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)
        let line = try XCTUnwrap(cpuinfo.split(separator: "\n").first { $0.hasPrefix("flags") }, "no flags line in /proc/cpuinfo")
        let flags = Set(line.split(separator: ":").last?.split(separator: " ").map(String.init) ?? [])
        let avx2 = flags.contains("avx2"), f16c = flags.contains("f16c") && flags.contains("avx")
        let sha = flags.contains("sha_ni") && flags.contains("sse4_1") && flags.contains("ssse3")
        print("CPU: avx2 \(avx2), f16c \(f16c), sha \(sha)")
        let detected = CPUFeatures(avx2: avx2, f16c: f16c, sha: sha)
        XCTAssertEqual(CPUFeatures.detected, detected)
        XCTAssertEqual(EngineConfiguration.detected.cpu, detected, "the engine configuration reports the kernels' answers")
        lw_cpu_force_baseline(1)
        XCTAssertEqual(CPUFeatures.detected, CPUFeatures(avx2: false, f16c: false, sha: false))
        lw_cpu_force_baseline(0)
        XCTAssertEqual(CPUFeatures.detected, detected)
    }

    func testLUT3DAsColorLookupEqualsItsOwnTetrahedralPath() {
        for (lut, label) in [(FilmLookDesign.all[0].lut(size: 33), "film 33³"),
                             (LUT3D(size: 5, domainMin: SIMD3(-0.1, 0, 0.2), domainMax: SIMD3(1.2, 1, 0.9)) { SIMD3($0.y, $0.z * $0.x, 1 - $0.x) }, "odd domain 5³"),
                             (LUT3D(size: 65) { SIMD3($0.z * $0.z, $0.x, $0.y * $0.x) }, "65³, the largest padded"),
                             (LUT3D(size: 66) { SIMD3($0.z * $0.z, $0.x, $0.y * $0.x) }, "66³, three floats an entry")] {
            // Inside, outside and on the edges of the domain, plus NaN, in a count that leaves a ragged tail.
            var r = values(1003, in: -0.3...1.3, seed: 1), g = values(1003, in: -0.3...1.3, seed: 2), b = values(1003, in: -0.3...1.3, seed: 3)
            r[0] = .nan; g[1] = 1; b[2] = 0; r[3] = 1; g[3] = 1; b[3] = 1
            // Ties between the fractions pick the tetrahedron by axis order: every pattern of equal channels, on
            // and between lattice points.
            let ties: [(Float, Float, Float)] = [(0.3, 0.3, 0.7), (0.7, 0.3, 0.3), (0.3, 0.7, 0.3), (0.45, 0.45, 0.45),
                                                 (0.5, 0.5, 0.25), (0.25, 0.5, 0.5), (0.5, 0.25, 0.5), (0.25, 0.25, 0.25)]
            for (k, t) in ties.enumerated() { (r[4 + k], g[4 + k], b[4 + k]) = t }
            XCTAssertEqual(lut.paddedTable.isEmpty, lut.size > LUT3D.paddedSizeLimit, "\(label): which kernel runs")
            var er = r, eg = g, eb = b
            lut.apply(r: &er, g: &eg, b: &eb, count: r.count, interpolation: .tetrahedral)
            (lut as any ColorLookup).apply(r: &r, g: &g, b: &b, count: r.count)
            XCTAssertEqual(r.map(\.bitPattern), er.map(\.bitPattern), label)
            XCTAssertEqual(g.map(\.bitPattern), eg.map(\.bitPattern), label)
            XCTAssertEqual(b.map(\.bitPattern), eb.map(\.bitPattern), label)
        }
    }

    func testFilmMixInOnePassEqualsCopyLookUpAndBlend() {
        for (lut, label) in [(FilmLookDesign.all[0].lut(size: 33), "film 33³"),
                             (LUT3D(size: 5, domainMin: SIMD3(-0.1, 0, 0.2), domainMax: SIMD3(1.2, 1, 0.9)) { SIMD3($0.y, $0.z * $0.x, 1 - $0.x) }, "odd domain 5³"),
                             (LUT3D(size: 66) { SIMD3($0.z * $0.z, $0.x, $0.y * $0.x) }, "66³, three floats an entry")] {
            for count in [1003, 256, 7] {
                var r = values(count, in: -0.3...1.3, seed: 4), g = values(count, in: -0.3...1.3, seed: 5), b = values(count, in: -0.3...1.3, seed: 6)
                r[0] = .nan; g[count - 1] = -0.0
                // The reference, written out: clamped copies through LUT3D's own tetrahedral path, then the blend.
                func unit(_ v: Float) -> Float { let p = v > 0 ? v : 0; return p < 1 ? p : 1 }
                var lr = r.map(unit), lg = g.map(unit), lb = b.map(unit)
                lut.apply(r: &lr, g: &lg, b: &lb, count: count, interpolation: .tetrahedral)
                let blend = { (v: [Float], l: [Float]) in zip(v, l).map { v, l in v + 0.8 * (l - v) } }
                let expected = blend(r, lr) + blend(g, lg) + blend(b, lb)
                var er = r, eg = g, eb = b
                lut.mixThroughCopies(r: &er, g: &eg, b: &eb, count: count, strength: 0.8)
                lut.mix(r: &r, g: &g, b: &b, count: count, strength: 0.8)
                let mismatches = zip(r + g + b, er + eg + eb).filter { $0.bitPattern != $1.bitPattern }.count
                XCTAssertEqual(mismatches, 0, "\(label), \(count) pixels")
                for (path, got) in [("one pass", r + g + b), ("copies", er + eg + eb)] {
                    let off = zip(got, expected).filter { $0.bitPattern != $1.bitPattern && !($0.isNaN && $1.isNaN) }.count
                    XCTAssertEqual(off, 0, "\(label), \(count) pixels, \(path) against the written-out reference")
                }
                XCTAssertTrue(r[0].isNaN, "\(label): NaN stays NaN through the blend")
                // The blend moved the pixels (the test would pass trivially if neither path did anything).
                XCTAssertNotEqual(g[1], values(count, in: -0.3...1.3, seed: 5)[1], label)
            }
        }
    }

    func testTransferCurvesMatchTheExactFunctionEverywhere() {
        // Magnitudes from 1e-9 (below the table) to 40 (RAW headroom beyond it), both signs, zero.
        var probes: [Float] = [0, -0, 1, -1, 16, 0.0031308, 0.04045]
        var x: Float = 1e-9
        while x < 40 { probes += [x, -x]; x *= 1.0013 }
        for tf in [TransferFunction.sRGB, .gamma(563.0 / 256.0), .gamma(1.8), .linear] {
            for (curve, exact, name) in [(FastCurve.encoder(tf), tf.encode, "encode"), (FastCurve.decoder(tf), tf.decode, "decode")] {
                var v = probes
                curve.apply(&v, count: v.count)
                var worst = 0.0
                for (p, got) in zip(probes, v) {
                    let e = exact(Double(p))
                    worst = max(worst, abs(Double(got) - e) / max(1, abs(e)))
                    XCTAssertEqual(curve(p).bitPattern, got.bitPattern, "\(tf) \(name) one value vs block at \(p)")
                }
                XCTAssertLessThan(worst, 1e-6, "\(tf) \(name)")
            }
        }
    }

    func testCurvePortablePathGivesTheVectorPathsBits() {
        // Toe, table and beyond-table magnitudes of both signs, NaN and ∞, in a count with a ragged tail.
        var probes: [Float] = [0, -0, .nan, .infinity, -.infinity, 0.0031308, 0.04045, 1, 300]
        var x: Float = 1e-9
        while x < 400 { probes += [x, -x * 1.01]; x *= 1.37 }
        for tf in [TransferFunction.sRGB, .gamma(563.0 / 256.0), .gamma(1.8)] {
            for (curve, name) in [(FastCurve.encoder(tf), "encode"), (FastCurve.decoder(tf), "decode")] {
                var vector = probes
                curve.apply(&vector, count: vector.count)
                lw_cpu_force_baseline(1)
                var portable = probes
                curve.apply(&portable, count: portable.count)
                lw_cpu_force_baseline(0)
                XCTAssertEqual(vector.map(\.bitPattern), portable.map(\.bitPattern), "\(tf) \(name)")
                XCTAssertEqual(vector.map(\.bitPattern), probes.map { curve($0).bitPattern }, "\(tf) \(name) one value at a time")
            }
        }
    }

    /// The guide grid's cell sums: F16C and software conversion add in the same order, so they agree bit for bit,
    /// and both agree with a Double sum of the same halves within float rounding (cells of 12, odd 7 and a ragged last one).
    func testCellSumsGiveTheSameBitsWithAndWithoutF16C() {
        let width = 101
        var floats = values(4 * width, in: -0.2...1.5, seed: 11)
        floats[5] = 65504
        var halves = [UInt16](repeating: 0, count: floats.count)
        lw_float_to_half(floats, &halves, floats.count)
        var exact = [Float](repeating: 0, count: floats.count)
        lw_half_to_float(halves, &exact, exact.count)
        for factor in [1, 2, 3, 7, 12, 25, 101, 150] {
            let cells = (width + factor - 1) / factor
            var hardware = [Float](repeating: 0.25, count: 4 * cells), software = hardware
            lw_rgba_half_add_cell_sums(halves, width, factor, &hardware)
            lw_cpu_force_baseline(1)
            lw_rgba_half_add_cell_sums(halves, width, factor, &software)
            lw_cpu_force_baseline(0)
            XCTAssertEqual(hardware.map(\.bitPattern), software.map(\.bitPattern), "factor \(factor)")
            for cell in 0..<cells {
                for c in 0..<4 {
                    var sum = 0.25
                    for x in (cell * factor)..<min(width, cell * factor + factor) { sum += Double(exact[4 * x + c]) }
                    XCTAssertEqual(Double(hardware[4 * cell + c]), sum, accuracy: abs(sum) * 1e-6 + 1e-6, "factor \(factor) cell \(cell)")
                }
            }
        }
    }

    /// Decoding while loading (the engine's first conversion out of an encoded space) gives the bits of loading
    /// and then running the curve, on both the AVX2 and the portable path, for every half value including NaN and ∞.
    func testLoadingThroughTheHalfTableEqualsLoadingThenTheCurve() {
        let curve = FastCurve.decoder(.sRGB)
        let table = curve.halfTable()
        // Every half bit pattern as R (G and B other orders of them, alpha a fourth), plus three pixels of ragged tail.
        let count = 65539
        var pixels = [UInt16](repeating: 0, count: 4 * count)
        for i in 0..<count {
            for (c, pattern) in [i, 65535 - i, i &* 3 + 1, i &* 7 + 5].enumerated() { pixels[4 * i + c] = UInt16(truncatingIfNeeded: pattern) }
        }
        XCTAssertEqual(Set(stride(from: 0, to: pixels.count, by: 4).map { pixels[$0] }).count, 65536)
        var r = [Float](repeating: 0, count: count), g = r, b = r, a = r
        lw_rgba_half_to_planar(pixels, &r, &g, &b, &a, count)
        curve.apply(&r, count: count)
        curve.apply(&g, count: count)
        curve.apply(&b, count: count)
        for software in [false, true] {
            var mr = [Float](repeating: 1, count: count), mg = mr, mb = mr, ma = mr
            lw_cpu_force_baseline(software ? 1 : 0)
            lw_rgba_half_to_planar_mapped(pixels, table, &mr, &mg, &mb, &ma, count)
            lw_cpu_force_baseline(0)
            for (label, x, y) in [("R", mr, r), ("G", mg, g), ("B", mb, b), ("A", ma, a)] {
                // NaN payloads may differ between F16C and the software conversion (quieting); NaN must stay NaN.
                let differing = zip(x, y).filter { $0.bitPattern != $1.bitPattern && !($0.isNaN && $1.isNaN) }.count
                XCTAssertEqual(differing, 0, "\(label), software \(software)")
            }
        }
    }

    func testCurveKeepsSignsZeroInfinityAndMapsNaNToZero() {
        let curve = FastCurve.encoder(.sRGB)
        var v: [Float] = [0, -0.0, .infinity, -.infinity, .nan, 0.5, -0.5] + [Float](repeating: 0.25, count: 9)
        curve.apply(&v, count: v.count)
        XCTAssertEqual(v[0], 0)
        XCTAssertEqual(v[2], .infinity)
        XCTAssertEqual(v[3], -.infinity)
        XCTAssertEqual(v[4], 0)
        XCTAssertEqual(v[5], -v[6])
        XCTAssertEqual(Double(v[5]), TransferFunction.sRGB.encode(0.5), accuracy: 1e-6)
    }

    func testHalfPlanarConversionsMatchElementwiseConversion() {
        // Every half bit pattern, as RGBA pixels (16384 of them), then a ragged count.
        let halves = (0..<65536).map { UInt16($0) }
        for count in [16384, 16381] {
            var r = [Float](repeating: 0, count: count), g = r, b = r, a = r
            lw_rgba_half_to_planar(halves, &r, &g, &b, &a, count)
            var floats = [Float](repeating: 0, count: 4 * count)
            lw_half_to_float(halves, &floats, 4 * count)
            for i in 0..<count {
                for (c, plane) in [r, g, b, a].enumerated() where plane[i].bitPattern != floats[4 * i + c].bitPattern {
                    return XCTFail("pixel \(i) channel \(c): \(plane[i]) vs \(floats[4 * i + c])")
                }
            }
            var back = [UInt16](repeating: 0, count: 4 * count)
            lw_planar_to_rgba_half(r, g, b, a, &back, count)
            // Every half survives the round trip; NaNs stay NaN (their payload is not an image value).
            func isNaN(_ h: UInt16) -> Bool { h & 0x7c00 == 0x7c00 && h & 0x3ff != 0 }
            let mismatches = (0..<(4 * count)).filter { back[$0] != halves[$0] && !(isNaN(back[$0]) && isNaN(halves[$0])) }
            XCTAssertEqual(mismatches, [], "count \(count)")
        }
    }
}
