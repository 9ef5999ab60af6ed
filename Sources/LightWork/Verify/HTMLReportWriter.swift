import Foundation

/// Writes the report as one self-contained HTML page (inline CSS, thumbnails as data: URIs, no network): the
/// summary, the decode-hash check, and per case — worst first — golden, candidate and ΔE heat-map thumbnails,
/// the statistics and the verdict; chart cases get their patch table with reference and measured swatches.
public enum HTMLReportWriter {
    public static func html(_ report: VerifyReport, thumbnails: [String: CaseThumbnails]) -> String {
        let c = report.counts
        let loose = report.passedWithLooseLimits
        let verdict = report.exitStatus != 0 ? "failed" : loose.isEmpty ? "passed" : "passed loose"
        var out = """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(e("lightwork verify: \(report.suite)"))</title>
        <style>
        body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 24px; color: #1d1d1f; background: #f6f6f4; }
        h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 28px 0 8px; }
        .muted { color: #666; } .mono { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12px; }
        .banner { padding: 10px 14px; border-radius: 6px; margin: 12px 0; font-weight: 600; }
        .banner.passed { background: #dff3e3; color: #145c26; } .banner.failed { background: #fbe0de; color: #8a1c13; }
        .badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 12px; font-weight: 600; color: #fff; }
        .badge.passed { background: #2e8540; } .badge.failed { background: #c0392b; } .badge.error { background: #b9770e; } .badge.skipped { background: #888; }
        .case { background: #fff; border: 1px solid #ddd; border-radius: 8px; padding: 12px 16px; margin: 12px 0; }
        .case.failed { border-left: 5px solid #c0392b; } .case.error { border-left: 5px solid #b9770e; } .case.passed { border-left: 5px solid #2e8540; }
        .case h3 { margin: 0 0 6px; font-size: 15px; }
        .thumbs { display: flex; gap: 14px; flex-wrap: wrap; margin: 8px 0; }
        .thumbs figure { margin: 0; } .thumbs img { display: block; border: 1px solid #ccc; image-rendering: pixelated; width: 240px; cursor: zoom-in; }
        .pic { position: relative; display: inline-block; }
        .worst { position: absolute; width: 14px; height: 14px; margin: -8px 0 0 -8px; border: 2px solid #ff00ff; border-radius: 50%;
                 box-shadow: 0 0 0 1px #fff; pointer-events: none; }
        #zoom { display: none; position: fixed; inset: 0; background: rgba(0,0,0,.85); z-index: 10; cursor: zoom-out;
                align-items: center; justify-content: center; flex-direction: column; color: #eee; }
        #zoom.open { display: flex; } #zoom .pic img { image-rendering: pixelated; max-width: 94vw; max-height: 88vh; min-width: min(94vw, 720px); object-fit: contain; }
        .banner.loose { background: #fdf0d5; color: #7a4b00; }
        .badge.loose { background: #d68910; }
        .judged { font-size: 12px; color: #555; font-weight: normal; margin-left: 6px; }
        .thumbs figcaption { font-size: 12px; color: #555; }
        table { border-collapse: collapse; margin: 6px 0; } td, th { padding: 2px 10px 2px 0; text-align: left; vertical-align: top; }
        th { font-weight: 600; color: #444; } .num { text-align: right; font-variant-numeric: tabular-nums; }
        .bad { color: #c0392b; font-weight: 600; }
        .swatch { display: inline-block; width: 18px; height: 14px; border: 1px solid #999; vertical-align: middle; }
        .legend { display: inline-block; width: 220px; height: 10px; vertical-align: middle; border: 1px solid #999;
                  background: linear-gradient(to right, \(legendGradient())); }
        ul.failures { margin: 4px 0; padding-left: 20px; color: #8a1c13; }
        label { cursor: pointer; user-select: none; }
        </style>
        </head>
        <body>
        <h1>\(e(report.suite))</h1>
        <div class="muted">lightwork verify \(e(report.suitePath)) · LightWork \(e(report.tool["lightwork"] ?? "?")) · \(e(libraries(report.tool)))\(report.update ? " · <strong>--update run</strong>" : "")</div>
        <div class="banner \(verdict)">\(c.passed) passed, \(c.failed) failed, \(c.errors) could not run\(report.decode.map { " · decode hashes: \($0.filter { $0.status == .passed }.count) identical, \(c.decodeFailed) changed, \(c.decodeSkipped) skipped" } ?? "") · \(String(format: "%.1f", report.seconds)) s\(loose.isEmpty ? "" : "<br>\(loose.count) of them passed only within limits looser than the defaults (max \(VerifyThresholds.defaultMax), mean \(VerifyThresholds.defaultMean) ΔE00): " + loose.map { "<a href=\"#case-\(e($0.name))\">\(e($0.name))</a>" }.joined(separator: ", "))</div>
        <div class="muted">ΔE00 (CIEDE2000) per pixel, each image read through its own embedded ICC profile. Heat-map and patch ΔE00: <span class="legend"></span> 0 → 1 → 2.3 → 5+ · the ring marks the worst pixel · click a picture to open it at full size</div>
        <p><label><input type="checkbox" id="only-failures"> show only failures</label> <span id="shown" class="muted"></span></p>

        """
        if let decode = report.decode {
            out += "<h2>Decode hashes</h2>\n<table>\n<tr><th>file</th><th>status</th><th>details</th></tr>\n"
            for f in decode {
                out += "<tr class=\"row \(f.status.rawValue)\"><td class=\"mono\">\(e(f.file))</td><td><span class=\"badge \(f.status.rawValue)\">\(f.status.rawValue)</span></td><td>\(f.messages.map(e).joined(separator: "<br>"))</td></tr>\n"
            }
            out += "</table>\n"
        }
        out += "<h2>Cases, worst first</h2>\n"
        for r in report.casesWorstFirst {
            out += caseHTML(r, thumbnails: thumbnails[r.name])
        }
        out += """
        <div id="zoom" title="click to close"></div>
        <script>
        (function () {
          var zoom = document.getElementById("zoom");
          document.addEventListener("click", function (ev) {
            var img = ev.target;
            if (zoom.classList.contains("open")) { zoom.classList.remove("open"); zoom.innerHTML = ""; return; }
            if (img.tagName !== "IMG" || !img.closest(".thumbs")) return;
            var pic = img.closest(".pic").cloneNode(true);
            var caption = document.createElement("div");
            caption.textContent = img.alt + " · " + img.naturalWidth + "×" + img.naturalHeight + " px";
            zoom.appendChild(pic); zoom.appendChild(caption); zoom.classList.add("open");
          });
          document.addEventListener("keydown", function (ev) {
            if (ev.key === "Escape") { zoom.classList.remove("open"); zoom.innerHTML = ""; }
          });
          var box = document.getElementById("only-failures");
          var shown = document.getElementById("shown");
          function update() {
            var cases = document.querySelectorAll(".case");
            var visible = 0;
            for (var i = 0; i < cases.length; i++) {
              var hide = box.checked && cases[i].classList.contains("passed");
              cases[i].style.display = hide ? "none" : "";
              if (!hide) visible++;
            }
            shown.textContent = visible + " of " + cases.length + " cases shown";
          }
          box.addEventListener("change", update);
          update();
        })();
        </script>
        </body>
        </html>

        """
        return out
    }

