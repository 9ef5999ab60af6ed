import Foundation
import LightWork

/// `lightwork convert`: the batch export.
enum ConvertCommand {
    static let specs: [OptionSpec] = [
        OptionSpec(name: "output", value: "DIR", help: "output folder (created if missing); required", short: "o"),
        OptionSpec(name: "format", value: "FMT", help: CodecRegistry.formatHelp),
        OptionSpec(name: "colorspace", value: "CS", help: "srgb (default), display-p3, adobe-rgb, prophoto; profile always embedded"),
        OptionSpec(name: "demosaic", value: "ALG", help: "RAW demosaic: dual (default: RCD, with a second estimate in periodic texture near Nyquist), ahd, rcd (ratio-corrected), LightWork's own on Bayer and X-Trans sensors; libraw-ahd, linear, ppg, vng, dht, aahd (LibRaw's)"),
        OptionSpec(name: "intent", value: "I", help: "ICC inputs: relative (default, with black-point compensation), perceptual, saturation, absolute"),
        OptionSpec(name: "background", value: "COLOR", help: "what JPEG flattens alpha onto: white (default), black, #RRGGBB"),
        OptionSpec(name: "color-model", value: "M", help: "RAW colour: dng (default: DNG-spec matrices by white point), libraw (LibRaw's own)"),
        OptionSpec(name: "camera-profile", value: "P",
                   help: "RAW camera profile of the dng model: matrix (default), auto (the DNG's own, else a DCP for the camera), embedded, FILE.dcp"),
        OptionSpec(name: "profile-look", value: "on|off", help: "apply the camera profile's LookTable (default on)"),
        OptionSpec(name: "profile-tone", value: "on|off", help: "apply the camera profile's ProfileToneCurve (default on)"),
        OptionSpec(name: "recipe", value: "FILE", help: "look and export settings from a recipe JSON (see Samples/recipes/)"),
        OptionSpec(name: "set", value: "NAME=UI", help: "override one filter in UI units -100..100, e.g. --set contrast=35 (repeatable)"),
        OptionSpec(name: "film", value: "ID|NAME", help: "apply a catalog film (see 'lightwork films'), e.g. --film 0001001"),
        OptionSpec(name: "strength", value: "0-100", help: "film or LUT strength in percent (default 100)"),
        OptionSpec(name: "lut", value: "FILE", help: "apply a .cube, HaldCLUT or 512x512 lookup image instead of a film"),
        OptionSpec(name: "lut-interpolation", value: "I", help: "tetrahedral (default) or trilinear (the original app's GPU lookup)"),
        OptionSpec(name: "sync-file", value: "FILE", help: "merge a synced entitlement file before resolving films"),
        OptionSpec(name: "strip-metadata", value: nil, help: "write no EXIF, XMP or IPTC (the ICC profile is always embedded)"),
        OptionSpec(name: "artist", value: "NAME", help: "creator written into every output, replacing the one carried from inputs and sidecars"),
        OptionSpec(name: "copyright", value: "TEXT", help: "copyright notice written into every output, replacing the carried one"),
        OptionSpec(name: "keywords", value: "K1,K2", help: "keywords added to those carried from inputs and sidecars (comma-separated)"),
        OptionSpec(name: "min-rating", value: "N", help: "only inputs whose XMP sidecar rates them N (0-5) stars or more"),
        OptionSpec(name: "label", value: "L", help: "only inputs whose XMP sidecar gives them colour label L (e.g. Red; L1,L2 for either)"),
        // Export options a photographer expects (parsed by ExportArguments).
        OptionSpec(name: "long-edge", value: "N", help: "shrink so the longer side is N pixels (Lanczos-3 in linear light; never enlarges)"),
        OptionSpec(name: "short-edge", value: "N", help: "shrink so the shorter side is N pixels (never enlarges)"),
        OptionSpec(name: "scale", value: "F", help: "shrink by a factor 0 < F <= 1, e.g. 0.5"),
        OptionSpec(name: "name", value: "TEMPLATE",
                   help: "output name from {stem} (default) {ext} {film} {date} {camera} {index} {recipe}, e.g. '{date}_{stem}_{film}'; '/' makes subfolders: '{camera}/{date}/{stem}'"),
        OptionSpec(name: "on-exist", value: "P",
                   help: "a file already under an output name that no earlier run wrote: skip (default), overwrite, suffix (name-2)"),
        OptionSpec(name: "include", value: "GLOB", help: "only inputs matching: '*.CR2' (a name at any depth), 'day1/*' (a path); repeatable"),
        OptionSpec(name: "exclude", value: "GLOB", help: "drop inputs matching, e.g. 'rejects' (a folder anywhere); repeatable"),
        OptionSpec(name: "prefer", value: "P", help: "RAW+JPEG pairs sharing a name: raw (default), jpeg, both (the JPEG named stem-jpg)"),
        OptionSpec(name: "manifest", value: "PATH", help: "where the manifest goes (default OUTDIR/manifest.json)"),
        OptionSpec(name: "manifest-scope", value: "S",
                   help: "what the manifest lists: folder (default: every output any run wrote into OUTDIR, its latest record) or run (this run's files only)"),
        OptionSpec(name: "max-pixels", value: "N", help: "refuse images above N pixels before allocating (default 200000000)"),
        OptionSpec(name: "threads", value: "N", help: "engine threads per image (default: all cores)"),
        OptionSpec(name: "json", value: nil, help: "stream one JSON event per line on stdout"),
        OptionSpec(name: "quiet", value: nil, help: "only errors", short: "q"),
        OptionSpec(name: "verbose", value: nil, help: "timings and notes per file", short: "v"),
        OptionSpec(name: "help", value: nil, help: "this text", short: "h"),
    ] + codecOptionSpecs + DevelopArguments.specs + BatchArguments.specs

