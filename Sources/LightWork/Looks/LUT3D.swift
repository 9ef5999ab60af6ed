import Foundation

/// A 3D colour lookup table: an N×N×N lattice of RGB outputs over an input domain (default 0…1 per channel).
///
/// Stored as Float RGB triplets with red varying fastest, then green, then blue (the .cube order):
/// entry (r, g, b) starts at `3 · (r + N·g + N²·b)`.
public struct LUT3D: Sendable, Hashable {
    /// How values between lattice points are computed.
    public enum Interpolation: String, Sendable, Hashable, Codable, CaseIterable {
        /// Four lattice points per pixel; follows the neutral axis exactly (the default).
        case tetrahedral
        /// Eight lattice points per pixel.
        case trilinear
    }

    /// The smallest and largest lattice size accepted (the .cube limits).
    public static let sizeRange = 2...256

    /// Lattice points per axis.
    public let size: Int
    /// RGB outputs, `3 · size³` values, red fastest.
    public let table: [Float]
    /// Input mapped onto the first lattice point, per channel.
    public let domainMin: SIMD3<Float>
    /// Input mapped onto the last lattice point, per channel.
    public let domainMax: SIMD3<Float>
    /// A name from the file (`TITLE`), if any.
    public var title: String?
    /// The table with each entry padded to four floats (R, G, B, 0), for the AVX2 kernel's one 16-byte load a
    /// corner; empty above `paddedSizeLimit`³.
    let paddedTable: [Float]
    /// The largest lattice padded: covers the usual 17³, 33³ and 65³ exports (65³ adds 4.4 MB); beyond it
    /// the copy would cost more memory than it saves time.
    static let paddedSizeLimit = 65

    /// A table as given; throws when the size, entry count or domain is impossible.
    public init(size: Int, table: [Float], domainMin: SIMD3<Float> = .zero, domainMax: SIMD3<Float> = .one,
                title: String? = nil) throws {
        guard LUT3D.sizeRange.contains(size) else {
            throw LightWorkError.invalidDocument(file: title ?? "LUT", path: "size", reason: "cube size \(size) outside 2…256")
        }
        guard table.count == 3 * size * size * size else {
            throw LightWorkError.invalidDocument(file: title ?? "LUT", path: "table",
                                                 reason: "\(table.count) values for a \(size)³ cube (expected \(3 * size * size * size))")
        }
        for c in 0..<3 where !(domainMax[c] > domainMin[c]) || !domainMin[c].isFinite || !domainMax[c].isFinite {
            throw LightWorkError.invalidDocument(file: title ?? "LUT", path: "domain",
                                                 reason: "domain max must exceed min on every channel (got \(domainMin) … \(domainMax))")
        }
        self.size = size
        self.table = table
        paddedTable = size > LUT3D.paddedSizeLimit ? [] : (0..<(4 * size * size * size)).map { $0 % 4 == 3 ? 0 : table[3 * ($0 / 4) + $0 % 4] }
        self.domainMin = domainMin
        self.domainMax = domainMax
        self.title = title
    }

    /// A table sampled from a function of the lattice point's input (r, g, b in the domain).
    public init(size: Int, domainMin: SIMD3<Float> = .zero, domainMax: SIMD3<Float> = .one, title: String? = nil,
                _ function: (SIMD3<Float>) -> SIMD3<Float>) {
        precondition(LUT3D.sizeRange.contains(size), "LUT size \(size) outside 2…256")
        var t = [Float](repeating: 0, count: 3 * size * size * size)
        let step = (domainMax - domainMin) / Float(size - 1)
        var i = 0
        for b in 0..<size {
            for g in 0..<size {
                for r in 0..<size {
                    let out = function(domainMin + step * SIMD3(Float(r), Float(g), Float(b)))
                    t[i] = out.x; t[i + 1] = out.y; t[i + 2] = out.z
                    i += 3
                }
            }
        }
        // The function version cannot fail once the size is checked.
        self = try! LUT3D(size: size, table: t, domainMin: domainMin, domainMax: domainMax, title: title)
    }

    /// Equal when the lattices map alike: `paddedTable` is derived from `table` and takes no part.
    public static func == (a: LUT3D, b: LUT3D) -> Bool {
        a.size == b.size && a.domainMin == b.domainMin && a.domainMax == b.domainMax && a.title == b.title && a.table == b.table
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(size)
        hasher.combine(domainMin)
        hasher.combine(domainMax)
        hasher.combine(title)
        hasher.combine(table)
    }

    /// The table that returns its input (on the 0…1 domain).
    public static func identity(size: Int) -> LUT3D { LUT3D(size: size, title: "identity") { $0 } }

    /// The output stored at lattice point (r, g, b).
    public subscript(r r: Int, g g: Int, b b: Int) -> SIMD3<Float> {
        let i = 3 * (r + size * (g + size * b))
        return SIMD3(table[i], table[i + 1], table[i + 2])
    }

