import CShims
import Foundation

/// Decodes a RAW file with LightWork and with LibRaw's own `dcraw_emu` (Debian `libraw-bin`) at matching settings
/// and says whether the two agree on size, orientation and picture. Built to catch a decode that is wrong as a
/// whole (rows read with the wrong length, a mirror left out, a level off), not to grade demosaics: the pictures
/// are compared on the means of an N × N grid of regions, which demosaic differences barely move.
///
/// Matching settings: camera white balance (`-w`), linear 16-bit without auto-brightening (`-4`), linear
/// ProPhoto/ROMM D50, LightWork's RAW working space (`-o 4`), `adjust_maximum_thr` 0 (`-c 0`), highlights clipped
/// (`-H 0`) and the demosaic's LibRaw quality (`-q`). LightWork applies a DNG's BaselineExposure and LibRaw does not:
/// that known gain is taken out of LightWork's image before comparing (and reported in the figures).
public enum LibRawCrossCheck {
    /// What is compared and how strictly.
    /// LightWork's decode for the comparison unless told otherwise: the default settings with LightWork's AHD, the
    /// algorithm `dcraw_emu` runs, so the two pictures differ by the decode (geometry, levels, colour) and not by two
    /// demosaics' handling of fine texture (the default dual resolves a zone plate AHD blurs).
    public static var decodeOptions: DecodeOptions {
        var decode = DecodeOptions()
        decode.demosaic = .ahd
        return decode
    }

    public struct Settings: Sendable, Codable, Equatable {
        /// LightWork's decode (demosaic and colour model); `dcraw_emu` gets the demosaic's LibRaw quality.
        public var decode: DecodeOptions
        /// Regions per side of the comparison grid.
        public var grid = 8
        public var limits: Limits
        /// `decode` with the limits measured for its colour model.
        public init(decode: DecodeOptions = LibRawCrossCheck.decodeOptions) {
            self.decode = decode
            limits = Limits.measured(for: decode.colorModel)
        }
    }

    /// Largest differences that still count as agreement.
    public struct Limits: Sendable, Codable, Equatable {
        /// Per channel: |LightWork's mean / LibRaw's mean − 1|, in percent.
        public var levelPercent: Double
        /// |ΔL*| of the region means (both pictures scaled alike so that LibRaw's averages luminance 0.18): mean
        /// over the grid and largest region.
        public var lightnessMean: Double
        public var lightnessMax: Double
        /// CIEDE2000 of the region means.
        public var colourMean: Double
        public var colourMax: Double

        /// About twice to three times the largest differences measured on the shared camera samples, the repository's
        /// DNGs and generated DNGs (every orientation, odd CFA phases) with LibRaw 0.20.2, LightWork's AHD:
        /// `.dng` level 2.51 %, ΔL* mean 0.57 / max 2.06, ΔE00 mean 2.77 / max 6.64 (the DNG colour model adapts
        /// the white, LibRaw's does not: a tungsten shot differs most); `.libraw` level 0.46 %, ΔL* 0.11 / 1.32,
        /// ΔE00 0.48 / 4.76 (AHD differences on a zone plate). A wrong orientation or stretch measured ΔL* mean
        /// 7.4 or more.
        public static func measured(for colorModel: DecodeOptions.ColorModel) -> Limits {
            switch colorModel {
            case .dng: return Limits(levelPercent: 5, lightnessMean: 1.5, lightnessMax: 5, colourMean: 6, colourMax: 15)
            case .libraw: return Limits(levelPercent: 1.5, lightnessMean: 0.4, lightnessMax: 3.5, colourMean: 1.5, colourMax: 10)
            }
        }

        /// The limits in words (for `--help`).
        public var summary: String {
            String(format: "level ±%.1f %% per channel; region ΔL* mean %.2f, max %.1f; region ΔE00 mean %.2f, max %.1f",
                   levelPercent, lightnessMean, lightnessMax, colourMean, colourMax)
        }
    }

    /// Width and height in pixels.
    public struct PixelSize: Sendable, Codable, Equatable, CustomStringConvertible {
        public var width: Int
        public var height: Int
        public init(width: Int, height: Int) { self.width = width; self.height = height }
        public var description: String { "\(width)x\(height)" }
        var transposed: PixelSize { PixelSize(width: height, height: width) }
    }

    /// How far apart the region means are by one measure: mean and largest over the grid, and where the largest is.
    public struct Spread: Sendable, Codable, Equatable {
        public var mean: Double
        public var max: Double
        /// Column and row (0-based, on LibRaw's picture) of the region with the largest difference.
        public var worstRegion: [Int]
    }