    /// One flag per encoder option any codec declares (`--quality`, `--compression`, …), its help from the codecs.
    static var codecOptionSpecs: [OptionSpec] {
        CodecRegistry.optionNames.map { name in
            let isFlag = CodecRegistry.declarations(of: name).allSatisfy { $0.option.values == .flag }
            let placeholder = CodecRegistry.declarations(of: name).first.map { d -> String in
                if case .integer = d.option.values { return "N" }
                return String(name.prefix(1)).uppercased()
            }
            return OptionSpec(name: name, value: isFlag ? nil : placeholder, help: CodecRegistry.optionHelp(name))
        }
    }

    /// The encoder option values the command line gives, by name (a flag option given is "true").
    static func codecOptionValues(_ p: ParsedArguments) -> [String: String] {
        var given: [String: String] = [:]
        for spec in codecOptionSpecs {
            if spec.value == nil { if p.has(spec.name) { given[spec.name] = "true" } } else if let v = p.value(spec.name) { given[spec.name] = v }
        }
        return given
    }

    static let help = """
    Usage: lightwork convert [options] INPUT... -o OUTDIR

    Converts RAW files (any camera LibRaw reads, DNG included), JPEGs and PNGs into finished images.
    Each INPUT is a file or a folder; folders are walked recursively and their structure is mirrored
    under OUTDIR. OUTDIR/<stem>.<tif|jpg|png> is written atomically (never half-written under its final
    name) and OUTDIR/manifest.json records every input, setting, output and failure: by default of every
    run into OUTDIR (the folder's ledger, OUTDIR/.lightwork/, keeps every run's records; --manifest-scope run
    lists this run's files only).

    Names are decided before the first file is converted: --name picks them ({date} and {camera} come
    from each file's header), two inputs never share one, and a file already under a name is only
    replaced when the folder's ledger says an earlier LightWork run wrote it (otherwise --on-exist decides).
    Of a RAW+JPEG pair (IMG_1.CR2 + IMG_1.JPG) only the RAW is converted unless --prefer says otherwise.

    Options:
    \(CommandLineParser.help(specs))

    \(BatchArguments.help)

    Exit status: 0 every input converted or skipped as done, 1 some input failed or was left unconverted because a
    file LightWork did not write holds its name (the rest still converted),
    2 usage error (an OUTDIR that is a file or cannot be written is one, found before any input is read),
    130/143 interrupted by SIGINT/SIGTERM (the summary then says how many files never started).

    Examples:
      lightwork convert shoot/ -o export/                       16-bit sRGB TIFFs of a whole folder
      lightwork convert IMG_1.CR2 IMG_2.NEF --format jpeg -o web/ --quality 88
      lightwork convert scans/ -o out/ --format png16 --colorspace adobe-rgb
      lightwork convert shoot/ -o web/ --format jpeg --long-edge 2048 --name '{date}_{index}' --exclude rejects
    """

