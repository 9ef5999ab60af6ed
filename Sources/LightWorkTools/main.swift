// lightwork-tools: developer tools for LightWork.
//
// The committed samples are made by exactly these commands (from the package root, release build):
//
//   swift build -c release --product lightwork-tools
//   .build/release/lightwork-tools make-sample-dng -o Samples/scene.dng --seed 1 \
//       --truth Samples/scene.truth.json --srgb-png Samples/scene-srgb.png
//   .build/release/lightwork-tools make-sample-dng -o Samples/scene-tungsten.dng --seed 1 --illuminant A \
//       --truth Samples/scene-tungsten.truth.json
//
// A 24-megapixel benchmark frame (not committed; any seed gives a slightly different file):
//
//   .build/release/lightwork-tools make-bench-dng -o /tmp/bench.dng --width 6000 --height 4000 --seed 7
import CShims
import Foundation
import LightWork

let usage = """
    usage:
      lightwork-tools make-sample-dng -o FILE.dng [--width W --height H] [--seed N] [--illuminant D65|A|D50|D55|D75|F2]
                                      [--scene chart|photo] [--underexpose STOPS]
                                      [--truth FILE.json] [--srgb-png FILE.png] [--compression none|ljpeg]
                                      [--ljpeg predictor=1..7,bits=16|14|12,tile=WxH,components=1|2,pt=0..4,strip]
                                      [--cfa RGGB|BGGR|GRBG|GBRG|XTRANS] [--orientation 1..8] [--default-scale H:V]
                                      [--iso N] [--camera MAKE:MODEL:UNIQUECAMERAMODEL]
      lightwork-tools make-chart-photo -o FILE.dng [--truth FILE.json] [--srgb-png FILE.png] [--seed N] [--width W --height H]
                                      [--centre X,Y] [--size F] [--rotate DEG] [--keystone K] [--tilt T] [--vignette EV]
                                      [--grain G] [--iso N] [--no-chart]
                                            a ColorChecker photographed in a cluttered scene, with its corners as truth
      lightwork-tools make-bench-dng  -o FILE.dng [--width 6000 --height 4000] [--seed N] [--illuminant D65|A]
                                      [--truth FILE.json] [--srgb-png FILE.png]
      lightwork-tools bench [--width 6000 --height 4000] [--threads N] [--raw FILE.dng] [--breakdown] [--only chain|neutral|kernels|highlights|develop-geometry|develop|encode|demosaic|unpack]
                                             (demosaic: on seeded noise and, given --raw, on that file's mosaic)

      lightwork-tools make-tiny-pngs -o DIR --count N [--size 16]
                                      N small 8-bit sRGB PNGs, each of its own colours, 1,000 to a subfolder
                                      (make bench's batch-scaling inputs)
      lightwork-tools make-highlight-dng -o CLIPPED.dng --truth TRUTH.dng [--width 480 --height 320] [--seed N]
                                             bands pushed past white, and the same scene 2 EV darker (the truth)
      lightwork-tools make-films [DIR]       film catalog + lookup images (default Profiles/films)
      lightwork-tools image-stats FILE...    each file's mean grey (mean R, G, B sample, 8-bit scale)
      lightwork-tools demosaic-quality [--scene photo|chart] [--seed N] [--width W] [--height H] IMAGE...
                                             mean ΔE00, false colour and zipper of renders against the scene's ideal
      lightwork-tools contact-sheet -o OUT.png [--columns N] [--tile W:H] FILE...
                                      the files side by side in rows of N, each fitted to a W x H cell
      lightwork-tools mutate-samples -o DIR [--seed S] [--count N] [FILE...]
                                      N (default 1000) damaged copies of FILEs (default: Samples/*.dng,
                                      Samples/scene-srgb.png and ../shared/samples raw/ and rgb/ when present)
      lightwork-tools make-shard-ledgers -o DIR [--shards N] [--entries M]   the ledgers N shards leave (make bench: manifest merge)
      lightwork-tools ledger-recording-cost -o DIR [--entries N]   what recording an entry costs at 1,000 and N entries (make bench)
    \(UnlockSigner.usage)
    \(LensGrid.usage)

    make-*-dng write a synthetic RGGB DNG of a ColorChecker, a grey ramp and a zone plate with fine lines, of known colour.
    --compression ljpeg stores the raw data as lossless-JPEG tiles (DNG Compression 7; width and height multiples of 16).
    --ljpeg changes how: the predictor, the JPEG precision (12 and 14 scale the samples and levels to fit), the tile
    size (edge tiles may overhang the frame), one or two components per frame line, a point transform, or one strip.
    --scene photo paints a landscape (sky, clouds, grass, a white house, a car with clipped glints) instead of the
    chart; its truth file lists its flat areas. Seed 1 is the reference layout; any other seed moves the house, car,
    person and tree, paints finer grass and adds a fence of thin posts. --underexpose darkens the raw data by STOPS with a normal exposure's
    BaselineExposure (for exposure tests).
    make-sample-dng defaults to 1536 x 1024, make-bench-dng to 6000 x 4000; the seed defaults to 1.
    --cfa XTRANS records Fujifilm's 6 x 6 X-Trans layout (CFARepeatPatternDim 6 x 6) instead of a 2 x 2 Bayer one.
    --cfa, --orientation (EXIF) and --default-scale (DNG DefaultScale: pixel aspect H/V, e.g. 2:1) change how the
    DNG stores the scene; a reader applying them sees it upright at W x H, so the truth file stays valid.
    --camera names another camera in Make, Model and UniqueCameraModel (the colour tags stay the synthetic
    camera's), e.g. 'NIKON CORPORATION:NIKON D300:Nikon D300' for a camera profile made for that model.
    --iso N records the scene with the Poisson-Gaussian noise of a sensor at ISO N (SyntheticCamera), 0 without
    noise; without it the fixed 1.5 raw units of the committed samples.
    bench times the full filter chain and the neutral render on a synthetic image (and decoding --raw FILE);
    --breakdown adds each filter's cost in a pass of its own and in cache (--only kernels: just the latter);
    --only highlights times decoding each --raw FILE (repeatable) with --highlights clip and reconstruct.
    --only unpack times each --raw FILE's unpack by LibRaw's loader and by LightWork's (lossless JPEG, uncompressed).
    --only develop times each develop module and the whole develop stage with every module on.
    --only encode --image FILE.tif [--formats webp,heif] times each output format's writer on a 16-bit render.
    """