    /// The grid comparison after turning LightWork's picture by `transform` (applied as the EXIF orientation of
    /// that number would be: `.up` compares as decoded).
    public struct RegionComparison: Sendable, Codable, Equatable {
        public var transform: Orientation
        /// |ΔL*| of the region means: the picture's structure, which the colour model barely moves.
        public var lightness: Spread
        /// CIEDE2000 of the region means: colour as well.
        public var colour: Spread
    }

    /// The measured figures of one file.
    public struct Figures: Sendable, Codable, Equatable {
        public var lightWorkSize: PixelSize
        public var libRawSize: PixelSize
        /// Mean R, G, B of the whole picture (0…1 of full scale), LightWork's with its BaselineExposure taken out.
        public var lightWorkMean: [Double]
        public var libRawMean: [Double]
        /// Per channel, LightWork's mean against LibRaw's, in percent (0 = equal).
        public var levelPercent: [Double]
        /// The picture as decoded.
        public var regions: RegionComparison
        /// The best of the eight turns and mirrors of LightWork's picture (names an orientation disagreement).
        public var bestTransform: RegionComparison
        /// The best transform other than `.up`'s own: how far apart the orientations are on this picture (a
        /// symmetric picture cannot show an orientation error; this says how well this one can).
        public var nearestOtherTransform: RegionComparison
        /// The DNG BaselineExposure LightWork applied and the comparison took out, in EV.
        public var baselineExposure: Double
        public var grid: Int
    }

    /// One reason the two decodes disagree.
    public enum Disagreement: Sendable, Codable, Equatable, CustomStringConvertible {
        /// LightWork refused a file LibRaw decoded.
        case lightWorkRefused(reason: String)
        /// LightWork made a picture of a file LibRaw (`dcraw_emu`) refuses.
        case libRawRefused(reason: String)
        case sizeDiffers(lightWork: PixelSize, libRaw: PixelSize)
        /// LibRaw's picture is LightWork's turned by `transform` (an EXIF orientation applied once more).
        case orientationDiffers(transform: Orientation, lightWork: PixelSize, libRaw: PixelSize)
        /// Whole-picture mean per channel, LightWork's against LibRaw's in percent (all three channels given).
        case levelDiffers(percent: [Double], limit: Double)
        /// The region means' lightness differs: a different picture (scrambled, stretched, shifted).
        case pictureDiffers(Spread, meanLimit: Double, maxLimit: Double)
        /// Same picture, different colour (CIEDE2000 of the region means).
        case colourDiffers(Spread, meanLimit: Double, maxLimit: Double)

        public var description: String {
            switch self {
            case .lightWorkRefused(let reason):
                return "LightWork refused a file LibRaw decodes: \(reason)"
            case .libRawRefused(let reason):
                return "LightWork made a picture of a file LibRaw refuses: \(reason)"
            case let .sizeDiffers(lw, lr):
                return "size differs: LightWork \(lw), LibRaw \(lr)"
            case let .orientationDiffers(t, lw, lr):
                return "orientation differs: LibRaw's picture is LightWork's \(LibRawCrossCheck.describe(t)) (as EXIF orientation \(t.rawValue) would turn it; LightWork \(lw), LibRaw \(lr))"
            case let .levelDiffers(p, limit):
                return "level differs: R \(Self.percent(p[0])), G \(Self.percent(p[1])), B \(Self.percent(p[2])) (limit ±\(String(format: "%.1f", limit)) %)"
            case let .pictureDiffers(d, meanLimit, maxLimit):
                return String(format: "picture differs: region lightness ΔL* mean %.2f (limit %.2f), max %.2f (limit %.2f) at region %d,%d",
                              d.mean, meanLimit, d.max, maxLimit, d.worstRegion[0], d.worstRegion[1])
            case let .colourDiffers(d, meanLimit, maxLimit):
                return String(format: "colour differs: region ΔE00 mean %.2f (limit %.2f), max %.2f (limit %.2f) at region %d,%d",
                              d.mean, meanLimit, d.max, maxLimit, d.worstRegion[0], d.worstRegion[1])
            }
        }

        static func percent(_ v: Double) -> String { String(format: "%+.2f %%", v) }
    }

