import Foundation

/// A DNG camera profile: the colour tags a DCP file ("IIRC" container) or a DNG's IFD0 carries, as the DNG 1.6
/// specification defines them (chapter 6, "Camera Profiles"). Read defensively through `TIFFStructure`: every tag is
/// checked for type, count and values, and a profile that cannot be used as the specification says is refused with
/// the tag and the reason, never used in part.
public struct CameraProfile: Sendable, Equatable {
    /// UniqueCameraModel: the camera the profile was made for (what `auto` matches).
    public var uniqueCameraModel: String?
    /// ProfileName.
    public var name: String?
    /// CalibrationIlluminant1/2 (EXIF LightSource codes), one per ColorMatrix.
    public var illuminants: [Int]
    /// ColorMatrix1/2: XYZ → reference camera space.
    public var colorMatrices: [Matrix3]
    /// ForwardMatrix1/2 (empty when the profile has none).
    public var forwardMatrices: [Matrix3]
    /// ProfileHueSatMapData1/2 with ProfileHueSatMapDims and ProfileHueSatMapEncoding (empty when none).
    public var hueSatMaps: [ProfileTable]
    /// ProfileLookTableData with its dims and encoding.
    public var lookTable: ProfileTable?
    /// ProfileToneCurve.
    public var toneCurve: ProfileToneCurve?
    /// BaselineExposureOffset (EV), added to the raw file's BaselineExposure.
    public var baselineExposureOffset: Double
    /// DefaultBlackRender: 0 auto, 1 none (recorded: LightWork does no automatic black subtraction either way).
    public var defaultBlackRender: Int
    /// SHA-256 of the bytes read (the DCP file, or the DNG for an embedded profile).
    public var sha256: String

    /// DNG tag numbers the reader knows.
    enum Tag {
        static let uniqueCameraModel: UInt16 = 50708, colorMatrix1: UInt16 = 50721, colorMatrix2: UInt16 = 50722
        static let illuminant1: UInt16 = 50778, illuminant2: UInt16 = 50779, profileName: UInt16 = 50936
        static let hueSatDims: UInt16 = 50937, hueSatData1: UInt16 = 50938, hueSatData2: UInt16 = 50939
        static let toneCurve: UInt16 = 50940, forwardMatrix1: UInt16 = 50964, forwardMatrix2: UInt16 = 50965
        static let lookDims: UInt16 = 50981, lookData: UInt16 = 50982, hueSatEncoding: UInt16 = 51107
        static let lookEncoding: UInt16 = 51108, baselineExposureOffset: UInt16 = 51109, defaultBlackRender: UInt16 = 51110
    }

    /// Whether the profile does anything beyond its matrices (tables, tone curve or an exposure offset).
    public var hasRenderingSteps: Bool {
        !hueSatMaps.isEmpty || lookTable != nil || toneCurve != nil || baselineExposureOffset != 0
    }

    /// A short description for the manifest: the name, the camera and what the profile holds.
    public var summary: String {
        var steps: [String] = []
        if let h = hueSatMaps.first { steps.append("HueSatMap \(h.dimensionsText)\(hueSatMaps.count == 2 ? " ×2" : "")") }
        if let l = lookTable { steps.append("LookTable \(l.dimensionsText)") }
        if let t = toneCurve { steps.append("ToneCurve \(t.points.count) points") }
        if baselineExposureOffset != 0 { steps.append(String(format: "BaselineExposureOffset %+.2f EV", baselineExposureOffset)) }
        return "\(name ?? "unnamed") for \(uniqueCameraModel ?? "any camera")" + (steps.isEmpty ? ", matrices only" : ", " + steps.joined(separator: ", "))
    }

    /// Reads a DCP file's bytes (or a DNG's: its IFD0 holds the same tags). `file` names it in errors.
    public static func read(_ data: [UInt8], file: String) throws -> CameraProfile {
        guard let tiff = TIFFStructure(magic: .withCameraProfile, data), let ifd0 = tiff.directory(at: tiff.firstDirectory) else {
            throw refusal(file, "header", "not a DNG camera profile (no IIRC/MMCR or TIFF header with a readable first directory)")
        }
        return try read(ifd0, in: tiff, file: file, sha256: SHA256.hex(Data(data)))
    }

