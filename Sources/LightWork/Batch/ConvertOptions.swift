import Foundation

/// Everything that decides how one file becomes one output (shared by convert, batch, watch and verify).
public struct ConvertOptions: Sendable {
    public var outputDirectory: URL
    public var encode: EncodeSettings
    public var colorSpace: OutputColorSpace
    public var decode: DecodeOptions
    /// sRGB-encoded background that alpha is flattened onto for JPEG (`--background`, default white).
    public var background: SIMD3<Double>
    /// Drop EXIF from outputs (`--strip-metadata`); the ICC profile is always embedded.
    public var stripMetadata: Bool
    /// The filter chain (spec order, built from the recipe); empty for a neutral recipe.
    public var chain: [any Filter]
    /// Recorded in the manifest and hashed into the settings digest and the grain/dust seed.
    public var settings: ResolvedSettings
    /// Resampling after decode, before the filter chain (`--long-edge`, `--short-edge`, `--scale`);
    /// setting it also records it in `settings`, since it changes output bytes.
    public var resize: ResizeSpec? {
        didSet { settings.resize = resize?.setting }
    }

    public init(outputDirectory: URL, encode: EncodeSettings = EncodeSettings(), colorSpace: OutputColorSpace = .srgb,
                decode: DecodeOptions = DecodeOptions(), background: SIMD3<Double> = SIMD3(1, 1, 1), stripMetadata: Bool = false,
                chain: [any Filter] = [], settings: ResolvedSettings? = nil, resize: ResizeSpec? = nil) {
        self.outputDirectory = outputDirectory
        self.encode = encode
        self.colorSpace = colorSpace
        self.decode = decode
        self.background = background
        self.stripMetadata = stripMetadata
        self.chain = chain
        self.settings = settings ?? ResolvedSettings(
            format: encode.format.rawValue, bitDepth: encode.format.bitDepth, colorSpace: colorSpace.rawValue,
            quality: encode.format.codec.options.contains(JPEGCodec.quality) ? encode.jpegQuality : nil,
            compression: encode.format.codec.options.contains(TIFFCodec.compression) ? encode.tiffCompression.rawValue : nil,
            demosaic: decode.demosaic.rawValue, intent: decode.intent.rawValue,
            background: String(format: "%.4f,%.4f,%.4f", background.x, background.y, background.z), stripMetadata: stripMetadata)
        self.resize = resize
        if settings == nil { self.settings.resize = resize?.setting }
    }
}
