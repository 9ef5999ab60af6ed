/// What the final pass produces: colour space, bit depth and what happens to alpha.
public struct OutputSpec: Sendable, Equatable {
    public var space: OutputColorSpace
    public var depth: EncodedPixels.Depth
    /// Keep an alpha channel when the image has one (PNG, TIFF); JPEG flattens it onto `background`.
    public var keepAlpha: Bool
    /// sRGB-encoded background for flattening, 0…1.
    public var background: SIMD3<Double>

    public init(space: OutputColorSpace, depth: EncodedPixels.Depth, keepAlpha: Bool, background: SIMD3<Double> = SIMD3(1, 1, 1)) {
        self.space = space
        self.depth = depth
        self.keepAlpha = keepAlpha
        self.background = background
    }
}
