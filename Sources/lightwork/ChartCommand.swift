import Foundation
import LightWork

/// `lightwork chart`: a ColorChecker in a photograph, found, sampled and compared with its published values.
enum ChartCommand {
    /// The convert options that decide how the photograph is developed, taken from convert's own declarations.
    static let decodeOptionNames: Set<String> = ["demosaic", "intent", "color-model", "camera-profile", "profile-look", "profile-tone",
                                                 "recipe", "set", "max-pixels", "threads"]

    static let specs: [OptionSpec] = [
        OptionSpec(name: "reference", value: "R",
                   help: "published values: colorchecker-24-2014 (default; X-Rite, charts made after November 2014), colorchecker-classic (BabelColor average), or FILE.json"),
        OptionSpec(name: "corners", value: "x1,y1,…,x4,y4",
                   help: "centres of patches 1 (dark skin), 6 (bluish green), 24 (black), 19 (white), in pixels, or fractions of width and height when all are 0…1; skips detection"),
        OptionSpec(name: "json", value: nil, help: "print the measurement as JSON"),
        OptionSpec(name: "overlay", value: "OUT.png", help: "write the render with every sampling square outlined, its patch number and ΔE00"),
        OptionSpec(name: "help", value: nil, help: "this text", short: "h"),
    ] + ConvertCommand.specs.filter { decodeOptionNames.contains($0.name) } + DevelopArguments.specs

    static let help = """
    Usage: lightwork chart PHOTO [--reference R] [--corners x1,y1,x2,y2,x3,y3,x4,y4] [--json] [--overlay OUT.png]

    Measures a 24-patch ColorChecker in a RAW or RGB photograph. The photograph is developed exactly as
    'lightwork convert' would with the options below (tone linear unless --tone says otherwise) into a 16-bit
    ProPhoto TIFF, read as CIELAB D50 through that file's ICC profile (LittleCMS, relative colorimetric).

    The chart is found automatically: flat regions of a copy reduced to \(ChartMeasurement.detectionEdge) px, the patch-like ones
    (square, of similar size, a pitch apart), a 6 x 4 grid fitted to them by a homography, and the patch order read
    from the grey row (white to black). It may sit anywhere, turned any way, under mild perspective. When fewer
    than \(ChartDetector.minimumCells) of the 24 patches are found, the grid fits worse than \(ChartDetector.maximumResidual) of a pitch (RMS), or no single
    side reads as the grey row, the command says so and exits 1: give --corners then. Corners are the centres of
    patches 1, 6, 24 and 19 (the chart's top-left, top-right, bottom-right, bottom-left in reading order), in
    pixels of the developed image (x right, y down, origin at the top-left corner), or as fractions of its width
    and height when all eight numbers lie in 0…1.

    Each patch is sampled in a square of \(ChartMeasurement.sampleSide) of a patch pitch around its centre; the pixels' XYZ are averaged
    with the lowest and highest \(Int(ChartMeasurement.trim * 100)) % of each channel dropped. Exposure is matched by the white patch (19): all
    XYZ are scaled so its Y equals the reference white's. Then ΔE00 per patch, mean, median, max and the worst patch.

    Options:
    \(CommandLineParser.help(specs))

    Exit status: 0 measured, 1 the photo cannot be developed or no chart was found with confidence, 2 usage error.

    Examples:
      lightwork chart shot.dng                                       find the chart, print ΔE00 per patch
      lightwork chart shot.dng --reference colorchecker-classic --overlay check.png
      lightwork chart shot.jpg --corners 0.21,0.30,0.68,0.28,0.69,0.61,0.22,0.63 --json
    """

    static func run(_ args: [String]) -> Int32 {
        let parsed: ParsedArguments
        let reference: ChartReference
        let photo: String
        var spec: ConvertSpec
        let engine: EngineConfiguration
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("lightwork-chart-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        do {
            parsed = try CommandLineParser.parse(args, specs: specs)
            if parsed.has("help") { print(help); return 0 }
            guard parsed.positionals.count == 1 else {
                throw LightWorkError.usage("chart takes one PHOTO, not \(parsed.positionals.count)")
            }
            photo = parsed.positionals[0]
            reference = try ChartReference.named(parsed.value("reference") ?? ChartReference.colorChecker2014.name)
            spec = try ConvertCommand.makeSpec(parsed, outputDirectory: work)
            spec.export = ConvertSpec.Export(format: .tiff16, colorSpace: .prophoto)
            if parsed.value(Tone.descriptor.flag) == nil { spec.develop[Tone.self] = .linear }
            engine = try EngineArguments.configuration(parsed)
        } catch {
            FileHandle.standardError.write(Data("lightwork chart: \(error)\nRun 'lightwork chart --help' for usage.\n".utf8))
            return 2
        }
        func fail(_ reason: String) -> Int32 {
            FileHandle.standardError.write(Data("lightwork chart: \(photo): \(reason)\n".utf8))
            return 1
        }
        let measurement: ChartMeasurement
        let rendered: ImageFile
        do {
            let input = URL(fileURLWithPath: photo)
            guard FileManager.default.fileExists(atPath: input.path) else { throw LightWorkError.missingInput(input.path) }
            try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
            let entry = try FileConverter(spec: spec, engine: engine).convert(InputItem(url: input, displayPath: photo, relativePath: "chart.tif"), to: "chart.tif")
            guard entry.status == .converted else { return fail(entry.reason ?? "conversion failed") }
            rendered = try ImageFileReader.read(work.appendingPathComponent("chart.tif"))
            let corners = try parsed.value("corners").map { try ChartMeasurement.Corners.parse($0, width: rendered.width, height: rendered.height) }
            measurement = try ChartMeasurement(file: rendered, reference: reference, corners: corners)
        } catch let notFound as ChartNotFound {
            return fail(parsed.value("corners") == nil ? "no ColorChecker found with confidence: \(notFound.reason); give its corners with --corners"
                                                       : "\(notFound.reason)")
        } catch let e as LightWorkError where e.kind == .usage {
            FileHandle.standardError.write(Data("lightwork chart: \(e)\n".utf8))
            return 2
        } catch {
            return fail("\(error)")
        }
        if let overlay = parsed.value("overlay") {
            do {
                let url = URL(fileURLWithPath: overlay)
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                _ = try AtomicFile.write(data: try ChartOverlay.png(rendered, measurement), to: url)
            } catch {
                FileHandle.standardError.write(Data("lightwork chart: cannot write the overlay \(overlay): \(error)\n".utf8))
                return 1
            }
        }
        if parsed.has("json") {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: (try? encoder.encode(measurement)) ?? Data(), as: UTF8.self))
        } else {
            print(measurement.text)
        }
        return 0
    }
}
