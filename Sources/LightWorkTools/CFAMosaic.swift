import Dispatch
import Foundation
import LightWork

/// The colour filter layouts a generated DNG can have (DNG CFAPattern values, 0 = red, 1 = green, 2 = blue): the
/// four 2 × 2 Bayer phases and Fujifilm's 6 × 6 X-Trans.
enum CFALayout: String, Sendable, CaseIterable {
    case rggb = "RGGB", bggr = "BGGR", grbg = "GRBG", gbrg = "GBRG"
    /// X-Trans as Fujifilm's cameras lay it out from the top-left pixel (20 green, 8 red, 8 blue sites).
    case xtrans = "XTRANS"

    /// The side of the repeating pattern (DNG CFARepeatPatternDim).
    var period: Int { self == .xtrans ? 6 : 2 }

    /// Colour at (row % period, column % period), row by row: for Bayer (even row, even column), (even, odd),
    /// (odd, even), (odd, odd).
    var pattern: [UInt8] {
        if self == .xtrans {
            return [1, 1, 0, 1, 1, 2,
                    1, 1, 2, 1, 1, 0,
                    2, 0, 1, 0, 2, 1,
                    1, 1, 2, 1, 1, 0,
                    1, 1, 0, 1, 1, 2,
                    0, 2, 1, 2, 0, 1]
        }
        return rawValue.map { $0 == "R" ? 0 : $0 == "G" ? 1 : 2 }
    }
}

/// How the DNG stores the scene: its CFA layout, EXIF orientation and DefaultScale (non-square pixels). The
/// stored data is the scene turned and squeezed so that a reader applying Orientation and DefaultScale as LibRaw
/// does (stretch, then turn) sees the scene upright at `SceneLayout`'s size: the truth file stays correct.
struct DNGLayout: Sendable {
    var cfa = CFALayout.rggb
    var orientation = Orientation.up
    /// DefaultScale (horizontal, vertical): LibRaw's pixel aspect is their ratio, a pixel's width over its height.
    var defaultScale = (horizontal: 1, vertical: 1)

    var isSquare: Bool { defaultScale.horizontal == defaultScale.vertical }

    /// The stored (sensor) size for an upright `width × height` scene, nil when the scale does not divide it into
    /// whole 2 × 2 cells.
    func storedSize(width: Int, height: Int) -> (width: Int, height: Int)? {
        let (tw, th) = orientation.swapsAxes ? (height, width) : (width, height)
        let (h, v) = defaultScale
        guard h > 0, v > 0 else { return nil }
        // Wider pixels (h > v) mean fewer stored columns; taller ones fewer stored rows.
        let (sw, sh) = h > v ? (tw * v / h, th) : (tw, th * h / v)
        guard sw > 0, sh > 0, sw % 2 == 0, sh % 2 == 0, h > v ? sw * h == tw * v : sh * v == th * h else { return nil }
        return (sw, sh)
    }
}

/// The noise a generated frame is recorded with.
enum SensorNoise: Sendable, Equatable {
    /// Additive Gaussian noise of `SyntheticCamera.noiseSigma` raw units (the committed samples).
    case fixed
    /// The Poisson-Gaussian noise of `SyntheticCamera`'s sensor at this ISO; 0 records the scene noiseless
    /// (quantised only), the reference a noisy frame of the same scene and seed is measured against.
    case iso(Int)
}

/// A raw Bayer frame: one 16-bit sample per pixel, row-major, as stored in the DNG.
struct CFAMosaic: Sendable {
    let width: Int
    let height: Int
    let samples: [UInt16]
    let layout: DNGLayout

