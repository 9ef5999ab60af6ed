import CLensfun
import CShims
import Foundation

/// `--lens auto|off|"Maker Model"`: distortion, lateral chromatic aberration (TCA) and vignetting corrected with
/// lensfun's profiles (Debian's liblensfun, 0.3 API, and its database). `auto` finds the camera and lens from the
/// file's make, model and lens name; a named lens is used whatever the file says. lensfun computes every source
/// position and gain on a coarse grid; LightWork interpolates them and resamples the float planes (Keys bicubic,
/// `lw_bicubic_row`), vignetting applied in the same pass, which `rotate`, `crop` and `aspect` join
/// (`DevelopGeometry`: one resampling for the whole geometry).
public enum LensCorrection: GeometricDevelopModule {
    public enum Setting: DevelopSetting {
        case off
        /// The camera and lens the file names.
        case auto
        /// A lens of lensfun's database, by its canonical name (maker's prefix included, as lensfun spells it).
        case lens(String)

        public init(parsing text: String) throws {
            let t = text.trimmingCharacters(in: .whitespaces)
            switch t.lowercased() {
            case "off": self = .off
            case "auto": self = .auto
            case "":
                throw LightWorkError.usage("--lens: give auto, off or a lens as lensfun names it, e.g. \"Canon EF 20mm f/2.8 USM\"")
            default:
                let found = try LensDatabase.shared.lens(named: t, camera: nil)
                self = .lens(LensDatabase.name(of: found))
            }
        }

        public var text: String {
            switch self {
            case .off: return "off"
            case .auto: return "auto"
            case .lens(let name): return name
            }
        }

        public var isOff: Bool { self == .off }
    }

    public static let descriptor = DevelopDescriptor(
        name: "lens", flag: "lens", placeholder: "auto|off|\"Maker Model\"",
        help: "lens distortion, lateral CA and vignetting from lensfun's profiles: auto (the file's camera and lens) or a lens named (default off)",
        placement: .scene)

    public static let defaultSetting = Setting.off

    /// The focus distance given to lensfun (metres): EXIF rarely has it, and vignetting barely depends on it;
    /// lensfun's documentation names 1000 as the value to use when it is unknown.
    static let focusDistance: Float = 1000

    public static func compose(_ setting: Setting, onto geometry: inout DevelopGeometry, context: inout DevelopContext) throws {
        let image = geometry.source
        let m = context.metadata
        let db = try LensDatabase.shared.loaded()
        let camera = db.camera(make: m.make, model: m.model)
        let lens: UnsafePointer<lfLens>
        switch setting {
        case .off:
            return
        case .auto:
            switch db.lens(for: m, camera: camera) {
            case .found(let l): lens = l
            case .none(let why):
                context.decisions["lens"] = "none matched (\(why))"
                return
            }
        case .lens(let name):
            lens = try db.lens(named: name, camera: camera)
        }

        let lensName = LensDatabase.name(of: lens)
        let minFocal = lens.pointee.MinFocal, maxFocal = lens.pointee.MaxFocal
        guard let focal = m.focalLength.map(Float.init) ?? (minFocal > 0 && minFocal == maxFocal ? minFocal : nil) else {
            if case .lens = setting {
                throw LightWorkError.usage("--lens \(lensName): the file gives no focal length and the lens is a zoom (\(Int(minFocal))–\(Int(maxFocal)) mm)")
            }
            context.decisions["lens"] = "none matched (\(lensName) found, but the file gives no focal length for this zoom)"
            return
        }
        // The camera's crop factor scales the lens's calibration to this sensor; without the camera in the
        // database, a named lens is taken to be on the format it was calibrated on.
        let crop = camera.map { $0.pointee.CropFactor } ?? lens.pointee.CropFactor
        var wanted = Int32(LF_MODIFY_DISTORTION | LF_MODIFY_TCA | LF_MODIFY_VIGNETTING | LF_MODIFY_SCALE)
        var notes: [String] = []
        let aperture = m.fNumber.map(Float.init)
        if aperture == nil {
            wanted &= ~Int32(LF_MODIFY_VIGNETTING)
            notes.append("no aperture in the file: vignetting not corrected")
        }
        if context.kind == .rgb {
            // An encoded image's vignetting may already be corrected by the camera's JPEG engine, and its tone is
            // not linear scene light: only the geometry (distortion, TCA) is corrected there.
            wanted &= ~Int32(LF_MODIFY_VIGNETTING)
            notes.append("vignetting not corrected on an encoded image (the camera may have corrected it)")
        }
        let modifier = LensModifier(lens: lens, crop: crop, width: image.width, height: image.height,
                                    focal: focal, aperture: aperture ?? 0, distance: focusDistance, scale: 0,
                                    flags: wanted, reverse: false)
        let applied = modifier.flags
        let geometric = Int32(LF_MODIFY_DISTORTION | LF_MODIFY_TCA)
        let vignetting = applied & Int32(LF_MODIFY_VIGNETTING) != 0
        guard applied & geometric != 0 || vignetting else {
            context.decisions["lens"] = "none matched (\(lensName) has no profile at \(format(focal)) mm)"
            return
        }
        // Lateral CA is a property of the sensor's channels: resampled there when the decoder says how its
        // camera RGB became the working space (ProPhoto's red mixes camera red, green and blue).
        let cameraToWorking = context.details["cameraToWorking"].flatMap(Self.matrix)
        if cameraToWorking == nil, context.kind == .raw, applied & Int32(LF_MODIFY_TCA) != 0 {
            notes.append("the camera's matrix is unknown (colour model libraw): TCA corrected on the working space's channels")
        }
        geometry.correctLens(modifier.map(cameraToWorking: applied & Int32(LF_MODIFY_TCA) != 0 ? cameraToWorking : nil,
                                          vignetting: vignetting))
        var done: [String] = []
        if applied & Int32(LF_MODIFY_DISTORTION) != 0 { done.append("distortion") }
        if applied & Int32(LF_MODIFY_TCA) != 0 { done.append("TCA") }
        if applied & Int32(LF_MODIFY_VIGNETTING) != 0 { done.append("vignetting") }
        let cameraName = camera.map { "\(LensDatabase.text($0.pointee.Maker)) \(LensDatabase.text($0.pointee.Model))" } ?? "camera not in lensfun"
        context.decisions["lens"] = "\(lensName) on \(cameraName) (crop \(format(crop))) at \(format(focal)) mm"
            + (aperture.map { " f/\(format($0))" } ?? "") + ": " + done.joined(separator: ", ")
            + " (scale \(String(format: "%.4f", modifier.scale)))"
        context.notes += notes.map { "lens: \($0)" }
    }

