import XCTest
import LightWork

final class LUT3DTests: XCTestCase {
    func testIdentityReturnsItsInput() {
        let probes = LUTProbe.colours(2000)
        for size in [2, 17, 33] {
            let lut = LUT3D.identity(size: size)
            for mode in LUT3D.Interpolation.allCases {
                XCTAssertLessThan(LUTProbe.maxError(LUTProbe.apply(lut, probes, mode), probes), 1e-5, "size \(size) \(mode)")
            }
        }
    }

    /// Both interpolations reproduce an affine colour transform exactly between lattice points.
    func testAffineMapIsExactBetweenLatticePoints() {
        let m: (SIMD3<Float>) -> SIMD3<Float> = { c in
            SIMD3(0.8 * c.x + 0.1 * c.y + 0.05, 0.2 * c.x + 0.7 * c.z, 1 - c.y)
        }
        let lut = LUT3D(size: 9, m)
        let probes = LUTProbe.colours(2000, seed: 7)
        for mode in LUT3D.Interpolation.allCases {
            XCTAssertLessThan(LUTProbe.maxError(LUTProbe.apply(lut, probes, mode), probes.map(m)), 1e-5, "\(mode)")
        }
    }

    /// At lattice points both methods return the table entry of a non-linear LUT; between them they differ.
    func testMethodsAgreeAtLatticePoints() {
        let f: (SIMD3<Float>) -> SIMD3<Float> = { c in SIMD3(c.x * c.x * c.y, sin(3 * c.z) * c.x, c.y * c.z + 0.1 * c.x * c.x) }
        let n = 7
        let lut = LUT3D(size: n, f)
        var lattice: [SIMD3<Float>] = []
        for b in 0..<n { for g in 0..<n { for r in 0..<n { lattice.append(SIMD3(Float(r), Float(g), Float(b)) / Float(n - 1)) } } }
        let tetra = LUTProbe.apply(lut, lattice, .tetrahedral)
        let tri = LUTProbe.apply(lut, lattice, .trilinear)
        XCTAssertLessThan(LUTProbe.maxError(tetra, lattice.map(f)), 1e-5)
        XCTAssertLessThan(LUTProbe.maxError(tri, lattice.map(f)), 1e-5)
        let between = LUTProbe.colours(500, seed: 3)
        XCTAssertGreaterThan(LUTProbe.maxError(LUTProbe.apply(lut, between, .tetrahedral), LUTProbe.apply(lut, between, .trilinear)), 1e-4)
    }

    /// Tetrahedral interpolation keeps greys on the neutral diagonal: only the diagonal's own entries count.
    func testTetrahedralFollowsTheNeutralAxis() {
        let lut = LUT3D(size: 5) { c in c.x == c.y && c.y == c.z ? SIMD3(repeating: c.x * c.x) : SIMD3(1, 0, 0) }
        for v in stride(from: Float(0), through: 1, by: 0.05) {
            let out = lut.sample(SIMD3(repeating: v))
            XCTAssertEqual(out.x, out.y, accuracy: 1e-6)
            XCTAssertEqual(out.y, out.z, accuracy: 1e-6)
        }
    }

    func testInputsAreClampedToTheDomain() throws {
        let lut = try LUT3D(size: 2, table: LUT3D.identity(size: 2).table.map { $0 * 2 },
                            domainMin: SIMD3(repeating: 0), domainMax: SIMD3(repeating: 2))
        // Domain 0…2 maps lattice 0…1 to outputs 0…2: identity on the domain.
        XCTAssertLessThan(abs(lut.sample(SIMD3(1.5, 0.5, 1)) - SIMD3(1.5, 0.5, 1)).max(), 1e-6)
        XCTAssertLessThan(abs(lut.sample(SIMD3(-3, 7, .nan)) - SIMD3(0, 2, 0)).max(), 1e-6)
        XCTAssertThrowsError(try LUT3D(size: 1, table: [0, 0, 0]))
        XCTAssertThrowsError(try LUT3D(size: 2, table: [0]))
        XCTAssertThrowsError(try LUT3D(size: 2, table: LUT3D.identity(size: 2).table, domainMin: .one, domainMax: .one))
    }

    /// CPU time of this thread: unlike wall time, it does not count time other processes held the core.
    static func threadSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
