import CLCMS2
import CShims
import Foundation

/// Reads an image file's samples as CIELAB (D50) through the file's own embedded ICC profile, with LittleCMS
/// (relative colorimetric, as every comparison of outputs must: two files are compared as colours, not numbers).
/// A file without a profile is read as sRGB (`assumedSRGB` says so); alpha is ignored.
public final class ProfileLab: @unchecked Sendable {
    /// The profile's description, or "sRGB (assumed: no embedded profile)".
    public let profileDescription: String
    /// True when the file carried no profile and sRGB was assumed.
    public let assumedSRGB: Bool
    private let width: Int, height: Int, channels: Int, bitDepth: Int
    private let transform: cmsHTRANSFORM
    private let lab: cmsHPROFILE

    /// Builds the transform for `file`'s layout (1–4 channels, 8 or 16 bits). Throws `LightWorkError.colour` when
    /// the embedded profile is unreadable or does not describe the file's channels.
    public init(_ file: ImageFile) throws {
        lw_lcms_quiet()
        width = file.width
        height = file.height
        channels = file.channels
        bitDepth = file.bitDepth
        let profile: ICCProfile
        if let data = file.iccProfile {
            guard let p = ICCProfile(data: data) else { throw LightWorkError.colour("the embedded ICC profile cannot be read") }
            profile = p
            assumedSRGB = false
            profileDescription = p.profileDescription
        } else {
            profile = ICCProfile(data: ICCProfile.embedded(for: .srgb))!
            assumedSRGB = true
            profileDescription = "sRGB (assumed: no embedded profile)"
        }
        let grey = channels <= 2
        let expected = grey ? cmsSigGrayData : cmsSigRgbData
        guard profile.colorSpace == expected else {
            throw LightWorkError.colour("the embedded profile \"\(profileDescription)\" is not \(grey ? "grey" : "RGB") like the file's \(channels) channel(s)")
        }
        // 16-bit layouts for every file: 8-bit samples are widened ×257 (exactly the same code value).
        let format: cmsUInt32Number
        switch channels {
        case 1: format = LW_TYPE_GRAY_16
        case 2: format = LW_TYPE_GRAYA_16
        case 3: format = LW_TYPE_RGB_16
        default: format = LW_TYPE_RGBA_16
        }
        lab = cmsCreateLab4Profile(nil)!
        guard let t = cmsCreateTransform(profile.handle, format, lab, LW_TYPE_Lab_DBL, UInt32(INTENT_RELATIVE_COLORIMETRIC), UInt32(cmsFLAGS_NOCACHE)) else {
            cmsCloseProfile(lab)
            throw LightWorkError.colour("LittleCMS cannot build a transform from \"\(profileDescription)\" to Lab")
        }
        transform = t
    }

    deinit {
        cmsDeleteTransform(transform)
        cmsCloseProfile(lab)
    }

    /// Lab of one colour given in the file's own code values (grey files use `x`; alpha is not given).
    public func lab(_ value: SIMD3<Double>) -> SIMD3<Double> {
        let scale = bitDepth == 8 ? 257.0 : 1.0
        func code(_ v: Double) -> UInt16 { UInt16(min(max((v * scale).rounded(), 0), 65535)) }
        var input: [UInt16]
        switch channels {
        case 1: input = [code(value.x)]
        case 2: input = [code(value.x), 65535]
        case 3: input = [code(value.x), code(value.y), code(value.z)]
        default: input = [code(value.x), code(value.y), code(value.z), 65535]
        }
        var out = [Double](repeating: 0, count: 3)
        cmsDoTransform(transform, &input, &out, 1)
        return SIMD3(out[0], out[1], out[2])
    }

    /// Lab of every pixel of `file` (which must have the layout this reader was built for), interleaved L, a, b.
    public func labPixels(_ file: ImageFile, engine: EngineConfiguration = .detected) -> [Double] {
        precondition(file.width == width && file.height == height && file.channels == channels && file.bitDepth == bitDepth)
        let count = width * height
        var out = [Double](repeating: 0, count: 3 * count)
        let transform = UncheckedSendable(self.transform)
        let (w, c, widen) = (width, channels, bitDepth == 8)
        out.withUnsafeMutableBufferPointer { dst in
            file.samples.withUnsafeBufferPointer { samples in
                let io = UncheckedSendable((samples.baseAddress!, dst.baseAddress!))
                // One row per call; rows are independent, so the result is the same for any thread count.
                Parallel.forEach(height, on: engine) { y in
                    var row = [UInt16](repeating: 0, count: w * c)
                    for i in 0..<(w * c) {
                        let v = io.value.0[y * w * c + i]
                        row[i] = widen ? v &* 257 : v
                    }
                    cmsDoTransform(transform.value, row, io.value.1 + 3 * y * w, cmsUInt32Number(w))
                }
            }
        }
        return out
    }
}