    /// Reads the profile tags of `ifd` (a DCP's only directory, or a DNG's IFD0).
    static func read(_ ifd: TIFFStructure.Directory, in tiff: TIFFStructure, file: String, sha256: String) throws -> CameraProfile {
        let reader = TagReader(tiff: tiff, ifd: ifd, file: file)
        var matrices: [Matrix3] = [], illuminants: [Int] = [], forward: [Matrix3] = []
        for (cm, ill, fm) in [(Tag.colorMatrix1, Tag.illuminant1, Tag.forwardMatrix1), (Tag.colorMatrix2, Tag.illuminant2, Tag.forwardMatrix2)] {
            guard let m = try reader.matrix(cm, "ColorMatrix") else { break }
            matrices.append(m)
            illuminants.append(try reader.integer(ill, "CalibrationIlluminant") ?? 0)
            if let f = try reader.matrix(fm, "ForwardMatrix") { forward.append(f) }
        }
        guard !matrices.isEmpty else { throw refusal(file, "ColorMatrix1", "missing (a camera profile needs one)") }
        guard forward.isEmpty || forward.count == matrices.count else {
            throw refusal(file, "ForwardMatrix", "\(forward.count) forward matrices for \(matrices.count) colour matrices")
        }
        var maps: [ProfileTable] = []
        if let dims = try reader.dimensions(Tag.hueSatDims, "ProfileHueSatMapDims") {
            let encoding = try reader.encoding(Tag.hueSatEncoding, "ProfileHueSatMapEncoding")
            for tag in [Tag.hueSatData1, Tag.hueSatData2] {
                if let data = try reader.floats(tag, "ProfileHueSatMapData", count: dims.count * 3) {
                    maps.append(try ProfileTable(dims, data: data, encoding: encoding, file: file, tag: "ProfileHueSatMapData"))
                }
            }
        }
        var look: ProfileTable?
        if let dims = try reader.dimensions(Tag.lookDims, "ProfileLookTableDims"),
           let data = try reader.floats(Tag.lookData, "ProfileLookTableData", count: dims.count * 3) {
            look = try ProfileTable(dims, data: data, encoding: try reader.encoding(Tag.lookEncoding, "ProfileLookTableEncoding"), file: file, tag: "ProfileLookTableData")
        }
        var tone: ProfileToneCurve?
        if let values = try reader.floats(Tag.toneCurve, "ProfileToneCurve", count: nil) {
            tone = try ProfileToneCurve(values: values, file: file)
        }
        let offset = try reader.signedRational(Tag.baselineExposureOffset, "BaselineExposureOffset") ?? 0
        guard abs(offset) <= 10 else { throw refusal(file, "BaselineExposureOffset", "\(offset) EV is not a plausible exposure") }
        return CameraProfile(uniqueCameraModel: reader.text(Tag.uniqueCameraModel), name: reader.text(Tag.profileName),
                             illuminants: illuminants, colorMatrices: matrices, forwardMatrices: forward, hueSatMaps: maps,
                             lookTable: look, toneCurve: tone, baselineExposureOffset: offset,
                             defaultBlackRender: try reader.integer(Tag.defaultBlackRender, "DefaultBlackRender") ?? 0, sha256: sha256)
    }

    /// The profile's matrices as a `DNGColorModel` (CameraCalibration identity: a profile's matrices describe the
    /// reference camera), with the raw file's AnalogBalance.
    public func colorModel(analogBalance: SIMD3<Double>) -> DNGColorModel {
        let calibrations = colorMatrices.indices.map { i in
            DNGColorModel.Calibration(illuminant: illuminants[i], colorMatrix: colorMatrices[i],
                                      forwardMatrix: forwardMatrices.isEmpty ? nil : forwardMatrices[i])
        }
        return DNGColorModel(calibrations, analogBalance: analogBalance)
    }

    /// The weight of table 1 (HueSatMapData1) at white `xy`: the same inverse-temperature weight the specification
    /// gives ColorMatrix1 (1 with one illuminant, or two the model cannot order).
    public func weightOfFirst(at xy: SIMD2<Double>) -> Double {
        guard illuminants.count == 2, let t1 = DNGColorModel.temperature(ofLightSource: illuminants[0]),
              let t2 = DNGColorModel.temperature(ofLightSource: illuminants[1]), t1 != t2 else { return 1 }
        let kelvin = ColorTemperature(xy: xy).kelvin
        let (low, high) = (min(t1, t2), max(t1, t2))
        let lowWeight = kelvin <= low ? 1 : kelvin >= high ? 0 : (1 / kelvin - 1 / high) / (1 / low - 1 / high)
        return t1 < t2 ? lowWeight : 1 - lowWeight
    }

