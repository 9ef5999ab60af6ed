import Foundation

/// Where a develop module runs (the develop stage sits between the decoder and the film chain, in linear light).
public enum DevelopPlacement: String, Sendable, Codable {
    /// On camera data inside the RAW decode (white balance, highlight reconstruction): `RawDecoder` reads the
    /// setting from `DecodeOptions.develop`. On the RGB path `apply` runs first in the scene stage instead (or the
    /// module is skipped with its `rgbSkipNote`).
    case decode
    /// On the whole scene-referred linear image after decode, before resizing (denoise, lens, sharpening,
    /// geometry, exposure, base tone).
    case scene
    /// On the image after resizing, before the film chain (output sharpening).
    case output
}

/// What a develop module declares about itself, once, in its own file: the recipe key and CLI flag that set it,
/// the value syntax, where it runs and the version of its settings' meaning. `--help`, recipes' `develop`
/// section, the spec, the manifest and `lightwork filters` read it.
public struct DevelopDescriptor: Sendable {
    /// Key in a recipe's `develop` section, in the spec and in the manifest's `settings.develop` (`whiteBalance`).
    public let name: String
    /// The CLI option without dashes (`wb` for `--wb`).
    public let flag: String
    /// The value syntax shown in `--help` (`camera|auto|K[:tint]|…`).
    public let placeholder: String
    /// One line for `--help` and listings, naming the default.
    public let help: String
    /// Version of the settings' meaning; recipes written for an older one go through `migrate`.
    public let version: Int
    public let placement: DevelopPlacement
    /// On an encoded (JPEG/PNG) image: nil when the module applies there too (in linear light), else the note
    /// recorded when it is asked for and skipped.
    public let rgbSkipNote: String?

    public init(name: String, flag: String, placeholder: String, help: String, version: Int = 1,
                placement: DevelopPlacement, rgbSkipNote: String? = nil) {
        self.name = name
        self.flag = flag
        self.placeholder = placeholder
        self.help = help
        self.version = version
        self.placement = placement
        self.rgbSkipNote = rgbSkipNote
    }
}

/// A develop module's setting: a typed value with one canonical text, the form the CLI, recipes, the spec and the
/// manifest use (`5200:+8`, `auto`, `+0.50`). Parsing the text gives the same value back.
public protocol DevelopSetting: Sendable, Equatable {
    /// Parses a CLI or recipe value; throws `LightWorkError.usage` naming the accepted forms.
    init(parsing text: String) throws
    /// The canonical text.
    var text: String { get }
    /// True when the module would change nothing: it is then skipped at zero cost and left out of the manifest.
    var isOff: Bool { get }
}

/// One module of the develop stage: a descriptor, a default, and what it does to the whole image.
///
/// Adding a module is its file (setting type, `descriptor`, `defaultSetting`, `apply`) and one line in
/// `DevelopStage.modules`, at its place in the order.
public protocol DevelopModule {
    associatedtype Setting: DevelopSetting
    static var descriptor: DevelopDescriptor { get }
    /// The setting when neither a recipe nor the command line gives one: the neutral render the library, `verify`
    /// and the API keep.
    static var defaultSetting: Setting { get }
    /// What `convert` and `watch` export with when neither a recipe nor the command line gives a setting, where a
    /// photographer's default differs from the neutral one (the base tone); nil for none.
    static var exportDefault: Setting? { get }
    /// Transforms `image` (linear light; RAW: linear ProPhoto, RGB: linear sRGB primaries) and returns the result,
    /// which may be `image` itself or a new image of another size. Records what it decided in `context`.
    /// Never called when `setting.isOff`. Throws a `LightWorkError` when the file cannot be done right.
    static func apply(_ setting: Setting, to image: PlanarImage, context: inout DevelopContext) throws -> PlanarImage
    /// Rewrites a recipe's text written for `version` (older than `descriptor.version`) into the current meaning.
    static func migrate(from version: Int, text: String) throws -> String
}

public extension DevelopModule {
    static var exportDefault: Setting? { nil }
    static func migrate(from version: Int, text: String) throws -> String { text }
    /// Decode-placement modules act inside the decoder; on the RGB path they override this.
    static func apply(_ setting: Setting, to image: PlanarImage, context: inout DevelopContext) throws -> PlanarImage { image }
}

/// What a develop module knows about the file it works on, and where it records what it decided.
public struct DevelopContext: Sendable {
    public let kind: DecodedImage.Kind
    public let metadata: ImageMetadata
    /// The decoder's facts (`DecodedImage.details`: white level, CFA, multipliers…).
    public let details: [String: String]
    public let engine: EngineConfiguration
    /// Decisions for the manifest entry's `input.decisions` (`lens`: the profile used or "none matched").
    public var decisions: [String: String] = [:]
    /// Notes for the manifest entry (a module skipped on an encoded image, an `auto` value chosen).
    public var notes: [String] = []

    public init(kind: DecodedImage.Kind, metadata: ImageMetadata, details: [String: String] = [:], engine: EngineConfiguration) {
        self.kind = kind
        self.metadata = metadata
        self.details = details
        self.engine = engine
    }
}

/// A develop module whose work is the same function of each pixel alone (exposure, base tone). Declaring it as
/// one per-row operation lets the stage run a placement made only of such modules on the half-float rows
/// directly — decode a row, apply, encode it — instead of converting the whole image to float planes and back
/// (three plane-sized buffers and two full passes for what is one multiply or one curve). Its `apply` on planes runs
/// the same operation, so both paths give the same bits.
public protocol PointDevelopModule: DevelopModule {
    /// The per-pixel operation of `setting`, recording its decision in `context`; nil when the setting must see
    /// the whole image first (`exposure auto`), which then goes through `apply` on planes.
    static func pointOperation(_ setting: Setting, context: inout DevelopContext) -> PointOperation?
}

/// One row's worth of a point module: transforms `count` linear R, G, B values in place.
public struct PointOperation: Sendable {
    public let apply: @Sendable (_ r: UnsafeMutablePointer<Float>, _ g: UnsafeMutablePointer<Float>, _ b: UnsafeMutablePointer<Float>, _ count: Int) -> Void

    public init(_ apply: @escaping @Sendable (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, Int) -> Void) {
        self.apply = apply
    }

    /// Runs the operation over every row of `image`'s planes.
    func run(on image: PlanarImage, engine: EngineConfiguration) -> PlanarImage {
        PointOperation.run([self], on: image, engine: engine)
    }

    /// Runs `operations` in turn over each row of `image`'s planes: one pass for all of them, each row still in
    /// cache for the next operation.
    static func run(_ operations: [PointOperation], on image: PlanarImage, engine: EngineConfiguration) -> PlanarImage {
        let n = image.width, me = UncheckedSendable(image)
        Parallel.forEach(image.height, workers: engine.workers(for: image.height)) { _, y in
            let o = y * n
            for operation in operations { operation.apply(me.value.r + o, me.value.g + o, me.value.b + o, n) }
        }
        return image
    }
}

extension PointDevelopModule {
    /// The module's operation when its setting in `settings` is on and per pixel (nil otherwise).
    static func pointOperation(_ settings: DevelopSettings, context: inout DevelopContext) -> PointOperation? {
        let setting = settings[Self.self]
        return setting.isOff ? nil : pointOperation(setting, context: &context)
    }

}
