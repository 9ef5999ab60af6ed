import CShims
import Foundation

/// `--tone linear|standard|filmic`: the base tone curve from scene-referred linear light to display-referred linear
/// light, last in the scene stage (after exposure, before resizing and the film chain).
///
/// - `linear` is the colorimetric render (the curve is the identity; values above 1 are clipped by the output
///   conversion, as before). `verify` always renders with it.
/// - `standard` is a camera-like S-curve: a gentle toe, mid grey lifted (0.18 → 0.25, about +0.47 EV) and a shoulder
///   that reaches white by 2.0 (one stop of RAW headroom), in the spirit of Adobe's default tone curve and darktable's sigmoid.
/// - `filmic` maps a wide scene range, −8…+4 EV around 18 % grey, into the output with a log-like curve: lifted
///   shadows, grey at 0.22, a soft shoulder that reaches white at +4 EV (0.18 · 16 = 2.88).
///
/// Both curves are one family, y = (q / (1 + q))^γ with q = (x / s)^c — a log-logistic (darktable's sigmoid is its
/// γ = 1 case) raised to a power. It is smooth and rising for every x ≥ 0, 0 at black, below 1 everywhere and tends
/// to 1 (so RAW headroom above 1 rolls off with no kink), and behaves as x^(c·γ) near black (the toe). The three
/// numbers c, s, γ are solved from three anchors declared once (`Curve.standard`, `.filmic`): grey in → out, the
/// scene level where the curve is within 1/512 of white, and the toe exponent c·γ.
///
/// Hue: the curve is applied to the max-RGB norm n = max(R, G, B) and all three channels are scaled by f(n)/n.
/// Scaling linear RGB keeps chromaticity (x, y) exactly, and Lab hue exactly too (a* and b* scale by the same
/// cube root) outside the near-black linear segment of Lab, so saturated colours keep their hue; and since the
/// largest channel becomes f(n) < 1, no channel is pushed past white by the curve (a per-channel curve would
/// shift hues in the shoulder — orange to yellow — and a luminance norm would push saturated channels past 1).
/// The price, shared with darktable's filmic "max RGB", is that very bright saturated lights stay saturated
/// instead of bleaching to white.
///
/// On JPEG/PNG inputs the image is already display-referred (its camera or editor applied a tone curve), so the
/// module is skipped there with a note.
public enum Tone: PointDevelopModule {
    public enum Setting: String, DevelopSetting, CaseIterable {
        case linear, standard, filmic

