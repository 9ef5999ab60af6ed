import Foundation
import LightWork

/// `lightwork verify`: the colour regression suite (render, compare by CIEDE2000, report), and the decode-hash check.
enum VerifyCommand {
    static let specs: [OptionSpec] = [
        OptionSpec(name: "output", value: "DIR", help: "keep the renders (DIR/candidates/) and write results.json, junit.xml, report.html there", short: "o"),
        OptionSpec(name: "json", value: "FILE", help: "write the results as JSON"),
        OptionSpec(name: "junit", value: "FILE", help: "write the results as JUnit XML (for CI)"),
        OptionSpec(name: "html", value: "FILE", help: "write a self-contained HTML report (thumbnails, ΔE heat-maps, worst first)"),
        OptionSpec(name: "update", value: nil, help: "bless the current renders as goldens (only changed pixels rewrite a file) and re-record decode hashes"),
        OptionSpec(name: "case", value: "NAME", help: "only this case (repeatable)"),
        OptionSpec(name: "decode-hashes", value: "FILE", help: "check this decode-hash file (instead of the suite's; alone, without a SUITE)"),
        OptionSpec(name: "record-decode-hashes", value: "FILE", help: "record the RAW files given as arguments into FILE (added or replaced)"),
        OptionSpec(name: "optional", value: nil, help: "with --record-decode-hashes: the files may be absent elsewhere (skipped there, not failed)"),
        OptionSpec(name: "against-libraw", value: nil, help: "decode each FILE with LightWork and with LibRaw's dcraw_emu and compare size, orientation and picture"),
        OptionSpec(name: "demosaic", value: "ALG", help: "with --against-libraw: LightWork's demosaic (as convert takes it; dcraw_emu gets LibRaw's of that name)"),
        OptionSpec(name: "color-model", value: "M", help: "with --against-libraw: LightWork's RAW colour (dng, libraw)"),
        OptionSpec(name: "jobs", value: "N", help: "cases rendered at once (default 1); results are the same for any N"),
        OptionSpec(name: "threads", value: "N", help: "engine threads per image (default: cores / jobs)"),
        OptionSpec(name: "quiet", value: nil, help: "only failures and the summary", short: "q"),
        OptionSpec(name: "help", value: nil, help: "this text", short: "h"),
    ]

    static let help = """
    Usage: lightwork verify SUITE.json [options]
           lightwork verify --decode-hashes FILE [--update]
           lightwork verify --record-decode-hashes FILE [--optional] RAW...
           lightwork verify --against-libraw [--json FILE] [--demosaic ALG] [--color-model M] RAW...

    Renders every case of a colour regression suite exactly as 'lightwork convert' would and compares it
    with its golden image, pixel by pixel, by CIEDE2000: each image is read as Lab through its own
    embedded ICC profile (LittleCMS). A case fails when the largest difference exceeds 2.3 or the mean
    exceeds 0.767 (darktable's limits), unless the suite or the case sets its own ("thresholds": {"max",
    "mean", "shareAbove"}); the share of pixels above the limit is always reported. Chart cases measure a
    rendered ColorChecker against its patch-truth file (Samples/scene.truth.json) patch by patch.
    A suite's decode-hash file is checked first: metadata and SHA-256 of the decoded pixels per RAW file,
    so a LibRaw update that changes decoding is caught before colour is compared.

    --against-libraw decodes each RAW file with LightWork (default settings, but LightWork's AHD demosaic, unless
    --demosaic or --color-model say otherwise) and with LibRaw's own dcraw_emu (Debian libraw-bin) at matching settings (dcraw_emu -T -4 -w
    -o 4 -c 0 -H 0 -q Q: camera white balance, linear 16-bit ProPhoto, no auto-brightening, highlights clipped)
    and compares the two: size; orientation (all eight turns and mirrors of LightWork's picture are tried, so a
    disagreement is named: "LibRaw's picture is LightWork's mirrored left to right"); the mean level per channel;
    and the picture as a grid of region means: their lightness (ΔL*), which demosaic and colour model barely
    move and a wrong geometry moves a lot, and their colour (CIEDE2000). A DNG's BaselineExposure, which
    LightWork applies and LibRaw does not, is taken out first. Limits (two to three times the differences
    measured on real and generated files):
      DNG colour model (default): \(LibRawCrossCheck.Limits.measured(for: .dng).summary)
      --color-model libraw:       \(LibRawCrossCheck.Limits.measured(for: .libraw).summary)
    One line per file, then a summary; exit 0 when every file agreed, 1 when one disagreed (one side refused
    it counts) or neither could decode it, 2 when dcraw_emu is missing or the command line is wrong.
    --json FILE writes every figure.

    Suite file (versioned JSON; paths relative to it; lossless formats only: \(VerifyCase.losslessFormats.map(\.rawValue).joined(separator: ", "))):
      {"version": 1, "name": "my looks", "thresholds": {"max": 2.3, "mean": 0.767},
       "decodeHashes": "decode-hashes.json",
       "cases": [{"name": "portra-web", "input": "shots/IMG_1.CR2", "recipe": "recipes/portra.json",
                  "format": "png16", "colorspace": "srgb", "longEdge": 256, "golden": "goldens/portra-web.png"},
                 {"name": "chart", "input": "chart.dng", "format": "tiff16", "colorspace": "prophoto",
                  "chart": {"truth": "chart.truth.json", "thresholds": {"mean": 0.5, "max": 1.5}}}]}
    A case may also give "film", "strength", "set" ({"contrast": 35}: UI values), "compression",
    "colorModel" (dng, libraw), "demosaic", "description" and "thresholds"; a chart "exposure"
    (absolute, match-white). A photographed chart is a chart with "reference" (colorchecker-24-2014,
    colorchecker-classic or FILE.json) instead of "truth": found and measured as 'lightwork chart' does
    (optional "corners": [x1, y1, …, x4, y4]), exposure matched by the white patch. "entitlements" names a pack file unlocked for the suite's renders only.

    Options:
    \(CommandLineParser.help(specs))

    Exit status: 0 every case and decode hash passed, 1 a case failed or a decode changed,
    2 usage or setup error (no suite, a missing golden or input, a bad recipe).

    Examples:
      lightwork verify Suites/lightwork.suite.json                       judge every case
      lightwork verify Suites/lightwork.suite.json -o verify-out/        … and keep renders and reports
      lightwork verify Suites/lightwork.suite.json --junit junit.xml --html report.html
      lightwork verify Suites/lightwork.suite.json --update              bless new goldens, say what changed
      lightwork verify --decode-hashes Suites/decode-hashes.json         only the decode check
      lightwork verify --against-libraw ~/shots/*.NEF                    LightWork against LibRaw on your camera
    """

