import Foundation

/// `--aspect W:H` (`3:2`, `4:5`, `1:1`, `16:9`, …): the largest centred rectangle of that ratio inside the frame
/// left by `rotate` and `crop`. The ratio follows the frame's orientation, as a camera's crop guides do: `3:2` on a
/// portrait frame gives 2:3 (a square frame takes it as written). Sizes, for a ratio a (long side / short side
/// turned to the frame):
///
///     frame wider than a:  height kept, width  = round(height · a)
///     otherwise:           width kept,  height = round(width / a)
///     offset = ⌊(frame − crop) / 2⌋ on each axis
///
/// `off` or `original` keeps the frame as it is.
public enum Aspect: GeometricDevelopModule {
    public enum Setting: DevelopSetting {
        case off
        case ratio(width: Double, height: Double)

        public init(parsing text: String) throws {
            let t = text.trimmingCharacters(in: .whitespaces).lowercased()
            if t == "off" || t == "original" { self = .off; return }
            let v = t.split(separator: ":", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard v.count == 2, let w = v[0], let h = v[1], w.isFinite, h.isFinite, w > 0, h > 0, max(w / h, h / w) <= 100 else {
                throw LightWorkError.usage("--aspect \(text): give W:H with both sides above 0 (e.g. 3:2, 4:5, 1:1, 16:9), or original")
            }
            self = .ratio(width: w, height: h)
        }

        public var text: String {
            switch self {
            case .off: return "off"
            case let .ratio(w, h): return "\(DevelopNumber.text(w)):\(DevelopNumber.text(h))"
            }
        }

        public var isOff: Bool { self == .off }
    }

    public static let descriptor = DevelopDescriptor(
        name: "aspect", flag: "aspect", placeholder: "W:H|original",
        help: "largest centred crop of ratio W:H (3:2, 4:5, 1:1, 16:9…) in the frame's orientation, after --crop (default original)",
        placement: .scene)

    public static let defaultSetting = Setting.off

    /// The centred rectangle of `setting` in a `width`×`height` frame (the rule above).
    public static func rectangle(_ setting: Setting, width: Int, height: Int) -> (x: Int, y: Int, width: Int, height: Int) {
        guard case let .ratio(rw, rh) = setting else { return (0, 0, width, height) }
        var a = rw / rh
        if (width > height && a < 1) || (width < height && a > 1) { a = 1 / a }
        var cw = width, ch = height
        if Double(width) / Double(height) > a {
            cw = min(width, max(1, Int((Double(height) * a).rounded())))
        } else {
            ch = min(height, max(1, Int((Double(width) / a).rounded())))
        }
        return ((width - cw) / 2, (height - ch) / 2, cw, ch)
    }

    public static func compose(_ setting: Setting, onto geometry: inout DevelopGeometry, context: inout DevelopContext) throws {
        let W = geometry.width, H = geometry.height
        let rect = rectangle(setting, width: W, height: H)
        context.decisions["aspect"] = "\(setting.text): \(rect.width)×\(rect.height) at \(rect.x),\(rect.y) of \(W)×\(H)"
        geometry.crop(x: rect.x, y: rect.y, width: rect.width, height: rect.height)
    }
}
