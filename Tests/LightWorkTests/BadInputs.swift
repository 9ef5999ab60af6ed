import CTIFF
import Foundation
@testable import LightWork

/// Crafted bad inputs, made from the committed samples at test time.
enum BadInputs {
    static let sceneDNG = TestPaths.repoRoot.appendingPathComponent("Samples/scene.dng")

    /// scene.dng with every image strip overwritten by zeros (tags intact): "image data stripped".
    static func strippedDNG(in dir: URL) throws -> URL {
        var bytes = [UInt8](try Data(contentsOf: sceneDNG))
        guard let tif = TIFFOpen(sceneDNG.path, "r") else { throw LightWorkError.decodeFailed("libtiff cannot open the sample") }
        defer { TIFFClose(tif) }
        for strip in 0..<TIFFNumberOfStrips(tif) {
            var err: Int32 = 0
            let offset = Int(TIFFGetStrileOffsetWithErr(tif, strip, &err)), count = Int(TIFFGetStrileByteCountWithErr(tif, strip, &err))
            for i in offset..<min(offset + count, bytes.count) { bytes[i] = 0 }
        }
        let out = dir.appendingPathComponent("stripped.dng")
        try Data(bytes).write(to: out)
        return out
    }

    /// scene.dng with the Compression tag of its first IFD set to 9 (VC-5, GoPro GPR's codec), named .gpr.
    static func gprLikeDNG(in dir: URL) throws -> URL {
        var bytes = [UInt8](try Data(contentsOf: sceneDNG))
        func u16(_ o: Int) -> Int { Int(bytes[o]) | Int(bytes[o + 1]) << 8 }
        func u32(_ o: Int) -> Int { u16(o) | u16(o + 2) << 16 }
        precondition(bytes[0] == 0x49, "little-endian TIFF expected")
        let ifd = u32(4)
        for e in 0..<u16(ifd) {
            let entry = ifd + 2 + 12 * e
            if u16(entry) == 259 { bytes[entry + 8] = 9; bytes[entry + 9] = 0 }
        }
        let out = dir.appendingPathComponent("clip.gpr")
        try Data(bytes).write(to: out)
        return out
    }
}
