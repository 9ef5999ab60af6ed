/// The colour spaces LightWork writes (`--colorspace`), each a matrix/curve space whose profile is embedded.
public enum OutputColorSpace: String, Sendable, Codable, CaseIterable {
    case srgb
    case displayP3 = "display-p3"
    case adobeRGB = "adobe-rgb"
    case prophoto

    public var primaries: RGBPrimaries {
        switch self {
        case .srgb: return .sRGB
        case .displayP3: return .displayP3
        case .adobeRGB: return .adobeRGB
        case .prophoto: return .proPhoto
        }
    }

    public var transfer: TransferFunction {
        switch self {
        case .srgb, .displayP3: return .sRGB
        case .adobeRGB: return .gamma(563.0 / 256.0)   // 2.19921875, as Adobe RGB (1998) specifies
        case .prophoto: return .gamma(1.8)
        }
    }

    /// The description written into the embedded profile.
    public var profileDescription: String {
        switch self {
        case .srgb: return "LightWork sRGB IEC61966-2.1"
        case .displayP3: return "LightWork Display P3"
        case .adobeRGB: return "LightWork Compatible with Adobe RGB (1998)"
        case .prophoto: return "LightWork ProPhoto RGB (ROMM)"
        }
    }
}