    static func run(_ args: [String]) -> Int32 {
        let parsed: ParsedArguments
        let converter: FileConverter
        let manifestURL: URL
        let rules: PlanRules
        let batch: BatchConfiguration
        let scope: ManifestScope
        var reserve: WorkerReserve?
        do {
            parsed = try CommandLineParser.parse(args, specs: specs)
            if parsed.has("help") { print(help); return 0 }
            guard let out = parsed.value("output") else { throw LightWorkError.usage("convert needs an output folder: -o OUTDIR") }
            guard !parsed.positionals.isEmpty else { throw LightWorkError.usage("convert needs at least one INPUT file or folder") }
            if let inside = BatchPlanner.inputFolderInsideOutput(parsed.positionals, outputDirectory: URL(fileURLWithPath: out)) {
                throw LightWorkError.usage("the input folder \(inside) is the output folder or lies inside it, and LightWork never takes "
                                           + "its own outputs as inputs: choose an output folder outside it")
            }
            batch = try BatchArguments.configuration(parsed)
            // The first worker starts loading now, while this process resolves the spec, reads the film, locks, plans
            // and records (a usage error below closes it unused).
            reserve = BatchArguments.reserveLaunch(batch, parsed).map(WorkerReserve.init(launch:))
            let spec = try makeSpec(parsed, outputDirectory: URL(fileURLWithPath: out))
            rules = try ExportArguments.rules(parsed, spec: spec)
            manifestURL = parsed.value("manifest").map { URL(fileURLWithPath: $0) }
                ?? spec.output.directory.appendingPathComponent(batch.shard?.manifestFileName ?? "manifest.json")
            // Loads the film or LUT once here, so one that cannot be read fails before any file is touched.
            converter = try FileConverter(spec: spec, engine: try EngineArguments.configuration(parsed))
            scope = try parsed.value("manifest-scope").map { value throws(LightWorkError) in
                guard let v = ManifestScope(rawValue: value) else { throw choices("--manifest-scope", value, ManifestScope.allCases.map(\.rawValue)) }
                return v
            } ?? .folder
            try OutputDirectory.prepare(spec.output.directory)
        } catch {
            FileHandle.standardError.write(Data("lightwork convert: \(error)\nRun 'lightwork convert --help' for usage.\n".utf8))
            return 2
        }
        let output = converter.outputDirectory
        // One writer per folder, taken before the previous runs' records are read: a run that waited plans on what
        // the one before it finished.
        guard let lock = BatchArguments.lockOutput(parsed, folder: output, shard: batch.shard, command: "convert") else { return 2 }
        defer { withExtendedLifetime(lock) {} }
        let console = Console(mode: parsed.has("quiet") ? .quiet : parsed.has("verbose") ? .verbose : .normal, json: parsed.has("json"))
        // What every earlier run into this folder recorded, read once the lock is held (a run that waited plans on what
        // the one before it finished), then this run's ledger (created when missing).
        let history: FolderHistory
        let ledger: ExportLedger
        do {
            history = try FolderHistory.load(folder: output)
            ledger = try ExportLedger.open(folder: output, shard: batch.shard)
        } catch {
            console.error("\(error)")
            return 2
        }
        // Outputs an earlier run recorded here are this export's own (see CollisionPolicy): every run's in the folder's
        // ledgers (whole runs, shard splits, watches), and the outputs an interrupted run announced before writing them.
        // The plan is kept in a temporary database, not in memory: the parent of a 100,000-file batch stays as small as a 1,000-file one's.
        let plan: StoredPlan
        do {
            plan = try BatchPlanner.store(paths: parsed.positionals, rules: rules, outputDirectory: output, owner: history.owner(ofOutput:),
                                          intents: OutputIntents.all(first: manifestURL, in: output))
        } catch {
            console.error("cannot plan the batch: \(error)")
            return 2
        }
        if plan.isEmpty {
            console.error(!plan.filteredOut.isEmpty ? "none of the \(plan.filteredOut.count + plan.excluded) image(s) found is taken by "
                                                      + "--include/--exclude/--min-rating/--label (\(plan.filteredOut.count) filtered out by rating or label)"
                          : plan.excluded > 0 ? "none of the \(plan.excluded) image(s) found matches --include/--exclude"
                                            : "no images found in \(parsed.positionals.joined(separator: ", "))")
            return 1
        }
        let toConvert = plan.convertingCount
        let fitted = BatchArguments.fitted(batch, files: toConvert, parsed)
        let runner = BatchRunner(converter: converter, manifestURL: manifestURL, configuration: fitted)
        do { try runner.record(into: ledger, history: history, scope: scope) } catch {
            console.error("\(error)")
            return 2
        }
        runner.onNotice = { console.info($0) }
        runner.workerReserve = reserve
        runner.returnsEntries = false
        var meter = ProgressMeter(total: plan.count)
        var manifestFailed = false
        let manifest = runner.run(plan, onEvent: { event in
            switch event {
            case .started(let total):
                console.event(["event": "started", "total": total, "excluded": plan.excluded, "filteredOut": plan.filteredOut.count,
                               "output": output.path])
                console.verbose("converting \(total) file(s) into \(output.path)"
                                + (plan.excluded > 0 ? " (\(plan.excluded) excluded by --include/--exclude)" : ""))
            case let .converting(_, _, item):
                console.progress(meter.line(current: item.relativePath), force: true)
            case let .finished(index, total, item, entry):
                meter.record(entry)
                report(entry, item: item, index: index, total: total, console: console, meter: meter)
            }
        }, onManifestError: { e in
            if !manifestFailed { console.error("cannot write the manifest: \(e)") }
            manifestFailed = true
        })
        console.endProgress()
        if runner.workersStarted > 0 {
            console.verbose(String(format: "%d worker process(es) started; peak memory %.0f MiB in the largest, %.0f MiB summed",
                                   runner.workersStarted, Double(runner.peakWorkerRSSKiB) / 1024, Double(runner.peakTotalWorkerRSSKiB) / 1024))
        }
        for f in plan.filteredOut { console.verbose("\(f.path): filtered out: \(f.reason)") }
        let s = manifest.summary
        let elapsed = Date().timeIntervalSince(meter.start)
        console.event(["event": "finished", "total": s.total, "converted": s.converted, "skipped": s.skipped, "failed": s.failed,
                       "notStarted": runner.neverStarted, "filteredOut": plan.filteredOut.count, "seconds": (elapsed * 1000).rounded() / 1000, "megapixels": (meter.megapixels * 10).rounded() / 10,
                       "manifest": manifestURL.path])
        let stopped = runner.neverStarted > 0 ? ", \(runner.neverStarted) never started (run the same command again to do them)" : ""
        let filtered = plan.filteredOut.isEmpty ? "" : ", \(plan.filteredOut.count) filtered out by --min-rating/--label"
        console.result("\(s.converted) converted, \(s.skipped) skipped, \(s.failed) failed\(filtered)\(stopped) -> \(output.path)"
                       + (s.skipped > 0 && console.mode != .verbose ? " (why: the manifest, or --verbose)" : ""))
        if !manifestFailed { console.result("manifest: \(manifestURL.path)") }
        if !runner.leftAlone.isEmpty {
            console.error("warning: \(runner.leftAlone.count) input(s) not converted: a file LightWork did not write holds the output name "
                          + "(left as it is; --on-exist overwrite replaces it, --on-exist suffix writes beside it): "
                          + runner.leftAlone.prefix(3).joined(separator: ", ") + (runner.leftAlone.count > 3 ? ", …" : ""))
        }
        if let signal = runner.interruptSignal { return 128 + signal }
        return s.failed > 0 || manifestFailed || runner.stopReason != nil || !runner.leftAlone.isEmpty ? 1 : 0
    }

