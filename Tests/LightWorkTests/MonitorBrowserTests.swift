import Foundation
import XCTest
@testable import LightWork

/// The studio monitor (`watch --serve`) in real headless Chromium: the page loads clean, a dropped file appears on
/// it live, a look chosen on it applies to the next file and not the one in flight; a wrong token and path
/// traversal are refused.
final class MonitorBrowserTests: XCTestCase {
    /// The page loads with no console error, shows a file dropped into the inbox within seconds (DOM and preview
    /// image), and its figures agree with watch-status.json. The screenshot is kept in .build/test-output/monitor.
    func testADroppedFileAppearsOnThePageLive() throws {
        let m = try MonitorFixture(self)
        let source = try m.watch.makeDNGs(1, prefix: "live", width: 600, height: 400)[0]
        try m.start()
        defer { m.stop() }
        let shot = MonitorFixture.outputFolder.appendingPathComponent("monitor-live.png")
        let browser = try MonitorFixture.Browser(page: m.url, steps: MonitorFixture.shownSteps(input: "live1.dng") + [
            ["eval": "JSON.stringify({name: document.getElementById('latest-name').textContent, converted: document.getElementById('count-converted').textContent,"
                + " width: document.getElementById('latest-img').naturalWidth, look: document.getElementById('look').textContent,"
                + " connection: document.getElementById('connection').textContent})"],
            ["screenshot": shot.path],
        ], folder: m.watch.dir)
        XCTAssertTrue(browser.waitForMark("ready"), "the page loaded and rendered the status")
        let dropped = Date()
        try m.watch.drop(source)
        XCTAssertTrue(browser.waitForMark("shown", seconds: 30))
        let latency = Date().timeIntervalSince(dropped)
        let report = browser.finish()
        XCTAssertEqual(report["ok"] as? Bool, true, "\(report)")
        XCTAssertEqual(report["problems"] as? [String], [], "no console error, exception or failed load")
        print("monitor: dropped file on the page after \(String(format: "%.2f", latency)) s (settle 0.4 s); screenshot \(shot.path)")
        XCTAssertLessThan(latency, 5, "on the page within a few seconds of the drop")
        let shown = try XCTUnwrap((MonitorFixture.value(report, step: 4) as? String).flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
        XCTAssertEqual(shown["name"] as? String, "live1.dng")
        XCTAssertEqual(shown["converted"] as? String, "1")
        XCTAssertEqual(shown["connection"] as? String, "live")
        // The preview is the 600×400 render at full size (under the 1280 long edge), made by the worker.
        XCTAssertEqual(shown["width"] as? Int, 600)
        let status = try WatchStatus.read(m.watch.statusURL)
        XCTAssertEqual(status.recent?.map(\.input), ["live1.dng"], "what the page shows is in watch-status.json")
        XCTAssertEqual(status.recent?.first?.preview, WatchService.previewFolder + "/" + String(format: "%06d.jpg", status.recent?.first?.index ?? -1))
        XCTAssertEqual(shown["look"] as? String, status.look)
        XCTAssertTrue(FileManager.default.fileExists(atPath: shot.path))
        let image = try ImageFileReader.read(shot)
        XCTAssertEqual([image.width, image.height], [1400, 900])
    }

    /// A film and strength chosen on the page while a file converts: that file keeps the old look, the next file gets
    /// the new one. Truth: each output is byte-identical to `lightwork convert` of the same file with that look.
    func testALookChangedOnThePageAppliesToTheNextFileNotTheOneInFlight() throws {
        let m = try MonitorFixture(self)
        // Big enough to be still converting while the page posts the change (one worker, one thread).
        let first = try m.watch.makeDNGs(1, prefix: "inflight", seed: 700, width: 3000, height: 2000)[0]
        let next = try m.watch.makeDNGs(1, prefix: "after", seed: 800, width: 600, height: 400)[0]
        try m.start(["--jobs", "1", "--threads", "1", "--format", "jpeg"])
        defer { m.stop() }
        // The catalog's first film, as the page offers it (the same catalog and entitlements as the watch's).
        let catalog = MonitorCatalog.load(profiles: try ProfilesDirectory.locate(), ownRecipe: nil)
        let film = try XCTUnwrap(catalog.films.first).id
        let browser = try MonitorFixture.Browser(page: m.url, steps: [
            ["wait": "document.body.dataset.ready === '1' && Number(document.body.dataset.catalog) > 0", "timeout": 20],
            ["mark": "ready"],
            ["wait": "document.getElementById('count-converting').textContent === '1'", "timeout": 30],
            ["select": "#film", "value": film],
            ["select": "#strength", "value": "60"],
            ["click": "#apply"],
            ["wait": "document.body.dataset.lookSent", "timeout": 10],
            ["mark": "sent"],
            ["wait": "!!document.querySelector('#filmstrip li[data-input=\"after1.dng\"] img')", "timeout": 60],
            ["eval": "document.getElementById('look').textContent"],
        ], folder: m.watch.dir)
        XCTAssertTrue(browser.waitForMark("ready"))
        try m.watch.drop(first)
        XCTAssertTrue(browser.waitForMark("sent", seconds: 60), "the page posted the change while inflight1.dng converted")
        try m.watch.drop(next)
        let report = browser.finish()
        XCTAssertEqual(report["ok"] as? Bool, true, "\(report)")
        XCTAssertEqual(report["problems"] as? [String], [])
        XCTAssertTrue(m.watch.waitForEntries(["inflight1.dng", "after1.dng"]))
        let events = m.events()
        let requested = try XCTUnwrap(events.firstIndex { $0["event"] as? String == "lookRequested" })
        let firstDone = try XCTUnwrap(events.firstIndex { $0["event"] as? String == "converted" && $0["input"] as? String == "inflight1.dng" })
        XCTAssertLessThan(requested, firstDone, "the change arrived while inflight1.dng was in flight")
        let manifest = try XCTUnwrap(m.watch.manifest())
        let a = try XCTUnwrap(manifest.entries.first { $0.input.relativePath == "inflight1.dng" })
        let b = try XCTUnwrap(manifest.entries.first { $0.input.relativePath == "after1.dng" })
        XCTAssertFalse(a.notes.contains { $0.contains("studio monitor") }, "\(a.notes)")
        XCTAssertTrue(b.notes.contains { $0.contains("look chosen on the studio monitor") && $0.contains("strength 60 %") }, "\(b.notes)")
        XCTAssertEqual(manifest.settings.strength, 60, "the manifest's settings are the new look")
        XCTAssertNotNil(manifest.settings.film)

        // Truth from plain conversions: old look for the file in flight, the page's look for the next.
        let reference = m.watch.dir.appendingPathComponent("reference")
        for (name, extra) in [("inflight1.dng", [String]()), ("after1.dng", ["--film", film, "--strength", "60"])] {
            let source = m.watch.sources.appendingPathComponent(name)
            let r = try CLIRunner.run(["convert", source.path, "-o", reference.appendingPathComponent(name).path, "--format", "jpeg"] + extra)
            XCTAssertEqual(r.status, 0, r.stderr)
        }
        let aOut = try Data(contentsOf: m.watch.out.appendingPathComponent(try XCTUnwrap(a.output?.path)))
        let bOut = try Data(contentsOf: m.watch.out.appendingPathComponent(try XCTUnwrap(b.output?.path)))
        XCTAssertEqual(aOut, try Data(contentsOf: reference.appendingPathComponent("inflight1.dng/inflight1.jpg")), "the file in flight kept the old look")
        XCTAssertEqual(bOut, try Data(contentsOf: reference.appendingPathComponent("after1.dng/after1.jpg")), "the next file got the page's look")
        XCTAssertNotEqual(aOut.count, 0)
    }

    /// Before/after: with a film on, the page's toggle shows the frame developed the same way without the look and
    /// back. Truth from plain conversions: the before picture matches `convert` of the file with no look, the after
    /// picture `convert` with the film (both JPEG, so within a few codes), and the two differ by what the film does.
    func testBeforeAfterShowsTheFrameWithoutItsLook() throws {
        let m = try MonitorFixture(self)
        let source = try m.watch.makeDNGs(1, prefix: "compare", seed: 900, width: 600, height: 400)[0]
        let catalog = MonitorCatalog.load(profiles: try ProfilesDirectory.locate(), ownRecipe: nil)
        let film = try XCTUnwrap(catalog.films.first).id
        try m.start(["--format", "jpeg", "--film", film])
        defer { m.stop() }
        let shot = MonitorFixture.outputFolder.appendingPathComponent("monitor-before.png")
        let big = "document.getElementById('latest-img')"
        let loaded = "\(big).complete && \(big).naturalWidth > 0 && !\(big).hidden"
        let browser = try MonitorFixture.Browser(page: m.url, steps: [
            ["wait": "document.body.dataset.ready === '1'", "timeout": 20],
            ["mark": "ready"],
            ["wait": "document.body.dataset.shown === 'compare1.dng' && !document.getElementById('before-after').hidden && \(loaded)", "timeout": 30],
            ["eval": "\(big).getAttribute('src')"],
            ["click": "#before-after"],
            ["wait": "document.body.dataset.showing === 'before' && \(big).getAttribute('src').includes('-before.jpg') && \(loaded)", "timeout": 10],
            ["eval": "JSON.stringify({src: \(big).getAttribute('src'), width: \(big).naturalWidth, label: document.getElementById('before-after').textContent})"],
            ["screenshot": shot.path],
            ["click": "#before-after"],
            ["wait": "document.body.dataset.showing === 'after' && !\(big).getAttribute('src').includes('-before') && \(loaded)", "timeout": 10],
        ], folder: m.watch.dir)
        XCTAssertTrue(browser.waitForMark("ready"))
        try m.watch.drop(source)
        XCTAssertTrue(m.watch.waitForEntries(["compare1.dng"]))
        let report = browser.finish()
        XCTAssertEqual(report["ok"] as? Bool, true, "\(report)")
        XCTAssertEqual(report["problems"] as? [String], [], "no console error, exception or failed load")
        let before = try XCTUnwrap((MonitorFixture.value(report, step: 6) as? String).flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
        XCTAssertEqual(before["width"] as? Int, 600, "the before picture has the preview's size")
        XCTAssertEqual(before["label"] as? String, "Before (no look): show after")

        let status = try WatchStatus.read(m.watch.statusURL)
        let frame = try XCTUnwrap(status.recent?.first)
        let after = m.watch.out.appendingPathComponent(try XCTUnwrap(frame.preview))
        let plain = m.watch.out.appendingPathComponent(try XCTUnwrap(frame.before, "watch-status.json names the before picture"))
        XCTAssertEqual(plain.lastPathComponent, String(format: "%06d-before.jpg", frame.index))

        let reference = m.watch.dir.appendingPathComponent("reference")
        var truth: [String: ImageFile] = [:]
        for (name, extra) in [("none", [String]()), ("film", ["--film", film])] {
            let r = try CLIRunner.run(["convert", m.watch.sources.appendingPathComponent("compare1.dng").path, "-o",
                                       reference.appendingPathComponent(name).path, "--format", "jpeg"] + extra)
            XCTAssertEqual(r.status, 0, r.stderr)
            truth[name] = try ImageFileReader.read(reference.appendingPathComponent(name).appendingPathComponent("compare1.jpg"))
        }
        let a = try ImageFileReader.read(after), b = try ImageFileReader.read(plain)
        // Compared by the means of 10×10 blocks: the pictures are JPEGs of a textured scene at different qualities,
        // whose per-sample errors are the codec's, not the picture's.
        func meanCodes(_ x: ImageFile, _ y: ImageFile) -> Double {
            XCTAssertEqual([x.width, x.height, x.channels], [y.width, y.height, y.channels])
            guard x.samples.count == y.samples.count else { return .infinity }
            let c = x.channels, bw = x.width / 10, bh = x.height / 10
            var total = 0.0
            for by in 0..<bh {
                for bx in 0..<bw {
                    for ch in 0..<c {
                        var d = 0
                        for yy in (by * 10)..<(by * 10 + 10) {
                            for xx in (bx * 10)..<(bx * 10 + 10) { d += Int(x.samples[(yy * x.width + xx) * c + ch]) - Int(y.samples[(yy * x.width + xx) * c + ch]) }
                        }
                        total += abs(Double(d) / 100)
                    }
                }
            }
            return total / Double(bw * bh * c)
        }
        let beforeToPlain = meanCodes(b, truth["none"]!), afterToFilm = meanCodes(a, truth["film"]!), beforeToAfter = meanCodes(b, a)
        print(String(format: "monitor before/after: mean code difference of 10×10 block means, before–convert without look %.2f, after–convert with the film %.2f, before–after %.2f",
                     beforeToPlain, afterToFilm, beforeToAfter))
        XCTAssertLessThan(beforeToPlain, 2, "the before picture is the development without the look")
        XCTAssertLessThan(afterToFilm, 2, "the after picture is the output")
        XCTAssertGreaterThan(beforeToAfter, 4 * max(beforeToPlain, afterToFilm), "the film shows between before and after")
    }

    /// With a token, a wrong one is refused (the page, the API, the stream), the right one works; paths that climb
    /// out, other routes, a foreign Host and a POST without the page's CSRF token are refused; a big body is too.
    func testAWrongTokenAndPathTraversalAreRefused() throws {
        let m = try MonitorFixture(self)
        let token = "studio-token-0123456789"
        try m.start(["--token", token])
        defer { m.stop() }
        XCTAssertTrue(m.url.hasSuffix("?token=\(token)"))
        let base = "http://127.0.0.1:\(m.port)"
        let browser = try MonitorFixture.Browser(page: base + "/?token=wrong-token-0000000000", steps: [
            ["wait": "document.readyState === 'complete'", "timeout": 10],
            ["eval": "document.body.innerText"],
            ["eval": "fetch('/api/status?token=\(token)').then(r => r.status)"],
            ["eval": "fetch('/api/status', {headers: {'X-LightWork-Token': 'wrong'}}).then(r => r.status)"],
            ["eval": "fetch('/previews/..%2f..%2fwatch-status.json?token=\(token)').then(r => r.status)"],
            ["eval": "fetch('/previews/%2e%2e/%2e%2e/manifest.json?token=\(token)').then(r => r.status)"],
            ["eval": "fetch('/api/look?token=\(token)', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: '{\"strength\": 10}'}).then(r => r.status)"],
            ["eval": "fetch('/api/look?token=\(token)', {method: 'POST', body: 'strength=10'}).then(r => r.status)"],
        ], folder: m.watch.dir)
        let report = browser.finish()
        XCTAssertEqual(report["ok"] as? Bool, true, "\(report)")
        XCTAssertTrue((MonitorFixture.value(report, step: 1) as? String)?.contains("wrong or missing token") == true, "\(report)")
        XCTAssertEqual(MonitorFixture.value(report, step: 2) as? Int, 200, "the right token is let in")
        XCTAssertEqual(MonitorFixture.value(report, step: 3) as? Int, 401, "a wrong token in the header is refused")
        XCTAssertEqual(MonitorFixture.value(report, step: 4) as? Int, 400, "encoded slashes climbing out are refused")
        XCTAssertEqual(MonitorFixture.value(report, step: 5) as? Int, 404, "what the browser normalises leaves only unknown routes")
        XCTAssertEqual(MonitorFixture.value(report, step: 6) as? Int, 403, "a POST without the page's CSRF token is refused")
        XCTAssertEqual(MonitorFixture.value(report, step: 7) as? Int, 415, "a form POST is refused")

        // What a browser would never send, over a socket.
        let auth = "X-LightWork-Token: \(token)"
        XCTAssertEqual(m.get("/api/status").status, 401)
        XCTAssertEqual(m.get("/api/status", headers: [auth]).status, 200)
        XCTAssertEqual(m.get("/api/status", headers: ["Authorization: Bearer \(token)"]).status, 200)
        for path in ["/previews/../../manifest.json", "/../watch-status.json", "/previews/..%2F..%2Fmanifest.json", "/previews//etc/passwd",
                     "/previews/..\\..\\manifest.json"] {
            let answer = m.get(path, headers: [auth])
            XCTAssertEqual(answer.status, 400, path)
            XCTAssertFalse(answer.body.contains("lightwork-watch-status") || answer.body.contains("\"entries\""), path)
        }
        XCTAssertEqual(m.get("/watch-status.json", headers: [auth]).status, 404, "only the monitor's routes exist")
        XCTAssertEqual(m.get("/previews/manifest.json", headers: [auth]).status, 404)
        XCTAssertEqual(m.get("/previews/000001.jpg", headers: [auth]).status, 404, "no such preview yet")
        let rebinding = m.raw("GET /api/status HTTP/1.1\r\nHost: evil.example:\(m.port)\r\n\(auth)\r\nConnection: close\r\n\r\n")
        XCTAssertEqual(rebinding.status, 403, "a foreign Host on loopback (DNS rebinding)")
        let big = String(repeating: "x", count: 10_000)
        let tooBig = m.raw("POST /api/look HTTP/1.1\r\nHost: 127.0.0.1:\(m.port)\r\n\(auth)\r\nContent-Type: application/json\r\n"
                           + "Content-Length: \(big.utf8.count)\r\nConnection: close\r\n\r\n\(big)")
        XCTAssertEqual(tooBig.status, 413, "a body over 4 KB")
        XCTAssertEqual(m.raw("DELETE /api/look HTTP/1.1\r\nHost: 127.0.0.1:\(m.port)\r\n\(auth)\r\nConnection: close\r\n\r\n").status, 405)
    }

    /// Off loopback a token is generated when none is given and every request needs it.
    func testAnAddressOffLoopbackGetsAGeneratedToken() throws {
        let m = try MonitorFixture(self)
        try m.start(address: "0.0.0.0:0")
        defer { m.stop() }
        let token = try XCTUnwrap(m.url.components(separatedBy: "?token=").last)
        XCTAssertEqual(token.count, 64, m.url)
        XCTAssertEqual(m.get("/").status, 401, "no token, even from loopback")
        XCTAssertEqual(m.get("/?token=\(token)").status, 200)
    }
}
