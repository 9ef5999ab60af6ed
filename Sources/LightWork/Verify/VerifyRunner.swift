import Foundation

/// How a verify run goes.
public struct VerifyOptions: Sendable {
    /// Bless new goldens instead of judging (`--update`); the decode-hash file is re-recorded too.
    public var update = false
    /// Only these cases (`--case`); empty means all.
    public var caseNames: [String] = []
    /// Cases rendered at once (`--jobs`); results never depend on it.
    public var jobs = 1
    /// The threads each case is rendered and compared on (`--threads`; the CLI gives cores / jobs).
    public var engine = EngineConfiguration.detected
    /// Keep the renders here (`-o DIR/candidates`); nil renders into a temporary folder removed afterwards.
    public var candidateDirectory: URL?
    /// Make thumbnails for the HTML report.
    public var thumbnails = false
    /// A decode-hash file to check instead of (or without) the suite's.
    public var decodeHashes: URL?

    public init() {}
}

/// A finished run: the report and the HTML report's pictures.
public struct VerifyRun: Sendable {
    public var report: VerifyReport
    public var thumbnails: [String: CaseThumbnails]
}

/// Runs a suite: the decode-hash check first (a changed decode explains any colour change after it), then every
/// case rendered through `CaseRenderer` and compared with its golden and/or chart truth.
public enum VerifyRunner {
    /// Runs `suite` (read from `suiteURL`; nil with only `options.decodeHashes` for a decode-only run). Throws only
    /// for setup problems that stop the whole run (an unreadable hash or entitlement file, no Profiles folder);
    /// problems of one case are that case's `error`.
    public static func run(suite: VerifySuite?, suiteURL: URL?, suitePath: String, options: VerifyOptions,
                           onDecode: @Sendable ([DecodeHashes.FileResult]) -> Void = { _ in },
                           onCase: @Sendable (VerifyReport.CaseResult) -> Void = { _ in }) throws -> VerifyRun {
        let start = Date()
        let directory = suiteURL?.deletingLastPathComponent() ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        var tool = LightWorkVersion.libraries
        tool["lightwork"] = LightWorkVersion.current
        var report = VerifyReport(suite: suite?.name ?? "decode hashes", suitePath: suitePath, tool: tool, update: options.update,
                                  decode: nil, cases: [], seconds: 0)

        let hashesURL = options.decodeHashes ?? suite?.decodeHashes.map { CaseRenderer.resolvePath($0, from: directory) }
        if let hashesURL {
            let hashes = try DecodeHashes.load(from: hashesURL)
            let hashDirectory = hashesURL.deletingLastPathComponent()
            var results = hashes.check(directory: hashDirectory)
            if options.update {
                let rerecorded = try hashes.rerecorded(directory: hashDirectory)
                if rerecorded != hashes { try AtomicFile.write(data: try rerecorded.encoded(), to: hashesURL) }
                results = results.map { r in
                    var r = r
                    if r.status == .failed { r.messages = ["re-recorded: " + r.messages.joined(separator: "; ")] } else if r.status == .passed { r.messages = ["unchanged"] }
                    if r.status != .skipped { r.status = .passed }
                    return r
                }
            }
            report.decode = results
            onDecode(results)
        }

        guard let suite else {
            report.seconds = Date().timeIntervalSince(start)
            return VerifyRun(report: report, thumbnails: [:])
        }
        let unknown = options.caseNames.filter { name in !suite.cases.contains { $0.name == name } }
        guard unknown.isEmpty else {
            throw LightWorkError.usage("no case named \(unknown.joined(separator: ", ")) in \(suitePath) (cases: \(suite.cases.map(\.name).joined(separator: ", ")))")
        }
        let cases = options.caseNames.isEmpty ? suite.cases : suite.cases.filter { options.caseNames.contains($0.name) }
        let renderer = try CaseRenderer(suiteDirectory: directory,
                                        entitlementsFile: suite.entitlements.map { CaseRenderer.resolvePath($0, from: directory) })
        let candidates: URL
        var temporary: URL?
        if let keep = options.candidateDirectory {
            candidates = keep
        } else {
            candidates = FileManager.default.temporaryDirectory.appendingPathComponent("lightwork-verify-\(UUID().uuidString)")
            temporary = candidates
        }
        try FileManager.default.createDirectory(at: candidates, withIntermediateDirectories: true)
        defer { if let temporary { try? FileManager.default.removeItem(at: temporary) } }

        let keep = temporary == nil
        let results = LockedBox([(VerifyReport.CaseResult, CaseThumbnails?)?](repeating: nil, count: cases.count))
        Parallel.forEach(cases.count, workers: max(1, options.jobs)) { _, i in
            let outcome = runCase(cases[i], suite: suite, suitePath: suitePath, renderer: renderer, candidates: candidates, keep: keep, options: options)
            results.withLock { $0[i] = outcome }
            onCase(outcome.0)
        }
        var thumbnails: [String: CaseThumbnails] = [:]
        for case let (result, thumbs)? in results.withLock({ $0 }) {
            report.cases.append(result)
            if let thumbs { thumbnails[result.name] = thumbs }
        }
        report.seconds = Date().timeIntervalSince(start)
        return VerifyRun(report: report, thumbnails: thumbnails)
    }

