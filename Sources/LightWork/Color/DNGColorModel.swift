import Foundation

/// A camera's colour calibration and how it maps camera RGB to CIE XYZ D50, as the DNG specification's chapter
/// "Mapping Camera Color Space to CIE XYZ Space" defines it (and the DNG SDK's `dng_color_spec` implements it):
///
/// - XYZtoCamera = AnalogBalance × CameraCalibration × ColorMatrix, where the matrices of the two calibrations are
///   blended by the white point's inverse correlated colour temperature, clamped to the calibration temperatures;
/// - the white point is found from the camera neutral by iterating between the neutral and the blended matrix;
/// - with a ForwardMatrix: CameraToXYZ_D50 = FM × D × (AB × CC)⁻¹, D = diag((AB × CC)⁻¹ × neutral)⁻¹;
///   without: CameraToXYZ_D50 = (XYZtoCamera × Bradford(D50 → white))⁻¹, scaled so the neutral maps to D50, Y = 1.
///
/// Applying this to white-balanced data is what the open-source developers skip: they balance in camera space and
/// use one (daylight) matrix, which is wrong for every other light. PCS white is `CIE.d50`, as LightWork's
/// working-space matrices use.
public struct DNGColorModel: Sendable, Equatable {
    /// One calibration: what the camera maker measured under one light.
    public struct Calibration: Sendable, Equatable {
        /// The EXIF LightSource code of CalibrationIlluminant (17 = A, 21 = D65, …).
        public var illuminant: Int
        /// ColorMatrix: XYZ → reference camera space.
        public var colorMatrix: Matrix3
        /// ForwardMatrix: white-balanced reference camera space → XYZ D50, when the profile has one.
        public var forwardMatrix: Matrix3?
        /// CameraCalibration: reference camera → this individual camera (identity when the file has none).
        public var cameraCalibration: Matrix3

        public init(illuminant: Int, colorMatrix: Matrix3, forwardMatrix: Matrix3? = nil, cameraCalibration: Matrix3 = .identity) {
            self.illuminant = illuminant
            self.colorMatrix = colorMatrix
            self.forwardMatrix = forwardMatrix
            self.cameraCalibration = cameraCalibration
        }
    }

    /// The calibrations in rising temperature order: two when both temperatures are known and differ, else one.
    public let calibrations: [Calibration]
    /// Their temperatures in kelvin (the SDK's value for each light; with one calibration, unused).
    public let temperatures: [Double]
    /// AnalogBalance: per-channel gain already applied to the raw data by the camera (1, 1, 1 when absent).
    public let analogBalance: SIMD3<Double>

    /// Builds the model from one or two calibrations as a DNG lists them (1 then 2). Matrices are normalised as the
    /// SDK does on reading: a ColorMatrix so D50 reaches 1 in its largest channel, a ForwardMatrix so (1, 1, 1) → D50.
    public init(_ calibrations: [Calibration], analogBalance: SIMD3<Double> = SIMD3(1, 1, 1)) {
        precondition(!calibrations.isEmpty, "a DNG colour model needs a ColorMatrix")
        let normalised = calibrations.prefix(2).map { c -> Calibration in
            var c = c
            c.colorMatrix = DNGColorModel.normaliseColorMatrix(c.colorMatrix)
            c.forwardMatrix = c.forwardMatrix.map(DNGColorModel.normaliseForwardMatrix)
            return c
        }
        let t = normalised.map { DNGColorModel.temperature(ofLightSource: $0.illuminant) }
        if normalised.count == 2, let t1 = t[0], let t2 = t[1], t1 != t2 {
            self.calibrations = t1 < t2 ? normalised : normalised.reversed()
            temperatures = [min(t1, t2), max(t1, t2)]
        } else {
            // One matrix, or two the model cannot order: the SDK then uses calibration 1 alone.
            self.calibrations = [normalised[0]]
            temperatures = [t[0] ?? 5000]
        }
        self.analogBalance = analogBalance
    }

    /// The temperature the DNG SDK assigns an EXIF LightSource code (`dng_camera_profile::IlluminantToTemperature`);
    /// nil for "unknown" and "other", which cannot be interpolated.
    public static func temperature(ofLightSource code: Int) -> Double? {
        switch code {
        case 17, 3: return 2850                          // standard light A, tungsten
        case 24: return 3200                             // ISO studio tungsten
        case 23: return 5000                             // D50
        case 20, 1, 9, 4, 18: return 5500                // D55, daylight, fine weather, flash, standard light B
        case 21, 19, 10: return 6500                     // D65, standard light C, cloudy
        case 22, 11: return 7500                         // D75, shade
        case 12: return (5700 + 7100) * 0.5              // daylight fluorescent
        case 13: return (4600 + 5500) * 0.5              // day white fluorescent
        case 14, 2: return (3800 + 4500) * 0.5           // cool white fluorescent, fluorescent
        case 15: return (3250 + 3800) * 0.5              // white fluorescent
        case 16: return (2600 + 3250) * 0.5              // warm white fluorescent
        default: return nil
        }
    }

    /// Weight of the lower-temperature calibration at white point `xy`: 1 at or below its temperature, 0 at or
    /// above the other's, linear in inverse temperature between (always 1 with one calibration).
    public func weight(at xy: SIMD2<Double>) -> Double {
        guard calibrations.count == 2 else { return 1 }
        let kelvin = ColorTemperature(xy: xy).kelvin
        if kelvin <= temperatures[0] { return 1 }
        if kelvin >= temperatures[1] { return 0 }
        return (1 / kelvin - 1 / temperatures[1]) / (1 / temperatures[0] - 1 / temperatures[1])
    }