    /// The HueSatMap for white `xy`: the two maps blended entry by entry by `weightOfFirst`, or the one there is.
    public func hueSatMap(at xy: SIMD2<Double>) -> ProfileTable? {
        guard let first = hueSatMaps.first else { return nil }
        guard hueSatMaps.count == 2 else { return first }
        return ProfileTable.blend(first, hueSatMaps[1], weightOfFirst(at: xy))
    }

    static func refusal(_ file: String, _ tag: String, _ reason: String) -> LightWorkError {
        .invalidDocument(file: file, path: tag, reason: reason)
    }

    /// Typed, bounded reads of one directory's tags; a tag present with the wrong type or count is an error.
    struct TagReader {
        let tiff: TIFFStructure
        let ifd: TIFFStructure.Directory
        let file: String

        /// The largest table read (entries × 3 floats): 256 × 256 × 64 is far above any shipped profile's.
        static let maxFloats = 3 * 256 * 256 * 64

        func text(_ tag: UInt16) -> String? { ifd[tag].flatMap { tiff.ascii($0, limit: 4096) } }

        func integer(_ tag: UInt16, _ name: String) throws -> Int? {
            guard let e = ifd[tag] else { return nil }
            guard let v = tiff.integer(e) else { throw refusal(file, name, "unreadable (type \(e.type), count \(e.count))") }
            return v
        }

        func dimensions(_ tag: UInt16, _ name: String) throws -> ProfileTable.Dimensions? {
            guard let e = ifd[tag] else { return nil }
            let v = tiff.integers(e, limit: 3)
            guard v.count == 3 else { throw refusal(file, name, "needs three LONG values (type \(e.type), count \(e.count))") }
            guard v[0] >= 1, v[1] >= 2, v[2] >= 1, v[0] <= 256, v[1] <= 256, v[2] <= 64 else {
                throw refusal(file, name, "\(v[0]) × \(v[1]) × \(v[2]) divisions are outside 1…256 hues, 2…256 saturations, 1…64 values")
            }
            return ProfileTable.Dimensions(hues: v[0], saturations: v[1], values: v[2])
        }

        func encoding(_ tag: UInt16, _ name: String) throws -> ProfileTable.Encoding {
            guard let code = try integer(tag, name) else { return .linear }
            guard let e = ProfileTable.Encoding(rawValue: code) else { throw refusal(file, name, "unknown encoding \(code) (0 linear, 1 sRGB)") }
            return e
        }

        /// FLOAT values of `tag`: exactly `count` when given; every one finite.
        func floats(_ tag: UInt16, _ name: String, count: Int?) throws -> [Float]? {
            guard let e = ifd[tag] else { return nil }
            guard e.type == 11 else { throw refusal(file, name, "is of type \(e.type), not FLOAT") }
            if let count, e.count != count { throw refusal(file, name, "holds \(e.count) values where its dims need \(count)") }
            guard e.count > 0, e.count <= TagReader.maxFloats, let bytes = tiff.valueBytes(e) else {
                throw refusal(file, name, "\(e.count) values do not lie inside the file")
            }
            var out = [Float](repeating: 0, count: e.count)
            for i in 0..<e.count {
                let bits = UInt32(truncatingIfNeeded: TIFFStructure.u32(bytes, 4 * i, little: tiff.littleEndian))
                out[i] = Float(bitPattern: bits)
                guard out[i].isFinite else { throw refusal(file, name, "value \(i) is not finite") }
            }
            return out
        }

        func signedRationals(_ e: TIFFStructure.Entry) -> [Double]? {
            guard e.type == 10 || e.type == 5, let bytes = tiff.valueBytes(e), e.count <= 16 else { return nil }
            var out: [Double] = []
            for i in 0..<e.count {
                let num = UInt32(truncatingIfNeeded: TIFFStructure.u32(bytes, 8 * i, little: tiff.littleEndian))
                let den = UInt32(truncatingIfNeeded: TIFFStructure.u32(bytes, 8 * i + 4, little: tiff.littleEndian))
                guard den != 0 else { return nil }
                out.append(e.type == 5 ? Double(num) / Double(den) : Double(Int32(bitPattern: num)) / Double(Int32(bitPattern: den)))
            }
            return out
        }

