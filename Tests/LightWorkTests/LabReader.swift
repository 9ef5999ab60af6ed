import CLCMS2
import CShims
import Foundation
import XCTest
@testable import LightWork

/// Reads an output file's pixels as CIELAB (D50) through the file's own embedded profile, with LittleCMS.
final class LabReader {
    let file: ImageFile
    private let lab: cmsHPROFILE
    private let transform: cmsHTRANSFORM

    init(_ file: ImageFile) throws {
        self.file = file
        let profile = try XCTUnwrap(file.iccProfile.flatMap { ICCProfile(data: $0) }, "output carries no ICC profile")
        lab = cmsCreateLab4Profile(nil)!
        transform = try XCTUnwrap(cmsCreateTransform(profile.handle, LW_TYPE_RGB_16, lab, LW_TYPE_Lab_DBL, UInt32(INTENT_RELATIVE_COLORIMETRIC), 0))
    }

    deinit {
        cmsDeleteTransform(transform)
        cmsCloseProfile(lab)
    }

    /// Lab of an RGB triple given in the file's own code values (8-bit values are widened to 16 bits).
    func lab(_ rgb: SIMD3<Double>) -> cmsCIELab {
        let scale = file.bitDepth == 8 ? 257.0 : 1.0
        var input: [UInt16] = [rgb.x, rgb.y, rgb.z].map { UInt16(min(max(($0 * scale).rounded(), 0), 65535)) }
        var out = cmsCIELab()
        cmsDoTransform(transform, &input, &out, 1)
        return out
    }

    /// Lab of pixel (x, y).
    func lab(x: Int, y: Int) -> cmsCIELab {
        lab(SIMD3((0..<3).map { Double(file.sample(x: x, y: y, channel: $0)) }))
    }
}