/// What one run is asked to make.
struct SampleRequest {
    var output: URL?
    var width: Int
    var height: Int
    var seed: UInt64 = 1
    var illuminant = SceneIlluminant.d65
    var truth: URL?
    var srgbPNG: URL?
    var compression = DNGWriter.Compression.none
    /// The lossless-JPEG layout and coding (`--ljpeg`, with `--compression ljpeg`).
    var lossless = DNGWriter.LosslessLayout()
    var layout = DNGLayout()
    var noise = SensorNoise.fixed
    /// `chart` (the ColorChecker test chart) or `photo` (`PhotoScene`).
    var scene = "chart"
    /// Stops the raw data is darker than a normal exposure, with the BaselineExposure of a normal one.
    var underexpose = 0.0
    /// Make, Model and UniqueCameraModel written (`--camera`).
    var camera = (make: SyntheticCamera.make, model: SyntheticCamera.model, unique: SyntheticCamera.uniqueCameraModel)

    /// Parses the options after the command name; throws `.usage` on any mistake, before touching a file.
    init(arguments: ArraySlice<String>, defaultWidth: Int, defaultHeight: Int) throws {
        width = defaultWidth
        height = defaultHeight
        var rest = arguments
        func value(_ flag: String) throws -> String {
            guard let v = rest.popFirst() else { throw LightWorkError.usage("\(flag) needs a value") }
            return v
        }
        func integer(_ flag: String) throws -> Int {
            let text = try value(flag)
            guard let n = Int(text), n > 0 else { throw LightWorkError.usage("\(flag) expects a positive whole number, not '\(text)'") }
            return n
        }
        while let flag = rest.popFirst() {
            switch flag {
            case "-o", "--output": output = URL(fileURLWithPath: try value(flag))
            case "--width": width = try integer(flag)
            case "--height": height = try integer(flag)
            case "--seed":
                let text = try value(flag)
                guard let s = UInt64(text) else { throw LightWorkError.usage("--seed expects a whole number ≥ 0, not '\(text)'") }
                seed = s
            case "--illuminant":
                let text = try value(flag)
                guard let i = SceneIlluminant.allCases.first(where: { $0.rawValue.lowercased() == text.lowercased() }) else {
                    throw LightWorkError.usage("--illuminant expects \(SceneIlluminant.allCases.map(\.rawValue).joined(separator: ", ")), not '\(text)'")
                }
                illuminant = i
            case "--scene":
                let text = try value(flag)
                guard ["chart", "photo"].contains(text) else { throw LightWorkError.usage("--scene expects chart or photo, not '\(text)'") }
                scene = text
            case "--underexpose":
                let text = try value(flag)
                guard let v = Double(text), (0...8).contains(v) else { throw LightWorkError.usage("--underexpose expects stops between 0 and 8, not '\(text)'") }
                underexpose = v
            case "--truth": truth = URL(fileURLWithPath: try value(flag))
            case "--srgb-png": srgbPNG = URL(fileURLWithPath: try value(flag))
            case "--compression":
                let text = try value(flag)
                guard let c = DNGWriter.Compression(rawValue: text) else {
                    throw LightWorkError.usage("--compression expects one of \(DNGWriter.Compression.allCases.map(\.rawValue).joined(separator: ", ")), not '\(text)'")
                }
                compression = c
            case "--ljpeg": lossless = try DNGWriter.LosslessLayout(spec: try value(flag))
            case "--cfa":
                let text = try value(flag)
                guard let cfa = CFALayout(rawValue: text.uppercased()) else {
                    throw LightWorkError.usage("--cfa expects \(CFALayout.allCases.map(\.rawValue).joined(separator: ", ")), not '\(text)'")
                }
                layout.cfa = cfa
            case "--orientation":
                let text = try value(flag)
                guard let o = Int(text).flatMap(Orientation.init(rawValue:)) else {
                    throw LightWorkError.usage("--orientation expects an EXIF orientation 1...8, not '\(text)'")
                }
                layout.orientation = o
            case "--iso":
                let text = try value(flag)
                guard let iso = Int(text), (0...409_600).contains(iso) else {
                    throw LightWorkError.usage("--iso expects a whole number 0…409600 (0: noiseless), not '\(text)'")
                }
                noise = .iso(iso)
            case "--camera":
                let parts = try value(flag).split(separator: ":", omittingEmptySubsequences: false).map(String.init)
                guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty }) else {
                    throw LightWorkError.usage("--camera expects MAKE:MODEL:UNIQUECAMERAMODEL")
                }
                camera = (parts[0], parts[1], parts[2])
            case "--default-scale":
                let text = try value(flag)
                let parts = text.split(separator: ":").compactMap { Int($0) }
                guard parts.count == 2, parts.allSatisfy({ $0 > 0 }) else {
                    throw LightWorkError.usage("--default-scale expects H:V (positive whole numbers, e.g. 2:1), not '\(text)'")
                }
                layout.defaultScale = (parts[0], parts[1])
            default: throw LightWorkError.usage("unknown option '\(flag)'\n\(usage)")
            }
        }
        guard output != nil else { throw LightWorkError.usage("missing -o FILE.dng\n\(usage)") }
        guard width >= SceneLayout.minimumWidth, height >= SceneLayout.minimumHeight else {
            throw LightWorkError.usage("the image must be at least \(SceneLayout.minimumWidth) x \(SceneLayout.minimumHeight)")
        }
        guard width % 2 == 0, height % 2 == 0 else {
            throw LightWorkError.usage("width and height must be even (whole 2 x 2 Bayer cells)")
        }
        guard width * height <= 200_000_000 else { throw LightWorkError.usage("at most 200 megapixels") }
        guard layout.storedSize(width: width, height: height) != nil else {
            throw LightWorkError.usage("--default-scale \(layout.defaultScale.horizontal):\(layout.defaultScale.vertical) must divide the \(width) x \(height) image into whole 2 x 2 stored cells")
        }
    }
}