        func signedRational(_ tag: UInt16, _ name: String) throws -> Double? {
            guard let e = ifd[tag] else { return nil }
            guard e.count == 1, let v = signedRationals(e)?.first else { throw refusal(file, name, "needs one SRATIONAL with a non-zero denominator") }
            return v
        }

        /// A 3 × 3 matrix (nine SRATIONALs).
        func matrix(_ tag: UInt16, _ name: String) throws -> Matrix3? {
            guard let e = ifd[tag] else { return nil }
            guard e.count == 9, let v = signedRationals(e), v.count == 9 else {
                throw refusal(file, name, "needs nine SRATIONALs with non-zero denominators (type \(e.type), count \(e.count))")
            }
            let m = Matrix3(flat: v)
            guard m.determinant.isFinite, abs(m.determinant) > 1e-12 else { throw refusal(file, name, "is singular") }
            return m
        }
    }
}

/// A HueSatMap or LookTable: per (hue, saturation, value) grid point a hue shift in degrees, a saturation scale and
/// a value scale, applied in linear ProPhoto RGB through HSV (the specification's "ProfileHueSatMapData").
public struct ProfileTable: Sendable, Equatable {
    public struct Dimensions: Sendable, Equatable {
        public var hues: Int, saturations: Int, values: Int
        public var count: Int { hues * saturations * values }
        public init(hues: Int, saturations: Int, values: Int) { (self.hues, self.saturations, self.values) = (hues, saturations, values) }
    }

    /// How the value axis is indexed (ProfileHueSatMapEncoding / ProfileLookTableEncoding).
    public enum Encoding: Int, Sendable { case linear = 0, sRGB = 1 }

    public let dims: Dimensions
    /// hue shift, saturation scale, value scale per entry; value-major, then hue, then saturation.
    public let data: [Float]
    public let encoding: Encoding

    public var dimensionsText: String { "\(dims.hues)×\(dims.saturations)×\(dims.values)" }
    /// A table with one value division is 2.5-D: the same hue/saturation map at every brightness.
    public var isThreeDimensional: Bool { dims.values > 1 }

    public init(_ dims: Dimensions, data: [Float], encoding: Encoding = .linear, file: String = "table", tag: String = "data") throws {
        guard data.count == dims.count * 3 else { throw CameraProfile.refusal(file, tag, "\(data.count) values where \(dims.count * 3) are needed") }
        for i in stride(from: 0, to: data.count, by: 3) where data[i + 1] < 0 || data[i + 2] < 0 {
            throw CameraProfile.refusal(file, tag, "entry \(i / 3) scales saturation or value by a negative amount")
        }
        self.dims = dims
        self.data = data
        self.encoding = encoding
    }

    private init(dims: Dimensions, data: [Float], encoding: Encoding) { (self.dims, self.data, self.encoding) = (dims, data, encoding) }

    /// weight × a + (1 − weight) × b, entry by entry (the maps of one profile share dims and encoding).
    static func blend(_ a: ProfileTable, _ b: ProfileTable, _ weight: Double) -> ProfileTable {
        if !weight.isFinite || weight >= 1 || a.dims != b.dims { return a }
        if weight <= 0 { return b }
        let w = Float(weight)
        return ProfileTable(dims: a.dims, data: zip(a.data, b.data).map { w * $0 + (1 - w) * $1 }, encoding: a.encoding)
    }

