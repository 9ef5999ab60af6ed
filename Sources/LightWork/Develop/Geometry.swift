import CShims
import Foundation

/// A develop module that only moves pixels (`lens`, `rotate`, `crop`, `aspect`). Instead of resampling, it
/// composes its mapping onto a `DevelopGeometry`; the stage resamples once, when the next module that reads pixels
/// (or the end of the stage) needs them: one bicubic sample per output pixel and channel for lens distortion ∘
/// rotation ∘ crop, at the final size, instead of one resampling per module.
public protocol GeometricDevelopModule: DevelopModule {
    /// Adds the module's mapping to `geometry` (its output frame and where each of its pixels comes from) and
    /// records its decisions in `context`. Never called when `setting.isOff`.
    static func compose(_ setting: Setting, onto geometry: inout DevelopGeometry, context: inout DevelopContext) throws
}

public extension GeometricDevelopModule {
    /// The module alone: its geometry, resampled.
    static func apply(_ setting: Setting, to image: PlanarImage, context: inout DevelopContext) throws -> PlanarImage {
        var geometry = DevelopGeometry(source: image)
        try compose(setting, onto: &geometry, context: &context)
        return geometry.render(engine: context.engine)
    }
}

extension GeometricDevelopModule {
    /// Composes the module when its setting in `settings` is on.
    static func compose(_ settings: DevelopSettings, onto geometry: inout DevelopGeometry, context: inout DevelopContext) throws {
        let setting = settings[Self.self]
        if !setting.isOff { try compose(setting, onto: &geometry, context: &context) }
    }
}

/// Where every pixel of a `width` × `height` output frame comes from in `source`: an optional lens correction on the
/// source's own frame, then an affine map (rotations and crops composed). Positions are pixel-index coordinates
/// (pixel centres at whole numbers). Output pixel (x, y) reads, in the lens-corrected frame,
///
///     u = m0·x + m1·y + m2,   v = m3·x + m4·y + m5        (double)
///
/// and there the lens map gives each channel's source position and the vignetting gain (lensfun's, at the nodes of
/// a 16 px grid of the output frame, bilinear between them: `lw_grid_row`); without a lens the source position is
/// (u, v) itself. `render` samples each channel once there (Keys bicubic,
/// `lw_resample.h`); a whole-pixel translation (a crop alone) is a copy.
public struct DevelopGeometry {
    /// The image the pixels come from (a lens correction in camera RGB turns it into camera RGB in place when rendered).
    public let source: PlanarImage
    /// The output frame.
    public private(set) var width: Int
    public private(set) var height: Int
    /// Output pixel → lens-corrected frame, row-major 2 × 3.
    private(set) var affine: [Double] = [1, 0, 0, 0, 1, 0]
    /// The lens correction of the source frame, if one was composed (always first).
    private(set) var lens: LensMap?

    public init(source: PlanarImage) {
        self.source = source
        width = source.width
        height = source.height
    }

    /// True when the output is the source's own frame, untouched.
    public var isIdentity: Bool { lens == nil && affine == [1, 0, 0, 0, 1, 0] && width == source.width && height == source.height }

    /// The lens map of the source's frame; it must come before any other geometry (the module order has it first).
    mutating func correctLens(_ map: LensMap) {
        precondition(isIdentity, "the lens correction must be the first geometry on the source's frame")
        lens = map
    }

    /// The frame turned by `degrees` about its centre (positive: the picture turns counter-clockwise) and cut to the
    /// centred `newWidth` × `newHeight`: output pixel (x, y), at offset (dx, dy) = (x + ½ − w/2, y + ½ − h/2) from
    /// the new centre, reads the current frame at its centre + (dx·cos θ − dy·sin θ, dx·sin θ + dy·cos θ).
    mutating func rotate(degrees: Double, newWidth: Int, newHeight: Int) {
        let theta = degrees * .pi / 180
        let c = cos(theta), s = sin(theta)
        let cx = Double(width) / 2 - 0.5, cy = Double(height) / 2 - 0.5
        let dx = 0.5 - Double(newWidth) / 2, dy = 0.5 - Double(newHeight) / 2
        then([c, -s, cx + dx * c - dy * s, s, c, cy + dx * s + dy * c], width: newWidth, height: newHeight)
    }

    /// The `w` × `h` rectangle at whole pixel (x, y) of the current frame.
    mutating func crop(x: Int, y: Int, width w: Int, height h: Int) {
        precondition(x >= 0 && y >= 0 && w > 0 && h > 0 && x + w <= width && y + h <= height, "crop outside the frame")
        then([1, 0, Double(x), 0, 1, Double(y)], width: w, height: h)
    }

    /// Appends a map from the new output frame to the current one.
    private mutating func then(_ n: [Double], width w: Int, height h: Int) {
        let m = affine
        affine = [m[0] * n[0] + m[1] * n[3], m[0] * n[1] + m[1] * n[4], m[0] * n[2] + m[1] * n[5] + m[2],
                  m[3] * n[0] + m[4] * n[3], m[3] * n[1] + m[4] * n[4], m[3] * n[2] + m[4] * n[5] + m[5]]
        width = w
        height = h
    }