    /// Renders the scene as `camera` records it: raw response + black level + seeded noise, quantised and clipped.
    init(scene: any ScenePainter, camera: SyntheticCamera, seed: UInt64, layout: DNGLayout = DNGLayout(), noise: SensorNoise = .fixed) {
        let w = scene.width, h = scene.height
        guard let (sw, sh) = layout.storedSize(width: w, height: h) else {
            preconditionFailure("DNGLayout.storedSize must be checked before rendering")
        }
        width = sw
        height = sh
        self.layout = layout
        let palette = ScenePalette(scene.materials.map(camera.rawResponse(lab:)))
        let black = Float(SyntheticCamera.blackLevel), white = Float(SyntheticCamera.whiteLevel)
        let sigma = SyntheticCamera.noiseSigma
        let pattern = layout.cfa.pattern.map(Int.init), period = layout.cfa.period
        // Upright render kept whole when the stored rows are not scene rows (turned or squeezed).
        let direct = layout.orientation == .up && layout.isSquare
        let upright = direct ? nil : SceneFrame(scene: scene, palette: palette)
        let bandRows = 64
        let bands = (sh + bandRows - 1) / bandRows
        samples = [UInt16](unsafeUninitializedCapacity: sw * sh) { buffer, count in
            let out = SendablePointer(buffer.baseAddress!)
            DispatchQueue.concurrentPerform(iterations: bands) { band in
                let rows = UnsafeMutablePointer<Float>.allocate(capacity: 3 * sw)
                defer { rows.deallocate() }
                for y in band * bandRows..<min(sh, (band + 1) * bandRows) {
                    if let upright {
                        upright.storedRow(y, layout: layout, storedWidth: sw, storedHeight: sh, into: rows)
                    } else {
                        scene.renderRow(y, palette: palette, r: rows, g: rows + sw, b: rows + 2 * sw)
                    }
                    // The filter over (x, y) picks one of the three planes: on Bayer rows by column parity.
                    let phase = (0..<period).map { rows + pattern[(y % period) * period + $0] * sw }
                    let (even, odd) = (phase[0], phase[1])
                    var rng = SeededRandom(seed: seed, stream: UInt64(y))
                    let dst = out.pointer + y * sw
                    var x = 0
                    switch noise {
                    case .fixed:
                        while x < sw {
                            let v = (period == 2 ? (x & 1 == 0 ? even[x] : odd[x]) : phase[x % period][x]) + black + sigma * rng.gaussian()
                            dst[x] = UInt16(min(max(v.rounded(), 0), white))
                            x += 1
                        }
                    case .iso(let iso):
                        let e = iso > 0 ? SyntheticCamera.electronsPerUnitAtISO100 * 100 / Double(iso) : 0
                        let read = e > 0 ? Float((pow(SyntheticCamera.readNoiseElectrons / e, 2) + pow(Double(sigma), 2)).squareRoot()) : 0
                        while x < sw {
                            var v = period == 2 ? (x & 1 == 0 ? even[x] : odd[x]) : phase[x % period][x]
                            if e > 0 { v = Float(Self.electrons(Double(max(v, 0)) * e, &rng) / e) + read * rng.gaussian() }
                            dst[x] = UInt16(min(max((v + black).rounded(), 0), white))
                            x += 1
                        }
                    }
                }
            }
            count = sw * sh
        }
    }
}

extension CFAMosaic {
    /// A Poisson draw of mean `mean` electrons: exact (Knuth's product of uniforms) below 30, above it a Gaussian
    /// of the same mean and variance.
    static func electrons(_ mean: Double, _ rng: inout SeededRandom) -> Double {
        guard mean < 30 else { return mean + mean.squareRoot() * Double(rng.gaussian()) }
        let limit = exp(-mean)
        var k = 0.0, p = rng.unit()
        while p > limit { k += 1; p *= rng.unit() }
        return k
    }
}

/// The whole scene rendered upright in planar rows, for stored layouts that read it out of row order.
private final class SceneFrame: @unchecked Sendable {
    let width: Int
    let height: Int
    let planes: [Float]

    init(scene: any ScenePainter, palette: ScenePalette) {
        width = scene.width
        height = scene.height
        let (w, h) = (width, height)
        planes = [Float](unsafeUninitializedCapacity: 3 * w * h) { buffer, count in
            let out = SendablePointer(buffer.baseAddress!)
            DispatchQueue.concurrentPerform(iterations: h) { y in
                let row = out.pointer + 3 * w * y
                scene.renderRow(y, palette: palette, r: row, g: row + w, b: row + 2 * w)
            }
            count = 3 * w * h
        }
    }

    /// Stored row `y` into planes r, g, b of `storedWidth` each: stored pixel (x, y) lies at (x, y) × the
    /// stretch in the square-pixel frame (where LibRaw's stretch puts it back), which the orientation turns upright.
    func storedRow(_ y: Int, layout: DNGLayout, storedWidth sw: Int, storedHeight sh: Int, into rows: UnsafeMutablePointer<Float>) {
        let (tw, th) = layout.orientation.swapsAxes ? (height, width) : (width, height)
        // Orientation maps upright → square-pixel stored; its inverse (right and left swap) maps back.
        let inverse: Orientation = layout.orientation == .right ? .left : layout.orientation == .left ? .right : layout.orientation
        let ty = y * th / sh
        planes.withUnsafeBufferPointer { p in
            for x in 0..<sw {
                let (ux, uy) = inverse.sourceCoordinate(x: x * tw / sw, y: ty, storedWidth: width, storedHeight: height)
                let src = 3 * width * uy + ux
                rows[x] = p[src]
                rows[sw + x] = p[src + width]
                rows[2 * sw + x] = p[src + 2 * width]
            }
        }
    }
}

/// A raw pointer handed to concurrentPerform workers, each writing its own rows.
struct SendablePointer<T>: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<T>
    init(_ pointer: UnsafeMutablePointer<T>) { self.pointer = pointer }
}

extension CFAMosaic {
    /// A mosaic from samples already rendered elsewhere (row-major, `width × height`): the highlight and lens scenes.
    init(width: Int, height: Int, samples: [UInt16], layout: DNGLayout) {
        self.width = width
        self.height = height
        self.samples = samples
        self.layout = layout
    }
}
