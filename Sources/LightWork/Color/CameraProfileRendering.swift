import CShims
import Foundation

/// Which camera profile a RAW decode uses (`--camera-profile`, `--profile-look`, `--profile-tone`).
public struct CameraProfileSetting: Sendable, Codable, Equatable {
    public enum Source: Sendable, Codable, Equatable {
        /// The DNG's embedded profile, else a DCP whose UniqueCameraModel is the camera's (`CameraProfileSearch`),
        /// else the matrices (`DNGColorModel` from what LibRaw read).
        case auto
        /// The DNG's own profile tags (a file without them fails).
        case embedded
        /// The matrices only: today's DNG colour model, no tables.
        case matrix
        /// A DCP file, named with the SHA-256 of the bytes the spec was made with.
        case file(path: String, sha256: String)
    }

    public var source: Source
    /// Apply the ProfileLookTable (`--profile-look`).
    public var look: Bool
    /// Apply the ProfileToneCurve (`--profile-tone`).
    public var tone: Bool

    public init(source: Source = .matrix, look: Bool = true, tone: Bool = true) {
        self.source = source
        self.look = look
        self.tone = tone
    }

    /// What the manifest's settings record: the source (a file by name and hash) and the optional steps.
    public var record: String {
        let name: String
        switch source {
        case .auto: name = "auto"
        case .embedded: name = "embedded"
        case .matrix: name = "matrix"
        case let .file(path, sha): name = "\((path as NSString).lastPathComponent) sha256 \(sha)"
        }
        return "\(name), look \(look ? "on" : "off"), tone \(tone ? "on" : "off")"
    }

    /// The `--camera-profile` value `text` (auto, embedded, matrix or a .dcp path, hashed now).
    public static func source(parsing text: String) throws -> Source {
        switch text {
        case "auto": return .auto
        case "embedded": return .embedded
        case "matrix": return .matrix
        default:
            let url = URL(fileURLWithPath: text)
            guard let bytes = try? Data(contentsOf: url) else { throw LightWorkError.missingInput(text) }
            let profile = try CameraProfile.read([UInt8](bytes), file: text)
            return .file(path: url.path, sha256: profile.sha256)
        }
    }
}

/// Where `auto` looks for a DCP: `$XDG_DATA_HOME/lightwork/profiles` (default `~/.local/share`), then the
/// folder Debian's `rawtherapee-data` installs. A file matches when its UniqueCameraModel equals the camera's
/// (case and spacing aside); the first match in folder order and then file-name order wins.
public enum CameraProfileSearch {
    public static let rawTherapeeFolder = "/usr/share/rawtherapee/dcpprofiles"

    public static func folders(environment: [String: String] = ProcessInfo.processInfo.environment) -> [URL] {
        let data = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"].map { $0 + "/.local/share" } ?? "")
        return (data.isEmpty ? [] : [URL(fileURLWithPath: data + "/lightwork/profiles")]) + [URL(fileURLWithPath: rawTherapeeFolder)]
    }

    /// The first DCP in `folders` made for `cameraModel`, read whole; nil when none is.
    public static func find(cameraModel: String, in folders: [URL] = folders()) throws -> (profile: CameraProfile, url: URL)? {
        let wanted = normalised(cameraModel)
        for folder in folders {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { continue }
            for name in names.sorted() where name.lowercased().hasSuffix(".dcp") {
                let url = folder.appendingPathComponent(name)
                guard let model = uniqueCameraModel(of: url), normalised(model) == wanted else { continue }
                guard let bytes = try? Data(contentsOf: url) else { continue }
                return (try CameraProfile.read([UInt8](bytes), file: url.path), url)
            }
        }
        return nil
    }

    /// UniqueCameraModel of the DCP at `url`, reading only its header and first directory.
    static func uniqueCameraModel(of url: URL) -> String? {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        defer { try? handle.close() }
        let source: TIFFStructure.ByteSource = { offset, count in
            guard offset >= 0, count >= 0, count <= 1 << 16, (try? handle.seek(toOffset: UInt64(offset))) != nil,
                  let d = try? handle.read(upToCount: count), d.count == count else { return nil }
            return [UInt8](d)
        }
        guard let tiff = TIFFStructure(magic: .withCameraProfile, bytes: source),
              let ifd = tiff.directory(at: tiff.firstDirectory), let e = ifd[CameraProfile.Tag.uniqueCameraModel] else { return nil }
        return tiff.ascii(e, limit: 4096)
    }

    static func normalised(_ s: String) -> String {
        s.lowercased().split(whereSeparator: { $0 == " " || $0 == "-" || $0 == "_" }).joined()
    }
}

/// The profile steps after camera → PCS, in the DNG specification's order, on linear ProPhoto RGB (D50): the
/// HueSatMap (already blended for the white), the exposure (BaselineExposure + BaselineExposureOffset, as a gain),
/// the LookTable, the ProfileToneCurve (hue-preserving). A step that is nil is skipped.
public struct CameraProfileRendering: Sendable {
    public var hueSatMap: ProfileTable?
    public var exposureGain: Double
    public var lookTable: ProfileTable?
    public var toneCurve: ProfileToneCurve?

    public init(hueSatMap: ProfileTable?, exposureGain: Double, lookTable: ProfileTable?, toneCurve: ProfileToneCurve?) {
        self.hueSatMap = hueSatMap
        self.exposureGain = exposureGain
        self.lookTable = lookTable
        self.toneCurve = toneCurve
    }

    /// One colour through every step.
    public func apply(_ rgb: SIMD3<Double>) -> SIMD3<Double> {
        var c = rgb
        if let hueSatMap { c = hueSatMap.apply(c) }
        c *= exposureGain
        if let lookTable { c = lookTable.apply(c) }
        if let toneCurve { c = toneCurve.apply(c) }
        return c
    }

    /// Every pixel of `image` (linear ProPhoto RGB) through `apply`, rows in parallel (each row's result depends on
    /// that row alone, so the thread count changes no byte).
    public func apply(to image: WorkingImage, engine: EngineConfiguration) {
        let width = image.width
        Parallel.forEach(image.height, on: engine) { y in
            let row = image.row(y)
            var line = [Float](repeating: 0, count: 4 * width)
            lw_half_to_float(row, &line, 4 * width)
            for x in 0..<width {
                let i = 4 * x
                let out = apply(SIMD3(Double(line[i]), Double(line[i + 1]), Double(line[i + 2])))
                line[i] = Float(out.x); line[i + 1] = Float(out.y); line[i + 2] = Float(out.z)
            }
            lw_float_to_half(line, row, 4 * width)
        }
    }
}