        public init(parsing text: String) throws {
            guard let v = Setting(rawValue: text.trimmingCharacters(in: .whitespaces).lowercased()) else {
                throw LightWorkError.usage("--tone \(text): give one of \(Setting.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            self = v
        }

        public var text: String { rawValue }
        public var isOff: Bool { self == .linear }

        /// The curve of this setting (nil for `linear`).
        public var curve: Curve? {
            switch self {
            case .linear: return nil
            case .standard: return .standard
            case .filmic: return .filmic
            }
        }

        /// The sampled curve the per-pixel loop uses (built once per curve).
        var table: ToneTable? {
            switch self {
            case .linear: return nil
            case .standard: return ToneTable.standard
            case .filmic: return ToneTable.filmic
            }
        }
    }

    /// The neutral setting: colorimetric, what the library and `verify` render (its cases also set it explicitly).
    public static let defaultSetting = Setting.linear
    /// What `convert` and `watch` export with when no recipe or flag chooses: `standard`, chosen by measurement beside
    /// darktable-cli's and rawtherapee-cli's defaults on the shared photographs (docs/develop.md, "A base tone").
    public static let exportDefault: Setting? = .standard

    public static let descriptor = DevelopDescriptor(
        name: "tone", flag: "tone", placeholder: "linear|standard|filmic",
        help: "base tone curve: linear (colorimetric), standard (camera-like S-curve), filmic (-8…+4 EV log curve) (default \(exportDefault!.text); verify renders \(defaultSetting.text))",
        placement: .scene,
        rgbSkipNote: "skipped on an encoded image: it is already display-referred (tone curves apply to RAW files)")

    public static func apply(_ setting: Setting, to image: PlanarImage, context: inout DevelopContext) throws -> PlanarImage {
        pointOperation(setting, context: &context)?.run(on: image, engine: context.engine) ?? image
    }

    public static func pointOperation(_ setting: Setting, context: inout DevelopContext) -> PointOperation? {
        guard let table = setting.table else { return nil }
        context.decisions["tone"] = setting.text
        return PointOperation { r, g, b, count in table.apply(r, g, b, count: count) }
    }

    /// One tone curve of the family y = (q / (1 + q))^γ, q = (x / s)^c, from its three anchors.
    public struct Curve: Sendable {
        /// Scene grey (0.18) and the display value it maps to.
        public let grey: Double
        public let greyOut: Double
        /// The scene value where the curve is within `whiteTolerance` of 1.
        public let whiteIn: Double
        /// The exponent near black (y ≈ (x/s)^(c·γ)): above 1 a toe that deepens shadows, below 1 a lift.
        public let toe: Double
        public let c: Double
        public let s: Double
        public let gamma: Double
        /// 1/512: below half an 8-bit step in the encoded output, so `whiteIn` renders as 255.
        public static let whiteTolerance = 1.0 / 512

        /// Camera-like: grey +0.47 EV, white one stop above RAW white, a gentle toe of 1.1 (a steeper toe crushed
        /// the shadows of the darker shared photographs below darktable's default render).
        public static let standard = Curve(grey: 0.18, greyOut: 0.25, whiteIn: 2.0, toe: 1.1)
        /// Wide range: grey at 0.22, white at +4 EV, shadows lifted (toe 0.75: −8 EV lands near 10/255, not 2/255).
        public static let filmic = Curve(grey: 0.18, greyOut: 0.22, whiteIn: 0.18 * 16, toe: 0.75)

        /// Solves c (γ = toe / c; s from the grey anchor) so that the white anchor holds, by bisection.
        public init(grey: Double, greyOut: Double, whiteIn: Double, toe: Double) {
            self.grey = grey; self.greyOut = greyOut; self.whiteIn = whiteIn; self.toe = toe
            func solve(_ c: Double) -> (s: Double, gamma: Double, residual: Double) {
                let gamma = toe / c
                let a = pow(greyOut, 1 / gamma), b = pow(1 - Curve.whiteTolerance, 1 / gamma)
                let s = grey * pow((1 - a) / a, 1 / c)
                return (s, gamma, pow(whiteIn / s, c) - b / (1 - b))
            }
            var lo = 0.05, hi = 50.0
            for _ in 0..<100 {
                let mid = (lo + hi) / 2
                if solve(mid).residual < 0 { lo = mid } else { hi = mid }
            }
            let solved = solve((lo + hi) / 2)
            c = (lo + hi) / 2
            s = solved.s
            gamma = solved.gamma
        }

        /// The display value of scene value `x` (0 for x ≤ 0). Written as 1 / (1 + (s/x)^c) so x = ∞ gives 1.
        public func callAsFunction(_ x: Double) -> Double {
            guard x > 0 else { return 0 }
            return pow(1 / (1 + pow(s / x, c)), gamma)
        }

    }
}

/// A tone curve sampled for the per-pixel loop: `entries` values of f at n = `limit` · u², u uniform in [0, 1] (the
/// square keeps steps fine near black, where the curve bends most), linearly interpolated; n above `limit`
/// (8.5 EV over grey, already white to 1e-5) is computed exactly.
struct ToneTable: Sendable {
    static let entries = 4096
    static let limit: Float = 16
    let values: [Float]
    let curve: Tone.Curve

    static let standard = ToneTable(.standard)
    static let filmic = ToneTable(.filmic)

    init(_ curve: Tone.Curve) {
        self.curve = curve
        let last = Double(ToneTable.entries - 1)
        values = (0..<ToneTable.entries).map { i in
            let u = Double(i) / last
            return Float(curve(Double(ToneTable.limit) * u * u))
        } + [1]
    }

    /// Scales each pixel's three channels by f(n)/n, n = max(R, G, B); a pixel with n ≤ 0 (black, or all channels
    /// negative) becomes black, NaN stays NaN for the output conversion to reject (`lw_tone_apply`, whose table
    /// interpolation is this type's sampling).
    func apply(_ r: UnsafeMutablePointer<Float>, _ g: UnsafeMutablePointer<Float>, _ b: UnsafeMutablePointer<Float>, count: Int) {
        values.withUnsafeBufferPointer { buffer in
            var c = lw_tone_curve(table: buffer.baseAddress, entries: Int32(ToneTable.entries), limit: ToneTable.limit,
                                  s: curve.s, c: curve.c, gamma: curve.gamma)
            lw_tone_apply(&c, r, g, b, count)
        }
    }
}
