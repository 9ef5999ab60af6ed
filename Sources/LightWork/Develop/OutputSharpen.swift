import Foundation

/// `--output-sharpen AMOUNT`: a small-radius unsharp mask after `--long-edge`, for web exports that look soft
/// once downscaled. It runs on the output pixels, so its radius (sigma 0.5 px of the output) follows the resize:
/// the same crispness at any long edge. Same luminance kernel and halo control as `sharpen`.
public enum OutputSharpen: DevelopModule {
    public enum Setting: DevelopSetting {
        case off
        /// 1 = add the high-pass once.
        case amount(Double)

        public init(parsing text: String) throws {
            let t = text.trimmingCharacters(in: .whitespaces).lowercased()
            if t == "off" { self = .off; return }
            guard let v = Double(t), v.isFinite, (0...3).contains(v) else {
                throw LightWorkError.usage("--output-sharpen \(text): give off or an AMOUNT between 0 and 3, e.g. 0.6")
            }
            self = v == 0 ? .off : .amount(v)
        }

        public var text: String {
            switch self {
            case .off: return "off"
            case .amount(let v): return String(format: "%.2f", v)
            }
        }

        public var isOff: Bool { self == .off }
    }

    /// Gaussian sigma of the mask, in output pixels.
    public static let sigma = 0.5

    public static let descriptor = DevelopDescriptor(
        name: "outputSharpen", flag: "output-sharpen", placeholder: "off|AMOUNT",
        help: "output sharpening after --long-edge: luminance USM of 0.5 output px with halo control, e.g. 0.6 (default off)",
        placement: .output)

    public static let defaultSetting = Setting.off

    public static func apply(_ setting: Setting, to image: PlanarImage, context: inout DevelopContext) throws -> PlanarImage {
        guard case .amount(let amount) = setting else { return image }
        LuminanceSharpener.apply(image, amount: Float(amount), sigma: sigma, engine: context.engine)
        context.decisions["outputSharpen"] = "luminance USM amount \(setting.text), sigma \(sigma) px on \(image.width)×\(image.height)"
        return image
    }
}
