import CLCMS2
import CShims

extension ICCProfile {
    /// A grey profile with a pure power curve (`value = linear^(1/gamma)` encoded) and the given white
    /// chromaticity: what a greyscale PNG's gAMA (and cHRM white) describes.
    public static func gray(white: SIMD2<Double>, gamma: Double, description: String) -> ICCProfile? {
        lw_lcms_quiet()
        var wp = cmsCIExyY(x: white.x, y: white.y, Y: 1)
        guard let curve = cmsBuildGamma(nil, gamma) else { return nil }
        defer { cmsFreeToneCurve(curve) }
        guard let h = cmsCreateGrayProfile(&wp, curve) else { return nil }
        if let mlu = cmsMLUalloc(nil, 1) {
            cmsMLUsetASCII(mlu, "en", "US", description)
            cmsWriteTag(h, cmsSigProfileDescriptionTag, UnsafeRawPointer(mlu))
            cmsMLUfree(mlu)
        }
        return ICCProfile(handle: h)
    }
}