    /// One file's outcome: an error line, a plain log line (not on a terminal), a JSON event, the live line.
    static func report(_ entry: Manifest.Entry, item: InputItem, index: Int, total: Int, console: Console, meter: ProgressMeter) {
        let seconds = ((entry.timings["total"] ?? 0) * 1000).rounded() / 1000
        switch entry.status {
        case .failed:
            console.error("\(item.displayPath): \(entry.reason ?? "failed")")
            console.event(["event": "failed", "index": index, "total": total, "input": item.displayPath, "reason": entry.reason ?? "",
                           "seconds": seconds])
        case .skipped:
            console.event(["event": "skipped", "index": index, "total": total, "input": item.displayPath, "reason": entry.reason ?? "",
                           "output": entry.output?.path ?? ""])
            if console.showsPlainProgress { console.info("[\(index)/\(total)] \(item.displayPath): skipped: \(entry.reason ?? "")") }
            else { console.verbose("\(item.displayPath): skipped: \(entry.reason ?? "")") }
        case .converted:
            let out = entry.output?.path ?? ""
            var fields: [String: Any] = ["event": "converted", "index": index, "total": total, "input": item.displayPath, "output": out,
                                         "seconds": seconds]
            if let w = entry.input.width, let h = entry.input.height { fields["megapixels"] = (Double(w * h) / 1e5).rounded() / 10 }
            console.event(fields)
            if console.showsPlainProgress { console.info("[\(index)/\(total)] \(item.displayPath) -> \(out)") }
            let t = entry.timings
            console.verbose(String(format: "  decode %.2fs  ", t["decode"] ?? 0) + (t["resize"].map { String(format: "resize %.2fs  ", $0) } ?? "")
                            + String(format: "render %.2fs  encode %.2fs", t["render"] ?? 0, t["encode"] ?? 0)
                            + (entry.notes.isEmpty ? "" : "  (" + entry.notes.joined(separator: "; ") + ")"))
            // The decoder's decisions in their order, then the develop modules' (tone, lens…) by name.
            let decisions = entry.input.decisions ?? [:]
            for key in DecodedImage.decisionKeys + decisions.keys.filter({ !DecodedImage.decisionKeys.contains($0) }).sorted() {
                if let value = decisions[key] { console.verbose("  \(key): \(value)") }
            }
        }
        console.progress(meter.line(current: item.relativePath))
    }

