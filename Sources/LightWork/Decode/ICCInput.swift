import CLCMS2
import Foundation

/// What a JPEG or PNG file says about its colours, resolved into a converter source for device RGB, a
/// description for the manifest, and notes for whatever was assumed or ignored.
///
/// Recovery rules (documented in the notes each produces): an unreadable or mismatched embedded profile is
/// ignored and sRGB assumed; CMYK without a usable profile uses the naive conversion (no CMYK profile ships
/// with Debian's free ICC packages, so there is no standard one to default to).
public struct ICCInput {
    /// The pixels' colour model, which an embedded profile must match.
    public enum Model: String, Sendable {
        case gray, rgb, cmyk
    }

    public var source: DeviceRGBConverter.Source
    /// For `DecodedImage.sourceProfile`.
    public var description: String
    public var notes: [String]

    public static let assumedSRGBNote = "no colour information: assumed sRGB"
    public static let naiveCMYKNote = "CMYK without a usable ICC profile: converted naively as R = (1−C)(1−K), G = (1−M)(1−K), B = (1−Y)(1−K), read as sRGB"

    /// No colour information at all: sRGB assumed (naive conversion for CMYK).
    public static func unspecified(_ model: Model) -> ICCInput {
        model == .cmyk
            ? ICCInput(source: .naiveCMYK, description: "naive CMYK (no profile)", notes: [naiveCMYKNote])
            : ICCInput(source: .deviceRGB, description: "sRGB (assumed)", notes: [assumedSRGBNote])
    }

    /// The file declares sRGB (PNG sRGB chunk): no conversion.
    public static func declaredSRGB(_ description: String) -> ICCInput {
        ICCInput(source: .deviceRGB, description: description, notes: [])
    }

    /// A profile built from the file's colour chunks, or opened from its embedded bytes; an sRGB-equivalent
    /// RGB or grey profile becomes `.deviceRGB` (no transform).
    public static func profile(_ profile: ICCProfile, model: Model, description: String, intent: DecodeOptions.RenderingIntent) -> ICCInput {
        let expected: cmsColorSpaceSignature = model == .gray ? cmsSigGrayData : model == .rgb ? cmsSigRgbData : cmsSigCmykData
        guard profile.colorSpace == expected else {
            var r = unspecified(model)
            r.notes.insert("embedded ICC profile \"\(description)\" does not describe \(model.rawValue) pixels: ignored", at: 0)
            return r
        }
        if model != .cmyk && profile.isEquivalentToSRGB(intent: intent) {
            return ICCInput(source: .deviceRGB, description: "\(description) (equivalent to sRGB: not converted)", notes: [])
        }
        return ICCInput(source: .profile(profile), description: description, notes: [])
    }

    /// An ICC profile embedded in the file (`nil` when there is none).
    public static func embedded(_ bytes: Data?, model: Model, intent: DecodeOptions.RenderingIntent) -> ICCInput {
        guard let bytes else { return unspecified(model) }
        guard let p = ICCProfile(data: bytes) else { return corrupt(model) }
        let name = p.profileDescription
        return profile(p, model: model, description: name.isEmpty ? "embedded ICC profile" : name, intent: intent)
    }

    /// An embedded profile that could not be read (bad bytes, missing or inconsistent chunks).
    public static func corrupt(_ model: Model) -> ICCInput {
        var r = unspecified(model)
        r.notes.insert("embedded ICC profile is corrupt: ignored", at: 0)
        return r
    }

    /// The converter for these colours; if LittleCMS cannot link the profile, falls back to `unspecified`
    /// and says so in the returned notes.
    public func converter(layout: DeviceRGBConverter.Layout, sixteenBit: Bool, intent: DecodeOptions.RenderingIntent) throws
        -> (converter: DeviceRGBConverter, description: String, notes: [String]) {
        do {
            return (try DeviceRGBConverter(layout: layout, sixteenBit: sixteenBit, source: source, intent: intent), description, notes)
        } catch {
            let model: Model
            switch layout {
            case .gray, .grayAlpha: model = .gray
            case .rgb, .rgba: model = .rgb
            case .cmyk: model = .cmyk
            }
            let fallback = ICCInput.unspecified(model)
            let c = try DeviceRGBConverter(layout: layout, sixteenBit: sixteenBit, source: fallback.source, intent: intent)
            return (c, fallback.description, ["embedded ICC profile \"\(description)\" cannot be converted to sRGB: ignored"] + fallback.notes)
        }
    }
}