/// Generates the scene and writes every requested file.
func makeSample(_ request: SampleRequest, command: String) throws {
    let start = Date()
    let layout = SceneLayout(width: request.width, height: request.height, seed: request.seed)
    let photo = request.scene == "photo" ? PhotoScene(width: request.width, height: request.height, seed: request.seed) : nil
    let scene: any ScenePainter = photo ?? SceneGenerator(layout: layout)
    let camera = SyntheticCamera(illuminant: request.illuminant, underexposure: request.underexpose)
    let mosaic = CFAMosaic(scene: scene, camera: camera, seed: request.seed, layout: request.layout, noise: request.noise)
    try DNGWriter.write(mosaic, camera: camera, to: request.output!, compression: request.compression, lossless: request.lossless,
                        make: request.camera.make, model: request.camera.model, uniqueCameraModel: request.camera.unique)
    var written = [request.output!.path]
    if let truth = request.truth {
        if let photo {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(photo.truth(camera: camera)).write(to: truth, options: .atomic)
        } else {
            try SceneTruth(layout: layout, camera: camera, seed: request.seed, generator: "lightwork-tools \(command)", storage: request.layout).write(to: truth)
        }
        written.append(truth.path)
    }
    if let png = request.srgbPNG {
        try SamplePNGWriter.write(scene: scene, camera: camera, to: png)
        written.append(png.path)
    }
    let seconds = Date().timeIntervalSince(start)
    FileHandle.standardError.write(Data(String(format: "wrote %@ (%d x %d, %@, seed %llu) in %.2f s\n",
                                              written.joined(separator: ", "), request.width, request.height,
                                              request.illuminant.rawValue, request.seed, seconds).utf8))
}

