import Foundation

/// What a decoder hands the engine: upright pixels in the path's working space, plus what the manifest records.
public struct DecodedImage: Sendable {
    public enum Kind: String, Sendable, Codable { case raw, rgb }

    public var image: WorkingImage
    public var kind: Kind
    public var metadata: ImageMetadata
    /// Human-readable facts worth recording (e.g. "no colour information: assumed sRGB").
    public var notes: [String]
    /// Description of the source colour profile ("camera (LibRaw matrix)", embedded ICC description, …).
    public var sourceProfile: String
    /// Format-specific facts for `lightwork info` (CFA pattern, black/white levels, white balance…).
    public var details: [String: String]
    /// The `details` keys that name what the decoder decided for a RAW (copied into its manifest entry):
    /// white balance and its multipliers, whose loader unpacked the mosaic, demosaic and whose, colour conversion,
    /// pixel aspect, orientation.
    public static let decisionKeys = ["whiteBalance", "unpack", "highlights", "demosaic", "colour", "cameraProfile", "pixelAspect", "orientation"]
    /// The decisions among `details`, nil when the decoder records none (RGB inputs).
    public var decisions: [String: String]? {
        let found = details.filter { Self.decisionKeys.contains($0.key) }
        return found.isEmpty ? nil : found
    }
    /// The file's EXIF as a TIFF block (JPEG APP1 without its `Exif\0\0` prefix, PNG eXIf), when it has one.
    public var exifBlob: Data? = nil
    /// The RGB decoder's integer samples (alpha, or every channel when `DecodeOptions.keepsColourSamples`), upright;
    /// nil for RAW and for files without alpha whose colour was not asked for.
    public var samples: SourceSamples? = nil
    /// Set when the decode already ran the develop modules of `DecodeOptions.developInDecode` on the image: the
    /// context they left (their decisions and notes); the caller does not run those placements again.
    public var developContext: DevelopContext? = nil

    public init(image: WorkingImage, kind: Kind, metadata: ImageMetadata = ImageMetadata(), notes: [String] = [],
                sourceProfile: String, details: [String: String] = [:]) {
        self.image = image
        self.kind = kind
        self.metadata = metadata
        self.notes = notes
        self.sourceProfile = sourceProfile
        self.details = details
    }
}

/// Settings that change how inputs are decoded.
public struct DecodeOptions: Sendable, Codable, Equatable {
    /// LibRaw demosaic algorithm (`--demosaic`).
    public var demosaic: Demosaic = .dual
    /// Rendering intent for ICC inputs (`--intent`).
    public var intent: RenderingIntent = .relative
    /// Refuse images with more pixels than this, before allocating (`--max-pixels`).
    public var maxPixels: Int = 200_000_000
    /// Bytes one conversion may take (a worker's `--worker-memory`), nil for no limit: an image whose estimated
    /// peak (`MemoryBudget.bytesPerPixel` per pixel plus the worker's base) is larger is refused after its header
    /// is read and before any pixel is allocated, with a message, instead of failing an allocation later.
    public var memoryLimit: Int?
    /// How camera RGB becomes the working space (`--color-model`).
    public var colorModel: ColorModel = .dng
    /// The camera profile of the DNG colour model (`--camera-profile`); nil is `matrix`, today's model.
    public var cameraProfile: CameraProfileSetting? = nil
    /// The develop settings; the decoder reads those of its decode-placement modules (white balance, highlights).
    public var develop = DevelopSettings()
    /// Whether RGB decoders keep every channel's integer samples beside the working image (`DecodedImage.samples`):
    /// set when nothing in the spec changes pixels, so `LosslessPath` may write them as they are. Alpha is always kept.
    public var keepsColourSamples = false
    /// Develop placements whose modules a RAW decode may apply to its rows inside its colour conversion, while each
    /// row is in the cache, when every module there is per-pixel (`DevelopStage.pointOperations`): the bits are the
    /// develop stage's. `DecodedImage.developContext` says whether it did. Nil (encoded as absent, so stored
    /// options read as before): the decode develops nothing.
    public var developInDecode: Set<DevelopPlacement>? = nil

    public init() {}

    /// Who maps camera RGB to colour for RAW input.
    public enum ColorModel: String, Sendable, Codable, CaseIterable {
        /// The DNG specification's model (`DNGColorModel`): matrices chosen for the white point's temperature.
        case dng
        /// LibRaw's own conversion: white balance in camera space, then its single (daylight) matrix.
        case libraw
    }

    /// `dual` (the default), `ahd` and `rcd` are LightWork's own kernels (`BayerDemosaic`) on 2×2 Bayer files and
    /// LightWork's X-Trans demosaic on X-Trans files; elsewhere LibRaw's AHD runs (LibRaw has neither RCD nor dual);
    /// `libraw-ahd` is always LibRaw's; the others are LibRaw's algorithms of those names.
    public enum Demosaic: String, Sendable, Codable, CaseIterable {
        case linear, vng, ppg, ahd, dht, aahd, rcd, dual
        case libRawAHD = "libraw-ahd"
        /// LightWork's own kernel for this choice on a 2×2 Bayer mosaic, nil for LibRaw's algorithms.
        public var ownKernel: BayerKernel? {
            switch self {
            case .ahd: return .ahd
            case .rcd: return .rcd
            case .dual: return .dual
            default: return nil
            }
        }
        /// LibRaw's `user_qual` code.
        public var libRawQuality: Int32 {
            switch self {
            case .linear: return 0
            case .vng: return 1
            case .ppg: return 2
            case .ahd, .libRawAHD, .rcd, .dual: return 3
            case .dht: return 11
            case .aahd: return 12
            }
        }
    }

    public enum RenderingIntent: String, Sendable, Codable, CaseIterable {
        case perceptual, relative, saturation, absolute
        /// LittleCMS intent number.
        public var lcms: UInt32 {
            switch self {
            case .perceptual: return 0
            case .relative: return 1
            case .saturation: return 2
            case .absolute: return 3
            }
        }
    }
}