    /// The input value of lattice index `i` on channel `c`.
    public func latticeInput(_ i: Int, channel c: Int) -> Float {
        domainMin[c] + (domainMax[c] - domainMin[c]) * Float(i) / Float(size - 1)
    }

    /// One colour through the table (convenience; use `apply` for images).
    public func sample(_ rgb: SIMD3<Float>, interpolation: Interpolation = .tetrahedral) -> SIMD3<Float> {
        var r = rgb.x, g = rgb.y, b = rgb.z
        apply(r: &r, g: &g, b: &b, count: 1, interpolation: interpolation)
        return SIMD3(r, g, b)
    }

    /// The same mapping on a lattice of another size (tetrahedral interpolation of this one).
    public func resampled(to newSize: Int) -> LUT3D {
        if newSize == size { return self }
        return LUT3D(size: newSize, domainMin: domainMin, domainMax: domainMax, title: title) { sample($0) }
    }

    /// Maps `count` pixels of planar Float32 rows in place. Inputs are clamped to the domain (NaN → min).
    public func apply(r: UnsafeMutablePointer<Float>, g: UnsafeMutablePointer<Float>, b: UnsafeMutablePointer<Float>,
                      count: Int, interpolation: Interpolation = .tetrahedral) {
        let lattice = LatticeGeometry(self)
        table.withUnsafeBufferPointer { t in
            // Per chunk: one vectorisable pass finds every pixel's cell and fractions, a second gathers.
            withUnsafeTemporaryAllocation(of: Int32.self, capacity: LUT3D.chunk) { cells in
                withUnsafeTemporaryAllocation(of: Float.self, capacity: 3 * LUT3D.chunk) { fractions in
                    let c = cells.baseAddress!, f = fractions.baseAddress!
                    var start = 0
                    while start < count {
                        let n = min(LUT3D.chunk, count - start)
                        lattice.locate(r + start, g + start, b + start, n, c, f, f + LUT3D.chunk, f + 2 * LUT3D.chunk)
                        switch interpolation {
                        case .tetrahedral:
                            LUT3D.tetrahedral(t.baseAddress!, lattice, c, f, f + LUT3D.chunk, f + 2 * LUT3D.chunk, r + start, g + start, b + start, n)
                        case .trilinear:
                            LUT3D.trilinear(t.baseAddress!, lattice, c, f, f + LUT3D.chunk, f + 2 * LUT3D.chunk, r + start, g + start, b + start, n)
                        }
                        start += n
                    }
                }
            }
        }
    }

    /// Pixels per chunk: the scratch (16 bytes a pixel) stays in L1.
    private static let chunk = 512

    /// Per-call constants: scale from input to lattice coordinates and the index strides.
    private struct LatticeGeometry {
        let minR, minG, minB, scaleR, scaleG, scaleB, last, lastCell: Float
        let dy, dz: Int32

        init(_ lut: LUT3D) {
            let n1 = Float(lut.size - 1)
            minR = lut.domainMin.x; minG = lut.domainMin.y; minB = lut.domainMin.z
            scaleR = n1 / (lut.domainMax.x - lut.domainMin.x)
            scaleG = n1 / (lut.domainMax.y - lut.domainMin.y)
            scaleB = n1 / (lut.domainMax.z - lut.domainMin.z)
            last = n1
            lastCell = Float(lut.size - 2)
            dy = Int32(3 * lut.size)
            dz = Int32(3 * lut.size * lut.size)
        }

        /// For `n` pixels: the table offset of each pixel's cell origin and its fractions inside the cell.
        /// Branch-free selects and float tricks only, so the compiler vectorises it.
        @inline(__always)
        func locate(_ r: UnsafePointer<Float>, _ g: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ n: Int,
                    _ cell: UnsafeMutablePointer<Int32>, _ fr: UnsafeMutablePointer<Float>,
                    _ fg: UnsafeMutablePointer<Float>, _ fb: UnsafeMutablePointer<Float>) {
            for i in 0..<n {
                let (xi, fx) = split((r[i] - minR) * scaleR)
                let (yi, fy) = split((g[i] - minG) * scaleG)
                let (zi, fz) = split((b[i] - minB) * scaleB)
                cell[i] = 3 &* xi &+ dy &* yi &+ dz &* zi
                fr[i] = fx; fg[i] = fy; fb[i] = fz
            }
        }

        /// Lattice coordinate → (cell index, fraction): clamped to 0…N−1 (NaN → 0), the last cell takes the top.
        @inline(__always)
        func split(_ v: Float) -> (Int32, Float) {
            var x = v > 0 ? v : 0
            x = x < last ? x : last
            // floor(x) for 0 ≤ x < 2²³ without a libm call: round by adding 2²³, step back when it rounded up.
            let magic: Float = 8388608
            var cell = (x + magic) - magic
            cell = cell > x ? cell - 1 : cell
            cell = cell < lastCell ? cell : lastCell
            let index = Int32(bitPattern: (cell + magic).bitPattern) & 0x7F_FFFF
            return (index, x - cell)
        }
    }

