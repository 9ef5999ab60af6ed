import Foundation

/// Everything one conversion needs, resolved: the look, how inputs are decoded, how outputs are encoded and
/// where they go. `convert`, `watch` and `verify` each build one (the CLI from its flags and the recipe, verify
/// from a case) and a `FileConverter` is made from it; a batch's worker processes receive it as the first
/// message of their protocol (`WorkerStart`). The manifest's settings and their digest are derived from it
/// (`settings`), never kept beside it.
///
/// A film or LUT is named by its file and identified by the SHA-256 of that file's bytes: the converter refuses
/// to render when the bytes it loads are not the ones the spec was made from.
public struct ConvertSpec: Codable, Sendable, Equatable {
    public var look: Look
    public var decode: Decode
    /// RAW development: every develop module's setting (`DevelopStage`), between the decoder and the look.
    public var develop: DevelopSettings
    public var export: Export
    public var output: Output

    public init(look: Look = Look(), decode: Decode = Decode(), develop: DevelopSettings = DevelopSettings(),
                export: Export = Export(), output: Output) {
        self.look = look
        self.decode = decode
        self.develop = develop
        self.export = export
        self.output = output
    }

    /// A neutral conversion into `outputDirectory` with every default (16-bit sRGB TIFF).
    public init(outputDirectory: URL) {
        self.init(output: Output(directory: outputDirectory))
    }

    /// The look: every filter's resolved value, the film or LUT and its mix.
    public struct Look: Codable, Sendable, Equatable {
        /// The recipe's name (`{recipe}` in output names); nil when no recipe was resolved.
        public var recipeName: String?
        /// Per filter value name (`FilterChain.valueNames`): UI value, resolved value, dual-zone flag.
        public var filters: [String: ResolvedSettings.FilterSetting]
        /// The film or LUT; nil for none.
        public var lookup: Lookup?
        /// Film/LUT mix 0…100 (ignored without a lookup).
        public var strength: Double
        public var interpolation: LUT3D.Interpolation

        public init(recipeName: String? = nil, filters: [String: ResolvedSettings.FilterSetting] = [:], lookup: Lookup? = nil,
                    strength: Double = 100, interpolation: LUT3D.Interpolation = .tetrahedral) {
            self.recipeName = recipeName
            self.filters = filters
            self.lookup = lookup
            self.strength = strength
            self.interpolation = interpolation
        }

        /// The weight of the lookup branch in the mix (0…1); 0 without a film or LUT.
        public var lookupMix: Double { lookup == nil ? 0 : strength / 100 }
    }

    /// A film's lookup image or a LUT file, by path and content.
    public struct Lookup: Codable, Sendable, Equatable {
        /// The catalog film (nil: a LUT file the user named).
        public var film: Film?
        /// Absolute path of the lookup image or LUT file.
        public var path: String
        /// SHA-256 (hex) of the file's bytes when the spec was made.
        public var sha256: String

        /// A catalog film (made by resolving a recipe against the catalog; see `Look.init(resolved:)`).
        public struct Film: Codable, Sendable, Equatable {
            public var lookupId: String
            public var name: String
        }

        public init(film: Film?, path: String, sha256: String) {
            self.film = film
            self.path = path
            self.sha256 = sha256
        }

        /// Identifies `url`'s current bytes.
        public init(film: Film?, url: URL) throws {
            let digest: String
            do { digest = try SHA256.hex(fileAt: url) } catch { throw LightWorkError.missingInput(url.path) }
            self.init(film: film, path: url.path, sha256: digest)
        }

        /// What the manifest calls it: the film's lookupId and name, or the LUT's file name.
        public var label: String { film.map { "\($0.lookupId) \($0.name)" } ?? (path as NSString).lastPathComponent }

        /// The name `{film}` uses: the film's name, or the LUT file's stem ("teal.cube" → "teal").
        public var displayName: String { film?.name ?? ((label as NSString).deletingPathExtension) }
    }

    /// How inputs are decoded (what changes pixels; per-process limits are the converter's).
    public struct Decode: Codable, Sendable, Equatable {
        public var demosaic: DecodeOptions.Demosaic
        public var colorModel: DecodeOptions.ColorModel
        public var intent: DecodeOptions.RenderingIntent
        /// Images above this many pixels are refused before allocating.
        public var maxPixels: Int
        /// The camera profile (`--camera-profile`, a recipe's `cameraProfile`); nil is `matrix`.
        public var cameraProfile: CameraProfileSetting? = nil
    }

    /// How outputs are encoded.
    public struct Export: Codable, Sendable, Equatable {
        public var format: OutputFormat
        /// JPEG quality 1…100 (used by JPEG only).
        public var quality: Int
        /// TIFF compression (used by TIFF only).
        public var compression: TIFFCompression
        public var colorSpace: OutputColorSpace
        /// sRGB-encoded colour (0…1) that alpha is flattened onto where the format has no alpha (JPEG).
        public var background: SIMD3<Double>
        /// Write no EXIF, XMP or IPTC (the ICC profile is always embedded).
        public var stripMetadata: Bool
        /// Resampling after decode, before the look; nil keeps the size.
        public var resize: ResizeSpec?
        /// Credit written into every output over what is carried from inputs and sidecars (`--artist`, `--copyright`,
        /// `--keywords`, a recipe's `metadata`); nil for none (and always nil with `stripMetadata`).
        public var metadata: MetadataOverrides?
        /// The format's other encoder options (WebP's `lossless`, AVIF's `speed`…), as `EncodeSettings.setOptions`
        /// checked them; JPEG's quality and TIFF's compression are the typed fields above.
        public var options: CodecOptionValues