    /// A 3 × 3 matrix from the decoder's text ("a b c; d e f; g h i").
    static func matrix(_ text: String) -> Matrix3? {
        let rows = text.split(separator: ";").map { $0.split(separator: " ").compactMap { Double($0) } }
        guard rows.count == 3, rows.allSatisfy({ $0.count == 3 }) else { return nil }
        return Matrix3(rows)
    }

    private static func format(_ v: Float) -> String {
        v == v.rounded() ? String(Int(v)) : String(format: "%.1f", v)
    }
}

/// lensfun's database, loaded once per process (lf_db_load: the system's data, updates included).
public final class LensDatabase: @unchecked Sendable {
    public static let shared = LensDatabase()

    private let lock = NSLock()
    private var db: UnsafeMutablePointer<lfDatabase>?
    private var failure: String?

    /// The database, loaded on first use; throws when lensfun's data cannot be read.
    public func loaded() throws -> LensDatabase {
        lock.lock(); defer { lock.unlock() }
        if db == nil && failure == nil {
            let d = lf_db_new()
            let e = lf_db_load(d)
            if e == LF_NO_ERROR { db = d } else {
                lf_db_destroy(d)
                failure = "lensfun's database cannot be loaded (error \(e.rawValue)); install liblensfun-data-v1"
            }
        }
        if let failure { throw LightWorkError.missingTool(failure) }
        return self
    }

    /// Text of a lensfun multi-language string (its default language).
    public static func text(_ s: lfMLstr?) -> String {
        s.flatMap { lf_mlstr_get($0) }.map { String(cString: $0) } ?? ""
    }

    /// A lens's canonical name: its model, prefixed by its maker when the model does not start with it.
    public static func name(of lens: UnsafePointer<lfLens>) -> String {
        let maker = text(lens.pointee.Maker), model = text(lens.pointee.Model)
        return model.lowercased().hasPrefix(maker.lowercased()) ? model : "\(maker) \(model)"
    }

