import Foundation
import LightWork

/// One parser under test: bytes in, anything but a crash, trap, leak or hang out. Every target drives the
/// entry points LightWork uses on files from outside, then the code that consumes what they parsed (a parsed
/// manifest is also merged and resumed from; a recipe is also resolved), because that is where a hostile
/// value would bite. See docs/fuzzing.md.
package enum FuzzTarget: String, CaseIterable, Sendable {
    case cube, lutImage = "lut-image", lutFile = "lut-file", catalog, recipe, manifest, entitlements, exif, icc, jpeg, png, tiff, avif, jxl
    case workerReply = "worker-reply"
    case fileCompleteness = "file-completeness"
    case webp, heif
    case cameraProfile = "camera-profile"
    case ljpeg

    /// Runs the target's body on one input.
    package func run(_ data: Data) {
        switch self {
        case .cube: FuzzBodies.cube(data)
        case .lutImage: FuzzBodies.lutImage(data)
        case .lutFile: FuzzBodies.lutFile(data)
        case .catalog: FuzzBodies.catalog(data)
        case .recipe: FuzzBodies.recipe(data)
        case .manifest: FuzzBodies.manifest(data)
        case .entitlements: FuzzBodies.entitlements(data)
        case .exif: FuzzBodies.exif(data)
        case .icc: FuzzBodies.icc(data)
        case .jpeg, .png, .tiff, .avif, .jxl: FuzzBodies.rgb(data)
        case .workerReply: FuzzBodies.workerReply(data)
        case .fileCompleteness: FuzzBodies.fileCompleteness(data)
        case .webp, .heif: FuzzBodies.container(data)
        case .cameraProfile: FuzzBodies.cameraProfile(data)
        case .ljpeg: _ = FuzzBodies.ljpeg(data)
        }
    }
}
