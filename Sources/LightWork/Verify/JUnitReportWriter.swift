import Foundation

/// Writes the report as JUnit XML, the format CI systems (GitLab, Jenkins, GitHub actions' reporters) read:
/// one `<testsuite>` for the decode-hash check and one for the cases; a broken limit is a `<failure>`, a case that
/// could not run an `<error>`, an absent optional sample `<skipped>`.
public enum JUnitReportWriter {
    public static func xml(_ report: VerifyReport) -> String {
        var suites: [String] = []
        if let decode = report.decode {
            let failures = decode.filter { $0.status == .failed }.count, skipped = decode.filter { $0.status == .skipped }.count
            var body = ""
            for file in decode {
                body += "    <testcase classname=\"\(escape("decode-hashes"))\" name=\"\(escape(file.file))\" time=\"0\">"
                switch file.status {
                case .passed: break
                case .failed:
                    body += "\n      <failure message=\"\(escape(file.messages.first ?? "decode changed"))\" type=\"decode\">\(escape(file.messages.joined(separator: "\n")))</failure>\n    "
                case .skipped:
                    body += "\n      <skipped message=\"\(escape(file.messages.first ?? "skipped"))\"/>\n    "
                }
                body += "</testcase>\n"
            }
            suites.append("  <testsuite name=\"decode-hashes\" tests=\"\(decode.count)\" failures=\"\(failures)\" errors=\"0\" skipped=\"\(skipped)\" time=\"0\">\n\(body)  </testsuite>")
        }
        let c = report.counts
        var body = ""
        for r in report.cases {
            body += "    <testcase classname=\"\(escape("verify." + report.suite))\" name=\"\(escape(r.name))\" time=\"\(seconds(r.seconds))\">\n"
            let detail = ([summary(r)] + r.failures + r.notes).joined(separator: "\n")
            switch r.status {
            case .passed: break
            case .failed:
                body += "      <failure message=\"\(escape(r.failures.joined(separator: "; ")))\" type=\"colour\">\(escape(detail))</failure>\n"
            case .error:
                body += "      <error message=\"\(escape(r.failures.joined(separator: "; ")))\" type=\"setup\">\(escape(detail))</error>\n"
            }
            body += "      <system-out>\(escape(detail))</system-out>\n    </testcase>\n"
        }
        suites.append("  <testsuite name=\"\(escape(report.suite))\" tests=\"\(report.cases.count)\" failures=\"\(c.failed)\" errors=\"\(c.errors)\" skipped=\"0\" time=\"\(seconds(report.seconds))\">\n\(body)  </testsuite>")
        let tests = report.cases.count + (report.decode?.count ?? 0)
        return """
        <?xml version="1.0" encoding="UTF-8"?>
        <testsuites name="lightwork verify" tests="\(tests)" failures="\(c.failed + c.decodeFailed)" errors="\(c.errors)" time="\(seconds(report.seconds))">
        \(suites.joined(separator: "\n"))
        </testsuites>

        """
    }

    public static func write(_ report: VerifyReport, to url: URL) throws {
        try AtomicFile.write(data: Data(xml(report).utf8), to: url)
    }

    /// The case's numbers in one line.
    static func summary(_ r: VerifyReport.CaseResult) -> String {
        var parts: [String] = []
        if let p = r.pixels {
            parts.append(String(format: "pixels: max ΔE00 %.3f, mean %.4f, p99 %.3f, %.3f %% above %.3g%@", p.statistics.max, p.statistics.mean,
                                p.statistics.p99, p.statistics.shareAbove * 100, p.statistics.threshold, p.identicalSamples ? " (identical samples)" : ""))
        }
        if let chart = r.chart {
            parts.append(String(format: "chart: mean ΔE00 %.3f, max %.3f over %d patches", chart.comparison.statistics.mean,
                                chart.comparison.statistics.max, chart.comparison.statistics.count))
        }
        if let u = r.update { parts.append("golden: \(u)") }
        return parts.joined(separator: "; ")
    }

    static func seconds(_ s: Double) -> String { String(format: "%.3f", s) }

    /// XML text and attribute escaping; control characters XML 1.0 forbids are dropped.
    static func escape(_ s: String) -> String {
        var out = ""
        for ch in s.unicodeScalars {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\n", "\t", "\r": out.unicodeScalars.append(ch)
            default: if ch.value >= 0x20 { out.unicodeScalars.append(ch) }
            }
        }
        return out
    }
}
