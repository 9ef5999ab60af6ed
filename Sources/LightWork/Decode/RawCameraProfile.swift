import CLibRaw
import Foundation

/// The camera profile a RAW decode uses, and where it came from (for the manifest's decisions).
struct ChosenCameraProfile {
    let profile: CameraProfile
    /// "embedded", or the DCP's path.
    let origin: String
    /// Whether it came from a DCP file (its matrices then replace the file's).
    var isFile: Bool { origin != "embedded" }

    var description: String {
        (isFile ? "DCP \(origin)" : "embedded DNG profile") + " sha256 \(profile.sha256): \(profile.summary)"
    }
}

extension RawDecoder.Session {
    /// Resolves `setting` for the open file (`bytes` are its contents): a DCP named by the spec (its hash checked),
    /// the DNG's own profile tags, or for `auto` those, then a DCP found for the camera, then the matrices.
    func chooseCameraProfile(_ setting: CameraProfileSetting, bytes: UnsafeRawBufferPointer) throws {
        switch setting.source {
        case .matrix:
            return
        case let .file(path, sha256):
            guard let data = try? Data(contentsOf: URL(fileURLWithPath: path)) else { throw LightWorkError.missingInput(path) }
            let profile = try CameraProfile.read([UInt8](data), file: path)
            guard profile.sha256 == sha256 else { throw LightWorkError.lookupChanged(file: path, expected: sha256, found: profile.sha256) }
            cameraProfile = ChosenCameraProfile(profile: profile, origin: path)
        case .embedded:
            guard let profile = try embeddedProfile(bytes) else {
                throw LightWorkError.colour("--camera-profile embedded: the file has no DNG camera profile (no ColorMatrix1 in IFD0)")
            }
            cameraProfile = ChosenCameraProfile(profile: profile, origin: "embedded")
        case .auto:
            if let profile = try embeddedProfile(bytes) {
                cameraProfile = ChosenCameraProfile(profile: profile, origin: "embedded")
                return
            }
            let model = cameraModelName
            if let (profile, url) = try CameraProfileSearch.find(cameraModel: model) {
                cameraProfile = ChosenCameraProfile(profile: profile, origin: url.path)
            } else {
                cameraProfileNote = "matrix (auto: no embedded profile, no DCP for \"\(model)\" in "
                    + CameraProfileSearch.folders().map(\.path).joined(separator: ", ") + ")"
            }
        }
    }

    /// The DNG's IFD0 profile tags, nil for a file that is not a DNG or has no ColorMatrix1 there. Its hash is
    /// the SHA-256 of the profile tags' values (the file's own hash is the input's).
    func embeddedProfile(_ bytes: UnsafeRawBufferPointer) throws -> CameraProfile? {
        guard lr.pointee.idata.dng_version != 0, let tiff = TIFFStructure(magic: .classic, bytes: TIFFStructure.source(bytes)),
              let ifd0 = tiff.directory(at: tiff.firstDirectory), ifd0[CameraProfile.Tag.colorMatrix1] != nil else { return nil }
        var tagged = Data()
        for e in ifd0.entries where (50708...51110).contains(e.tag) {
            withUnsafeBytes(of: e.tag.littleEndian) { tagged.append(contentsOf: $0) }
            tagged.append(contentsOf: tiff.valueBytes(e) ?? [])
        }
        return try CameraProfile.read(ifd0, in: tiff, file: url.path + " (embedded profile)", sha256: SHA256.hex(tagged))
    }

    /// The name a DCP's UniqueCameraModel gives this camera: a DNG's own UniqueCameraModel when LibRaw kept it
    /// (its `model` for DNGs), else LibRaw's make and model.
    var cameraModelName: String {
        let make = stringFromCTuple(lr.pointee.idata.make), model = stringFromCTuple(lr.pointee.idata.model)
        return make.isEmpty ? model : make + " " + model
    }
}
