import Foundation

/// Dust and hairs on the film (`dust`, 0…1 density; `dust.size`, 0…1, default 0.5), drawn in the
/// sRGB-encoded domain.
///
/// The frame is divided into cells of 1/20 of the long edge; a hash of (seed, cell) decides whether the
/// cell holds a particle (probability 0.45 × density), and where, how large and what kind it is. Nine in
/// ten are soft round specks of radius up to (0.0004 + 0.0026 × size) of the long edge, one in ten a
/// thin curved hair (a quadratic Bézier 1.5–6 % of the long edge long at size 0.5). Three quarters
/// are light, as dust on a negative prints white; the rest dark, like dust on the print or a slide. All
/// geometry is in frame-relative units, so the same seed gives the same dust at every resolution; each
/// band draws just the particles that reach its rows, in a fixed order, so the result never depends on
/// the band split or thread count. Sub-pixel particles are widened to a pixel with their opacity
/// reduced in proportion, so they fade instead of flickering.
public struct Dust: DescribedFilter {
    public let density: Double
    public let size: Double

    /// Cell edge in long-edge units.
    static let cell = 0.05
    static let salt: UInt32 = 0x6475_7374   // "dust"

    public init(density: Double, size: Double = 0.5) {
        self.density = Dust.descriptor.parameter("dust").clamp(density)
        self.size = Dust.descriptor.parameter("dust.size").clamp(size)
    }
    public init(values: FilterValues) { self.init(density: values["dust"], size: values["dust.size"]) }

    public var isNeutral: Bool { density == 0 }

    public func apply(_ band: PixelBand, _ context: RenderContext) {
        if density == 0 { return }
        let layout = DustLayout.shared(for: self, context: context)
        let lastY = band.y0 + band.rows - 1
        for (cy, span) in layout.rowSpans.enumerated() {
            guard let span, span.lowerBound <= lastY, span.upperBound >= band.y0 else { continue }
            for cx in 0..<layout.columns { layout.cells[cy * layout.columns + cx]?.draw(into: band) }
        }
    }
}

extension Dust {
    public static let descriptor = FilterDescriptor(name: "dust", stage: .post, kind: .synthesis, domain: .perceptual, summary: "Seeded dust specks and hairs.", parameters: [
        FilterParameter(name: "dust", minValue: 0, maxValue: 1, unit: "density", description: "Seeded specks and fine hairs in frame-relative cells (the same at any resolution); three quarters light, the rest dark."),
        FilterParameter(name: "dust.size", minValue: 0, maxValue: 1, defaultValue: 0.5, unit: "fraction", description: "Size of specks and hairs relative to the frame."),
    ])
}

/// Every cell's particle for one frame, prepared in pixels: generated once per render instead of once per
/// band (a one-row band looked at about 140 cells). The strokes are those `DustParticle(cellX:…)` gives, so
/// the drawing is unchanged.
struct DustLayout: Sendable {
    struct Key: Hashable {
        let hashKey: UInt32
        let density, size: Double
        let width, height: Int
    }

    let key: Key
    let columns: Int
    /// Row-major, `columns` a cell row; nil where the cell is empty.
    let cells: [DustStroke?]
    /// Per cell row, the image rows its strokes cover (nil for a row without any): a band skips the others whole.
    let rowSpans: [ClosedRange<Int>?]

    init(_ key: Key) {
        self.key = key
        let le = Double(max(key.width, key.height))
        let columns = Int(ceil(Double(key.width) / le / Dust.cell))
        let cellRows = max(1, Int(ceil(Double(key.height) / le / Dust.cell)))
        var cells: [DustStroke?] = []
        for cy in 0..<cellRows {
            for cx in 0..<columns {
                cells.append(DustParticle(cellX: cx, cellY: cy, key: key.hashKey, density: key.density, size: key.size)?.stroke(longEdge: le))
            }
        }
        self.columns = columns
        self.cells = cells
        rowSpans = (0..<cellRows).map { cy in
            let strokes = cells[(cy * columns)..<((cy + 1) * columns)].compactMap { $0 }
            guard let top = strokes.map(\.top).min(), let bottom = strokes.map(\.bottom).max() else { return nil }
            return top...bottom
        }
    }

    /// The most recent frame's layout: renders of one image reuse it, band after band, on every thread.
    private static let latest = LockedBox<DustLayout?>(nil)

    static func shared(for dust: Dust, context: RenderContext) -> DustLayout {
        let key = Key(hashKey: LatticeHash.key(seed: context.seed, salt: Dust.salt), density: dust.density, size: dust.size,
                      width: context.width, height: context.height)
        if let layout = latest.withLock({ $0 }), layout.key == key { return layout }
        let layout = DustLayout(key)   // two threads may both build the first one: the same value either way
        latest.withLock { $0 = layout }
        return layout
    }
}

/// One speck or hair, generated from its cell's hash alone.
struct DustParticle {
    enum Kind { case speck, hair }
    let kind: Kind
    /// Bézier control points in long-edge units (a speck uses p0 as its centre).
    let p0, p1, p2: SIMD2<Double>
    /// Speck radius or hair half-width, long-edge units.
    let radius: Double
    let opacity: Float
    /// The encoded value the particle pulls R, G and B towards.
    let target: Float