    public static func write(_ report: VerifyReport, thumbnails: [String: CaseThumbnails], to url: URL) throws {
        try AtomicFile.write(data: Data(html(report, thumbnails: thumbnails).utf8), to: url)
    }

    static func caseHTML(_ r: VerifyReport.CaseResult, thumbnails: CaseThumbnails?) -> String {
        var s = "<div class=\"case \(r.status.rawValue)\" id=\"case-\(e(r.name))\">\n"
        let loose = VerifyReport.loosenings(r)
        var judged: [String] = []
        if r.pixels != nil || r.golden != nil { judged.append("pixels " + r.thresholds.summary) }
        if let chart = r.chart { judged.append("chart patches " + chart.thresholds.summary) }
        s += "<h3><span class=\"badge \(r.status.rawValue)\">\(r.status.rawValue)</span> \(e(r.name))"
        s += loose.isEmpty ? "" : " <span class=\"badge loose\" title=\"\(e(loose.joined(separator: "; ")))\">looser limits</span>"
        s += judged.isEmpty ? "" : "<span class=\"judged\">judged by \(e(judged.joined(separator: "; ")))</span>"
        s += "</h3>\n"
        if !loose.isEmpty { s += "<div class=\"muted\">limits looser than the defaults (max \(VerifyThresholds.defaultMax), mean \(VerifyThresholds.defaultMean) ΔE00): \(e(loose.joined(separator: "; ")))</div>\n" }
        if let d = r.description { s += "<div class=\"muted\">\(e(d))</div>\n" }
        s += "<div class=\"mono\">input \(e(r.input))\(r.golden.map { " · golden \(e($0))" } ?? "")</div>\n"
        if !r.failures.isEmpty { s += "<ul class=\"failures\">" + r.failures.map { "<li>\(e($0))</li>" }.joined() + "</ul>\n" }
        if let u = r.update { s += "<div><strong>golden:</strong> \(e(u))</div>\n" }
        if let t = thumbnails, t.golden != nil || t.candidate != nil || t.heatMap != nil {
            s += "<div class=\"thumbs\">"
            // The worst pixel's place as a share of the picture, so the ring lands right at any displayed size.
            let ring = r.pixels.flatMap { p in p.worstPixel.map { w in
                String(format: "<span class=\"worst\" style=\"left:%.3f%%;top:%.3f%%\"></span>",
                       (Double(w[0]) + 0.5) / Double(p.width) * 100, (Double(w[1]) + 0.5) / Double(p.height) * 100) } } ?? ""
            for (label, data) in [("golden", t.golden), ("candidate", t.candidate), ("ΔE00 heat-map", t.heatMap)] {
                guard let data else { continue }
                s += "<figure><span class=\"pic\"><img alt=\"\(e(label)) of \(e(r.name))\" src=\"data:image/png;base64,\(data.base64EncodedString())\">\(ring)</span><figcaption>\(e(label))</figcaption></figure>"
            }
            if t.heatMap == nil, r.pixels?.statistics.max == 0 {
                s += "<figure><figcaption>no heat-map: ΔE00 is 0 at every pixel</figcaption></figure>"
            }
            s += "</div>\n"
        }
        if let p = r.pixels {
            let limits = r.thresholds.resolved
            let st = p.statistics
            s += "<table>\n<tr><th>pixels</th><th class=\"num\">max ΔE00</th><th class=\"num\">mean ΔE00</th><th class=\"num\">p99 ΔE00</th><th class=\"num\">above \(f(limits.max!, 3))</th><th>samples</th></tr>\n"
            let maxBad = limits.shareAbove == nil && st.max > limits.max!, meanBad = st.mean > limits.mean!
            let shareBad = limits.shareAbove.map { st.shareAbove > $0 } ?? false
            s += "<tr><td>\(p.width)×\(p.height)</td><td class=\"num\(maxBad ? " bad" : "")\">\(f(st.max, 3))</td><td class=\"num\(meanBad ? " bad" : "")\">\(f(st.mean, 4))</td>"
            s += "<td class=\"num\">\(f(st.p99, 3))</td><td class=\"num\(shareBad ? " bad" : "")\">\(st.countAbove) (\(f(st.shareAbove * 100, 3)) %)</td>"
            let unit = p.sampleBits.map { " code values of \((1 << $0) - 1) (\($0)-bit)" } ?? " code values"
            s += "<td>\(p.identicalSamples ? "identical samples" : "differ by up to \(p.maxSampleDifference)\(unit)")\(p.worstPixel.map { " · worst ΔE00 at pixel (\($0[0]), \($0[1]))" } ?? "")</td></tr>\n"
            s += "<tr><td class=\"muted\">limits</td><td class=\"num muted\">\(limits.shareAbove == nil ? f(limits.max!, 3) : "—")</td><td class=\"num muted\">\(f(limits.mean!, 3))</td><td></td>"
            s += "<td class=\"num muted\">\(limits.shareAbove.map { "≤ " + f($0 * 100, 3) + " %" } ?? "—")</td><td></td></tr>\n</table>\n"
        }
        if let chart = r.chart {
            let cmp = chart.comparison, limits = chart.thresholds.resolved
            s += "<div><strong>chart</strong> <span class=\"mono\">\(e(chart.truth))</span> · exposure \(cmp.exposure.rawValue)"
            s += cmp.exposure == .matchWhite ? String(format: " (×%.4f)", cmp.exposureScale) : ""
            s += " · mean ΔE00 <span class=\"\(cmp.statistics.mean > limits.mean! ? "bad" : "")\">\(f(cmp.statistics.mean, 3))</span> (limit \(f(limits.mean!, 3)))"
            s += " · max <span class=\"\(cmp.statistics.max > limits.max! ? "bad" : "")\">\(f(cmp.statistics.max, 3))</span> (limit \(f(limits.max!, 3)))</div>\n"
            s += "<table>\n<tr><th>patch</th><th>reference</th><th>measured</th><th class=\"num\">L*</th><th class=\"num\">a*</th><th class=\"num\">b*</th><th class=\"num\">ΔE00</th></tr>\n"
            for p in cmp.patches {
                s += "<tr><td>\(e(p.name))</td><td><span class=\"swatch\" style=\"background:\(hex(lab: p.reference))\"></span> <span class=\"mono\">\(p.reference.map { f($0, 2) }.joined(separator: " "))</span></td>"
                s += "<td><span class=\"swatch\" style=\"background:\(hex(lab: p.measured))\"></span></td>"
                s += p.measured.map { "<td class=\"num mono\">\(f($0, 2))</td>" }.joined()
                s += "<td class=\"num\(p.deltaE > limits.max! ? " bad" : "")\" style=\"\(heatStyle(p.deltaE))\">\(f(p.deltaE, 3))</td></tr>\n"
            }
            s += "</table>\n"
        }
        if !r.notes.isEmpty { s += "<div class=\"muted\">" + r.notes.map(e).joined(separator: "<br>") + "</div>\n" }
        s += "<div class=\"muted\">\(f(r.seconds, 2)) s\(r.candidate.map { " · candidate \(e($0))" } ?? "")</div>\n</div>\n"
        return s
    }