    static func run(_ args: [String]) -> Int32 {
        let parsed: ParsedArguments
        var options = VerifyOptions()
        var suite: VerifySuite?
        var suiteURL: URL?
        var outputs: (json: URL?, junit: URL?, html: URL?) = (nil, nil, nil)
        do {
            parsed = try CommandLineParser.parse(args, specs: specs)
            if parsed.has("help") { print(help); return 0 }
            if parsed.has("against-libraw") { return try againstLibRaw(parsed) }
            if let only = ["demosaic", "color-model"].first(where: { parsed.value($0) != nil }) {
                throw LightWorkError.usage("--\(only) goes with --against-libraw (a suite case sets its own)")
            }
            if let record = parsed.value("record-decode-hashes") {
                return try recordDecodeHashes(URL(fileURLWithPath: record), files: parsed.positionals, optional: parsed.has("optional"))
            }
            guard parsed.positionals.count <= 1 else {
                throw LightWorkError.usage("verify takes one SUITE file, not \(parsed.positionals.count): \(parsed.positionals.joined(separator: " "))")
            }
            options.decodeHashes = parsed.value("decode-hashes").map { URL(fileURLWithPath: $0) }
            if let path = parsed.positionals.first {
                let url = URL(fileURLWithPath: path)
                suite = try VerifySuite.load(from: url)
                suiteURL = url
            } else if options.decodeHashes == nil {
                throw LightWorkError.usage("verify needs a SUITE file (or --decode-hashes FILE)")
            }
            options.update = parsed.has("update")
            options.caseNames = parsed.all("case")
            if let j = parsed.value("jobs") {
                guard let n = Int(j), n >= 1 else { throw LightWorkError.usage("--jobs takes a whole number ≥ 1, not '\(j)'") }
                options.jobs = n
            }
            let cores = ProcessInfo.processInfo.activeProcessorCount
            options.engine = try EngineArguments.configuration(parsed, defaultThreads: max(1, cores / options.jobs))
            if let out = parsed.value("output") {
                let dir = URL(fileURLWithPath: out)
                options.candidateDirectory = dir.appendingPathComponent("candidates")
                outputs = (dir.appendingPathComponent("results.json"), dir.appendingPathComponent("junit.xml"), dir.appendingPathComponent("report.html"))
            }
            if let v = parsed.value("json") { outputs.json = URL(fileURLWithPath: v) }
            if let v = parsed.value("junit") { outputs.junit = URL(fileURLWithPath: v) }
            if let v = parsed.value("html") { outputs.html = URL(fileURLWithPath: v) }
            options.thumbnails = outputs.html != nil
        } catch {
            FileHandle.standardError.write(Data("lightwork verify: \(error)\nRun 'lightwork verify --help' for usage.\n".utf8))
            return 2
        }
        let quiet = parsed.has("quiet")
        let printLock = NSLock()
        // Cases finish on several threads: one whole line at a time.
        let say: @Sendable (String) -> Void = { line in
            printLock.lock(); defer { printLock.unlock() }
            FileHandle.standardOutput.write(Data((line + "\n").utf8))
        }
        let run: VerifyRun
        do {
            run = try VerifyRunner.run(suite: suite, suiteURL: suiteURL, suitePath: parsed.positionals.first ?? "", options: options,
                onDecode: { results in
                    for r in results where !quiet || r.status == .failed {
                        say("decode  \(r.status.rawValue.uppercased().padding(toLength: 7, withPad: " ", startingAt: 0)) \(r.file)"
                            + (r.messages.isEmpty ? "" : "\n        " + r.messages.joined(separator: "\n        ")))
                    }
                },
                onCase: { r in
                    guard !quiet || r.status != .passed else { return }
                    say(line(r))
                })
        } catch {
            FileHandle.standardError.write(Data("lightwork verify: \(error)\n".utf8))
            return 2
        }
        let report = run.report
        do {
            if let url = outputs.json { try prepare(url); try JSONReportWriter.write(report, to: url) }
            if let url = outputs.junit { try prepare(url); try JUnitReportWriter.write(report, to: url) }
            if let url = outputs.html { try prepare(url); try HTMLReportWriter.write(report, thumbnails: run.thumbnails, to: url) }
        } catch {
            FileHandle.standardError.write(Data("lightwork verify: cannot write the report: \(error)\n".utf8))
            return 2
        }
        let c = report.counts
        var summary = suite == nil ? "" : "\(c.passed) passed, \(c.failed) failed, \(c.errors) could not run"
        if let decode = report.decode {
            summary += (summary.isEmpty ? "" : "; ") + "decode hashes: \(decode.count - c.decodeFailed - c.decodeSkipped) identical, \(c.decodeFailed) changed, \(c.decodeSkipped) skipped"
        }
        say(summary + String(format: " (%.1f s)", report.seconds))
        for (name, url) in [("results", outputs.json), ("JUnit", outputs.junit), ("report", outputs.html)] {
            if let url { say("\(name): \(url.path)") }
        }
        return report.exitStatus
    }

