import CLibRaw
import Foundation

/// Reads a camera's colour calibration from what LibRaw parsed, as a `DNGColorModel`: a DNG's own tags when it has
/// a ColorMatrix, otherwise LibRaw's built-in matrix for the camera as a single D65 calibration.
extension DNGColorModel {
    /// Where the model's matrices came from (recorded as the decode's source profile).
    public enum Source: String, Sendable {
        /// ColorMatrix1/2 (with CameraCalibration, ForwardMatrix, AnalogBalance) from the DNG.
        case dngTags = "DNG colour tags"
        /// LibRaw's Adobe-derived XYZ → camera matrix for the model (`cam_xyz`), calibrated for D65.
        case libRawMatrix = "LibRaw built-in matrix"
        /// LibRaw's camera → sRGB matrix (`rgb_cam`), for cameras it describes only that way.
        case libRawRGBMatrix = "LibRaw camera-to-sRGB matrix"
    }

    /// The model of the file open in `lr` (after `libraw_open_file`, before processing, while `pre_mul` still holds
    /// LibRaw's daylight balance); nil when LibRaw knows no matrix or the camera does not have three colours.
    static func read(libRaw lr: UnsafeMutablePointer<libraw_data_t>) -> (model: DNGColorModel, source: Source)? {
        let d = lr.pointee
        guard d.idata.colors == 3 else { return nil }
        let color = d.color
        if d.idata.dng_version != 0 {
            var calibrations: [Calibration] = []
            for tags in [color.dng_color.0, color.dng_color.1] {
                guard let cm = matrix(tags.colormatrix, stride: 3) else { continue }
                calibrations.append(Calibration(illuminant: Int(tags.illuminant), colorMatrix: cm,
                                                forwardMatrix: matrix(tags.forwardmatrix, stride: 4),
                                                cameraCalibration: matrix(tags.calibration, stride: 4) ?? .identity))
            }
            if !calibrations.isEmpty {
                let ab = floats(color.dng_levels.analogbalance)
                let balance = ab.prefix(3).allSatisfy({ $0 > 0 }) ? SIMD3(Double(ab[0]), Double(ab[1]), Double(ab[2])) : SIMD3(1, 1, 1)
                return (DNGColorModel(calibrations, analogBalance: balance), .dngTags)
            }
        }
        if let camXYZ = matrix(color.cam_xyz, stride: 3) {
            return (DNGColorModel([Calibration(illuminant: 21, colorMatrix: camXYZ)]), .libRawMatrix)
        }
        // rgb_cam maps camera RGB balanced by LibRaw's daylight multipliers to linear sRGB (D65).
        if let rgbCam = matrix(color.rgb_cam, stride: 4), rgbCam.determinant != 0 {
            let pre = floats(color.pre_mul)
            guard pre.prefix(3).allSatisfy({ $0 > 0 }) else { return nil }
            let daylight = Matrix3.diagonal(SIMD3(Double(pre[0]), Double(pre[1]), Double(pre[2])))
            let xyzToCamera = daylight.inverse * (RGBPrimaries.sRGB.toXYZNative * rgbCam).inverse
            return (DNGColorModel([Calibration(illuminant: 21, colorMatrix: xyzToCamera)]), .libRawRGBMatrix)
        }
        return nil
    }

    /// The first three rows and columns of a C float matrix of row length `stride`; nil when all zero (tag absent).
    static func matrix<T>(_ tuple: T, stride: Int) -> Matrix3? {
        let f = floats(tuple)
        let values = (0..<3).flatMap { r in (0..<3).map { c in Double(f[r * stride + c]) } }
        guard values.contains(where: { $0 != 0 }), values.allSatisfy({ $0.isFinite }) else { return nil }
        return Matrix3(flat: values)
    }

    static func floats<T>(_ tuple: T) -> [Float] {
        withUnsafeBytes(of: tuple) { Array($0.bindMemory(to: Float.self)) }
    }
}