    /// The camera of the file: lensfun's best fuzzy match, accepted only when it is the model named (maker prefix
    /// and case aside) or the only best one; nil otherwise.
    public func camera(make: String?, model: String?) -> UnsafePointer<lfCamera>? {
        guard let db, let make, let model else { return nil }
        guard let found = lf_db_find_cameras_ext(db, make, model, 0) else { return nil }
        defer { lf_free(UnsafeMutableRawPointer(mutating: found)) }
        var all: [UnsafePointer<lfCamera>] = []
        var i = 0
        while let c = found[i] { all.append(c); i += 1 }
        func bare(_ s: String) -> String {
            let l = s.lowercased()
            return l.hasPrefix(make.lowercased() + " ") ? String(l.dropFirst(make.count + 1)) : l
        }
        if let exact = all.first(where: { bare(Self.text($0.pointee.Model)) == bare(model) }) { return exact }
        guard let best = all.first, all.dropFirst().allSatisfy({ $0.pointee.Score < best.pointee.Score }) else { return nil }
        return best
    }

    /// The lens lensfun scores best for `query` (preferring entries fitting `camera`); a usage error naming the
    /// candidates when none or several equally good ones match.
    public func lens(named query: String, camera: UnsafePointer<lfCamera>?) throws -> UnsafePointer<lfLens> {
        _ = try loaded()
        switch best(lenses(camera: camera, name: query).isEmpty ? lenses(camera: nil, name: query) : lenses(camera: camera, name: query)) {
        case .found(let l): return l
        case .none(let why): throw LightWorkError.usage("--lens \(query): \(why) in lensfun's database (its lenses: /usr/share/lensfun/version_1/*.xml)")
        }
    }

    /// The outcome of looking a lens up: the lens, or why none was taken (for the manifest decision).
    public enum Match {
        case found(UnsafePointer<lfLens>)
        case none(String)
    }

    /// The lens the file names (or a compact camera's fixed lens when it names none), searched among the lenses
    /// that fit its camera.
    func lens(for m: ImageMetadata, camera: UnsafePointer<lfCamera>?) -> Match {
        let cameraText = [m.make, m.model].compactMap { $0 }.joined(separator: " ")
        guard let camera else {
            return .none("camera \"\(cameraText.isEmpty ? "unknown" : cameraText)\" not in lensfun's database")
        }
        guard let name = m.lens?.trimmingCharacters(in: .whitespaces), !name.isEmpty else {
            // Compact cameras name no lens: lensfun lists their one fixed lens under the camera's mount.
            let fixed = lenses(camera: camera, name: nil)
            if fixed.count == 1 { return .found(fixed[0]) }
            if let plain = fixed.first(where: { Self.text($0.pointee.Model) == "fixed lens" }) { return .found(plain) }
            return .none("\(cameraText): the file names no lens")
        }
        switch best(lenses(camera: camera, name: name)) {
        case .found(let l): return .found(l)
        case .none(let why): return .none("lens \"\(name)\" on \(cameraText): \(why)")
        }
    }

    /// lensfun's matches, best first.
    private func lenses(camera: UnsafePointer<lfCamera>?, name: String?) -> [UnsafePointer<lfLens>] {
        guard let db, let found = lf_db_find_lenses_hd(db, camera, nil, name, 0) else { return [] }
        defer { lf_free(UnsafeMutableRawPointer(mutating: found)) }
        var all: [UnsafePointer<lfLens>] = []
        var i = 0
        while let l = found[i] { all.append(l); i += 1 }
        return all
    }

    /// The best-scored lens, unless another lens of a different name scores the same (then which one is unsure).
    private func best(_ all: [UnsafePointer<lfLens>]) -> Match {
        guard let first = all.first else { return .none("no lens matches") }
        let name = Self.name(of: first)
        var ties: [String] = []
        for l in all where l.pointee.Score == first.pointee.Score && !ties.contains(Self.name(of: l)) && Self.name(of: l) != name {
            ties.append(Self.name(of: l))
        }
        if !ties.isEmpty {
            return .none("ambiguous: \(([name] + ties.prefix(3)).map { "\"\($0)\"" }.joined(separator: ", "))")
        }
        return .found(first)
    }
}

/// A lensfun modifier for one image size and shot: the source position of every output pixel, per channel, and
/// the vignetting gain of every source pixel. `reverse` builds the lens's effect instead of its correction (tests
/// and generated files).
public final class LensModifier: @unchecked Sendable {
    private let modifier: UnsafeMutablePointer<lfModifier>
    public let width: Int
    public let height: Int
    /// The corrections in effect (LF_MODIFY_* bits lensfun kept: those the lens has a profile for).
    public let flags: Int32
    /// The scale applied (auto when 0 was asked: no empty corners after a barrel correction).
    public let scale: Float

