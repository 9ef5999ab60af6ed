import CLCMS2
import CShims
import Foundation

/// The three pictures the HTML report shows per case, as PNG bytes (embedded there as data: URIs): shown small,
/// opened at this size on a click.
public struct CaseThumbnails: Sendable {
    public var golden: Data?
    public var candidate: Data?
    public var heatMap: Data?

    public init(golden: Data? = nil, candidate: Data? = nil, heatMap: Data? = nil) {
        self.golden = golden
        self.candidate = candidate
        self.heatMap = heatMap
    }
}

/// Small 8-bit sRGB PNGs for the report: an image shown through its own profile, and a ΔE heat-map.
public enum Thumbnail {
    /// The report's pictures are kept up to this long edge: a suite's 160 px goldens whole, a full-size chart
    /// render reduced so the page stays a few megabytes.
    public static let reportEdge = 768

    /// The heat-map's colour stops (ΔE00, sRGB): black where nothing changed, blue below 1, yellow at the usual
    /// 2.3 limit, red from 5.
    public static let heatStops: [(Double, SIMD3<Double>)] = [
        (0, SIMD3(0, 0, 0)), (0.5, SIMD3(30, 30, 120)), (1, SIMD3(0, 120, 200)), (2.3, SIMD3(245, 220, 0)), (5, SIMD3(230, 0, 0)),
    ]

    /// `file` box-filtered to at most `maxEdge` pixels on its long side and converted to sRGB through its own
    /// profile (sRGB assumed when it has none), as PNG.
    public static func png(_ file: ImageFile, maxEdge: Int = 240) throws -> Data {
        let small = try sRGB8(file, maxEdge: maxEdge)
        return try png(rgb: small.rgb, width: small.width, height: small.height)
    }

    /// `file` box-filtered by a whole `step` to at most `maxEdge` on its long side, as 8-bit sRGB through its profile.
    static func sRGB8(_ file: ImageFile, maxEdge: Int) throws -> (rgb: [UInt8], width: Int, height: Int, step: Int) {
        let (w, h, step) = size(width: file.width, height: file.height, maxEdge: maxEdge)
        let colours = file.channels <= 2 ? 1 : 3
        var small = [UInt16](repeating: 0, count: w * h * colours)
        let widen = file.bitDepth == 8 ? 257 : 1
        for ty in 0..<h {
            for tx in 0..<w {
                var sum = [Int](repeating: 0, count: colours), n = 0
                for y in (ty * step)..<min(file.height, (ty + 1) * step) {
                    for x in (tx * step)..<min(file.width, (tx + 1) * step) {
                        let i = (y * file.width + x) * file.channels
                        for c in 0..<colours { sum[c] += Int(file.samples[i + c]) * widen }
                        n += 1
                    }
                }
                for c in 0..<colours { small[(ty * w + tx) * colours + c] = UInt16(sum[c] / max(n, 1)) }
            }
        }
        lw_lcms_quiet()
        let source = file.iccProfile.flatMap { ICCProfile(data: $0) } ?? ICCProfile(data: ICCProfile.embedded(for: .srgb))!
        let srgb = ICCProfile(data: ICCProfile.embedded(for: .srgb))!
        guard let t = cmsCreateTransform(source.handle, colours == 1 ? LW_TYPE_GRAY_16 : LW_TYPE_RGB_16, srgb.handle, LW_TYPE_RGB_8,
                                         UInt32(INTENT_RELATIVE_COLORIMETRIC), 0) else {
            throw LightWorkError.colour("LittleCMS cannot show \"\(source.profileDescription)\" as sRGB")
        }
        defer { cmsDeleteTransform(t) }
        var rgb = [UInt8](repeating: 0, count: w * h * 3)
        cmsDoTransform(t, small, &rgb, cmsUInt32Number(w * h))
        return (rgb, w, h, step)
    }

    /// Per-pixel ΔE as colours (`heatStops`), reduced to at most `maxEdge` by the largest value in each block, so a
    /// single bad pixel stays visible.
    public static func heatMapPNG(deltaE: [Double], width: Int, height: Int, maxEdge: Int = 240) throws -> Data {
        let (w, h, step) = size(width: width, height: height, maxEdge: maxEdge)
        var rgb = [UInt8](repeating: 0, count: w * h * 3)
        for ty in 0..<h {
            for tx in 0..<w {
                var worst = 0.0
                for y in (ty * step)..<min(height, (ty + 1) * step) {
                    for x in (tx * step)..<min(width, (tx + 1) * step) { worst = max(worst, deltaE[y * width + x]) }
                }
                let c = heatColour(worst)
                for k in 0..<3 { rgb[(ty * w + tx) * 3 + k] = UInt8(c[k].rounded()) }
            }
        }
        return try png(rgb: rgb, width: w, height: h)
    }

    /// The heat-map colour of one ΔE00 value.
    public static func heatColour(_ deltaE: Double) -> SIMD3<Double> {
        guard deltaE > 0 else { return heatStops[0].1 }
        for i in 1..<heatStops.count where deltaE <= heatStops[i].0 {
            let (a, ca) = heatStops[i - 1], (b, cb) = heatStops[i]
            let t = (deltaE - a) / (b - a)
            return ca + (cb - ca) * t
        }
        return heatStops.last!.1
    }

    /// Thumbnail size and the integer block each thumbnail pixel covers.
    static func size(width: Int, height: Int, maxEdge: Int) -> (Int, Int, Int) {
        let step = max(1, Int((Double(max(width, height)) / Double(maxEdge)).rounded(.up)))
        return ((width + step - 1) / step, (height + step - 1) / step, step)
    }

    /// 8-bit RGB as a PNG tagged with LightWork's sRGB profile.
    static func png(rgb: [UInt8], width: Int, height: Int) throws -> Data {
        var pixels = EncodedPixels(width: width, height: height, channels: 3, depth: .eight)
        pixels.samples8 = rgb
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("lightwork-thumb-\(UUID().uuidString).png")
        defer { try? FileManager.default.removeItem(at: url) }
        try PNGWriter().write(pixels, settings: EncodeSettings(format: .png, pngCompressionLevel: 6, iccProfile: ICCProfile.embedded(for: .srgb)), to: url)
        return try Data(contentsOf: url)
    }
}
