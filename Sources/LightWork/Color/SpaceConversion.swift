/// Converts planar Float32 pixels between two (primaries, transfer curve) pairs: decode, 3×3 matrix, encode.
/// Each step is skipped when it is the identity, so a same-space conversion costs nothing.
public struct SpaceConversion: Sendable {
    public let isIdentity: Bool
    private let decoder: FastCurve?
    private let matrix: [Float]?
    private let encoder: FastCurve?

    public init(fromPrimaries: RGBPrimaries, fromTransfer: TransferFunction, toPrimaries: RGBPrimaries, toTransfer: TransferFunction) {
        let sameSpace = fromPrimaries == toPrimaries
        if sameSpace && fromTransfer == toTransfer {
            isIdentity = true
            decoder = nil; matrix = nil; encoder = nil
            return
        }
        isIdentity = false
        decoder = fromTransfer == .linear ? nil : CurveCache.decoder(fromTransfer)
        matrix = sameSpace ? nil : fromPrimaries.conversion(to: toPrimaries).floats
        encoder = toTransfer == .linear ? nil : CurveCache.encoder(toTransfer)
    }

    public init(from: WorkingSpace, to: WorkingSpace) {
        self.init(fromPrimaries: from.primaries, fromTransfer: from.encoding.transfer,
                  toPrimaries: to.primaries, toTransfer: to.encoding.transfer)
    }

    /// Linear part only: decode and matrix (no encode); used where a clamp or blend must happen in linear light.
    public func decodeAndMatrix(r: UnsafeMutablePointer<Float>, g: UnsafeMutablePointer<Float>, b: UnsafeMutablePointer<Float>, count: Int) {
        if let d = decoder { d.apply(r, count: count); d.apply(g, count: count); d.apply(b, count: count) }
        if let m = matrix { SpaceConversion.multiply(m, r, g, b, count) }
    }

    /// `decodeAndMatrix`, then every value clamped to 0…1 (NaN to 0), the matrix and the clamp in one loop.
    public func decodeMatrixAndClamp(r: UnsafeMutablePointer<Float>, g: UnsafeMutablePointer<Float>, b: UnsafeMutablePointer<Float>, count: Int) {
        if let d = decoder { d.apply(r, count: count); d.apply(g, count: count); d.apply(b, count: count) }
        let m = matrix ?? [1, 0, 0, 0, 1, 0, 0, 0, 1]
        let (m0, m1, m2, m3, m4, m5, m6, m7, m8) = (m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8])
        @inline(__always) func unit(_ v: Float) -> Float {
            let positive = v > 0 ? v : 0
            return positive < 1 ? positive : 1
        }
        if matrix == nil {
            for i in 0..<count { r[i] = unit(r[i]); g[i] = unit(g[i]); b[i] = unit(b[i]) }
            return
        }
        for i in 0..<count {
            let x = r[i], y = g[i], z = b[i]
            r[i] = unit(m0 * x + m1 * y + m2 * z)
            g[i] = unit(m3 * x + m4 * y + m5 * z)
            b[i] = unit(m6 * x + m7 * y + m8 * z)
        }
    }

    /// Encode part only (after `decodeAndMatrix`).
    public func encode(r: UnsafeMutablePointer<Float>, g: UnsafeMutablePointer<Float>, b: UnsafeMutablePointer<Float>, count: Int) {
        if let e = encoder { e.apply(r, count: count); e.apply(g, count: count); e.apply(b, count: count) }
    }

    /// The whole conversion, in place.
    public func apply(r: UnsafeMutablePointer<Float>, g: UnsafeMutablePointer<Float>, b: UnsafeMutablePointer<Float>, count: Int) {
        if isIdentity { return }
        decodeAndMatrix(r: r, g: g, b: b, count: count)
        encode(r: r, g: g, b: b, count: count)
    }

    /// Row-vector 3×3 multiply over planar data; a plain loop the compiler vectorises.
    static func multiply(_ m: [Float], _ r: UnsafeMutablePointer<Float>, _ g: UnsafeMutablePointer<Float>, _ b: UnsafeMutablePointer<Float>, _ n: Int) {
        let (m0, m1, m2, m3, m4, m5, m6, m7, m8) = (m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8])
        for i in 0..<n {
            let x = r[i], y = g[i], z = b[i]
            r[i] = m0 * x + m1 * y + m2 * z
            g[i] = m3 * x + m4 * y + m5 * z
            b[i] = m6 * x + m7 * y + m8 * z
        }
    }
}

public extension WorkingSpace.Encoding {
    /// The curve this encoding stands for.
    var transfer: TransferFunction { self == .linear ? .linear : .sRGB }
}

/// Process-wide tabulated curves (each costs ~30k evaluations of `pow` to build).
enum CurveCache {
    private static let encoders = LockedBox<[TransferFunction: FastCurve]>([:])
    private static let decoders = LockedBox<[TransferFunction: FastCurve]>([:])

    static func encoder(_ tf: TransferFunction) -> FastCurve {
        encoders.withLock { c in
            if let f = c[tf] { return f }
            let f = FastCurve.encoder(tf); c[tf] = f; return f
        }
    }

    private static let halfDecoders = LockedBox<[TransferFunction: UnsafePointer<Float>]>([:])

    /// `decoder(tf)` at every half float, indexed by its bits (256 KB, kept for the life of the process like
    /// the curves, so band workers can hold the pointer).
    static func halfDecodeTable(_ tf: TransferFunction) -> UnsafePointer<Float> {
        halfDecoders.withLock { c in
            if let t = c[tf] { return t }
            let values = decoder(tf).halfTable()
            let t = UnsafeMutablePointer<Float>.allocate(capacity: values.count)
            t.initialize(from: values, count: values.count)
            c[tf] = UnsafePointer(t)
            return UnsafePointer(t)
        }
    }

    static func decoder(_ tf: TransferFunction) -> FastCurve {
        decoders.withLock { c in
            if let f = c[tf] { return f }
            let f = FastCurve.decoder(tf); c[tf] = f; return f
        }
    }
}
