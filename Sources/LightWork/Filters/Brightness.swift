import Foundation

/// Exposure-like brightness in linear light: `brightness` is in EV (−2…+2; 0 = unchanged).
///
/// Darkening multiplies R, G and B by 2^EV. Brightening multiplies by 2^EV up to a knee (linear 0.5,
/// about sRGB 0.74) and then rolls highlights off along a rational shoulder chosen so that white stays
/// white and values above white (RAW headroom) compress towards a finite limit instead of clipping hard.
/// The shoulder acts on luminance (Rec. 709 weights, close to ProPhoto's own) and scales R, G and B by
/// one factor, so hue and saturation are kept and the RAW and RGB paths agree.
public struct Brightness: DescribedFilter {
    /// Exposure change in EV.
    public let ev: Double

    /// Linear-light level up to which brightening is a plain multiply.
    static let knee: Float = 0.5

    public init(ev: Double) { self.ev = ev }
    public init(values: FilterValues) { self.init(ev: values["brightness"]) }

    public var isNeutral: Bool { ev == 0 }

    public func apply(_ band: PixelBand, _ context: RenderContext) {
        if ev == 0 { return }
        let gain = Float(exp2(ev))
        let n = band.count
        let r = band.r, g = band.g, b = band.b
        if ev < 0 {
            for i in 0..<n { r[i] *= gain; g[i] *= gain; b[i] *= gain }
            return
        }
        // Shoulder f(y) = k + (y − k) / (1 + (y − k) / c) on y = gain · Y: slope 1 at the knee, f(gain) = 1.
        let k = Brightness.knee
        let inverseC = Float((Double(gain) - 1) / ((Double(gain) - Double(k)) * (1 - Double(k))))
        // Both branches computed and one selected (one division for the shoulder), so the loop vectorises.
        for i in 0..<n {
            let y = (0.2126 * r[i] + 0.7152 * g[i] + 0.0722 * b[i]) * gain
            let over = y - k, d = 1 + over * inverseC
            let shoulder = gain * (k * d + over) / (y * d)
            let scale = y > k ? shoulder : gain
            r[i] *= scale; g[i] *= scale; b[i] *= scale
        }
    }
}

extension Brightness {
    public static let descriptor = FilterDescriptor(name: "brightness", stage: .pre, kind: .point, domain: .linear, summary: "Exposure in stops, in linear light.", parameters: [
        FilterParameter(name: "brightness", minValue: -2, maxValue: 2, unit: "EV", description: "Exposure in stops, in linear light: brightening rolls highlights off along a luminance shoulder so white stays white; darkening is a plain 2^value multiply."),
    ])
}