    /// One case, start to verdict; never throws (its problems are its result).
    static func runCase(_ c: VerifyCase, suite: VerifySuite, suitePath: String, renderer: CaseRenderer, candidates: URL, keep: Bool,
                        options: VerifyOptions) -> (VerifyReport.CaseResult, CaseThumbnails?) {
        let start = Date()
        let thresholds = c.thresholds.map { $0.over(suite.thresholds) } ?? suite.thresholds ?? VerifyThresholds()
        var r = VerifyReport.CaseResult(name: c.name, description: c.description, input: c.input, golden: c.golden, thresholds: thresholds.resolved)
        var thumbs = options.thumbnails ? CaseThumbnails() : nil
        func finish() -> (VerifyReport.CaseResult, CaseThumbnails?) {
            r.seconds = Date().timeIntervalSince(start)
            return (r, thumbs)
        }
        func setupError(_ message: String) -> (VerifyReport.CaseResult, CaseThumbnails?) {
            r.status = .error
            r.failures.append(message)
            return finish()
        }
        let goldenURL = c.golden.map(renderer.resolve)
        var hadGolden = false
        if let goldenURL {
            hadGolden = FileManager.default.fileExists(atPath: goldenURL.path)
            if !hadGolden && !options.update {
                return setupError("no golden at \(goldenURL.path): bless the current render with 'lightwork verify \(suitePath) --update --case \(c.name)'")
            }
        }

        // Render.
        let candidateURL: URL
        do {
            let spec = try renderer.spec(for: c, outputDirectory: candidates)
            let format = spec.export.format
            if let golden = c.golden, !GoldenStore.extensionMatches(golden: golden, format: format) {
                return setupError("golden \(golden) does not fit the \(format.rawValue) output: name it .\(format.fileExtension)")
            }
            candidateURL = try renderer.render(c, spec: spec, engine: options.engine)
        } catch let failure as CaseRenderer.RenderFailure {
            r.status = .failed
            r.failures.append("render failed: \(failure.description)")
            return finish()
        } catch {
            return setupError("\(error)")
        }
        if keep { r.candidate = candidateURL.path }
        let candidate: ImageFile
        do { candidate = try ImageFileReader.read(candidateURL) } catch {
            r.status = .failed
            r.failures.append("the render cannot be read back: \(error)")
            return finish()
        }
        thumbs?.candidate = try? Thumbnail.png(candidate, maxEdge: Thumbnail.reportEdge)

        // Pixels against the golden.
        if let goldenURL {
            var comparison: PixelComparison?
            if hadGolden {
                do {
                    let golden = try ImageFileReader.read(goldenURL)
                    thumbs?.golden = try? Thumbnail.png(golden, maxEdge: Thumbnail.reportEdge)
                    let cmp = try PixelComparison(golden: golden, candidate: candidate, threshold: thresholds.resolved.max!, engine: options.engine)
                    comparison = cmp
                    r.pixels = VerifyReport.PixelSummary(
                        width: cmp.width, height: cmp.height, statistics: cmp.statistics, identicalSamples: cmp.identicalSamples,
                        maxSampleDifference: cmp.maxSampleDifference, alphaDifferences: cmp.alphaDifferences,
                        worstPixel: cmp.statistics.max > 0 ? cmp.statistics.worstIndex.map { [$0 % cmp.width, $0 / cmp.width] } : nil,
                        sampleBits: golden.bitDepth)
                    r.notes += cmp.notes
                    // An all-black map says nothing an "identical" does not.
                    if cmp.statistics.max > 0 { thumbs?.heatMap = try? Thumbnail.heatMapPNG(deltaE: cmp.deltaE, width: cmp.width, height: cmp.height, maxEdge: Thumbnail.reportEdge) }
                    if !options.update {
                        r.failures += thresholds.failures(cmp.statistics)
                        if cmp.alphaDifferences > 0 { r.failures.append("alpha differs in \(cmp.alphaDifferences) pixels") }
                    }
                } catch let mismatch as PixelComparison.Mismatch {
                    if !options.update { r.failures.append(mismatch.description) } else { r.notes.append("old golden: \(mismatch.description)") }
                } catch {
                    if !options.update { return setupError("golden \(goldenURL.path) cannot be read: \(error)") }
                    r.notes.append("old golden unreadable: \(error)")
                }
            }
            if options.update {
                do {
                    r.update = try GoldenStore.bless(candidate: candidateURL, candidateFile: candidate, golden: goldenURL,
                                                     previous: comparison, hadGolden: hadGolden)
                } catch {
                    return setupError("cannot write golden \(goldenURL.path): \(error)")
                }
            }
        }

        // Patches against the chart's truth.
        if let chart = c.chart {
            let chartThresholds = chart.thresholds.map { $0.over(thresholds) } ?? thresholds
            let described = chart.truth ?? "reference \(chart.reference ?? "")"
            do {
                let cmp: ChartComparison
                if let truthPath = chart.truth {
                    let truth = try ChartTruth.load(from: renderer.resolve(truthPath))
                    cmp = try ChartComparison(file: candidate, truth: truth, exposure: chart.exposure ?? .absolute,
                                              threshold: chartThresholds.resolved.max!)
                } else {
                    // A photographed chart, measured as `lightwork chart` measures it (exposure matched by the white patch).
                    let reference = try ChartReference.named(chart.reference.map { $0.hasSuffix(".json") ? renderer.resolve($0).path : $0 } ?? "")
                    let corners = chart.corners.map { c in ChartMeasurement.Corners((0..<4).map { SIMD2(c[2 * $0], c[2 * $0 + 1]) }) }
                    let m = try ChartMeasurement(file: candidate, reference: reference, corners: corners)
                    cmp = ChartComparison(photo: m, threshold: chartThresholds.resolved.max!)
                }
                r.chart = VerifyReport.ChartResult(truth: described, thresholds: chartThresholds.resolved, comparison: cmp)
                r.failures += chartThresholds.failures(cmp.statistics, unit: "patches").map { "chart: " + $0 }
            } catch let mismatch as PixelComparison.Mismatch {
                r.failures.append("chart: \(mismatch.description)")
            } catch let notFound as ChartNotFound {
                r.failures.append("chart: no ColorChecker found with confidence: \(notFound.reason); give the case \"corners\"")
            } catch {
                return setupError("chart \(described): \(error)")
            }
        }
        if !r.failures.isEmpty { r.status = .failed }
        return finish()
    }
}

extension CaseRenderer {
    /// A suite path from `directory` (absolute paths as given).
    static func resolvePath(_ path: String, from directory: URL) -> URL {
        path.hasPrefix("/") ? URL(fileURLWithPath: path) : directory.appendingPathComponent(path).standardizedFileURL
    }
}
