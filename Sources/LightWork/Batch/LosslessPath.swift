import Foundation

/// The one rule for a conversion that must not lose anything: with no look, no develop module and no resize, into the
/// colour space the input's samples are already in, at the same or a higher bit depth, the output holds the decoder's
/// own samples (an 8-bit value v becomes 257·v in 16 bits) instead of the half-float working image rendered (whose
/// 11-bit precision is up to 16/65535 off). Alpha is exact whenever the pixels keep their places (no develop module,
/// no resize), also when the look changes the colours. The manifest's `input.decisions` says which path was taken.
public enum LosslessPath {
    /// What was decided, for `input.decisions["pixels"]`.
    public enum Decision: Sendable, Equatable {
        /// The samples are written as they are; the text says why that is lossless.
        case passThrough(String)
        /// The working image is rendered; the text names the first reason it must be.
        case rendered(String)

        public var record: String {
            switch self {
            case .passThrough(let why): return "passed through: \(why)"
            case .rendered(let why): return "rendered: \(why)"
            }
        }
    }

    /// What may change the pixels after decoding.
    public enum Change: String, Sendable {
        case look = "the look"
        case develop = "a develop module"
        case resize = "resizing"
        /// Whether the pixels stay where they were (the look changes colours only), so alpha can be carried exactly.
        public var keepsPlaces: Bool { self == .look }
    }

    /// Whether a spec can leave an RGB input's pixels as decoded at all (then RGB decoders keep their colour samples):
    /// no active filter in `renderer`'s chain and every develop module off or skipped on encoded images (the export
    /// default tone curve is). Resizing is judged after decoding (a resize to the same size or larger keeps the image).
    public static func mayPassThrough(renderer: Renderer, develop: DevelopSettings) -> Bool {
        renderer.filters.isEmpty && DevelopStage.modules.allSatisfy { develop.isOff($0.descriptor.name) || $0.descriptor.rgbSkipNote != nil }
    }

    /// The decision for `samples` (the decoder's, nil for RAW) written as `format` in `space`; `changes` are what
    /// changed the pixels after decoding, empty when nothing did.
    public static func decide(samples: SourceSamples?, changes: [Change], space: OutputColorSpace, format: OutputFormat,
                              intent: DecodeOptions.RenderingIntent) -> Decision {
        if let change = changes.first { return .rendered("\(change.rawValue) changes the pixels") }
        guard let samples, samples.keepsColour else { return .rendered("the decoder keeps no integer samples") }
        guard format.bitDepth >= samples.bitDepth else {
            return .rendered("\(samples.bitDepth)-bit samples into \(format.bitDepth)-bit output")
        }
        if samples.hasAlpha && !format.supportsAlpha { return .rendered("alpha is flattened onto the background") }
        let colours: String
        switch samples.colour {
        case .deviceRGB:
            guard space == .srgb else { return .rendered("sRGB samples into \(space.rawValue)") }
            colours = "sRGB samples into sRGB"
        case .profile(let profile):
            guard let output = ICCProfile(data: ICCProfile.embedded(for: space)), profile.isEquivalent(to: output, intent: intent) else {
                return .rendered("the input's ICC profile is not the output's (\(space.rawValue))")
            }
            colours = "the input's ICC profile is equivalent to the output's (\(space.rawValue))"
        case .naiveCMYK:
            return .rendered("CMYK is converted")
        }
        return .passThrough("no look, \(colours), \(samples.bitDepth)-bit samples into \(format.bitDepth)-bit output")
    }
}
