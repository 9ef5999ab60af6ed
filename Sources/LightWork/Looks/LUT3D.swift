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
        table.withUnsafeBufferPointer { t in
            let lattice = LatticeGeometry(self)
            switch interpolation {
            case .tetrahedral: LUT3D.tetrahedral(t.baseAddress!, lattice, r, g, b, count)
            case .trilinear: LUT3D.trilinear(t.baseAddress!, lattice, r, g, b, count)
            }
        }
    }

    /// Per-call constants: scale from input to lattice coordinates and the index strides.
    private struct LatticeGeometry {
        let minR, minG, minB, scaleR, scaleG, scaleB, last: Float
        let lastCell, dy, dz: Int

        init(_ lut: LUT3D) {
            let n1 = Float(lut.size - 1)
            minR = lut.domainMin.x; minG = lut.domainMin.y; minB = lut.domainMin.z
            scaleR = n1 / (lut.domainMax.x - lut.domainMin.x)
            scaleG = n1 / (lut.domainMax.y - lut.domainMin.y)
            scaleB = n1 / (lut.domainMax.z - lut.domainMin.z)
            last = n1
            lastCell = lut.size - 2
            dy = 3 * lut.size
            dz = 3 * lut.size * lut.size
        }

        /// Lattice coordinate of an input, clamped to 0…N−1 (NaN → 0): the cell index and the fraction inside it.
        @inline(__always)
        func cell(_ v: Float, _ minV: Float, _ scale: Float) -> (Int, Float) {
            var x = (v - minV) * scale
            if !(x > 0) { x = 0 }
            if x > last { x = last }
            var i = Int(x)
            if i > lastCell { i = lastCell }
            return (i, x - Float(i))
        }
    }

    /// Tetrahedral interpolation: the cube cell is split along its neutral diagonal into six tetrahedra; the
    /// fractions' order picks one, and the output blends its four corners.
    private static func tetrahedral(_ t: UnsafePointer<Float>, _ L: LatticeGeometry,
                                    _ r: UnsafeMutablePointer<Float>, _ g: UnsafeMutablePointer<Float>,
                                    _ b: UnsafeMutablePointer<Float>, _ count: Int) {
        let dx = 3, dy = L.dy, dz = L.dz
        for i in 0..<count {
            let (xi, fx) = L.cell(r[i], L.minR, L.scaleR)
            let (yi, fy) = L.cell(g[i], L.minG, L.scaleG)
            let (zi, fz) = L.cell(b[i], L.minB, L.scaleB)
            let base = 3 * xi + dy * yi + dz * zi
            // Corners: base, base+o1, base+o2, base+dx+dy+dz; weights 1−f_max, f_max−f_mid, f_mid−f_min, f_min.
            var o1: Int, o2: Int, w0: Float, w1: Float, w2: Float, w3: Float
            if fx >= fy {
                if fy >= fz {        // x ≥ y ≥ z
                    o1 = dx; o2 = dx + dy; w0 = 1 - fx; w1 = fx - fy; w2 = fy - fz; w3 = fz
                } else if fx >= fz { // x ≥ z > y
                    o1 = dx; o2 = dx + dz; w0 = 1 - fx; w1 = fx - fz; w2 = fz - fy; w3 = fy
                } else {             // z > x ≥ y
                    o1 = dz; o2 = dx + dz; w0 = 1 - fz; w1 = fz - fx; w2 = fx - fy; w3 = fy
                }
            } else {
                if fz >= fy {        // z ≥ y > x
                    o1 = dz; o2 = dy + dz; w0 = 1 - fz; w1 = fz - fy; w2 = fy - fx; w3 = fx
                } else if fz >= fx { // y > z ≥ x
                    o1 = dy; o2 = dy + dz; w0 = 1 - fy; w1 = fy - fz; w2 = fz - fx; w3 = fx
                } else {             // y > x > z
                    o1 = dy; o2 = dx + dy; w0 = 1 - fy; w1 = fy - fx; w2 = fx - fz; w3 = fz
                }
            }
            let c0 = t + base, c1 = c0 + o1, c2 = c0 + o2, c3 = c0 + (dx + dy + dz)
            r[i] = w0 * c0[0] + w1 * c1[0] + w2 * c2[0] + w3 * c3[0]
            g[i] = w0 * c0[1] + w1 * c1[1] + w2 * c2[1] + w3 * c3[1]
            b[i] = w0 * c0[2] + w1 * c1[2] + w2 * c2[2] + w3 * c3[2]
        }
    }

    /// Trilinear interpolation: the eight corners of the cell, blended along x, then y, then z.
    private static func trilinear(_ t: UnsafePointer<Float>, _ L: LatticeGeometry,
                                  _ r: UnsafeMutablePointer<Float>, _ g: UnsafeMutablePointer<Float>,
                                  _ b: UnsafeMutablePointer<Float>, _ count: Int) {
        let dx = 3, dy = L.dy, dz = L.dz
        for i in 0..<count {
            let (xi, fx) = L.cell(r[i], L.minR, L.scaleR)
            let (yi, fy) = L.cell(g[i], L.minG, L.scaleG)
            let (zi, fz) = L.cell(b[i], L.minB, L.scaleB)
            let p = t + (3 * xi + dy * yi + dz * zi)
            let gx = 1 - fx, gy = 1 - fy, gz = 1 - fz
            let w000 = gx * gy * gz, w100 = fx * gy * gz, w010 = gx * fy * gz, w110 = fx * fy * gz
            let w001 = gx * gy * fz, w101 = fx * gy * fz, w011 = gx * fy * fz, w111 = fx * fy * fz
            let p100 = p + dx, p010 = p + dy, p110 = p + dx + dy
            let p001 = p + dz, p101 = p + dx + dz, p011 = p + dy + dz, p111 = p + dx + dy + dz
            for c in 0..<3 {
                let v = w000 * p[c] + w100 * p100[c] + w010 * p010[c] + w110 * p110[c]
                    + w001 * p001[c] + w101 * p101[c] + w011 * p011[c] + w111 * p111[c]
                switch c {
                case 0: r[i] = v
                case 1: g[i] = v
                default: b[i] = v
                }
            }
        }
    }
}
