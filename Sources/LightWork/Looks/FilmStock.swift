import Foundation

/// One film look as documented parameters, evaluated on sRGB-encoded values in 0…1.
///
/// Order of operations: channel mixer → (mono films) black-and-white mixer → saturation around Rec. 709 luma
/// → master tone curve → per-channel curves (colour casts, cross-processing) → split toning (a colour added in
/// the shadows with weight (1−L)², another in the highlights with weight L²) → black lift and white roll-off
/// (`out = blackLift + (whitePoint − blackLift) · v`) → clamp to 0…1.
public struct FilmStock: Sendable, Equatable {
    /// Display name; `\n` marks where the app's button wraps it.
    public var name: String
    /// One-sentence character of the look (the catalog's `filterDescription`).
    public var summary: String
    /// Seven digits: category + pack + film.
    public var lookupId: String
    /// The lookup image's file name in Profiles/films.
    public var imageName: String

    /// Colour crosstalk, rows = output R, G, B (identity = none).
    public var mixer: Matrix3 = .identity
    /// Black-and-white films: weights of R, G, B in the grey value (summing to 1); nil for colour.
    public var monochrome: SIMD3<Double>? = nil
    /// Chroma scale around luma (1 = unchanged, 0 = grey).
    public var saturation: Double = 1
    /// Curve applied to all three channels.
    public var tone: ToneCurve = .identity
    public var red: ToneCurve = .identity
    public var green: ToneCurve = .identity
    public var blue: ToneCurve = .identity
    /// RGB offset added in the shadows (weight (1 − L)²).
    public var shadowTint: SIMD3<Double> = .zero
    /// RGB offset added in the highlights (weight L²).
    public var highlightTint: SIMD3<Double> = .zero
    /// Output level of black (a faded, lifted toe).
    public var blackLift: Double = 0
    /// Output level of white (a rolled-off, dimmer paper white).
    public var whitePoint: Double = 1

    public init(name: String, summary: String, lookupId: String, imageName: String) {
        self.name = name
        self.summary = summary
        self.lookupId = lookupId
        self.imageName = imageName
    }

    static let luma = SIMD3<Double>(0.2126, 0.7152, 0.0722)

    /// The look applied to one sRGB-encoded colour.
    public func transform(_ input: SIMD3<Double>) -> SIMD3<Double> {
        var c = mixer * input
        if let mono = monochrome {
            let y = (mono * c).sum()
            c = SIMD3(repeating: y)
        }
        let y = (FilmStock.luma * c).sum()
        c = SIMD3(repeating: y) + (c - SIMD3(repeating: y)) * saturation
        c = SIMD3(red(tone(c.x)), green(tone(c.y)), blue(tone(c.z)))
        let l = min(max((FilmStock.luma * c).sum(), 0), 1)
        c += shadowTint * ((1 - l) * (1 - l)) + highlightTint * (l * l)
        c = c.clamped(lowerBound: .zero, upperBound: .one)
        c = SIMD3(repeating: blackLift) + c * (whitePoint - blackLift)
        return c.clamped(lowerBound: .zero, upperBound: .one)
    }

    /// The look as a LUT on the 0…1 sRGB-encoded domain (64 points per axis by default, as lookup images hold).
    public func lut(size: Int = 64) -> LUT3D {
        LUT3D(size: size, title: name.replacingOccurrences(of: "\n", with: " ")) { p in
            let o = transform(SIMD3(Double(p.x), Double(p.y), Double(p.z)))
            return SIMD3(Float(o.x), Float(o.y), Float(o.z))
        }
    }
}
