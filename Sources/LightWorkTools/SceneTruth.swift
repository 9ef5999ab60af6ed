import Foundation
import LightWork

/// The truth file: what the synthetic scene contains and how the DNG encodes it, so tests can measure a
/// development against known colours. Version 1; `keys` inside the file documents every field.
struct SceneTruth: Codable, Sendable {
    struct Patch: Codable, Sendable {
        /// 1-based, reading order (1 = dark skin, 24 = black).
        let index: Int
        let name: String
        /// Reference CIELAB D50 (2° observer).
        let labD50: [Double]
        /// The whole patch.
        let rect: PixelRect
        /// A safe inner area, uniform after demosaicing: sample here.
        let centre: PixelRect
    }

    struct RampStep: Codable, Sendable {
        let labD50: [Double]
        let rect: PixelRect
        let centre: PixelRect
    }

    struct Camera: Codable, Sendable {
        let make: String
        let model: String
        let uniqueCameraModel: String
        let cfaPattern: String
        let blackLevel: Int
        let whiteLevel: Int
        /// Row-major 3 × 3, XYZ (D65) → camera, exactly as written (Float precision).
        let colorMatrix1: [Double]
        let calibrationIlluminant1: Int
        let asShotNeutral: [Double]
        let whitePatchFraction: Double
        let baselineExposure: Double
        let noiseSigma: Double
    }

    let version: Int
    let keys: [String: String]
    let generator: String
    let seed: UInt64
    let width: Int
    let height: Int
    let sceneIlluminant: String
    let sceneIlluminantXYZ: [Double]
    let referenceSource: String
    let camera: Camera
    let patches: [Patch]
    let greyRamp: [RampStep]
    let backgroundLabD50: [Double]
    let detailArea: PixelRect
    /// The DNG's EXIF Orientation and DefaultScale (horizontal, vertical), present only when not 1 and 1:1.
    let dngOrientation: Int?
    let dngDefaultScale: [Int]?

    static let documentation: [String: String] = [
        "version": "format version of this file (1)",
        "generator": "the command that wrote the files",
        "seed": "seed of the detail area and the sensor noise; patches and ramp do not depend on it",
        "width, height": "image size in pixels (the DNG's and the PNG's)",
        "sceneIlluminant": "light the scene is lit by (D65 or A); surfaces are Bradford-adapted from D50 to it",
        "sceneIlluminantXYZ": "XYZ of that light's white, Y = 1",
        "referenceSource": "where the ColorChecker CIELAB D50 values come from",
        "camera": "the DNG tags: colorMatrix1 is row-major XYZ(D65) -> camera as written; asShotNeutral is the camera response to the scene light (max 1); baselineExposure (EV) brings a perfect white reflector to 1.0; whitePatchFraction is where the white patch's largest raw channel sits in (white - black); noiseSigma is the additive noise in raw units",
        "patches": "the 24 ColorChecker patches in reading order: index (1-based), name, labD50, rect (whole patch) and centre (safe inner area to sample), both {x, y, w, h} in pixels, origin top-left",
        "greyRamp": "neutral steps dark to light: labD50, rect, centre",
        "backgroundLabD50": "neutral surround",
        "detailArea": "rectangle holding the zone plate and line groups (content changes with the seed; not for colour measurement)",
    ]

    /// Documents the storage keys, for files that have them.
    static let storageDocumentation: [String: String] = [
        "dngOrientation": "EXIF orientation of the DNG: its stored data is the scene turned so that applying the tag shows it upright at width x height",
        "dngDefaultScale": "DNG DefaultScale [horizontal, vertical]: the stored data is squeezed by it, so stretching by it (pixel aspect horizontal/vertical) restores width x height",
    ]

    init(layout: SceneLayout, camera: SyntheticCamera, seed: UInt64, generator: String, storage: DNGLayout = DNGLayout()) {
        func round6(_ v: Double) -> Double { (v * 1e6).rounded() / 1e6 }
        func list(_ v: SIMD3<Double>) -> [Double] { [v.x, v.y, v.z].map(round6) }
        version = 1
        dngOrientation = storage.orientation == .up ? nil : storage.orientation.rawValue
        dngDefaultScale = storage.isSquare ? nil : [storage.defaultScale.horizontal, storage.defaultScale.vertical]
        var keys = SceneTruth.documentation
        if dngOrientation != nil { keys["dngOrientation"] = SceneTruth.storageDocumentation["dngOrientation"] }
        if dngDefaultScale != nil { keys["dngDefaultScale"] = SceneTruth.storageDocumentation["dngDefaultScale"] }
        self.keys = keys
        self.generator = generator
        self.seed = seed
        width = layout.width
        height = layout.height
        sceneIlluminant = camera.illuminant.rawValue
        sceneIlluminantXYZ = list(camera.illuminant.white)
        referenceSource = ColorChecker.source
        let n = camera.asShotNeutral
        self.camera = Camera(
            make: SyntheticCamera.make, model: SyntheticCamera.model, uniqueCameraModel: SyntheticCamera.uniqueCameraModel,
            cfaPattern: storage.cfa.rawValue, blackLevel: Int(SyntheticCamera.blackLevel), whiteLevel: Int(SyntheticCamera.whiteLevel),
            colorMatrix1: SyntheticCamera.colorMatrix1.floats.map { round6(Double($0)) },
            calibrationIlluminant1: Int(SyntheticCamera.calibrationIlluminant1.exifLightSource),
            asShotNeutral: [n.x, n.y, n.z].map { round6(Double(Float($0))) },
            whitePatchFraction: SyntheticCamera.whitePatchFraction, baselineExposure: round6(camera.baselineExposure), noiseSigma: Double(SyntheticCamera.noiseSigma))
        patches = ColorChecker.patches.enumerated().map { i, p in
            Patch(index: i + 1, name: p.name, labD50: list(p.lab), rect: layout.patches[i], centre: layout.patches[i].centre())
        }
        greyRamp = layout.ramp.enumerated().map { j, rect in
            RampStep(labD50: [SceneLayout.rampLightness[j], 0, 0], rect: rect, centre: rect.centre())
        }
        backgroundLabD50 = list(SceneLayout.backgroundLab)
        detailArea = layout.detailArea
    }

    func write(to url: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        do {
            try encoder.encode(self).write(to: url, options: .atomic)
        } catch {
            throw LightWorkError.writeFailed("\(url.path): \(error.localizedDescription)")
        }
    }
}
