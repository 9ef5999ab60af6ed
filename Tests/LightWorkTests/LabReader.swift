import CLCMS2
import Foundation
import XCTest
@testable import LightWork

/// Reads an output file's pixels as CIELAB (D50) through the file's own embedded profile, with LittleCMS
/// (the library's `ProfileLab`, which the verify stage uses; here a file without a profile is an error).
final class LabReader {
    let file: ImageFile
    private let reader: ProfileLab

    init(_ file: ImageFile) throws {
        self.file = file
        _ = try XCTUnwrap(file.iccProfile.flatMap { ICCProfile(data: $0) }, "output carries no ICC profile")
        reader = try ProfileLab(file)
    }

    /// Lab of an RGB triple given in the file's own code values (8-bit values are widened to 16 bits).
    func lab(_ rgb: SIMD3<Double>) -> cmsCIELab {
        let v = reader.lab(rgb)
        return cmsCIELab(L: v.x, a: v.y, b: v.z)
    }

    /// Lab of pixel (x, y).
    func lab(x: Int, y: Int) -> cmsCIELab {
        lab(SIMD3((0..<3).map { Double(file.sample(x: x, y: y, channel: $0)) }))
    }
}