/// Replaces this process with itself, the same arguments and `extra` laid over its environment; returns only by throwing.
func reexecuting(with extra: [String: String]) throws -> Never {
    var environment = ProcessInfo.processInfo.environment
    for (k, v) in extra { environment[k] = v }
    let path = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    let argv = CommandLine.arguments.map { strdup($0) } + [nil]
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    execve(path, argv, envp)
    throw LightWorkError.usage("cannot re-run \(path) with \(extra.keys.sorted().joined(separator: ", ")): errno \(errno)")
}

/// `bench`: engine throughput on a synthetic frame, optionally a RAW decode.
func runBenchmarks(_ arguments: ArraySlice<String>) throws {
    var width = 6000, height = 4000, raw: URL?, raws: [URL] = [], breakdown = false, only: String?
    var image: URL?, formats: [String]?
    var engine = EngineConfiguration.detected
    var rest = arguments
    while let flag = rest.popFirst() {
        if flag == "--breakdown" { breakdown = true; continue }
        guard let value = rest.popFirst() else { throw LightWorkError.usage("\(flag) needs a value") }
        switch flag {
        case "--width": width = Int(value) ?? width
        case "--height": height = Int(value) ?? height
        case "--threads": engine = EngineConfiguration(threads: Int(value) ?? engine.threads)
        case "--raw": raw = URL(fileURLWithPath: value); raws.append(URL(fileURLWithPath: value))
        case "--only": only = value
        case "--image": image = URL(fileURLWithPath: value)
        case "--formats": formats = value.split(separator: ",").map(String.init)
        default: throw LightWorkError.usage("unknown option '\(flag)'\n\(usage)")
        }
    }
    if only == nil || only == "chain" { print(ChainBenchmark.run(width: width, height: height, engine: engine)) }
    if only == "kernels" { print(ChainBenchmark.kernels(width: width, height: height)) }
    if breakdown {
        print(ChainBenchmark.breakdown(width: width, height: height, engine: engine))
        print(ChainBenchmark.kernels(width: width, height: height))
    }
    if only == "develop-geometry" { print(try SharpenGeometryBenchmark.run(width: width, height: height, engine: engine)) }
    if only == nil || only == "neutral" { print(RenderBenchmark.neutral(width: width, height: height, engine: engine)) }
    if only == "unpack" { print(try UnpackBenchmark.run(urls: raws, engine: engine)); return }
    if only == "highlights" { print(try RenderBenchmark.highlights(urls: raws, engine: engine)); return }
    if only == "encode" {
        guard let image else { throw LightWorkError.usage("bench --only encode needs --image FILE.tif (a 16-bit render)") }
        print(try FormatEncodeBenchmark.run(image: image, formats: formats, engine: engine)); return
    }
    if only == "develop" {
        // The develop stage runs in conversion workers; measure it under their allocator, not this tool's default
        // (which unmaps and re-zeroes every freed plane). glibc reads its tunables at start, hence the re-exec.
        if ProcessInfo.processInfo.environment["GLIBC_TUNABLES"] == nil {
            try reexecuting(with: ["GLIBC_TUNABLES": WorkerLaunch.allocatorTunables])
        }
        print("develop stage measured under the workers' allocator: GLIBC_TUNABLES=\(ProcessInfo.processInfo.environment["GLIBC_TUNABLES"]!)")
        print(try DevelopBenchmark.run(width: width, height: height, engine: engine))
    }
    if only == "demosaic" { print(try DemosaicBenchmark.run(width: width, height: height, raw: raw, engine: engine)); return }
    if let raw { print(try RenderBenchmark.decode(url: raw, engine: engine)) }
}