    /// One case as a line (and its failures and notes below it).
    static func line(_ r: VerifyReport.CaseResult) -> String {
        let tag = r.status == .passed ? "PASS" : r.status == .failed ? "FAIL" : "ERROR"
        var s = "\(tag.padding(toLength: 6, withPad: " ", startingAt: 0)) \(r.name)"
        if let p = r.pixels {
            s += String(format: "  max %.3f  mean %.4f  %.3f %% above %.3g", p.statistics.max, p.statistics.mean, p.statistics.shareAbove * 100, p.statistics.threshold)
            if p.identicalSamples { s += "  (identical samples)" }
        }
        if let chart = r.chart {
            s += String(format: "  chart: mean %.3f  max %.3f over %d patches", chart.comparison.statistics.mean, chart.comparison.statistics.max,
                        chart.comparison.statistics.count)
        }
        s += String(format: "  %.2f s", r.seconds)
        if let u = r.update { s += "\n       golden \(u)" }
        for f in r.failures { s += "\n       \(f)" }
        for n in r.notes { s += "\n       note: \(n)" }
        return s
    }

    static func prepare(_ url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    }

    /// `--record-decode-hashes FILE RAW...`: measures each file and adds (or replaces) its record in FILE, paths
    /// stored relative to FILE's folder.
    static func recordDecodeHashes(_ file: URL, files: [String], optional: Bool) throws -> Int32 {
        guard !files.isEmpty else { throw LightWorkError.usage("--record-decode-hashes needs the RAW files to record") }
        var hashes = FileManager.default.fileExists(atPath: file.path) ? try DecodeHashes.load(from: file) : DecodeHashes(files: [])
        let base = file.deletingLastPathComponent().standardizedFileURL
        for path in files {
            let url = URL(fileURLWithPath: path).standardizedFileURL
            let name = relativePath(of: url, from: base)
            let fingerprint = try DecodeFingerprint.measure(url, name: name, optional: optional ? true : nil)
            hashes.files.removeAll { $0.file == name }
            hashes.files.append(fingerprint)
            print("recorded \(name)  \(fingerprint.decodedSize)  raw \(fingerprint.rawSHA256.prefix(12))…  decoded \(fingerprint.decodedSHA256.prefix(12))…")
        }
        hashes.files.sort { $0.file < $1.file }
        hashes.recordedWith = DecodeHashes(files: []).recordedWith
        try prepare(file)
        try AtomicFile.write(data: try hashes.encoded(), to: file)
        print("\(hashes.files.count) file(s) in \(file.path)")
        return 0
    }

    /// `url` relative to `base` ("../Samples/scene.dng").
    static func relativePath(of url: URL, from base: URL) -> String {
        let a = url.pathComponents, b = base.pathComponents
        var common = 0
        while common < min(a.count, b.count), a[common] == b[common] { common += 1 }
        return (Array(repeating: "..", count: b.count - common) + a[common...]).joined(separator: "/")
    }
}