    /// Builds the conversion spec from the parsed flags: defaults, then the recipe's export block, then flags.
    /// The recipe is resolved here and the film or LUT identified by its bytes, so a bad recipe fails before any
    /// file is touched. `onExist` is the command's collision policy where `--on-exist` is not given.
    static func makeSpec(_ p: ParsedArguments, outputDirectory: URL, onExist: CollisionPolicy = .skip) throws -> ConvertSpec {
        let (look, recipe) = try LookArguments.look(p)
        var encode = EncodeSettings()
        var colorSpace = OutputColorSpace.srgb
        recipe.export?.apply(to: &encode, colorSpace: &colorSpace)
        if let f = p.value("format") {
            guard let format = CodecRegistry.outputFormat(named: f) else { throw choices("--format", f, CodecRegistry.formatNames) }
            encode.format = format
        }
        try encode.setOptions(recipe.export?.optionValues ?? [:], from: .recipe)
        try encode.setOptions(codecOptionValues(p), from: .commandLine)
        if let c = p.value("colorspace") {
            guard let v = OutputColorSpace(rawValue: c) else { throw choices("--colorspace", c, OutputColorSpace.allCases.map(\.rawValue)) }
            colorSpace = v
        }
        var decode = ConvertSpec.Decode()
        if let d = p.value("demosaic") {
            guard let v = DecodeOptions.Demosaic(rawValue: d) else { throw choices("--demosaic", d, DecodeOptions.Demosaic.allCases.map(\.rawValue)) }
            decode.demosaic = v
        }
        if let i = p.value("intent") {
            guard let v = DecodeOptions.RenderingIntent(rawValue: i) else { throw choices("--intent", i, DecodeOptions.RenderingIntent.allCases.map(\.rawValue)) }
            decode.intent = v
        }
        if let m = p.value("color-model") {
            guard let v = DecodeOptions.ColorModel(rawValue: m) else { throw choices("--color-model", m, DecodeOptions.ColorModel.allCases.map(\.rawValue)) }
            decode.colorModel = v
        }
        decode.cameraProfile = try cameraProfile(p, recipe: recipe.cameraProfile)
        if decode.colorModel == .libraw, let setting = decode.cameraProfile, setting.source != .matrix {
            throw LightWorkError.usage("--camera-profile applies to the dng colour model, not --color-model libraw")
        }
        if let m = p.value("max-pixels") {
            guard let v = Int(m), v > 0 else { throw LightWorkError.usage("--max-pixels takes a positive whole number, not '\(m)'") }
            decode.maxPixels = v
        }
        let export = ConvertSpec.Export(format: encode.format, quality: encode.jpegQuality, compression: encode.tiffCompression,
                                        colorSpace: colorSpace, background: try p.value("background").map(parseColour) ?? SIMD3(1, 1, 1),
                                        stripMetadata: p.has("strip-metadata"), resize: try ExportArguments.resize(p),
                                        options: encode.options,
                                        metadata: try ExportArguments.metadata(p, recipe: recipe.metadata))
        let naming = try ExportArguments.naming(p)
        return ConvertSpec(look: look, decode: decode, develop: try DevelopArguments.settings(p, recipe: recipe.develop), export: export,
                           output: ConvertSpec.Output(directory: outputDirectory, name: naming.name ?? .standard, onExist: naming.onExist ?? onExist))
    }

