import CLCMS2
import CShims

extension ICCProfile {
    /// The device-RGB working space's profile (sRGB primaries and curve), built once and reopened from its bytes,
    /// so its colorants are rounded to s15.16 exactly as in any ICC file: an sRGB profile that LittleCMS wrote
    /// from the same primaries is then recognised as identical (unrounded, it would differ by 31/65535).
    public static let deviceRGB: ICCProfile = {
        let built = ICCProfile.rgb(primaries: .sRGB, transfer: .sRGB, description: "sRGB (LightWork device RGB)")
        return ICCProfile(data: built.data()) ?? built
    }()

    /// True when converting from this profile into device RGB would change no colour by more than 1/65535:
    /// decided by transforming a grid of test colours (a grey profile by a ramp of greys) in floating point,
    /// never from the description string. Such inputs are used as they are, with no transform.
    public func isEquivalentToSRGB(intent: DecodeOptions.RenderingIntent) -> Bool {
        isEquivalent(to: ICCProfile.deviceRGB, intent: intent)
    }

    /// True when converting from this (RGB or grey) profile into the RGB profile `target` would change no colour by
    /// more than 1/65535 (a grey profile's greys stay the same grey), tested as `isEquivalentToSRGB` says.
    public func isEquivalent(to target: ICCProfile, intent: DecodeOptions.RenderingIntent) -> Bool {
        let space = colorSpace
        let grey = space == cmsSigGrayData
        guard grey || space == cmsSigRgbData, target.colorSpace == cmsSigRgbData else { return false }
        lw_lcms_quiet()
        guard let t = cmsCreateTransform(handle, grey ? LW_TYPE_GRAY_FLT : LW_TYPE_RGB_FLT,
                                         target.handle, LW_TYPE_RGB_FLT, intent.lcms,
                                         UInt32(cmsFLAGS_NOOPTIMIZE | cmsFLAGS_NOCACHE | cmsFLAGS_BLACKPOINTCOMPENSATION))
        else { return false }
        defer { cmsDeleteTransform(t) }
        let levels: [Float] = [0, 0.002, 0.01, 0.04, 0.1, 0.2, 0.35, 0.5, 0.65, 0.8, 0.9, 0.97, 1]
        var input: [Float] = []
        if grey {
            input = levels
        } else {
            for r in levels { for g in levels { for b in levels { input += [r, g, b] } } }
        }
        let count = grey ? input.count : input.count / 3
        var output = [Float](repeating: -1, count: 3 * count)
        cmsDoTransform(t, input, &output, cmsUInt32Number(count))
        let tolerance: Float = 1.0 / 65535
        for i in 0..<count {
            for c in 0..<3 {
                let expected = grey ? input[i] : input[3 * i + c]
                if !(abs(output[3 * i + c] - expected) <= tolerance) { return false }
            }
        }
        return true
    }
}
