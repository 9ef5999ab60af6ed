/// Film grain (`grain`, 0…1 strength; `grain.size`, 0…1, default 0.5), monochrome, in the sRGB-encoded
/// domain.
///
/// Two octaves of smooth value noise on hashed lattices (cells of long edge × (0.0003 + 0.0012 × size)
/// pixels, i.e. 1.8…9 px at 6000 px, never below one pixel, and a finer octave at 0.55 of that), so the
/// grain has the same size relative to the frame at any resolution. The same zero-mean offset goes to R,
/// G and B, scaled by 0.1 × grain × 4L(1 − L) (L = luma clamped to 0…1): strongest in the midtones,
/// absent in pure black and white. It depends only on the render seed and absolute pixel coordinates, so
/// it is identical for any thread count or band split, and changes with the seed.
public struct Grain: DescribedFilter {
    public let amount: Double
    public let size: Double

    static let coarseSalt: UInt32 = 0x6772_6131   // "gra1"
    static let fineSalt: UInt32 = 0x6772_6132     // "gra2"

    public init(amount: Double, size: Double = 0.5) {
        self.amount = Grain.descriptor.parameter("grain").clamp(amount)
        self.size = Grain.descriptor.parameter("grain.size").clamp(size)
    }
    public init(values: FilterValues) { self.init(amount: values["grain"], size: values["grain.size"]) }

    public var isNeutral: Bool { amount == 0 }

    /// Grain cell edge in pixels for an image with this long edge.
    public func cellSize(longEdge: Int) -> Double {
        max(1, Double(longEdge) * (0.0003 + 0.0012 * size))
    }

    public func apply(_ band: PixelBand, _ context: RenderContext) {
        if amount == 0 { return }
        let cell = cellSize(longEdge: context.longEdge)
        let w = band.width
        let coarse = NoiseOctave(cell: cell, key: LatticeHash.key(seed: context.seed, salt: Grain.coarseSalt), weight: 1, width: w)
        let fine = NoiseOctave(cell: max(1, 0.55 * cell), key: LatticeHash.key(seed: context.seed, salt: Grain.fineSalt), weight: 0.7, width: w)
        let strength = Float(0.4 * amount)   // 0.1 × 4L(1 − L)
        for row in 0..<band.rows {
            // Both octaves blended and applied in one loop: the same additions in the same order as summing
            // each octave into a zeroed row first, so the same bits without three extra sweeps of the row.
            let c = coarse.rows(at: band.y0 + row), f = fine.rows(at: band.y0 + row)
            let r = band.r + row * w, g = band.g + row * w, b = band.b + row * w
            for x in 0..<w {
                let noise = (c.top[x] + c.weight * (c.bottom[x] - c.top[x])) + (f.top[x] + f.weight * (f.bottom[x] - f.top[x]))
                let luma = 0.2126 * r[x] + 0.7152 * g[x] + 0.0722 * b[x]
                let positive = luma > 0 ? luma : 0
                let l = positive < 1 ? positive : 1
                let delta = strength * l * (1 - l) * noise
                r[x] += delta; g[x] += delta; b[x] += delta
            }
        }
    }
}

extension Grain {
    public static let descriptor = FilterDescriptor(name: "grain", stage: .post, kind: .synthesis, domain: .perceptual, summary: "Monochrome film grain.", parameters: [
        FilterParameter(name: "grain", minValue: 0, maxValue: 1, unit: "strength", description: "Monochrome film grain, two octaves, strongest in midtones, seeded from the input's content and the recipe."),
        FilterParameter(name: "grain.size", minValue: 0, maxValue: 1, defaultValue: 0.5, unit: "fraction", description: "Grain size relative to the frame (0 finest, 1 coarsest)."),
    ])
}

/// One octave of value noise: uniform values in −1…1 at the integer points of a lattice with `cell`-pixel
/// spacing, hashed from (key, lattice column, lattice row), interpolated with smoothstep. Everything depends
/// on absolute coordinates, never on where a band starts; the hashed lattice rows, the per-column weights and
/// the lattice rows interpolated across the image are memoised per thread (`ThreadTables`), so one-row bands neither
/// hash nor interpolate a lattice row per image row.
struct NoiseOctave {
    let inverseCell: Double
    let key: UInt32
    let weight: Float
    let width: Int
    /// Lattice columns covering the row (plus one).
    let columns: Int

    init(cell: Double, key: UInt32, weight: Float, width: Int) {
        inverseCell = 1 / cell
        self.key = key
        self.weight = weight
        self.width = width
        columns = Int((Double(width) + 0.5) * inverseCell) + 2
    }

    /// Lattice row `j`: `columns` hashed values.
    func latticeRow(_ j: Int) -> UnsafePointer<Float> {
        ThreadTables.table(ThreadTables.Key(kind: 0x6772_6c72, a: j, b: UInt64(key), c: UInt64(columns)), count: columns) { row in
            for i in 0..<columns { row[i] = LatticeHash.signed(LatticeHash.hash(i, j, key)) }
        }
    }

    /// Per pixel column: its lattice cell (Int32 bits, first `width` floats) and smoothstep weight (next `width`).
    func columnTable() -> UnsafePointer<Float> {
        ThreadTables.table(ThreadTables.Key(kind: 0x6772_636f, a: width, b: inverseCell.bitPattern, c: 0), count: 2 * width) { table in
            let index = UnsafeMutableRawPointer(table).bindMemory(to: Int32.self, capacity: width)
            let fraction = table + width
            for x in 0..<width {
                let fx = (Double(x) + 0.5) * inverseCell
                let i = Int(fx), t = Float(fx - Double(i))
                index[x] = Int32(i)
                fraction[x] = t * t * (3 - 2 * t)
            }
        }
    }

    /// Lattice row `j` interpolated across the image row, times the octave's weight (`width` values). Every
    /// image row between two lattice rows blends the same two, so each is built once per lattice row and the
    /// per-pixel work is a vectorised blend without table lookups.
    func expandedRow(_ j: Int) -> UnsafePointer<Float> {
        let key = ThreadTables.Key(kind: 0x6772_6578, a: j, b: UInt64(self.key) | UInt64(weight.bitPattern) << 32,
                                   c: inverseCell.bitPattern, d: UInt64(width))
        return ThreadTables.table(key, count: width) { out in
            let lattice = latticeRow(j), table = columnTable()
            let index = UnsafeRawPointer(table).bindMemory(to: Int32.self, capacity: width), fraction = table + width
            for x in 0..<width {
                let i = Int(index[x])
                let a = lattice[i], c = lattice[i + 1]
                out[x] = weight * (a + fraction[x] * (c - a))
            }
        }
    }

    /// The two interpolated lattice rows around image row `y` and the smoothstep weight between them: the
    /// octave's noise at (x, y) is `top[x] + weight × (bottom[x] − top[x])`.
    func rows(at y: Int) -> (top: UnsafePointer<Float>, bottom: UnsafePointer<Float>, weight: Float) {
        let fy = (Double(y) + 0.5) * inverseCell
        let j = Int(fy)
        let ty = Float(fy - Double(j))
        return (expandedRow(j), expandedRow(j + 1), ty * ty * (3 - 2 * ty))
    }
}
