import Foundation

/// The outcome of one `lightwork verify` run: every case's verdict and measurements, the decode-hash check, and
/// what produced them. Written as JSON (`JSONReportWriter`), JUnit XML (`JUnitReportWriter`) and HTML
/// (`HTMLReportWriter`).
public struct VerifyReport: Sendable, Codable {
    public static let currentVersion = 1

    public var version = VerifyReport.currentVersion
    public var suite: String
    /// The suite file as given on the command line.
    public var suitePath: String
    /// LightWork's version and the linked libraries' (`lightwork --version`).
    public var tool: [String: String]
    /// True for `--update` runs (goldens blessed, not judged).
    public var update: Bool
    /// The decode-hash check, when the suite has one (or `--decode-hashes` asked for it).
    public var decode: [DecodeHashes.FileResult]?
    public var cases: [CaseResult]
    public var seconds: Double

    /// One case's verdict.
    public struct CaseResult: Sendable, Codable {
        public enum Status: String, Sendable, Codable {
            /// Within every limit (or, with `--update`, blessed).
            case passed
            /// A limit broken, the images incomparable, or the render failed.
            case failed
            /// The case could not be run as written (missing golden or input, bad recipe, locked film): a setup error.
            case error
        }

        public var name: String
        public var description: String?
        public var input: String
        public var golden: String?
        /// The rendered file (kept when the run has an output folder).
        public var candidate: String?
        public var status: Status
        /// Why it failed: one line per broken limit or problem.
        public var failures: [String]
        public var notes: [String]
        /// The limits applied to the pixel comparison (resolved).
        public var thresholds: VerifyThresholds
        public var pixels: PixelSummary?
        public var chart: ChartResult?
        /// With `--update`: what happened to the golden ("created", "unchanged", "updated: …").
        public var update: String?
        public var seconds: Double

        public init(name: String, description: String?, input: String, golden: String?, thresholds: VerifyThresholds) {
            self.name = name
            self.description = description
            self.input = input
            self.golden = golden
            status = .passed
            failures = []
            notes = []
            self.thresholds = thresholds
            seconds = 0
        }

        /// The number the report sorts by, worst first: the larger of the pixel and chart maxima relative to
        /// their limits, failures and errors above everything that passed.
        public var severity: Double {
            let pixel = pixels.map { $0.statistics.max / max(thresholds.max ?? VerifyThresholds.defaultMax, 1e-9) } ?? 0
            let patch = chart.map { $0.comparison.statistics.max / max($0.thresholds.max ?? VerifyThresholds.defaultMax, 1e-9) } ?? 0
            let base: Double = status == .passed ? 0 : status == .failed ? 2000 : 1000
            return base + min(max(pixel, patch), 999)
        }
    }

    /// The per-pixel comparison's numbers.
    public struct PixelSummary: Sendable, Codable {
        public var width: Int
        public var height: Int
        public var statistics: DeltaEStatistics
        public var identicalSamples: Bool
        public var maxSampleDifference: Int
        public var alphaDifferences: Int
        /// Where the largest difference is (nil when nothing differs).
        public var worstPixel: [Int]?
        /// Bits per sample of the compared images: the unit of `maxSampleDifference` (code values of 2ⁿ − 1).
        public var sampleBits: Int?
    }

    /// Chart mode's numbers.
    public struct ChartResult: Sendable, Codable {
        public var truth: String
        public var thresholds: VerifyThresholds
        public var comparison: ChartComparison
    }

    /// Counts for the summary line and the exit status.
    public var counts: (passed: Int, failed: Int, errors: Int, decodeFailed: Int, decodeSkipped: Int) {
        (cases.filter { $0.status == .passed }.count, cases.filter { $0.status == .failed }.count,
         cases.filter { $0.status == .error }.count, (decode ?? []).filter { $0.status == .failed }.count,
         (decode ?? []).filter { $0.status == .skipped }.count)
    }

    /// 0 every case and file passed, 1 something failed, 2 a case could not be run (setup).
    public var exitStatus: Int32 {
        let c = counts
        if c.errors > 0 { return 2 }
        return c.failed > 0 || c.decodeFailed > 0 ? 1 : 0
    }

    /// How a case's limits are looser than the defaults (max 2.3, mean 0.767 ΔE00), pixel and chart limits alike;
    /// empty when they are not.
    public static func loosenings(_ r: CaseResult) -> [String] {
        var out: [String] = []
        if r.pixels != nil { out += r.thresholds.loosenings().map { "pixels: " + $0 } }
        if let chart = r.chart { out += chart.thresholds.loosenings().map { "chart: " + $0 } }
        return out
    }

    /// The cases that passed only within limits looser than the defaults.
    public var passedWithLooseLimits: [CaseResult] {
        cases.filter { $0.status == .passed && !Self.loosenings($0).isEmpty }
    }

    /// Cases worst first (failed, then errors, then passed; by how far over the limit within each).
    public var casesWorstFirst: [CaseResult] {
        cases.enumerated().sorted { a, b in
            a.element.severity != b.element.severity ? a.element.severity > b.element.severity : a.offset < b.offset
        }.map(\.element)
    }
}

/// Writes the report as JSON (sorted keys, pretty-printed): what CI scripts and dashboards read.
public enum JSONReportWriter {
    public static func data(_ report: VerifyReport) throws -> Data {
        let e = JSONEncoder()
        e.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var d = try e.encode(report)
        d.append(0x0a)
        return d
    }

    public static func write(_ report: VerifyReport, to url: URL) throws {
        try AtomicFile.write(data: try data(report), to: url)
    }
}