    /// The camera profile: the recipe's pin, then `--camera-profile`, `--profile-look`, `--profile-tone`; nil when
    /// none is given (the matrices, as before profiles existed).
    static func cameraProfile(_ p: ParsedArguments, recipe: CameraProfilePin?) throws -> CameraProfileSetting? {
        var setting = try recipe?.setting()
        if let text = p.value("camera-profile") {
            setting = CameraProfileSetting(source: try CameraProfileSetting.source(parsing: text), look: setting?.look ?? true, tone: setting?.tone ?? true)
        }
        for (flag, keyPath) in [("profile-look", \CameraProfileSetting.look), ("profile-tone", \CameraProfileSetting.tone)] {
            guard let v = p.value(flag) else { continue }
            guard v == "on" || v == "off" else { throw choices("--\(flag)", v, ["on", "off"]) }
            var s = setting ?? CameraProfileSetting()
            s[keyPath: keyPath] = v == "on"
            setting = s
        }
        return setting
    }

    static func choices(_ flag: String, _ value: String, _ all: [String]) -> LightWorkError {
        .usage("\(flag) '\(value)' is not one of: \(all.joined(separator: ", "))")
    }

    /// white, black, grey, #RRGGBB or r,g,b (0-255).
    static func parseColour(_ s: String) throws -> SIMD3<Double> {
        switch s.lowercased() {
        case "white": return SIMD3(1, 1, 1)
        case "black": return SIMD3(0, 0, 0)
        case "grey", "gray": return SIMD3(0.5, 0.5, 0.5)
        default: break
        }
        if s.hasPrefix("#"), s.count == 7, let v = UInt32(s.dropFirst(), radix: 16) {
            return SIMD3(Double((v >> 16) & 255) / 255, Double((v >> 8) & 255) / 255, Double(v & 255) / 255)
        }
        let parts = s.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        if parts.count == 3, parts.allSatisfy({ (0...255).contains($0) }) { return SIMD3(parts[0] / 255, parts[1] / 255, parts[2] / 255) }
        throw LightWorkError.usage("--background '\(s)' is not a colour: use white, black, #RRGGBB or r,g,b")
    }
}
