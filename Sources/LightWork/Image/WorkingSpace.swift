/// The colour space and encoding of a WorkingImage's values.
///
/// The original app rendered RAW files in a context with *no* colour management (linear values
/// straight from the decoder) and other files in *device RGB*; LightWork keeps both, as two values of this type.
public struct WorkingSpace: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The RGB primaries and white of the values.
    public var primaries: RGBPrimaries
    /// Whether values are linear light or encoded with the sRGB transfer curve.
    public var encoding: Encoding

    public enum Encoding: String, Sendable, Hashable, Codable {
        case linear
        case sRGBCurve
    }

    public init(primaries: RGBPrimaries, encoding: Encoding) {
        self.primaries = primaries
        self.encoding = encoding
    }

    /// RAW path: scene-linear ROMM (ProPhoto) primaries, D50 white: wide enough for every camera colour
    /// LibRaw produces, and D50 like the ICC connection space, so no adaptation happens on the way out.
    public static let rawLinear = WorkingSpace(primaries: .proPhoto, encoding: .linear)
    /// RGB path: device RGB, i.e. sRGB-encoded values (LittleCMS converts every input profile into it).
    public static let deviceRGB = WorkingSpace(primaries: .sRGB, encoding: .sRGBCurve)

    public var description: String {
        self == .rawLinear ? "linear-prophoto" : self == .deviceRGB ? "device-srgb" : "\(primaries.name)-\(encoding.rawValue)"
    }
}
