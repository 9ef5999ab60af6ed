import Foundation
import LightWork

/// The light the synthetic scene is lit by.
enum SceneIlluminant: String, Sendable, CaseIterable {
    case d65 = "D65"
    case a = "A"
    case d50 = "D50"
    case d55 = "D55"
    case d75 = "D75"
    /// CIE F2, cool white fluorescent (off the Planckian locus).
    case f2 = "F2"

    /// XYZ of the illuminant's white, Y = 1 (CIE 15 chromaticities, 2° observer).
    var white: SIMD3<Double> {
        switch self {
        case .d65: return CIE.d65
        case .a: return CIE.illuminantA
        case .d50: return CIE.xyToXYZ(x: 0.34567, y: 0.35850)
        case .d55: return CIE.xyToXYZ(x: 0.33242, y: 0.34743)
        case .d75: return CIE.xyToXYZ(x: 0.29902, y: 0.31485)
        case .f2: return CIE.xyToXYZ(x: 0.37208, y: 0.37529)
        }
    }

    /// The EXIF LightSource code DNG uses for CalibrationIlluminant tags.
    var exifLightSource: UInt16 {
        switch self {
        case .d65: return 21
        case .a: return 17
        case .d50: return 23
        case .d55: return 20
        case .d75: return 22
        case .f2: return 14
        }
    }
}

/// An invented, perfectly linear camera: its raw response is ColorMatrix1 · XYZ for any light, so a reader that
/// applies ColorMatrix1 and AsShotNeutral as the DNG specification says recovers the scene exactly under D65.
struct SyntheticCamera: Sendable {
    static let make = "LightWork"
    static let model = "Synthetic"
    static let uniqueCameraModel = "LightWork Synthetic"

    /// XYZ (D65 calibration) → camera RGB. Invented, of the size and shape of a typical Bayer camera's DNG
    /// ColorMatrix (strong diagonal, negative red/green cross terms), normalised as Adobe does so that the
    /// D50 white reaches about 1 in its largest channel. Not any vendor's matrix.
    static let colorMatrix1 = Matrix3([
        [0.7034, -0.1282, -0.0763],
        [-0.4127, 1.1958, 0.2431],
        [-0.0689, 0.1742, 0.6218],
    ])
    static let calibrationIlluminant1 = SceneIlluminant.d65

    /// 14-bit-like data stored in 16-bit samples above a black pedestal.
    static let blackLevel: UInt16 = 512
    static let whiteLevel: UInt16 = 16383
    /// The brightest channel of the ColorChecker's white patch lands at this fraction of (white − black).
    static let whitePatchFraction = 0.65
    /// Standard deviation of the additive sensor noise, in raw units (seeded, never time-based).
    static let noiseSigma: Float = 1.5

    /// A sensor of 4 electrons per raw unit at ISO 100 (a full well of about 64 000 e⁻), 3 e⁻ of read noise
    /// before the gain and 1.5 raw units after it: at ISO S a raw unit is 4 · 100 / S electrons. Shot noise is
    /// Poisson (drawn exactly below 30 electrons, as a Gaussian of the same variance above), read noise Gaussian.
    static let electronsPerUnitAtISO100 = 4.0
    static let readNoiseElectrons = 3.0

    let illuminant: SceneIlluminant
    /// Raw units above black per unit of camera response.
    let exposure: Double

    /// Stops the data lies below the normal exposure (BaselineExposure stays the normal exposure's).
    let underexposure: Double

    init(illuminant: SceneIlluminant, underexposure: Double = 0) {
        self.illuminant = illuminant
        self.underexposure = underexposure
        let whitePatch = ColorChecker.patches[18].lab
        let response = SyntheticCamera.colorMatrix1 * SyntheticCamera.sceneXYZ(lab: whitePatch, under: illuminant)
        exposure = SyntheticCamera.whitePatchFraction * Double(SyntheticCamera.whiteLevel - SyntheticCamera.blackLevel)
            / response.max() * exp2(-underexposure)
    }

    /// XYZ of a surface (given by its CIELAB D50 colour) lit by `illuminant`: Lab → XYZ D50 → Bradford.
    static func sceneXYZ(lab: SIMD3<Double>, under illuminant: SceneIlluminant) -> SIMD3<Double> {
        CIE.bradfordAdaptation(from: CIE.d50, to: illuminant.white) * CIE.labToXYZ(lab)
    }

    /// DNG BaselineExposure (EV): brings a perfect white reflector (Y = 1) to 1.0 after white balance,
    /// since the data sits below clipping (the white patch at `whitePatchFraction`) as a real camera's does
    /// (for an underexposed frame: where the normal exposure would bring it).
    var baselineExposure: Double {
        let n = SyntheticCamera.colorMatrix1 * illuminant.white
        return log2(Double(SyntheticCamera.whiteLevel - SyntheticCamera.blackLevel) / (exposure * exp2(underexposure) * n.max()))
    }

    /// The camera's white balance for the scene light, largest channel 1 (the DNG AsShotNeutral tag).
    var asShotNeutral: SIMD3<Double> {
        let n = SyntheticCamera.colorMatrix1 * illuminant.white
        return n / n.max()
    }

    /// Raw values above black for a surface of CIELAB D50 colour `lab` (before noise and quantisation).
    func rawResponse(lab: SIMD3<Double>) -> SIMD3<Double> {
        exposure * (SyntheticCamera.colorMatrix1 * SyntheticCamera.sceneXYZ(lab: lab, under: illuminant))
    }

    /// Linear sRGB (D65 white = 1) of the same surface, as a viewer adapted to the scene light sees it.
    func linearSRGB(lab: SIMD3<Double>) -> SIMD3<Double> {
        let xyz = SyntheticCamera.sceneXYZ(lab: lab, under: illuminant)
        let adapted = CIE.bradfordAdaptation(from: illuminant.white, to: CIE.d65) * xyz
        return RGBPrimaries.sRGB.toXYZNative.inverse * adapted
    }
}
