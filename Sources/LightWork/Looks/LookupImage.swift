import Foundation

/// Writes a LUT in the app's lookup-image layout (see `LookupImageReader`), for the film generator.
public enum LookupImage {
    /// 512×512 RGB8 samples (row-major, 3 per pixel) of `lut` at the 64-point lattice, resampled when its size differs.
    public static func pixels(of lut: LUT3D) -> (width: Int, height: Int, samples: [UInt8]) {
        let n = LookupImageReader.tile, side = LookupImageReader.side
        let cube = lut.size == n ? lut : lut.resampled(to: n)
        var samples = [UInt8](repeating: 0, count: side * side * 3)
        for b in 0..<n {
            let x0 = (b % LookupImageReader.tilesPerRow) * n, y0 = (b / LookupImageReader.tilesPerRow) * n
            for g in 0..<n {
                for r in 0..<n {
                    let v = cube[r: r, g: g, b: b]
                    let o = 3 * ((y0 + g) * side + x0 + r)
                    samples[o] = quantise(v.x); samples[o + 1] = quantise(v.y); samples[o + 2] = quantise(v.z)
                }
            }
        }
        return (side, side, samples)
    }

    @inline(__always)
    private static func quantise(_ v: Float) -> UInt8 {
        let s = (v * 255).rounded()
        return s <= 0 || s.isNaN ? 0 : (s >= 255 ? 255 : UInt8(s))
    }
}
