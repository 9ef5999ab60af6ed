import CShims
import Foundation

/// `--rotate DEGREES` (−45…45; positive turns the picture counter-clockwise): straightens the frame and keeps the
/// largest upright crop of the original aspect ratio, centred, resampled bicubically (Keys, a = −0.5) in linear
/// light.
///
/// The crop: a W×H frame turned by θ contains the centred axis-aligned w×h rectangle exactly when that rectangle,
/// turned back, fits in W×H: w·|cos θ| + h·|sin θ| ≤ W and w·|sin θ| + h·|cos θ| ≤ H. With w = k·W, h = k·H,
///
///     k = min(W / (W·|cos θ| + H·|sin θ|), H / (W·|sin θ| + H·|cos θ|))
///
/// and the output is ⌊k·W⌋ × ⌊k·H⌋ pixels (never a pixel outside the rotated frame). For a centrally symmetric
/// convex frame, the centred rectangle is the largest of its aspect.
public enum Rotate: DevelopModule {
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

    public static func apply(_ setting: Setting, to image: PlanarImage, context: inout DevelopContext) throws -> PlanarImage {
        let degrees = setting.degrees
        let size = croppedSize(width: image.width, height: image.height, degrees: degrees)
        let out = image.sameKind(width: size.width, height: size.height)
        let theta = degrees * .pi / 180
        let c = cos(theta), s = sin(theta)
        let W = image.width, H = image.height, w = size.width
        // Output pixel (x, y) has its centre at offset (dx, dy) from the crop's centre; the content there comes
        // from offset (dx·c − dy·s, dx·s + dy·c) from the source's centre (y points down, so this turns the
        // picture counter-clockwise). Source index coordinates are continuous coordinates − 0.5.
        let sx0 = Double(W) / 2 - 0.5, sy0 = Double(H) / 2 - 0.5
        var sources: [UnsafePointer<Float>?] = [UnsafePointer(image.r), UnsafePointer(image.g), UnsafePointer(image.b)]
        if let a = image.alpha { sources.append(UnsafePointer(a)) }
        let me = UncheckedSendable((sources, out))
        Parallel.forEach(size.height, workers: context.engine.workers(for: size.height)) { _, y in
            let (sources, out) = me.value
            // Along an output row the source position moves by (c, s) a pixel: a straight line (lw_bicubic_line).
            let dy = Double(y) + 0.5 - Double(size.height) / 2, dx = 0.5 - Double(w) / 2
            let o = y * w
            var outs: [UnsafeMutablePointer<Float>?] = [out.r + o, out.g + o, out.b + o]
            if let a = out.alpha { outs.append(a + o) }
            sources.withUnsafeBufferPointer { planes in
                lw_bicubic_line(planes.baseAddress!, Int32(planes.count), Int32(W), Int32(H),
                                sx0 + dx * c - dy * s, sy0 + dx * s + dy * c, c, s, Int32(w), &outs)
            }
        }
        // Cubic overshoot must not make coverage leave 0…1.
        if let a = out.alpha { for i in 0..<out.pixelCount { a[i] = min(1, max(0, a[i])) } }
        context.decisions["rotate"] = "\(setting.text)° bicubic, largest upright crop \(size.width)×\(size.height) of \(W)×\(H)"
        return out
    }
}