    /// The blended matrices at white point `xy`: XYZtoCamera (= AB × CC × CM), the ForwardMatrix if any, and CC.
    public func matrices(at xy: SIMD2<Double>) -> (xyzToCamera: Matrix3, forwardMatrix: Matrix3?, cameraCalibration: Matrix3) {
        let g = weight(at: xy)
        let first = calibrations[0], second = calibrations.count == 2 ? calibrations[1] : calibrations[0]
        let colorMatrix = DNGColorModel.blend(first.colorMatrix, second.colorMatrix, g)
        let calibration = DNGColorModel.blend(first.cameraCalibration, second.cameraCalibration, g)
        var forward: Matrix3?
        switch (first.forwardMatrix, second.forwardMatrix) {
        case let (f1?, f2?): forward = DNGColorModel.blend(f1, f2, g)
        case let (f1?, nil): forward = f1
        case let (nil, f2?): forward = f2
        case (nil, nil): forward = nil
        }
        return (Matrix3.diagonal(analogBalance) * calibration * colorMatrix, forward, calibration)
    }

    /// The white point (xy) of camera neutral `neutral`: starting from D50, inverts the matrix blended for the
    /// current estimate until the estimate moves less than 1e-7 (30 passes at most, then the mean of the last two,
    /// as the SDK's `NeutralToXY`).
    public func whitePoint(neutral: SIMD3<Double>) -> SIMD2<Double> {
        var last = DNGColorModel.xy(of: CIE.d50)
        for pass in 0..<30 {
            var next = DNGColorModel.xy(of: matrices(at: last).xyzToCamera.inverse * neutral)
            if abs(next.x - last.x) + abs(next.y - last.y) < 1e-7 { return next }
            if pass == 29 { next = (next + last) / 2 }
            last = next
        }
        return last
    }

    /// The camera neutral (largest channel 1) of white point `xy` — the inverse of `whitePoint(neutral:)`.
    public func neutral(at xy: SIMD2<Double>) -> SIMD3<Double> {
        let n = matrices(at: xy).xyzToCamera * CIE.xyToXYZ(x: xy.x, y: xy.y)
        return (n / n.max()).clamped(lowerBound: SIMD3(repeating: 0.001), upperBound: SIMD3(repeating: 1))
    }

    /// Camera RGB (not white-balanced) → XYZ D50 for a picture whose neutral is `neutral`: the neutral, scaled so
    /// its largest channel is 1, maps to the D50 white with Y = 1.
    public func cameraToXYZD50(neutral: SIMD3<Double>) -> Matrix3 {
        let white = whitePoint(neutral: neutral)
        let whiteXYZ = CIE.xyToXYZ(x: white.x, y: white.y)
        let (xyzToCamera, forward, calibration) = matrices(at: white)
        if let forward {
            // The SDK balances with the camera white derived at the converged point (equal to the neutral there).
            let cameraWhite = self.neutral(at: white)
            let individualToReference = (Matrix3.diagonal(analogBalance) * calibration).inverse
            let referenceWhite = individualToReference * cameraWhite
            return forward * Matrix3.diagonal(1 / referenceWhite) * individualToReference
        }
        let pcsToCamera = xyzToCamera * CIE.bradfordAdaptation(from: CIE.d50, to: whiteXYZ)
        let scale = (pcsToCamera * CIE.d50).max()
        return DNGColorModel.scaled(pcsToCamera, 1 / scale).inverse
    }

    /// Camera RGB → linear RGB of `primaries` (LightWork's RAW working space by default, linear ProPhoto D50).
    public func cameraToRGB(neutral: SIMD3<Double>, primaries: RGBPrimaries = .proPhoto) -> Matrix3 {
        primaries.toXYZD50.inverse * cameraToXYZD50(neutral: neutral)
    }

    // MARK: - Helpers

    /// CIE xy of an XYZ colour (D50's when the colour has no positive sum, as the SDK does).
    static func xy(of xyz: SIMD3<Double>) -> SIMD2<Double> {
        let total = xyz.x + xyz.y + xyz.z
        guard total > 0 else { return xy(of: CIE.d50) }
        return SIMD2(xyz.x / total, xyz.y / total)
    }

    /// g × a + (1 − g) × b.
    static func blend(_ a: Matrix3, _ b: Matrix3, _ g: Double) -> Matrix3 {
        if g >= 1 { return a }
        if g <= 0 { return b }
        return Matrix3(flat: zip(a.m, b.m).map { g * $0 + (1 - g) * $1 })
    }

    static func scaled(_ a: Matrix3, _ s: Double) -> Matrix3 { Matrix3(flat: a.m.map { $0 * s }) }

    /// The SDK's `NormalizeColorMatrix`: rescales when D50 does not already reach 1 ± 1 % in the largest channel.
    static func normaliseColorMatrix(_ m: Matrix3) -> Matrix3 {
        let largest = (m * CIE.d50).max()
        return largest > 0 && (largest < 0.99 || largest > 1.01) ? scaled(m, 1 / largest) : m
    }

    /// The SDK's `NormalizeForwardMatrix`: scales rows so camera (1, 1, 1) lands exactly on D50.
    static func normaliseForwardMatrix(_ m: Matrix3) -> Matrix3 {
        let white = m * SIMD3(1, 1, 1)
        guard white.min() > 0 else { return m }
        return Matrix3.diagonal(CIE.d50 / white) * m
    }
}
