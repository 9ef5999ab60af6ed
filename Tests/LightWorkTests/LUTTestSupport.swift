import Foundation
import LightWork

/// Helpers shared by the LUT reader tests: random probe colours and planar application.
enum LUTProbe {
    /// Deterministic pseudo-random colours in 0…1 (a fixed LCG, so a failure reproduces).
    static func colours(_ count: Int, seed: UInt64 = 12345) -> [SIMD3<Float>] {
        var state = seed
        func next() -> Float {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Float(state >> 40) / Float(1 << 24)
        }
        return (0..<count).map { _ in SIMD3(next(), next(), next()) }
    }

    /// `lut` applied to colours through the planar API.
    static func apply(_ lut: LUT3D, _ colours: [SIMD3<Float>], _ interpolation: LUT3D.Interpolation = .tetrahedral) -> [SIMD3<Float>] {
        var r = colours.map(\.x), g = colours.map(\.y), b = colours.map(\.z)
        r.withUnsafeMutableBufferPointer { rp in
            g.withUnsafeMutableBufferPointer { gp in
                b.withUnsafeMutableBufferPointer { bp in
                    lut.apply(r: rp.baseAddress!, g: gp.baseAddress!, b: bp.baseAddress!, count: colours.count, interpolation: interpolation)
                }
            }
        }
        return (0..<colours.count).map { SIMD3(r[$0], g[$0], b[$0]) }
    }

    static func maxError(_ a: [SIMD3<Float>], _ b: [SIMD3<Float>]) -> Float {
        zip(a, b).map { LightWorkTests.abs($0 - $1).max() }.max() ?? 0
    }
}

/// Per-channel absolute value (the standard library has none for SIMD vectors).
func abs(_ v: SIMD3<Float>) -> SIMD3<Float> { SIMD3(Swift.abs(v.x), Swift.abs(v.y), Swift.abs(v.z)) }