    public init(lens: UnsafePointer<lfLens>, crop: Float, width: Int, height: Int, focal: Float, aperture: Float,
                distance: Float, scale: Float, flags: Int32, reverse: Bool) {
        // lensfun returns NULL only when out of memory.
        modifier = lf_modifier_new(lens, crop, Int32(width), Int32(height))!
        self.width = width
        self.height = height
        self.flags = lf_modifier_initialize(modifier, lens, LF_PF_F32, focal, aperture, distance, scale,
                                            lens.pointee.Type, flags, reverse ? 1 : 0)
        // lensfun computes the auto scale inside initialize; asked again it gives the same figure.
        self.scale = scale == 0 && self.flags & Int32(LF_MODIFY_SCALE) != 0 ? lf_modifier_get_auto_scale(modifier, reverse ? 1 : 0) : scale
    }

    deinit { lf_modifier_destroy(modifier) }

    /// Source positions (R x,y · G x,y · B x,y per pixel) of `count` pixels one apart from (x, y) along the row.
    /// Without a geometric correction in effect they are the pixels' own positions.
    public func sourcePositions(x: Float, y: Float, count: Int, into out: UnsafeMutablePointer<Float>) {
        if lf_modifier_apply_subpixel_geometry_distortion(modifier, x, y, Int32(count), 1, out) == 0 {
            for k in 0..<count { for c in 0..<3 { out[6 * k + 2 * c] = x + Float(k); out[6 * k + 2 * c + 1] = y } }
        }
    }

    /// The vignetting gain lensfun applies at source pixels (x…x+count−1, y): written over `gains` (which the
    /// caller fills with 1).
    public func vignettingGains(x: Float, y: Float, count: Int, into gains: UnsafeMutablePointer<Float>) {
        _ = lf_modifier_apply_color_modification(modifier, gains, x, y, Int32(count), 1,
                                                 lw_lf_role_intensity(), Int32(count * MemoryLayout<Float>.stride))
    }

    /// Grid spacing of the maps lensfun evaluates (pixels, a power of two): between nodes they are bilinear, which
    /// adds at most ~0.001 px to the positions and 1e-5 to the gains on the profiles measured (LensCorrectionTests).
    public static let gridSpacing = 16
    /// Floats per grid node: R x, y · G x, y · B x, y source positions, then the vignetting gain there.
    static let gridFields = 7

    /// lensfun's source positions of every channel, and the vignetting gain at the green one (1 without
    /// `vignetting`), at the nodes of the coarse grid `lw_grid_row` interpolates over a `width` × `height` frame
    /// (the modifier's own frame by default): `across` nodes a row. Node (i, j) is lensfun's at `at(i·s, j·s)` of
    /// the modifier's frame: a frame composed after the correction (rotated, cropped; `DevelopGeometry`) has its
    /// positions through the lens on its own grid, so a row is read as fast as the lens frame's.
    public func grid(vignetting: Bool, engine: EngineConfiguration, width: Int? = nil, height: Int? = nil,
                     at: @escaping @Sendable (Double, Double) -> (Double, Double) = { ($0, $1) }) -> (nodes: [Float], across: Int) {
        let s = Self.gridSpacing, f = Self.gridFields
        let across = ((width ?? self.width) - 1) / s + 2, down = ((height ?? self.height) - 1) / s + 2
        var nodes = [Float](repeating: 0, count: across * down * f)
        nodes.withUnsafeMutableBufferPointer { buffer in
            let g = UncheckedSendable(buffer.baseAddress!)
            Parallel.forEach(down, workers: engine.workers(for: down)) { _, j in
                var positions = [Float](repeating: 0, count: 6)
                for i in 0..<across {
                    let node = g.value + (j * across + i) * f
                    let (u, v) = at(Double(i * s), Double(j * s))
                    positions.withUnsafeMutableBufferPointer { self.sourcePositions(x: Float(u), y: Float(v), count: 1, into: $0.baseAddress!) }
                    for k in 0..<6 { node[k] = positions[k] }
                    node[6] = 1
                    if vignetting { self.vignettingGains(x: positions[2], y: positions[3], count: 1, into: node + 6) }
                }
            }
        }
        return (nodes, across)
    }

    /// The correction as `DevelopGeometry` resamples it: each output pixel's channels sampled at the grid's
    /// positions, times the vignetting gain there. With `cameraToWorking`, the resampling is in the camera's
    /// channels: the source is turned into them in place, and each output row back into the working space.
    func map(cameraToWorking: Matrix3?, vignetting: Bool) -> LensMap {
        LensMap(modifier: self,
                toCamera: cameraToWorking.map { m in (0..<9).map { Float(m.inverse[$0 / 3, $0 % 3]) } },
                toWorking: cameraToWorking.map { m in (0..<9).map { Float(m[$0 / 3, $0 % 3]) } },
                vignetting: vignetting)
    }
}