    /// The table's (hue shift °, saturation scale, value scale) at hue `h` (0 ..< 6), saturation `s` and indexed value
    /// `v` (both 0 … 1): linear interpolation along each axis, hue wrapping round, saturation and value clamped at their ends.
    public func lookup(h: Double, s: Double, v: Double) -> SIMD3<Double> {
        let hScaled = h.isFinite ? min(max(h, 0), 6) * Double(dims.hues) / 6 : 0
        let s = s.isNaN ? 0 : s, v = v.isNaN ? 0 : v
        var h0 = Int(hScaled.rounded(.down))
        let hf = hScaled - Double(h0)
        h0 = ((h0 % dims.hues) + dims.hues) % dims.hues
        let h1 = (h0 + 1) % dims.hues
        let sScaled = min(max(s, 0), 1) * Double(dims.saturations - 1)
        let s0 = min(Int(sScaled), dims.saturations - 2), sf = sScaled - Double(s0)
        var v0 = 0, vf = 0.0
        if dims.values > 1 {
            let vScaled = min(max(v, 0), 1) * Double(dims.values - 1)
            v0 = min(Int(vScaled), dims.values - 2)
            vf = vScaled - Double(v0)
        }
        func entry(_ vi: Int, _ hi: Int, _ si: Int) -> SIMD3<Double> {
            let i = 3 * ((vi * dims.hues + hi) * dims.saturations + si)
            return SIMD3(Double(data[i]), Double(data[i + 1]), Double(data[i + 2]))
        }
        func plane(_ vi: Int) -> SIMD3<Double> {
            let low = entry(vi, h0, s0) * (1 - sf) + entry(vi, h0, s0 + 1) * sf
            let high = entry(vi, h1, s0) * (1 - sf) + entry(vi, h1, s0 + 1) * sf
            return low * (1 - hf) + high * hf
        }
        return dims.values > 1 ? plane(v0) * (1 - vf) + plane(v0 + 1) * vf : plane(0)
    }

    /// Applies the table to one linear ProPhoto RGB colour. Negative channels are taken as 0 for the HSV (as the DNG
    /// SDK's reference does); with the sRGB encoding the value axis is indexed and scaled in sRGB-encoded value, and
    /// a value above 1 is scaled linearly (not clipped).
    public func apply(_ rgb: SIMD3<Double>) -> SIMD3<Double> {
        var (h, s, v) = ProfileTable.hsv(ProfileTable.finite(rgb, upTo: .greatestFiniteMagnitude))
        let indexed = encoding == .sRGB ? TransferFunction.sRGB.encode(min(v, 1)) : v
        let m = lookup(h: h, s: s, v: indexed)
        h += m.x * 6 / 360
        s = min(s * m.y, 1)
        if encoding == .sRGB, v <= 1 {
            v = TransferFunction.sRGB.decode(min(indexed * m.z, 1))
        } else {
            v *= m.z
        }
        return ProfileTable.rgb(h: h, s: s, v: v)
    }

    /// `c` with NaN as 0 and every channel in 0 … `limit` (so no later index or conversion can trap).
    static func finite(_ c: SIMD3<Double>, upTo limit: Double) -> SIMD3<Double> {
        SIMD3(c.x.isNaN ? 0 : min(max(c.x, 0), limit), c.y.isNaN ? 0 : min(max(c.y, 0), limit), c.z.isNaN ? 0 : min(max(c.z, 0), limit))
    }

    /// RGB → (hue 0 ..< 6, saturation, value) of the hexcone model.
    static func hsv(_ c: SIMD3<Double>) -> (Double, Double, Double) {
        let v = c.max(), gap = v - c.min()
        guard gap > 0, v > 0 else { return (0, 0, v) }
        var h: Double
        if c.x == v { h = (c.y - c.z) / gap; if h < 0 { h += 6 } }
        else if c.y == v { h = 2 + (c.z - c.x) / gap }
        else { h = 4 + (c.x - c.y) / gap }
        if h >= 6 { h -= 6 }
        return (h, gap / v, v)
    }

    /// (hue, saturation, value) → RGB; hue wraps into 0 ..< 6.
    static func rgb(h: Double, s: Double, v: Double) -> SIMD3<Double> {
        guard s > 0, h.isFinite else { return SIMD3(repeating: v) }
        var hue = h.truncatingRemainder(dividingBy: 6)
        if hue < 0 { hue += 6 }
        let i = min(Int(hue), 5), f = hue - Double(i)
        let p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f))
        switch i {
        case 0: return SIMD3(v, t, p)
        case 1: return SIMD3(q, v, p)
        case 2: return SIMD3(p, v, t)
        case 3: return SIMD3(p, q, v)
        case 4: return SIMD3(t, p, v)
        default: return SIMD3(v, p, q)
        }
    }
}