        public init(format: OutputFormat = .tiff16, quality: Int = EncodeSettings().jpegQuality,
                    compression: TIFFCompression = EncodeSettings().tiffCompression, colorSpace: OutputColorSpace = .srgb,
                    background: SIMD3<Double> = SIMD3(1, 1, 1), stripMetadata: Bool = false, resize: ResizeSpec? = nil,
                    options: CodecOptionValues = CodecOptionValues()) {
            self.format = format
            self.options = options
            self.quality = quality
            self.compression = compression
            self.colorSpace = colorSpace
            self.background = background
            self.stripMetadata = stripMetadata
            self.resize = resize
        }

        /// Also with the credit `metadata` (nil or empty for none).
        public init(format: OutputFormat = .tiff16, quality: Int = EncodeSettings().jpegQuality,
                    compression: TIFFCompression = EncodeSettings().tiffCompression, colorSpace: OutputColorSpace = .srgb,
                    background: SIMD3<Double> = SIMD3(1, 1, 1), stripMetadata: Bool = false, resize: ResizeSpec? = nil,
                    options: CodecOptionValues = CodecOptionValues(), metadata: MetadataOverrides?) {
            self.init(format: format, quality: quality, compression: compression, colorSpace: colorSpace, background: background,
                      stripMetadata: stripMetadata, resize: resize, options: options)
            self.metadata = metadata.flatMap { $0.isEmpty ? nil : $0 }
        }

        /// The encoder's settings (profile and EXIF are added per file).
        public var encodeSettings: EncodeSettings {
            var e = EncodeSettings(format: format, jpegQuality: quality, tiffCompression: compression)
            e.options = options
            return e
        }
    }

    /// Where outputs go and how they are named. Which inputs a batch takes (`--include`, `--exclude`,
    /// `--prefer`) is not here: that picks files, it does not decide how one file is converted.
    public struct Output: Codable, Sendable, Equatable {
        /// The output folder (outputs are written at planned paths relative to it).
        public var directory: URL
        /// The output name template as written (`OutputNameTemplate`), checked when the spec is made.
        public var name: String
        /// What a name already taken by a file no earlier run wrote gets.
        public var onExist: CollisionPolicy

        public init(directory: URL, name: OutputNameTemplate = .standard, onExist: CollisionPolicy = .skip) {
            self.directory = directory
            self.name = name.source
            self.onExist = onExist
        }
    }

    /// The manifest's record of every setting that changes output bytes; its digest decides whether an
    /// existing output can be reused, so this mapping keeps the record of earlier releases field for field.
    public var settings: ResolvedSettings {
        let format = export.format
        var s = ResolvedSettings(
            format: format.rawValue, bitDepth: format.bitDepth, colorSpace: export.colorSpace.rawValue,
            quality: format.codec.options.contains(JPEGCodec.quality) ? export.quality : nil,
            compression: format.codec.options.contains(TIFFCodec.compression) ? export.compression.rawValue : nil,
            demosaic: decode.demosaic.rawValue, intent: decode.intent.rawValue,
            background: String(format: "%.4f,%.4f,%.4f", export.background.x, export.background.y, export.background.z),
            stripMetadata: export.stripMetadata, filters: look.filters, recipeName: look.recipeName,
            film: look.lookup?.label, strength: look.lookup == nil ? nil : look.strength)
        s.colorModel = decode.colorModel.rawValue
        s.cameraProfile = decode.cameraProfile.flatMap { $0.source == .matrix ? nil : $0.record }
        s.lutInterpolation = look.lookup == nil ? nil : look.interpolation.rawValue
        s.resize = export.resize?.setting
        s.develop = develop.record
        s.metadata = export.metadata.flatMap { $0.isEmpty ? nil : $0 }
        let others = format.codec.options.filter { $0 != JPEGCodec.quality && $0 != TIFFCodec.compression }
        s.codecOptions = others.isEmpty ? nil : Dictionary(uniqueKeysWithValues: others.map { ($0.name, export.options.value(of: $0)) })
        return s
    }

    /// The settings digest a manifest written by `toolVersion` records for this spec.
    public func settingsDigest(toolVersion: String = LightWorkVersion.current) -> String {
        Manifest.digest(settings: settings, toolVersion: toolVersion)
    }
}

extension ConvertSpec.Decode {
    /// LightWork's defaults: those of `DecodeOptions` (`--demosaic ahd`, `--color-model dng`, `--intent relative`, 200 MP).
    public init() {
        let d = DecodeOptions()
        self.init(demosaic: d.demosaic, colorModel: d.colorModel, intent: d.intent, maxPixels: d.maxPixels)
    }
}

extension CollisionPolicy: Codable {}

/// Written as `{"mode": "long-edge", "value": 2048}` and checked again when read.
extension ResizeSpec: Codable {
    private enum CodingKeys: String, CodingKey { case mode, value }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let mode = try c.decode(String.self, forKey: .mode)
        switch mode {
        case "long-edge": try self.init(.longEdge(c.decode(Int.self, forKey: .value)))
        case "short-edge": try self.init(.shortEdge(c.decode(Int.self, forKey: .value)))
        case "scale": try self.init(.scale(c.decode(Double.self, forKey: .value)))
        default: throw DecodingError.dataCorruptedError(forKey: .mode, in: c, debugDescription: "unknown resize mode \"\(mode)\"")
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch mode {
        case .longEdge(let n): try c.encode("long-edge", forKey: .mode); try c.encode(n, forKey: .value)
        case .shortEdge(let n): try c.encode("short-edge", forKey: .mode); try c.encode(n, forKey: .value)
        case .scale(let f): try c.encode("scale", forKey: .mode); try c.encode(f, forKey: .value)
        }
    }
}