    /// CSS colour of a D50 Lab value shown on an sRGB display (clipped).
    static func hex(lab: [Double]) -> String {
        guard lab.count == 3 else { return "#000000" }
        let xyzD65 = CIE.bradfordAdaptation(from: CIE.d50, to: CIE.d65) * CIE.labToXYZ(SIMD3(lab[0], lab[1], lab[2]))
        let linear = RGBPrimaries.sRGB.toXYZNative.inverse * xyzD65
        let v = [linear.x, linear.y, linear.z].map { Int((TransferFunction.sRGB.encode(min(max($0, 0), 1)) * 255).rounded()) }
        return String(format: "#%02x%02x%02x", v[0], v[1], v[2])
    }

    /// A table cell coloured as the heat-map colours that ΔE00, with text that stays readable on it.
    static func heatStyle(_ deltaE: Double) -> String {
        let c = Thumbnail.heatColour(deltaE)
        let light = 0.299 * c.x + 0.587 * c.y + 0.114 * c.z > 140
        return String(format: "background:rgb(%d,%d,%d);color:%@;padding-left:6px", Int(c.x.rounded()), Int(c.y.rounded()), Int(c.z.rounded()), light ? "#111" : "#fff")
    }

    static func legendGradient() -> String {
        let top = Thumbnail.heatStops.last!.0
        return Thumbnail.heatStops.map { stop in
            String(format: "rgb(%d,%d,%d) %.0f%%", Int(stop.1.x), Int(stop.1.y), Int(stop.1.z), stop.0 / top * 100)
        }.joined(separator: ", ")
    }

    static func libraries(_ tool: [String: String]) -> String {
        tool.filter { $0.key != "lightwork" }.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
    }

    static func f(_ v: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", v) }

    /// HTML text and attribute escaping.
    static func e(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