    init?(cellX: Int, cellY: Int, key: UInt32, density: Double, size: Double) {
        var h = LatticeHash.hash(cellX, cellY, key)
        if Double(LatticeHash.unit(h)) >= 0.45 * density { return nil }
        func next() -> Double {
            h = LatticeHash.mix(h &+ 0x9e37_79b9)
            return Double(LatticeHash.unit(h))
        }
        let origin = SIMD2(Double(cellX), Double(cellY)) * Dust.cell
        p0 = origin + SIMD2(next(), next()) * Dust.cell
        opacity = Float(0.5 + 0.5 * next())
        target = next() < 0.75 ? 0.97 : 0.05
        if next() < 0.1 {
            kind = .hair
            let angle = 2 * Double.pi * next()
            let length = (0.01 + 0.03 * next()) * (0.5 + size)
            let direction = SIMD2(cos(angle), sin(angle))
            let normal = SIMD2(-direction.y, direction.x)
            p2 = p0 + direction * length
            p1 = (p0 + p2) / 2 + normal * ((next() - 0.5) * 0.8 * length)
            radius = (0.0001 + 0.0002 * size) * (0.6 + 0.4 * next())
        } else {
            kind = .speck
            p1 = p0
            p2 = p0
            let u = next()
            radius = (0.0004 + 0.0026 * size) * (0.25 + 0.75 * u * u)
        }
    }

    /// The particle in pixels for an image with this long edge, ready to draw into any band.
    func stroke(longEdge le: Double) -> DustStroke {
        // Work in pixels; widen sub-pixel particles and lower their opacity to keep their weight.
        let rPixels = radius * le
        let rDrawn = max(rPixels, kind == .speck ? 0.7 : 0.5)
        let fade = kind == .speck ? (rPixels / rDrawn) * (rPixels / rDrawn) : rPixels / rDrawn
        let q0 = p0 * le, q1 = p1 * le, q2 = p2 * le
        // A hair is drawn as 12 straight pieces of its curve.
        var points = [SIMD2<Float>]()
        if kind == .hair {
            points.reserveCapacity(13)
            for k in 0...12 {
                let t = Double(k) / 12
                let q = (1 - t) * (1 - t) * q0 + 2 * (1 - t) * t * q1 + t * t * q2
                points.append(SIMD2(Float(q.x), Float(q.y)))
            }
        }
        let lo = pointwiseMin(pointwiseMin(q0, q1), q2) - rDrawn - 1
        let hi = pointwiseMax(pointwiseMax(q0, q1), q2) + rDrawn + 1
        return DustStroke(isSpeck: kind == .speck, alpha: opacity * Float(fade),
                          inner: Float(kind == .speck ? 0.5 * rDrawn : 0.3 * rDrawn), outer: Float(rDrawn + 0.5),
                          target: target, centre: SIMD2(Float(q0.x), Float(q0.y)), points: points,
                          left: Int(floor(lo.x)), right: Int(ceil(hi.x)), top: Int(floor(lo.y)), bottom: Int(ceil(hi.y)))
    }

    fileprivate static func distance(_ a: SIMD2<Float>, _ b: SIMD2<Float>) -> Float {
        let d = a - b
        return (d.x * d.x + d.y * d.y).squareRoot()
    }

    /// Distance from `p` to the nearest of the polyline's segments.
    fileprivate static func distance(_ p: SIMD2<Float>, polyline: [SIMD2<Float>]) -> Float {
        var best = Float.greatestFiniteMagnitude
        for k in 0..<(polyline.count - 1) {
            let a = polyline[k], ab = polyline[k + 1] - a, ap = p - a
            let lengthSquared = max(ab.x * ab.x + ab.y * ab.y, 1e-12)
            let t = min(max((ap.x * ab.x + ap.y * ab.y) / lengthSquared, 0), 1)
            let dx = ap.x - t * ab.x, dy = ap.y - t * ab.y
            best = min(best, dx * dx + dy * dy)
        }
        return best.squareRoot()
    }
}

/// A dust particle in pixels: its opacity ramp, shape and the box it is clipped to.
struct DustStroke: Sendable {
    let isSpeck: Bool
    let alpha, inner, outer, target: Float
    /// A speck's centre; a hair's polyline.
    let centre: SIMD2<Float>
    let points: [SIMD2<Float>]
    /// The box, in image columns and rows, before clipping to a band.
    let left, right, top, bottom: Int

    /// Blends the stroke into the rows of `band` it overlaps.
    func draw(into band: PixelBand) {
        let x0 = max(0, left), x1 = min(band.width - 1, right)
        let y0 = max(band.y0, top), y1 = min(band.y0 + band.rows - 1, bottom)
        if x0 > x1 || y0 > y1 { return }
        for y in y0...y1 {
            let row = (y - band.y0) * band.width
            let py = Float(y) + 0.5
            for x in x0...x1 {
                let p = SIMD2(Float(x) + 0.5, py)
                let d = isSpeck ? DustParticle.distance(p, centre) : DustParticle.distance(p, polyline: points)
                if d >= outer { continue }
                let t = min(max((d - inner) / (outer - inner), 0), 1)
                let a = alpha * (1 - t * t * (3 - 2 * t))
                let i = row + x
                band.r[i] += a * (target - band.r[i])
                band.g[i] += a * (target - band.g[i])
                band.b[i] += a * (target - band.b[i])
            }
        }
    }
}
