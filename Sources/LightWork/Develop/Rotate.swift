import Foundation

/// `--rotate DEGREES` (−45…45; positive turns the picture counter-clockwise): straightens the frame and keeps the
/// largest upright crop of the original aspect ratio, centred, resampled bicubically (Keys, a = −0.5) in linear
/// light, in the one resampling of the stage's geometry (`DevelopGeometry`, with `lens`, `crop` and `aspect`).
///
/// The crop: a W×H frame turned by θ contains the centred axis-aligned w×h rectangle exactly when that rectangle,
/// turned back, fits in W×H: w·|cos θ| + h·|sin θ| ≤ W and w·|sin θ| + h·|cos θ| ≤ H. With w = k·W, h = k·H,
///
///     k = min(W / (W·|cos θ| + H·|sin θ|), H / (W·|sin θ| + H·|cos θ|))
///
/// and the output is ⌊k·W⌋ × ⌊k·H⌋ pixels (never a pixel outside the rotated frame). For a centrally symmetric
/// convex frame, the centred rectangle is the largest of its aspect.
public enum Rotate: GeometricDevelopModule {
    public enum Setting: DevelopSetting {
        case degrees(Double)

        public init(parsing text: String) throws {
            let t = text.trimmingCharacters(in: .whitespaces)
            guard let v = Double(t), v.isFinite, (-45...45).contains(v) else {
                throw LightWorkError.usage("--rotate \(text): give an angle in degrees between -45 and 45 (positive turns counter-clockwise), e.g. -1.5")
            }
            self = .degrees(v == 0 ? 0 : v)
        }

        public var text: String {
            switch self { case .degrees(let v): return String(format: "%+.2f", v) }
        }

        public var isOff: Bool {
            switch self { case .degrees(let v): return v == 0 }
        }

        var degrees: Double { switch self { case .degrees(let v): return v } }
    }

    public static let descriptor = DevelopDescriptor(
        name: "rotate", flag: "rotate", placeholder: "DEGREES",
        help: "straighten by -45…45 degrees (positive: counter-clockwise), keeping the largest upright crop of the frame's aspect (default 0)",
        placement: .scene)

    public static let defaultSetting = Setting.degrees(0)

    /// The size of the largest upright crop of a `width`×`height` frame turned by `degrees` (the formula above).
    public static func croppedSize(width: Int, height: Int, degrees: Double) -> (width: Int, height: Int) {
        let theta = degrees * .pi / 180
        let c = abs(cos(theta)), s = abs(sin(theta))
        let W = Double(width), H = Double(height)
        let k = min(W / (W * c + H * s), H / (W * s + H * c))
        // The 1e-9 keeps an exact fit (0°, or k·W a whole number) from losing a pixel to rounding.
        return (max(1, Int((k * W + 1e-9).rounded(.down))), max(1, Int((k * H + 1e-9).rounded(.down))))
    }

    public static func compose(_ setting: Setting, onto geometry: inout DevelopGeometry, context: inout DevelopContext) throws {
        let W = geometry.width, H = geometry.height
        let size = croppedSize(width: W, height: H, degrees: setting.degrees)
        geometry.rotate(degrees: setting.degrees, newWidth: size.width, newHeight: size.height)
        context.decisions["rotate"] = "\(setting.text)° bicubic, largest upright crop \(size.width)×\(size.height) of \(W)×\(H)"
    }
}