    public enum Verdict: String, Sendable, Codable {
        /// Same size, orientation and picture within the limits.
        case agreed
        /// One or more reasons, in `reasons`.
        case disagreed
        /// Not compared: neither LightWork nor LibRaw (`dcraw_emu`) decodes the file.
        case notCompared = "not-compared"
    }

    /// The outcome for one file.
    public struct Result: Sendable, Codable, Equatable {
        public var file: String
        public var verdict: Verdict
        public var reasons: [Disagreement]
        /// `reasons` as sentences (and, when not compared, why).
        public var messages: [String]
        /// nil when one side produced no picture.
        public var figures: Figures?
        /// The `dcraw_emu` arguments used (output path left out).
        public var libRawCommand: [String]
    }

    /// `dcraw_emu`'s arguments for `decode` (the output path is added by the caller).
    public static func dcrawEmuArguments(for decode: DecodeOptions) -> [String] {
        ["-T", "-4", "-w", "-o", "4", "-c", "0", "-H", "0", "-q", String(decode.demosaic.libRawQuality)]
    }

    /// The `dcraw_emu` on PATH. Throws `missingTool` when there is none: without it nothing can be checked.
    public static func findDcrawEmu(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> URL {
        for dir in (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(dir)).appendingPathComponent("dcraw_emu")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw LightWorkError.missingTool("dcraw_emu (LibRaw's command-line decoder) is not on PATH: install Debian's libraw-bin (apt-get install libraw-bin)")
    }

    /// Decodes `url` both ways and compares. Throws only when `dcraw_emu` is missing or cannot be run; a file
    /// one side refuses is `disagreed` (with the refusal), one both refuse `notCompared` (with both reasons).
    public static func check(_ url: URL, settings: Settings = Settings(), dcrawEmu: URL? = nil, engine: EngineConfiguration = .detected) throws -> Result {
        let tool = try dcrawEmu ?? findDcrawEmu()
        let arguments = dcrawEmuArguments(for: settings.decode)
        var reference: ImageFile?
        var libRawRefusal = ""
        do {
            reference = try decodeWithLibRaw(url, tool: tool, arguments: arguments)
        } catch let error as LightWorkError where !error.isMissingTool {
            if case .decodeFailed(let why) = error { libRawRefusal = why } else { libRawRefusal = "\(error)" }
        }
        var decoded: DecodedImage?
        var baseline = 0.0
        var lightWorkRefusal = ""
        do {
            decoded = try RawDecoder.decode(url: url, options: settings.decode, engine: engine)
            baseline = try RawDecoder.baselineExposure(url: url, options: settings.decode)
        } catch {
            lightWorkRefusal = "\(error)"
        }
        guard let reference, let decoded else {
            if reference == nil, decoded == nil {
                return Result(file: url.path, verdict: .notCompared, reasons: [],
                              messages: ["neither decodes it: LibRaw (dcraw_emu): \(libRawRefusal); LightWork: \(lightWorkRefusal)"],
                              figures: nil, libRawCommand: arguments)
            }
            let reason: Disagreement = reference == nil ? .libRawRefused(reason: libRawRefusal) : .lightWorkRefused(reason: lightWorkRefusal)
            return Result(file: url.path, verdict: .disagreed, reasons: [reason], messages: [reason.description], figures: nil,
                          libRawCommand: arguments)
        }
        let (reasons, figures) = compare(lightWork: decoded.image, baselineExposure: baseline, libRaw: reference, settings: settings)
        return Result(file: url.path, verdict: reasons.isEmpty ? .agreed : .disagreed, reasons: reasons,
                      messages: reasons.map(\.description), figures: figures, libRawCommand: arguments)
    }

    /// Seconds `dcraw_emu` may take on one file (a 24 MP AHD decode takes about 2).
    public static let libRawTimeLimit: Double = 300

    /// Runs `dcraw_emu` on `url` into a temporary TIFF and reads it back (16-bit RGB samples, rows as written).
    /// Throws `decodeFailed` naming `dcraw_emu`'s own message when it fails or writes no image (it exits 0 on
    /// some files it cannot unpack).
    public static func decodeWithLibRaw(_ url: URL, tool: URL, arguments: [String]) throws -> ImageFile {
        guard FileManager.default.fileExists(atPath: url.path) else { throw LightWorkError.missingInput(url.path) }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("lightwork-libraw-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let output = dir.appendingPathComponent("libraw.tiff")
        let process = Process()
        process.executableURL = tool
        process.arguments = arguments + ["-Z", output.path, url.path]
        let stderr = Pipe()
        process.standardError = stderr
        process.standardOutput = FileHandle.nullDevice
        do { try process.run() } catch {
            throw LightWorkError.missingTool("cannot run \(tool.path): \(error.localizedDescription)")
        }
        // A file that sends dcraw_emu into a loop must not hang the check: it is stopped (this child only).
        let watchdog = DispatchWorkItem { [process] in if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + libRawTimeLimit, execute: watchdog)
        defer { watchdog.cancel() }
        let said = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .split(whereSeparator: \.isNewline).joined(separator: "; ")
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0,
              FileManager.default.fileExists(atPath: output.path) else {
            let how = process.terminationReason == .exit ? "exit \(process.terminationStatus)" : "signal \(process.terminationStatus)"
            throw LightWorkError.decodeFailed("dcraw_emu wrote no image (\(how))\(said.isEmpty ? "" : ": \(said)")")
        }
        let image = try ImageFileReader.read(output)
        guard image.channels == 3, image.bitDepth == 16 else {
            throw LightWorkError.decodeFailed("dcraw_emu wrote \(image.channels) channels of \(image.bitDepth) bits, not 16-bit RGB")
        }
        return image
    }

    /// Compares LightWork's decoded picture (its working space, linear ProPhoto) with LibRaw's 16-bit linear
    /// ProPhoto one. `baselineExposure` (EV) is the gain LightWork applied that LibRaw does not, taken out first.
    /// Public so that a deliberately altered picture can be shown to disagree.
    public static func compare(lightWork: WorkingImage, baselineExposure: Double = 0, libRaw: ImageFile,
                               settings: Settings = Settings()) -> (reasons: [Disagreement], figures: Figures) {
        let n = max(1, settings.grid), limits = settings.limits
        let lwSize = PixelSize(width: lightWork.width, height: lightWork.height)
        let lrSize = PixelSize(width: libRaw.width, height: libRaw.height)
        let lwGrid = RegionGrid(lightWork, cells: n, gain: pow(2, -baselineExposure))
        let lrGrid = RegionGrid(libRaw, cells: n)

        // One scale for both (LibRaw's picture to mean luminance 0.18), so a level difference stays one.
        let toXYZ = WorkingSpace.rawLinear.primaries.toXYZD50
        let luminance = (toXYZ * lrGrid.mean).y
        let scale = luminance > 1e-6 ? 0.18 / luminance : 1
        func lab(_ rgb: SIMD3<Double>) -> SIMD3<Double> { CIE.xyzToLab(toXYZ * (rgb * scale)) }
        let lrLab = lrGrid.cells.map(lab)
        let lwLab = lwGrid.cells.map(lab)
        let comparisons = Orientation.allCases.map { t -> RegionComparison in
            var l = Spread(mean: 0, max: -1, worstRegion: [0, 0]), c = l
            for y in 0..<n { for x in 0..<n {
                let (sx, sy) = t.sourceCoordinate(x: x, y: y, storedWidth: n, storedHeight: n)
                let a = lwLab[sy * n + sx], b = lrLab[y * n + x]
                let dl = abs(a.x - b.x), de = CIE.deltaE2000(a, b)
                l.mean += dl
                c.mean += de
                if dl > l.max { l.max = dl; l.worstRegion = [x, y] }
                if de > c.max { c.max = de; c.worstRegion = [x, y] }
            } }
            l.mean /= Double(n * n)
            c.mean /= Double(n * n)
            return RegionComparison(transform: t, lightness: l, colour: c)
        }
        let asDecoded = comparisons[0]
        let best = comparisons.min { $0.lightness.mean < $1.lightness.mean }!
        let nearestOther = comparisons.dropFirst().min { $0.lightness.mean < $1.lightness.mean }!
        func passes(_ c: RegionComparison) -> Bool { c.lightness.mean <= limits.lightnessMean && c.lightness.max <= limits.lightnessMax }

        var reasons: [Disagreement] = []
        var matched = asDecoded
        if !passes(asDecoded), best.transform != .up, passes(best) {
            matched = best
            reasons.append(.orientationDiffers(transform: best.transform, lightWork: lwSize, libRaw: lrSize))
            if (best.transform.swapsAxes ? lwSize.transposed : lwSize) != lrSize {
                reasons.append(.sizeDiffers(lightWork: lwSize, libRaw: lrSize))
            }
        } else {
            if lwSize != lrSize { reasons.append(.sizeDiffers(lightWork: lwSize, libRaw: lrSize)) }
            if !passes(asDecoded) {
                reasons.append(.pictureDiffers(asDecoded.lightness, meanLimit: limits.lightnessMean, maxLimit: limits.lightnessMax))
            }
        }
        // Colour is judged where the picture itself matched (a scrambled picture has no colour to compare).
        if passes(matched), matched.colour.mean > limits.colourMean || matched.colour.max > limits.colourMax {
            reasons.append(.colourDiffers(matched.colour, meanLimit: limits.colourMean, maxLimit: limits.colourMax))
        }
        let lwMean = lwGrid.mean, lrMean = lrGrid.mean
        let level = (0..<3).map { c in lrMean[c] > 0 ? (lwMean[c] / lrMean[c] - 1) * 100 : (lwMean[c] > 0 ? Double.infinity : 0) }
        if level.contains(where: { !(abs($0) <= limits.levelPercent) }) {
            reasons.append(.levelDiffers(percent: level, limit: limits.levelPercent))
        }
        let figures = Figures(lightWorkSize: lwSize, libRawSize: lrSize, lightWorkMean: [lwMean.x, lwMean.y, lwMean.z],
                              libRawMean: [lrMean.x, lrMean.y, lrMean.z], levelPercent: level, regions: asDecoded, bestTransform: best,
                              nearestOtherTransform: nearestOther, baselineExposure: baselineExposure, grid: n)
        return (reasons, figures)
    }

    /// What applying `t` to a picture does, in words.
    public static func describe(_ t: Orientation) -> String {
        switch t {
        case .up: return "as it is"
        case .upMirrored: return "mirrored left to right"
        case .down: return "turned 180°"
        case .downMirrored: return "mirrored top to bottom"
        case .leftMirrored: return "transposed (mirrored across the top-left to bottom-right diagonal)"
        case .right: return "turned 90° clockwise"
        case .rightMirrored: return "transversed (mirrored across the top-right to bottom-left diagonal)"
        case .left: return "turned 90° counter-clockwise"
        }
    }
}

/// The mean RGB of each region of an N × N grid laid over a picture (region edges at ⌊i · size / N⌋), and of the
/// whole picture.
struct RegionGrid {
    /// Row-major, N × N.
    var cells: [SIMD3<Double>]
    var mean: SIMD3<Double>

    /// LightWork's half-float RGBA, multiplied by `gain`.
    init(_ image: WorkingImage, cells n: Int, gain: Double) {
        var row = [Float](repeating: 0, count: 4 * image.width)
        self.init(width: image.width, height: image.height, cells: n, scale: gain) { y, add in
            lw_half_to_float(image.row(y), &row, 4 * image.width)
            for x in 0..<image.width { add(x, Double(row[4 * x]), Double(row[4 * x + 1]), Double(row[4 * x + 2])) }
        }
    }

    /// 16-bit RGB samples, scaled to 0…1.
    init(_ file: ImageFile, cells n: Int) {
        let c = file.channels
        self.init(width: file.width, height: file.height, cells: n, scale: 1.0 / 65535) { y, add in
            file.samples.withUnsafeBufferPointer { s in
                let base = y * file.width * c
                for x in 0..<file.width {
                    let p = base + x * c
                    add(x, Double(s[p]), Double(s[p + 1]), Double(s[p + 2]))
                }
            }
        }
    }

    /// `readRow(y, add)` calls `add(x, r, g, b)` for each pixel of row y.
    private init(width: Int, height: Int, cells n: Int, scale: Double,
                 readRow: (Int, (Int, Double, Double, Double) -> Void) -> Void) {
        let column = (0..<width).map { min(n - 1, $0 * n / width) }
        var sums = [SIMD3<Double>](repeating: .zero, count: n * n)
        var counts = [Int](repeating: 0, count: n * n)
        for y in 0..<height {
            let r0 = min(n - 1, y * n / height) * n
            readRow(y) { x, r, g, b in
                sums[r0 + column[x]] += SIMD3(r, g, b)
                counts[r0 + column[x]] += 1
            }
        }
        let total = sums.reduce(.zero, +)
        mean = total * (scale / Double(width * height))
        cells = zip(sums, counts).map { $1 > 0 ? $0 * (scale / Double($1)) : .zero }
    }
}

extension LightWorkError {
    /// The tool itself is missing or cannot run (every other failure of `dcraw_emu` is about the file).
    var isMissingTool: Bool {
        if case .missingTool = self { return true }
        return false
    }
}