/// ProfileToneCurve: (input, output) pairs on 0 … 1, interpolated by the DNG SDK's spline (a cubic Hermite whose
/// slope at each point is the neighbouring chords' slopes weighted by the other chord's width), applied to RGB so
/// hue is kept: the largest and smallest channels go through the curve and the middle keeps its place between them.
public struct ProfileToneCurve: Sendable, Equatable {
    public let points: [SIMD2<Double>]
    let slopes: [Double]

    /// `values` as the tag stores them: x0, y0, x1, y1, … with x rising from 0 to 1.
    public init(values: [Float], file: String = "tone curve") throws {
        guard values.count >= 4, values.count % 2 == 0 else {
            throw CameraProfile.refusal(file, "ProfileToneCurve", "\(values.count) values are not two or more (x, y) pairs")
        }
        let points = stride(from: 0, to: values.count, by: 2).map { SIMD2(Double(values[$0]), Double(values[$0 + 1])) }
        guard points.first!.x == 0, points.last!.x == 1, zip(points, points.dropFirst()).allSatisfy({ $0.x < $1.x }),
              points.allSatisfy({ (0...1).contains($0.y) }) else {
            throw CameraProfile.refusal(file, "ProfileToneCurve", "its inputs must rise strictly from 0 to 1 and its outputs lie in 0…1")
        }
        self.points = points
        slopes = ProfileToneCurve.slopes(points)
    }

    static func slopes(_ p: [SIMD2<Double>]) -> [Double] {
        let n = p.count
        var s = [Double](repeating: 0, count: n)
        guard n > 2 else {
            let chord = (p[1].y - p[0].y) / (p[1].x - p[0].x)
            return [chord, chord]
        }
        var a = p[1].x - p[0].x, b = (p[1].y - p[0].y) / a
        s[0] = b
        for j in 2..<n {
            let c = p[j].x - p[j - 1].x, d = (p[j].y - p[j - 1].y) / c
            s[j - 1] = (b * c + d * a) / (a + c)
            (a, b) = (c, d)
        }
        s[n - 1] = 2 * b - s[n - 2]
        s[0] = 2 * s[0] - s[1]
        return s
    }

    /// The curve at `x` (clamped to 0 … 1).
    public func evaluate(_ x: Double) -> Double {
        let x = min(max(x, 0), 1)
        let low = segment(x), high = low + 1
        let (p0, p1) = (points[low], points[high])
        let width = p1.x - p0.x, t = (x - p0.x) / width
        let t2 = t * t, t3 = t2 * t
        return (2 * t3 - 3 * t2 + 1) * p0.y + (t3 - 2 * t2 + t) * width * slopes[low]
            + (-2 * t3 + 3 * t2) * p1.y + (t3 - t2) * width * slopes[high]
    }

    /// The segment holding `x` (0 … 1): the last `i` with `points[i].x <= x`, the one before the end at 1. Tone
    /// curves are mostly evenly spaced, so the index `x` would have on an even grid is tried first; the binary search
    /// decides when it misses. Inputs rise strictly, so both give the one answer.
    func segment(_ x: Double) -> Int {
        let last = points.count - 2
        let guess = min(last, max(0, Int(x * Double(last + 1))))
        if points[guess].x <= x, guess == last || x < points[guess + 1].x { return guess }
        var low = 0, high = points.count - 1
        while high - low > 1 {
            let mid = (low + high) / 2
            if points[mid].x <= x { low = mid } else { high = mid }
        }
        return low
    }

    /// The curve applied to an RGB colour, keeping its hue: channels are clamped to 0 … 1, the largest and smallest
    /// mapped through the curve, the middle one placed between them in the same proportion as before.
    public func apply(_ rgb: SIMD3<Double>) -> SIMD3<Double> {
        let c = ProfileTable.finite(rgb, upTo: 1)
        let hi = c.max(), lo = c.min()
        let hiOut = evaluate(hi), loOut = evaluate(lo)
        guard hi > lo else { return SIMD3(repeating: hiOut) }
        var out = SIMD3<Double>()
        for i in 0..<3 {
            out[i] = c[i] == hi ? hiOut : c[i] == lo ? loOut : loOut + (hiOut - loOut) * (c[i] - lo) / (hi - lo)
        }
        return out
    }
}
