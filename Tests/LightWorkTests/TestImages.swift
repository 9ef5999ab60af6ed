import CLCMS2
import Foundation
@testable import LightWork

/// Synthetic pixels for writer tests.
enum TestImages {
    /// A pattern that touches every bit of every sample (high and low bytes differ, so a byte-order slip
    /// shows), different in each channel.
    static func pattern(width: Int, height: Int, channels: Int, depth: EncodedPixels.Depth) -> EncodedPixels {
        var p = EncodedPixels(width: width, height: height, channels: channels, depth: depth)
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<channels {
                    let i = (y * width + x) * channels + c
                    if depth == .eight {
                        p.samples8[i] = UInt8(truncatingIfNeeded: x * 7 + y * 13 + c * 61)
                    } else {
                        p.samples16[i] = UInt16(truncatingIfNeeded: x * 1031 + y * 4099 + c * 16411)
                    }
                }
            }
        }
        return p
    }

    /// A smooth 8-bit gradient (what lossy coding is meant for): red along x, green along y, blue diagonal.
    static func gradient8(width: Int, height: Int, channels: Int) -> EncodedPixels {
        var p = EncodedPixels(width: width, height: height, channels: channels, depth: .eight)
        for y in 0..<height {
            for x in 0..<width {
                let values = [x * 255 / (width - 1), y * 255 / (height - 1), (x + y) * 255 / (width + height - 2)]
                for c in 0..<channels { p.samples8[(y * width + x) * channels + c] = UInt8(values[c % 3]) }
            }
        }
        return p
    }

    /// A grey (gamma 2.2, D50) ICC profile made by LittleCMS, for grey and grey+alpha outputs.
    static let greyProfile: Data = {
        let curve = cmsBuildGamma(nil, 2.2)
        defer { cmsFreeToneCurve(curve) }
        return ICCProfile(handle: cmsCreateGrayProfile(cmsD50_xyY(), curve)).data()
    }()

    /// The profile matching `channels`: sRGB for colour, `greyProfile` for grey.
    static func profile(channels: Int) -> Data {
        channels <= 2 ? greyProfile : ICCProfile.embedded(for: .srgb)
    }

    /// The samples of `p` widened to UInt16 (what `ImageFile.samples` holds).
    static func widened(_ p: EncodedPixels) -> [UInt16] {
        p.depth == .eight ? p.samples8.map { UInt16($0) } : p.samples16
    }
}
