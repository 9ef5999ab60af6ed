/// The one conversion from the working values to the output file's colour space, done once at the end:
/// matrix + tabulated curve (exact for matrix/shaper spaces and ~30× faster than LittleCMS's float path),
/// then alpha handling and quantisation to 8 or 16 bits.
public struct OutputTransform: Sendable {
    public let space: OutputColorSpace
    public let depth: EncodedPixels.Depth
    /// Channels written: 3 (RGB) or 4 (RGBA, when the image has alpha and the format keeps it).
    public let channels: Int
    /// Background that alpha is flattened onto (linear light, output primaries) when `channels == 3`.
    private let background: SIMD3<Float>
    private let flattenAlpha: Bool
    private let conversion: SpaceConversion
    /// A direct quantisation without decode/encode (input already in the output's encoding and primaries).
    private let passthrough: Bool

    /// - Parameters:
    ///   - input: the space of the values handed to `encode` (the engine's last domain).
    ///   - keepAlpha: write RGBA (PNG, TIFF with an alpha image); otherwise alpha is flattened onto `background`.
    ///   - background: sRGB-encoded background colour, 0…1 (default white).
    public init(input: WorkingSpace, space: OutputColorSpace, depth: EncodedPixels.Depth, hasAlpha: Bool, keepAlpha: Bool,
                background: SIMD3<Double> = SIMD3(1, 1, 1)) {
        self.space = space
        self.depth = depth
        channels = hasAlpha && keepAlpha ? 4 : 3
        flattenAlpha = hasAlpha && !keepAlpha
        conversion = SpaceConversion(fromPrimaries: input.primaries, fromTransfer: input.encoding.transfer,
                                     toPrimaries: space.primaries, toTransfer: space.transfer)
        passthrough = conversion.isIdentity && !flattenAlpha
        let bgLinear = SIMD3(TransferFunction.sRGB.decode(background.x), TransferFunction.sRGB.decode(background.y), TransferFunction.sRGB.decode(background.z))
        let bgOut = RGBPrimaries.sRGB.conversion(to: space.primaries) * bgLinear
        self.background = SIMD3(Float(bgOut.x), Float(bgOut.y), Float(bgOut.z))
    }

    /// Converts one band (planar, in the input space; modified in place) into rows `band.y0…` of `out`.
    public func encode(_ band: PixelBand, into out: UnsafeMutablePointer<UInt16>, firstRow: Int = 0) {
        convert(band)
        quantise(band, scale: 65535, into: out, firstRow: firstRow)
    }

    /// 8-bit variant of `encode`.
    public func encode(_ band: PixelBand, into out: UnsafeMutablePointer<UInt8>, firstRow: Int = 0) {
        convert(band)
        quantise(band, scale: 255, into: out, firstRow: firstRow)
    }

    private func convert(_ band: PixelBand) {
        if passthrough { return }
        let n = band.count
        // Clamp in linear light: the output encodes [0, 1] only.
        conversion.decodeMatrixAndClamp(r: band.r, g: band.g, b: band.b, count: n)
        if flattenAlpha {
            let (br, bg, bb) = (background.x, background.y, background.z)
            let a = band.a, r = band.r, g = band.g, b = band.b
            for i in 0..<n {
                let positive = a[i] > 0 ? a[i] : 0
                let al = positive < 1 ? positive : 1, inv = 1 - al
                r[i] = r[i] * al + br * inv
                g[i] = g[i] * al + bg * inv
                b[i] = b[i] * al + bb * inv
            }
        }
        conversion.encode(r: band.r, g: band.g, b: band.b, count: n)
    }

    /// Rounds each value, clamped to 0…1, to the nearest of `scale + 1` codes: adding 2^23 leaves the
    /// rounded integer in the low mantissa bits (NaN becomes 0). Plain selects and a float add, so it vectorises.
    @inline(__always)
    private static func code(_ v: Float, _ scale: Float) -> UInt32 {
        let positive = v > 0 ? v : 0
        return ((positive < 1 ? positive : 1) * scale + 8_388_608).bitPattern
    }

    /// `out` holds image rows from `firstRow` on (the whole image, or the rows a streaming writer asked for).
    private func quantise<T: FixedWidthInteger>(_ band: PixelBand, scale: Float, into out: UnsafeMutablePointer<T>, firstRow: Int) {
        let n = band.count
        let r = band.r, g = band.g, b = band.b, a = band.a
        if channels == 4 {
            let base = out + (band.y0 - firstRow) * band.width * 4
            for i in 0..<n {
                base[4 * i] = T(truncatingIfNeeded: OutputTransform.code(r[i], scale))
                base[4 * i + 1] = T(truncatingIfNeeded: OutputTransform.code(g[i], scale))
                base[4 * i + 2] = T(truncatingIfNeeded: OutputTransform.code(b[i], scale))
                base[4 * i + 3] = T(truncatingIfNeeded: OutputTransform.code(a[i], scale))
            }
        } else {
            let base = out + (band.y0 - firstRow) * band.width * 3
            for i in 0..<n {
                base[3 * i] = T(truncatingIfNeeded: OutputTransform.code(r[i], scale))
                base[3 * i + 1] = T(truncatingIfNeeded: OutputTransform.code(g[i], scale))
                base[3 * i + 2] = T(truncatingIfNeeded: OutputTransform.code(b[i], scale))
            }
        }
    }
}