/// `mutate-samples`: hostile inputs for the robustness campaign (see SampleMutator).
func mutateSamples(_ arguments: ArraySlice<String>) throws {
    var output: URL?, seed: UInt64 = 1, count = 1000, sources: [URL] = []
    var rest = arguments
    while let arg = rest.popFirst() {
        switch arg {
        case "-o", "--output", "--seed", "--count":
            guard let value = rest.popFirst() else { throw LightWorkError.usage("\(arg) needs a value") }
            if arg == "--seed" {
                guard let s = UInt64(value) else { throw LightWorkError.usage("--seed expects a whole number ≥ 0, not '\(value)'") }
                seed = s
            } else if arg == "--count" {
                guard let n = Int(value), n > 0 else { throw LightWorkError.usage("--count expects a positive whole number, not '\(value)'") }
                count = n
            } else {
                output = URL(fileURLWithPath: value)
            }
        default:
            if arg.hasPrefix("-") { throw LightWorkError.usage("unknown option '\(arg)'\n\(usage)") }
            sources.append(URL(fileURLWithPath: arg))
        }
    }
    guard let output else { throw LightWorkError.usage("mutate-samples needs -o DIR\n\(usage)") }
    if sources.isEmpty {
        let fm = FileManager.default
        let samples = URL(fileURLWithPath: "Samples")
        sources = ((try? fm.contentsOfDirectory(at: samples, includingPropertiesForKeys: nil)) ?? [])
            .filter { $0.pathExtension == "dng" || $0.lastPathComponent == "scene-srgb.png" }
        for sub in ["raw", "rgb"] {
            let dir = URL(fileURLWithPath: "../shared/samples").appendingPathComponent(sub)
            sources += ((try? fm.contentsOfDirectory(at: dir, includingPropertiesForKeys: nil)) ?? [])
                .filter { !$0.lastPathComponent.hasPrefix("LICENSE") && $0.pathExtension != "md" }
        }
        sources.sort { $0.path < $1.path }
    }
    let written = try SampleMutator.run(sources: sources, count: count, seed: seed, into: output)
    FileHandle.standardError.write(Data("wrote \(written.count) mutated inputs from \(sources.count) source file(s) into \(output.path) (seed \(seed))\n".utf8))
}