    /// The output frame's pixels: `source` itself when nothing moves, a copy for a whole-pixel crop, else one
    /// bicubic resampling (and the lens's camera-RGB mixing and vignetting gain in the same pass).
    public func render(engine: EngineConfiguration) -> PlanarImage {
        let m = affine
        if lens == nil, m[0] == 1, m[1] == 0, m[3] == 0, m[4] == 1, m[2] == m[2].rounded(), m[5] == m[5].rounded() {
            return source.cropped(x: Int(m[2]), y: Int(m[5]), width: width, height: height, engine: engine)
        }
        let image = source, out = source.sameKind(width: width, height: height)
        let W = image.width, H = image.height, w = width
        if let m = lens?.toCamera {
            let src = UncheckedSendable(image)
            Parallel.forEach(H, workers: engine.workers(for: H)) { _, y in
                let o = y * W
                lw_mix_row(src.value.r + o, src.value.g + o, src.value.b + o, Int32(W), m, nil)
            }
        }
        // Tiles of `tileRows` rows × `tileColumns` columns: a rotated row reads source rows along a slant, and a
        // tile's rows read nearly the same source pixels, which then stay in the core's cache between them.
        let bands = (height + Self.tileRows - 1) / Self.tileRows, tw = Self.tileColumns
        let workers = engine.workers(for: bands)
        let fields = LensModifier.gridFields
        // The lens's maps on the output frame's own grid (node → the lens frame's position → lensfun there).
        let grid = lens.map { l in l.modifier.grid(vignetting: l.vignetting, engine: engine, width: width, height: height) {
            (m[0] * $0 + m[1] * $1 + m[2], m[3] * $0 + m[4] * $1 + m[5])
        } }
        let scratch = UncheckedSendable(UnsafeMutablePointer<Float>.allocate(capacity: fields * tw * workers))
        defer { scratch.value.deallocate() }
        let me = UncheckedSendable((image, out, lens, grid))
        let h = height
        // The planes each call samples: all of them along a line without a lens, else each channel at its own
        // positions (alpha follows green: coverage has no lateral CA of its own).
        let alpha = image.alpha.flatMap { a in out.alpha.map { (UnsafePointer(a), $0) } }
        let linePlanes: [UnsafePointer<Float>?] = [UnsafePointer(image.r), UnsafePointer(image.g), UnsafePointer(image.b)] + (alpha.map { [$0.0] } ?? [])
        let channelPlanes: [[UnsafePointer<Float>?]] = (0..<3).map { c in [UnsafePointer(image.plane(c))] + (c == 1 ? alpha.map { [$0.0] } ?? [] : []) }
        Parallel.forEach(bands, workers: workers) { worker, band in
            let (_, res, lens, grid) = me.value
            let y0 = band * Self.tileRows, y1 = min(h, y0 + Self.tileRows)
            let base = scratch.value + worker * fields * tw
            var rows = (0..<fields).map { Optional(base + $0 * tw) }
            var outs = [UnsafeMutablePointer<Float>?](repeating: nil, count: 4)
            for x0 in stride(from: 0, to: w, by: tw) {
                let x1 = min(w, x0 + tw), n = x1 - x0
                for y in y0..<y1 {
                    let o = y * w
                    guard let lens else {
                        // Without a lens every channel comes from the same position, along a straight line.
                        let u0 = m[1] * Double(y) + m[2], v0 = m[4] * Double(y) + m[5]
                        outs[0] = res.r + o; outs[1] = res.g + o; outs[2] = res.b + o; outs[3] = alpha.map { $0.1 + o }
                        lw_bicubic_span(linePlanes, Int32(linePlanes.count), Int32(W), Int32(H), u0, v0, m[0], m[3], Int32(x0), Int32(n), &outs)
                        continue
                    }
                    grid!.nodes.withUnsafeBufferPointer { nodes in
                        lw_grid_span(nodes.baseAddress, Int32(grid!.across), Int32(fields), Int32(LensModifier.gridSpacing), Int32(y), Int32(x0), Int32(x1), &rows)
                    }
                    let p = o + x0
                    for c in 0..<3 {
                        let planes = channelPlanes[c]
                        outs[0] = res.plane(c) + p; outs[1] = c == 1 ? alpha.map { $0.1 + p } : nil
                        lw_bicubic_row(planes, Int32(planes.count), Int32(W), Int32(H), base + 2 * c * tw, base + (2 * c + 1) * tw, Int32(n), &outs)
                    }
                    lw_mix_row(res.r + p, res.g + p, res.b + p, Int32(n), lens.toWorking, lens.vignetting ? UnsafePointer(base + 6 * tw) : nil)
                }
            }
        }
        // Cubic overshoot must not make coverage leave 0…1.
        if let a = out.alpha { for i in 0..<out.pixelCount { a[i] = min(1, max(0, a[i])) } }
        return out
    }

    /// Output rows and columns of `render`'s tiles: 32 rows of 256 pixels read about 16 KB of each source plane
    /// at a 2° turn, which a core's L1 and L2 hold across the tile's rows.
    static let tileRows = 32
    static let tileColumns = 256
}

/// A lens correction of one frame, as `DevelopGeometry` resamples it: lensfun's modifier (each channel's source
/// position and the vignetting gain, asked on the output frame's grid: `LensModifier.grid`) and, for TCA in the
/// camera's channels, the matrices into and out of camera RGB.
struct LensMap: @unchecked Sendable {
    let modifier: LensModifier
    let toCamera: [Float]?
    let toWorking: [Float]?
    let vignetting: Bool
}
