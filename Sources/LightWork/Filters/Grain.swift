/// Film grain (`grain`, 0…1 strength; `grain.size`, 0…1, default 0.5), monochrome, in the sRGB-encoded
/// domain.
///
/// Two octaves of smooth value noise on hashed lattices (cells of long edge × (0.0003 + 0.0012 × size)
/// pixels, i.e. 1.8…9 px at 6000 px, never below one pixel, and a finer octave at 0.55 of that), so the
/// grain has the same size relative to the frame at any resolution. The same zero-mean offset goes to R,
/// G and B, scaled by 0.1 × grain × 4L(1 − L) (L = luma clamped to 0…1): strongest in the midtones,
/// absent in pure black and white. It depends only on the render seed and absolute pixel coordinates, so
/// it is identical for any thread count or band split, and changes with the seed.
public struct Grain: Filter {
    public let name = "grain"
    public let amount: Double
    public let size: Double

    static let coarseSalt: UInt32 = 0x6772_6131   // "gra1"
    static let fineSalt: UInt32 = 0x6772_6132     // "gra2"

    public init(amount: Double, size: Double = 0.5) {
        self.amount = min(max(amount, 0), 1)
        self.size = min(max(size, 0), 1)
    }

    public var isNeutral: Bool { amount == 0 }
    public var domain: FilterDomain { .perceptual }

    /// Grain cell edge in pixels for an image with this long edge.
    public func cellSize(longEdge: Int) -> Double {
        max(1, Double(longEdge) * (0.0003 + 0.0012 * size))
    }

    public func apply(_ band: PixelBand, _ context: RenderContext) {
        if amount == 0 { return }
        let cell = cellSize(longEdge: context.longEdge)
        let coarse = NoiseOctave(cell: cell, key: LatticeHash.key(seed: context.seed, salt: Grain.coarseSalt), weight: 1, band: band)
        let fine = NoiseOctave(cell: max(1, 0.55 * cell), key: LatticeHash.key(seed: context.seed, salt: Grain.fineSalt), weight: 0.7, band: band)
        let w = band.width
        let strength = Float(0.4 * amount)   // 0.1 × 4L(1 − L)
        ThreadScratch.withFloats(w + coarse.scratchFloats + fine.scratchFloats) { scratch in
            let noise = scratch
            let coarseScratch = scratch + w, fineScratch = coarseScratch + coarse.scratchFloats
            coarse.prepare(coarseScratch)
            fine.prepare(fineScratch)
            for row in 0..<band.rows {
                for x in 0..<w { noise[x] = 0 }
                coarse.accumulate(row: band.y0 + row, scratch: coarseScratch, into: noise)
                fine.accumulate(row: band.y0 + row, scratch: fineScratch, into: noise)
                let r = band.r + row * w, g = band.g + row * w, b = band.b + row * w
                for x in 0..<w {
                    let luma = 0.2126 * r[x] + 0.7152 * g[x] + 0.0722 * b[x]
                    let positive = luma > 0 ? luma : 0
                    let l = positive < 1 ? positive : 1
                    let delta = strength * l * (1 - l) * noise[x]
                    r[x] += delta; g[x] += delta; b[x] += delta
                }
            }
        }
    }
}

/// One octave of value noise over a band: uniform values in −1…1 at the integer points of a lattice with
/// `cell`-pixel spacing, hashed from (key, lattice column, lattice row), interpolated with smoothstep.
/// Everything depends on absolute coordinates, never on where the band starts.
struct NoiseOctave {
    let inverseCell: Double
    let key: UInt32
    let weight: Float
    let width: Int
    /// Lattice columns covering the row (plus one) and the lattice rows the band touches.
    let columns: Int
    let firstLatticeRow: Int
    let latticeRows: Int

    init(cell: Double, key: UInt32, weight: Float, band: PixelBand) {
        inverseCell = 1 / cell
        self.key = key
        self.weight = weight
        width = band.width
        columns = Int((Double(band.width) + 0.5) * inverseCell) + 2
        firstLatticeRow = Int((Double(band.y0) + 0.5) * inverseCell)
        latticeRows = Int((Double(band.y0 + band.rows) - 0.5) * inverseCell) + 2 - firstLatticeRow
    }

    /// Floats of scratch: the lattice, one interpolated lattice row, per-pixel column index and weight.
    var scratchFloats: Int { latticeRows * columns + columns + 2 * width }

    /// Hashes the lattice and tabulates each pixel column's lattice cell and smoothstep weight.
    func prepare(_ scratch: UnsafeMutablePointer<Float>) {
        let lattice = scratch
        for j in 0..<latticeRows {
            for i in 0..<columns {
                lattice[j * columns + i] = LatticeHash.signed(LatticeHash.hash(i, firstLatticeRow + j, key))
            }
        }
        let fraction = scratch + latticeRows * columns + columns + width
        let index = NoiseOctave.indices(scratch, latticeRows * columns + columns, width)
        for x in 0..<width {
            let fx = (Double(x) + 0.5) * inverseCell
            let i = Int(fx), t = Float(fx - Double(i))
            index[x] = Int32(i)
            fraction[x] = t * t * (3 - 2 * t)
        }
    }

    /// Adds `weight ×` the noise of image row `y` to `out`.
    func accumulate(row y: Int, scratch: UnsafeMutablePointer<Float>, into out: UnsafeMutablePointer<Float>) {
        let fy = (Double(y) + 0.5) * inverseCell
        let j = Int(fy)
        let ty = Float(fy - Double(j))
        let sy = ty * ty * (3 - 2 * ty)
        let top = scratch + (j - firstLatticeRow) * columns, bottom = top + columns
        let line = scratch + latticeRows * columns
        for i in 0..<columns { line[i] = weight * (top[i] + sy * (bottom[i] - top[i])) }
        let index = NoiseOctave.indices(scratch, latticeRows * columns + columns, width), fraction = line + columns + width
        for x in 0..<width {
            let i = Int(index[x])
            let a = line[i], c = line[i + 1]
            out[x] += a + fraction[x] * (c - a)
        }
    }

    /// The per-pixel lattice column indices, stored as Int32 in the scratch floats at `offset`.
    private static func indices(_ scratch: UnsafeMutablePointer<Float>, _ offset: Int, _ count: Int) -> UnsafeMutablePointer<Int32> {
        UnsafeMutableRawPointer(scratch + offset).bindMemory(to: Int32.self, capacity: count)
    }
}