    /// Tetrahedral interpolation: the cube cell is split along its neutral diagonal into six tetrahedra; the
    /// order of the fractions picks one, and the output blends its four corners: the cell's origin, one step
    /// along the largest fraction's axis, one more along the middle one's, and the far corner, weighted
    /// 1 − f_max, f_max − f_mid, f_mid − f_min, f_min. Selects instead of six branches, so colours that change
    /// tetrahedron from pixel to pixel cost no mispredictions.
    private static func tetrahedral(_ t: UnsafePointer<Float>, _ L: LatticeGeometry, _ cell: UnsafePointer<Int32>,
                                    _ fr: UnsafePointer<Float>, _ fg: UnsafePointer<Float>, _ fb: UnsafePointer<Float>,
                                    _ r: UnsafeMutablePointer<Float>, _ g: UnsafeMutablePointer<Float>,
                                    _ b: UnsafeMutablePointer<Float>, _ count: Int) {
        let dx = 3, dy = Int(L.dy), dz = Int(L.dz), far = 3 &+ dy &+ dz
        for i in 0..<count {
            let fx = fr[i], fy = fg[i], fz = fb[i]
            // The axis with the largest fraction (ties: x before y before z) and a different one with the smallest.
            let xMax = fx >= fy && fx >= fz
            let yMax = !xMax && fy >= fz
            let zMin = fz <= fx && fz <= fy
            let yMin = !zMin && fy <= fx
            let o1 = xMax ? dx : (yMax ? dy : dz)
            let o2 = far &- (zMin ? dz : (yMin ? dy : dx))
            let mxy = fx > fy ? fx : fy, nxy = fx < fy ? fx : fy   // plain selects: Swift.max/min add NaN handling
            let fMax = mxy > fz ? mxy : fz, fMin = nxy < fz ? nxy : fz
            let fMid = (fx + fy + fz) - fMax - fMin
            let w0 = 1 - fMax, w1 = fMax - fMid, w2 = fMid - fMin, w3 = fMin
            let c0 = t + Int(cell[i]), c1 = c0 + o1, c2 = c0 + o2, c3 = c0 + far
            r[i] = w0 * c0[0] + w1 * c1[0] + w2 * c2[0] + w3 * c3[0]
            g[i] = w0 * c0[1] + w1 * c1[1] + w2 * c2[1] + w3 * c3[1]
            b[i] = w0 * c0[2] + w1 * c1[2] + w2 * c2[2] + w3 * c3[2]
        }
    }

    /// Trilinear interpolation: the eight corners of the cell, blended along x, then y, then z.
    private static func trilinear(_ t: UnsafePointer<Float>, _ L: LatticeGeometry, _ cell: UnsafePointer<Int32>,
                                  _ fr: UnsafePointer<Float>, _ fg: UnsafePointer<Float>, _ fb: UnsafePointer<Float>,
                                  _ r: UnsafeMutablePointer<Float>, _ g: UnsafeMutablePointer<Float>,
                                  _ b: UnsafeMutablePointer<Float>, _ count: Int) {
        let dx = 3, dy = Int(L.dy), dz = Int(L.dz)
        for i in 0..<count {
            let fx = fr[i], fy = fg[i], fz = fb[i]
            let p = t + Int(cell[i])
            let gx = 1 - fx, gy = 1 - fy, gz = 1 - fz
            let w000 = gx * gy * gz, w100 = fx * gy * gz, w010 = gx * fy * gz, w110 = fx * fy * gz
            let w001 = gx * gy * fz, w101 = fx * gy * fz, w011 = gx * fy * fz, w111 = fx * fy * fz
            let p100 = p + dx, p010 = p + dy, p110 = p + (dx &+ dy)
            let p001 = p + dz, p101 = p + (dx &+ dz), p011 = p + (dy &+ dz), p111 = p + (dx &+ dy &+ dz)
            r[i] = w000 * p[0] + w100 * p100[0] + w010 * p010[0] + w110 * p110[0]
                + w001 * p001[0] + w101 * p101[0] + w011 * p011[0] + w111 * p111[0]
            g[i] = w000 * p[1] + w100 * p100[1] + w010 * p010[1] + w110 * p110[1]
                + w001 * p001[1] + w101 * p101[1] + w011 * p011[1] + w111 * p111[1]
            b[i] = w000 * p[2] + w100 * p100[2] + w010 * p010[2] + w110 * p110[2]
                + w001 * p001[2] + w101 * p101[2] + w011 * p011[2] + w111 * p111[2]
        }
    }
}
