import CShims
import Foundation

/// Float32 planes of an image in linear light: what develop modules work on. Neighbourhood and geometric maths
/// wants full precision and random access; half floats (`WorkingImage`) are the chain's storage only, so the
/// develop stage converts once on the way in and once on the way out, and only when a module runs.
public final class PlanarImage: @unchecked Sendable {
    public let width: Int
    public let height: Int
    /// The primaries of the values (encoding is always linear).
    public let primaries: RGBPrimaries
    /// Red, green and blue planes, `width * height` floats each, row-major.
    public let r: UnsafeMutablePointer<Float>
    public let g: UnsafeMutablePointer<Float>
    public let b: UnsafeMutablePointer<Float>
    /// Alpha (nil for an opaque image: RAW files and images without alpha).
    public let alpha: UnsafeMutablePointer<Float>?

    public var pixelCount: Int { width * height }

    /// Allocates planes whose values are undefined until written (`zeroed` fills them with 0).
    public init(width: Int, height: Int, primaries: RGBPrimaries, hasAlpha: Bool = false, zeroed: Bool = false) {
        precondition(width > 0 && height > 0, "image dimensions must be positive")
        self.width = width
        self.height = height
        self.primaries = primaries
        let n = width * height
        r = PlanarImage.allocatePlane(n)
        g = PlanarImage.allocatePlane(n)
        b = PlanarImage.allocatePlane(n)
        alpha = hasAlpha ? PlanarImage.allocatePlane(n) : nil
        if zeroed {
            r.initialize(repeating: 0, count: n); g.initialize(repeating: 0, count: n); b.initialize(repeating: 0, count: n)
            alpha?.initialize(repeating: 1, count: n)
        }
    }

    deinit {
        PlanarImage.freePlane(r); PlanarImage.freePlane(g); PlanarImage.freePlane(b); alpha.map(PlanarImage.freePlane)
    }

    /// A plane's (or a module's plane-sized scratch) memory from `lw_floats_alloc`, kept for the next plane of its
    /// size (a batch asks for the same sizes for every file). Free with `freePlane`.
    public static func allocatePlane(_ count: Int) -> UnsafeMutablePointer<Float> {
        guard let p = lw_floats_alloc(count) else { fatalError("out of memory for a \(count)-float plane") }
        return p
    }

    public static func freePlane(_ p: UnsafeMutablePointer<Float>) { lw_floats_free(p) }

    /// Plane 0 (red), 1 (green) or 2 (blue).
    @inline(__always) public func plane(_ c: Int) -> UnsafeMutablePointer<Float> { c == 0 ? r : c == 1 ? g : b }

    /// An empty image of the same kind at another size (for modules that change the geometry).
    public func sameKind(width: Int, height: Int) -> PlanarImage {
        PlanarImage(width: width, height: height, primaries: primaries, hasAlpha: alpha != nil)
    }

    /// Reads pixel (x, y); for tests and probes, not for loops.
    public func pixel(x: Int, y: Int) -> SIMD3<Float> {
        let i = y * width + x
        return SIMD3(r[i], g[i], b[i])
    }

    /// The planes of `image`, decoded to linear light when it is sRGB-encoded.
    public convenience init(_ image: WorkingImage, engine: EngineConfiguration) {
        self.init(width: image.width, height: image.height, primaries: image.space.primaries, hasAlpha: image.hasAlpha)
        let w = image.width
        let table = image.space.encoding == .sRGBCurve ? FastCurve.decoder(.sRGB).halfTable() : nil
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: w * engine.threads)
        defer { scratch.deallocate() }
        let me = UncheckedSendable(self), s = UncheckedSendable(scratch)
        Parallel.forEach(image.height, workers: engine.workers(for: image.height)) { worker, y in
            let o = y * w
            let a = me.value.alpha.map { $0 + o } ?? s.value + worker * w
            if let table {
                table.withUnsafeBufferPointer { lw_rgba_half_to_planar_mapped(image.row(y), $0.baseAddress, me.value.r + o, me.value.g + o, me.value.b + o, a, w) }
            } else {
                lw_rgba_half_to_planar(image.row(y), me.value.r + o, me.value.g + o, me.value.b + o, a, w)
            }
        }
    }

    /// The image as half floats in `space` (its primaries must be this image's; an sRGB-curve space is encoded),
    /// with `operations` applied to each row on the way (the planes themselves are left as they are).
    public func workingImage(space: WorkingSpace, applying operations: [PointOperation] = [], engine: EngineConfiguration) -> WorkingImage {
        precondition(space.primaries == primaries, "a develop module changed the primaries")
        let out = WorkingImage.unfilled(width: width, height: height, space: space, hasAlpha: alpha != nil)
        let w = width
        let encoder = space.encoding == .sRGBCurve ? FastCurve.encoder(.sRGB) : nil
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: 4 * w * engine.threads)
        defer { scratch.deallocate() }
        let me = UncheckedSendable(self), s = UncheckedSendable(scratch)
        Parallel.forEach(height, workers: engine.workers(for: height)) { worker, y in
            let o = y * w
            let base = s.value + worker * 4 * w
            let rr = base, gg = base + w, bb = base + 2 * w, ones = base + 3 * w
            rr.update(from: me.value.r + o, count: w)
            gg.update(from: me.value.g + o, count: w)
            bb.update(from: me.value.b + o, count: w)
            for operation in operations { operation.apply(rr, gg, bb, w) }
            if let encoder { encoder.apply(rr, count: w); encoder.apply(gg, count: w); encoder.apply(bb, count: w) }
            if me.value.alpha == nil { ones.initialize(repeating: 1, count: w) }
            lw_planar_to_rgba_half(rr, gg, bb, me.value.alpha.map { UnsafePointer($0 + o) } ?? UnsafePointer(ones), out.row(y), w)
        }
        return out
    }
}