/// `make-tiny-pngs`: many small PNGs that differ from each other (a gradient offset by the file's number), for
/// timing the batch's per-file cost at 1,000 to 100,000 files.
func makeTinyPNGs(_ arguments: ArraySlice<String>) throws {
    var output: URL?, count = 0, size = 16
    var rest = arguments
    while let arg = rest.popFirst() {
        guard let value = rest.popFirst() else { throw LightWorkError.usage("\(arg) needs a value") }
        switch arg {
        case "-o", "--output": output = URL(fileURLWithPath: value)
        case "--count", "--size":
            guard let n = Int(value), n > 0 else { throw LightWorkError.usage("\(arg) expects a positive whole number, not '\(value)'") }
            if arg == "--count" { count = n } else { size = n }
        default: throw LightWorkError.usage("unknown option '\(arg)'\n\(usage)")
        }
    }
    guard let output, count > 0 else { throw LightWorkError.usage("make-tiny-pngs needs -o DIR and --count N\n\(usage)") }
    var pixels = [UInt8](repeating: 0, count: size * size * 3)
    var message = [CChar](repeating: 0, count: 256)
    for i in 0..<count {
        let folder = output.appendingPathComponent(String(format: "d%03d", i / 1000))
        if i % 1000 == 0 { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        for y in 0..<size {
            for x in 0..<size {
                let p = 3 * (y * size + x)
                pixels[p] = UInt8(truncatingIfNeeded: i &+ x * 16)
                pixels[p + 1] = UInt8(truncatingIfNeeded: (i >> 8) &+ y * 16)
                pixels[p + 2] = UInt8(truncatingIfNeeded: (i >> 16) &+ (x + y) * 8)
            }
        }
        let url = folder.appendingPathComponent(String(format: "tiny-%06d.png", i))
        guard lw_samplepng_write_srgb8(url.path, pixels, UInt32(size), UInt32(size), &message, message.count) == 0 else {
            throw LightWorkError.writeFailed("\(url.path): \(String(cString: message))")
        }
    }
}

let arguments = CommandLine.arguments
do {
    guard arguments.count >= 2 else { throw LightWorkError.usage(usage) }
    switch arguments[1] {
    case "make-sample-dng":
        try makeSample(SampleRequest(arguments: arguments.dropFirst(2), defaultWidth: 1536, defaultHeight: 1024), command: arguments[1])
    case "make-chart-photo":
        try makeChartPhoto(arguments.dropFirst(2))
    case "make-bench-dng":
        try makeSample(SampleRequest(arguments: arguments.dropFirst(2), defaultWidth: 6000, defaultHeight: 4000), command: arguments[1])
    case "make-tiny-pngs":
        try makeTinyPNGs(arguments.dropFirst(2))
    case "make-highlight-dng":
        try HighlightScene.run(arguments.dropFirst(2))
    case "make-lens-grid-dng":
        try LensGrid.make(arguments.dropFirst(2))
    case "check-lens-correction":
        try LensGrid.checkCorrection(arguments.dropFirst(2))
    case "measure-lens-grid":
        try LensGrid.measure(arguments.dropFirst(2))
    case "make-films":
        try FilmLookGenerator.run(directory: URL(fileURLWithPath: arguments.count > 2 ? arguments[2] : "Profiles/films"))
    case "bench":
        try runBenchmarks(arguments.dropFirst(2))
    case "image-stats":
        try ImageTools.stats(arguments.dropFirst(2))
    case "demosaic-quality":
        try DemosaicQuality.run(arguments.dropFirst(2))
    case "contact-sheet":
        try ImageTools.contactSheet(arguments.dropFirst(2))
    case "mutate-samples":
        try mutateSamples(arguments.dropFirst(2))
    case "make-shard-ledgers":
        try ShardLedgers.run(arguments.dropFirst(2))
    case "ledger-recording-cost":
        try ShardLedgers.recordingCost(arguments.dropFirst(2))
    case "unlock-keygen":
        try UnlockSigner.keygen(arguments.dropFirst(2))
    case "sign-unlock":
        try UnlockSigner.sign(arguments.dropFirst(2))
    case "-h", "--help", "help":
        print(usage)
    default:
        throw LightWorkError.usage("unknown command '\(arguments[1])'\n\(usage)")
    }
} catch let error as LightWorkError {
    FileHandle.standardError.write(Data("lightwork-tools: \(error)\n".utf8))
    if case .usage = error { exit(2) }
    exit(1)
} catch {
    FileHandle.standardError.write(Data("lightwork-tools: \(error)\n".utf8))
    exit(1)
}
