import Foundation
import Glibc
import XCTest
@testable import LightWork

/// `lightwork serve OUT` beside a `lightwork watch` started without `--serve`: real processes, the page in headless
/// Chromium, and plain HTTP over sockets for the API.
final class MonitorServeTests: XCTestCase {
    /// A running `lightwork serve OUT --serve 127.0.0.1:0 --json`.
    final class Serve {
        let run: CLIRunner.Background
        let url: String
        let port: UInt16
        let watch: WatchFixture
        /// The "serving" event.
        let serving: [String: Any]

        init(_ watch: WatchFixture, _ extra: [String] = []) throws {
            self.watch = watch
            let r = try CLIRunner.Background(["serve", watch.out.path, "--serve", "127.0.0.1:0", "--json"] + extra, logs: watch.dir)
            run = r
            var found: [String: Any]?
            WatchFixture.wait(seconds: 30) {
                found = Serve.events(watch.stdout(r)).first { $0["event"] as? String == "serving" }
                return found != nil || !r.process.isRunning
            }
            guard let found, let url = found["url"] as? String else {
                throw MonitorTestError("serve never served: \(watch.stderr(r))")
            }
            serving = found
            self.url = url
            port = UInt16(url.dropFirst("http://".count).prefix { $0 != "/" }.split(separator: ":").last ?? "") ?? 0
        }

        static func events(_ text: String) -> [[String: Any]] {
            text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        }

        var events: [[String: Any]] { Serve.events(watch.stdout(run)) }

        func get(_ path: String) -> (status: Int, body: String) {
            MonitorFixture.raw("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n", port: port)
        }

        /// `/api/status` as served.
        func status() -> WatchStatus? {
            let answer = get("/api/status")
            guard answer.status == 200 else { return nil }
            return try? JSONDecoder().decode(WatchStatus.self, from: Data(answer.body.utf8))
        }

        /// A look change posted as the page posts it (its CSRF token read from the page).
        func postLook(_ json: String) -> (status: Int, body: String) { post("/api/look", json) }

        /// A change (`/api/look`, `/api/redevelop`) posted as the page posts it.
        func post(_ path: String, _ json: String) -> (status: Int, body: String) {
            let page = get("/").body
            guard let start = page.range(of: "name=\"lightwork-csrf\" content=\"") else { return (0, "no CSRF token in the page") }
            let csrf = String(page[start.upperBound...].prefix { $0 != "\"" })
            return MonitorFixture.raw("POST \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Type: application/json\r\n"
                                      + "X-LightWork-CSRF: \(csrf)\r\nOrigin: http://127.0.0.1:\(port)\r\nContent-Length: \(json.utf8.count)\r\n"
                                      + "Connection: close\r\n\r\n\(json)", port: port)
        }

        @discardableResult
        func stop() -> CLIRunner.Result {
            run.send(SIGTERM)
            return run.finish(within: 30)
        }
    }

    /// Starts a watch without `--serve` and waits until its status says it runs.
    private func startWatch(_ w: WatchFixture, _ extra: [String] = []) throws -> CLIRunner.Background {
        let r = try w.start(["--json"] + extra)
        let up = WatchFixture.wait(seconds: 30) { (try? WatchStatus.read(w.statusURL))?.pid == r.process.processIdentifier }
        guard up else { throw MonitorTestError("the watch never wrote its status: \(w.stderr(r))") }
        return r
    }

    /// The page served by `serve` shows a file dropped into the watch's inbox within seconds, with the preview the
    /// watch's worker made because a monitor was attached; the watch's JSON events reach the event stream.
    func testAFileDroppedBesideServeAppearsOnItsPage() throws {
        let w = try WatchFixture(self)
        let source = try w.makeDNGs(1, prefix: "beside", width: 600, height: 400)[0]
        let watch = try startWatch(w)
        defer { watch.send(SIGTERM); _ = watch.finish(within: 60) }
        let serve = try Serve(w)
        defer { serve.stop() }
        XCTAssertEqual(serve.serving["watchRunning"] as? Bool, true)
        XCTAssertNil(serve.status()?.servedNotice, "a running watch: live, not read-only")

        let stream = try MonitorFixture.Connection(port: serve.port)
        stream.send("GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:\(serve.port)\r\n\r\n")
        let shot = MonitorFixture.outputFolder.appendingPathComponent("serve-live.png")
        let browser = try MonitorFixture.Browser(page: serve.url, steps: MonitorFixture.shownSteps(input: "beside1.dng") + [
            ["eval": "JSON.stringify({name: document.getElementById('latest-name').textContent, width: document.getElementById('latest-img').naturalWidth,"
                + " notice: document.getElementById('served-notice').hidden, connection: document.getElementById('connection').textContent})"],
            ["screenshot": shot.path],
        ], folder: w.dir)
        XCTAssertTrue(browser.waitForMark("ready"), "the page loaded and rendered the served status")
        let dropped = Date()
        try w.drop(source)
        XCTAssertTrue(browser.waitForMark("shown", seconds: 30))
        let latency = Date().timeIntervalSince(dropped)
        let report = browser.finish()
        XCTAssertEqual(report["ok"] as? Bool, true, "\(report)")
        XCTAssertEqual(report["problems"] as? [String], [], "no console error, exception or failed load")
        print("serve: dropped file on the page of 'lightwork serve' after \(String(format: "%.2f", latency)) s (settle 0.4 s); screenshot \(shot.path)")
        XCTAssertLessThan(latency, 5, "on the page within a few seconds of the drop")
        let shown = try XCTUnwrap((MonitorFixture.value(report, step: 4) as? String).flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
        XCTAssertEqual(shown["name"] as? String, "beside1.dng")
        XCTAssertEqual(shown["width"] as? Int, 600, "the preview is the 600×400 render, made by the watch's worker")
        XCTAssertEqual(shown["notice"] as? Bool, true, "no read-only notice beside a running watch")
        XCTAssertEqual(shown["connection"] as? String, "live")

        let served = try XCTUnwrap(serve.status())
        let frame = try XCTUnwrap(served.recent?.last)
        XCTAssertEqual(frame.input, "beside1.dng")
        let preview = try XCTUnwrap(frame.preview)
        XCTAssertEqual(preview, WatchService.previewFolder + "/" + String(format: "%06d.jpg", frame.index))
        XCTAssertEqual(serve.get("/previews/" + String(format: "%06d.jpg", frame.index)).status, 200, "the preview is served")
        XCTAssertEqual(try ImageFileReader.read(w.out.appendingPathComponent(preview)).width, 600)
        XCTAssertEqual(served.monitor, serve.url.components(separatedBy: "?").first, "the status names the serving monitor")
        XCTAssertEqual(try WatchStatus.read(w.statusURL).recent?.map(\.input), ["beside1.dng"], "the watch's own status agrees")

        let streamed = stream.readToEnd(timeout: 2)
        stream.close()
        XCTAssertTrue(streamed.contains("event: watch\ndata: {") && streamed.contains("\"event\":\"converted\"") && streamed.contains("beside1.dng"),
                      "the watch's converted event reached the stream: \(streamed.suffix(600))")
    }

    /// A look posted to serve's `/api/look` while a file converts is handed to the watch, taken after that file, and
    /// applies to the next one. Truth: each output is byte-identical to `lightwork convert` with that look.
    func testALookPostedToServeAppliesToTheNextFileNotTheOneInFlight() throws {
        let w = try WatchFixture(self)
        // 24 MP on one thread converts for seconds, many of the watch's half-second status writes, so the post
        // lands while it is in flight however fast the develop path gets (at 6 MP it could finish between writes).
        let first = try w.makeDNGs(1, prefix: "inflight", seed: 700, width: 6000, height: 4000)[0]
        let next = try w.makeDNGs(1, prefix: "after", seed: 800, width: 600, height: 400)[0]
        let watch = try startWatch(w, ["--jobs", "1", "--threads", "1", "--format", "jpeg"])
        defer { watch.send(SIGTERM); _ = watch.finish(within: 60) }
        let serve = try Serve(w)
        defer { serve.stop() }
        let catalog = MonitorCatalog.load(profiles: try ProfilesDirectory.locate(), ownRecipe: nil)
        let film = try XCTUnwrap(catalog.films.first).id

        try w.drop(first)
        XCTAssertTrue(WatchFixture.wait(seconds: 30) { serve.status()?.inProgressFiles == ["inflight1.dng"] }, "inflight1.dng converts")
        let posted = serve.postLook("{\"film\": \"\(film)\", \"strength\": 60}")
        XCTAssertEqual(posted.status, 202, posted.body)
        XCTAssertTrue(WatchFixture.wait(seconds: 10) { serve.events.contains { $0["event"] as? String == "lookTaken" } }, "the watch took the change")
        let served = serve.events.compactMap { $0["event"] as? String }
        XCTAssertLessThan(try XCTUnwrap(served.firstIndex(of: "lookHanded")), try XCTUnwrap(served.firstIndex(of: "lookTaken")), "handed, then taken")
        try w.drop(next)
        XCTAssertTrue(w.waitForEntries(["inflight1.dng", "after1.dng"]))

        let events = Serve.events(w.stdout(watch))
        let requested = try XCTUnwrap(events.firstIndex { $0["event"] as? String == "lookRequested" })
        let firstDone = try XCTUnwrap(events.firstIndex { $0["event"] as? String == "converted" && $0["input"] as? String == "inflight1.dng" })
        XCTAssertLessThan(requested, firstDone, "the watch took the change while inflight1.dng was in flight")
        let manifest = try XCTUnwrap(w.manifest())
        let a = try XCTUnwrap(manifest.entries.first { $0.input.relativePath == "inflight1.dng" })
        let b = try XCTUnwrap(manifest.entries.first { $0.input.relativePath == "after1.dng" })
        XCTAssertFalse(a.notes.contains { $0.contains("studio monitor") }, "\(a.notes)")
        XCTAssertTrue(b.notes.contains { $0.contains("look chosen on the studio monitor") && $0.contains("strength 60 %") }, "\(b.notes)")
        XCTAssertEqual(manifest.settings.strength, 60)
        XCTAssertTrue(WatchFixture.wait(seconds: 10) { serve.status()?.look?.contains("60 %") == true && serve.status()?.handedLook == nil },
                      "the served status shows the new look, nothing left handed: \(String(describing: serve.status()))")

        let reference = w.dir.appendingPathComponent("reference")
        for (name, extra) in [("inflight1.dng", [String]()), ("after1.dng", ["--film", film, "--strength", "60"])] {
            let r = try CLIRunner.run(["convert", w.sources.appendingPathComponent(name).path, "-o", reference.appendingPathComponent(name).path,
                                       "--format", "jpeg"] + extra)
            XCTAssertEqual(r.status, 0, r.stderr)
        }
        let aOut = try Data(contentsOf: w.out.appendingPathComponent(try XCTUnwrap(a.output?.path)))
        let bOut = try Data(contentsOf: w.out.appendingPathComponent(try XCTUnwrap(b.output?.path)))
        XCTAssertNotEqual(aOut.count, 0)
        XCTAssertEqual(aOut, try Data(contentsOf: reference.appendingPathComponent("inflight1.dng/inflight1.jpg")), "the file in flight kept the old look")
        XCTAssertEqual(bOut, try Data(contentsOf: reference.appendingPathComponent("after1.dng/after1.jpg")), "the next file got the posted look")
    }

    /// A frame re-developed from serve's page: the request is answered from the frames the status shows (202; an
    /// unknown frame 404, a failed one 409), handed to the watch as a request file, and the extra output is
    /// byte-identical to `lightwork convert` with that look, with its preview served. With the watch stopped: 409.
    func testAFrameReDevelopedFromServeIsAnExtraOutput() throws {
        let w = try WatchFixture(self)
        let source = try w.makeDNGs(1, prefix: "shoot", width: 600, height: 400)[0]
        let watch = try startWatch(w, ["--jobs", "1", "--format", "jpeg"])
        var watchRunning = true
        defer { if watchRunning { watch.send(SIGTERM); _ = watch.finish(within: 60) } }
        let serve = try Serve(w)
        defer { serve.stop() }
        let catalog = MonitorCatalog.load(profiles: try ProfilesDirectory.locate(), ownRecipe: nil)
        let film = try XCTUnwrap(catalog.films.first)
        try w.drop(source)
        XCTAssertTrue(w.waitForEntries(["shoot1.dng"]))
        XCTAssertTrue(WatchFixture.wait(seconds: 10) { serve.status()?.recent?.last?.status == .converted }, "serve sees frame 1 converted")
        let original = try Data(contentsOf: w.out.appendingPathComponent("shoot1.jpg"))

        let stream = try MonitorFixture.Connection(port: serve.port)
        stream.send("GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:\(serve.port)\r\n\r\n")
        let unknown = serve.post("/api/redevelop", "{\"frame\": 99, \"film\": \"\(film.id)\"}")
        XCTAssertEqual(unknown.status, 404, unknown.body)
        let accepted = serve.post("/api/redevelop", "{\"frame\": 1, \"film\": \"\(film.id)\", \"strength\": 60}")
        XCTAssertEqual(accepted.status, 202, accepted.body)
        let watchEvents = { Serve.events(w.stdout(watch)) }
        XCTAssertTrue(WatchFixture.wait(seconds: 60) { watchEvents().contains { $0["event"] as? String == "redeveloped" } },
                      "the watch re-developed the frame: \(watchEvents().suffix(4)) \(w.stderr(watch).suffix(800))")
        let extraName = "shoot1-\(FileNameSafety.slug(film.name, fallback: "film"))-60.jpg"
        XCTAssertEqual(watchEvents().first { $0["event"] as? String == "redeveloped" }?["output"] as? String, extraName)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: MonitorLink(output: w.out).requestsFolder.path), [],
                       "the watch took the request file")

        let reference = w.dir.appendingPathComponent("reference")
        let r = try CLIRunner.run(["convert", source.path, "-o", reference.path, "--format", "jpeg", "--film", film.id, "--strength", "60"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let extra = try Data(contentsOf: w.out.appendingPathComponent(extraName))
        XCTAssertEqual(extra, try Data(contentsOf: reference.appendingPathComponent("shoot1.jpg")), "byte-identical to convert --film --strength 60")
        XCTAssertEqual(try Data(contentsOf: w.out.appendingPathComponent("shoot1.jpg")), original, "the file's own output is untouched")
        XCTAssertTrue(WatchFixture.wait(seconds: 10) { serve.status()?.recent?.last?.redevelopment == 1 })
        XCTAssertEqual(serve.status()?.recent?.last?.preview, WatchService.previewFolder + "/000001-r1.jpg",
                       "the worker wrote the re-develop's preview into the folder serve serves")
        XCTAssertEqual(serve.get("/previews/000001-r1.jpg").status, 200)

        // A failed frame: 409 from serve; a frame the watch no longer has (its journal disagrees): refused by the watch,
        // which says so to the page as a redevelopFailed event.
        try Data([0xFF, 0xD8, 0xFF, 0xD9]).write(to: w.inbox.appendingPathComponent("broken.jpg"))
        XCTAssertTrue(w.waitForEntries(["broken.jpg"]))
        XCTAssertTrue(WatchFixture.wait(seconds: 10) { serve.status()?.recent?.contains { $0.index == 2 && $0.status == .failed } == true })
        let conflict = serve.post("/api/redevelop", "{\"frame\": 2, \"film\": \"\(film.id)\"}")
        XCTAssertEqual(conflict.status, 409, conflict.body)
        try FileManager.default.removeItem(at: w.inbox.appendingPathComponent("shoot1.dng"))
        let handed = serve.post("/api/redevelop", "{\"frame\": 1, \"film\": \"\(film.id)\"}")
        XCTAssertEqual(handed.status, 202, "serve cannot see the watch's inbox: it hands the request over (\(handed.body))")
        XCTAssertTrue(WatchFixture.wait(seconds: 30) {
            watchEvents().contains { $0["event"] as? String == "redevelopFailed" && ($0["reason"] as? String)?.contains("is gone") == true }
        }, "the watch refused it with the reason, as a redevelopFailed event (which goes to events.jsonl for the page): \(watchEvents().suffix(5))")

        let streamed = stream.readToEnd(timeout: 2)
        stream.close()
        XCTAssertTrue(streamed.contains("\"event\":\"redeveloped\"") && streamed.contains("\"event\":\"redevelopFailed\""),
                      "both reached serve's event stream: \(streamed.suffix(600))")
        watch.send(SIGTERM)
        _ = watch.finish(within: 60)
        watchRunning = false
        XCTAssertTrue(WatchFixture.wait(seconds: 10) { serve.status()?.servedNotice != nil })
        let stopped = serve.post("/api/redevelop", "{\"frame\": 1, \"film\": \"\(film.id)\"}")
        XCTAssertEqual(stopped.status, 409, stopped.body)
        XCTAssertTrue(stopped.body.contains("not running"), stopped.body)
    }

    /// The watch rotates `events.jsonl` by renaming it to `events.jsonl.1`: lines written to the old file that serve had
    /// not read yet are still sent, then the new file's, and nothing from before serve started.
    func testEventsRotatedBeforeServeReadThemAreNotLost() throws {
        let w = try WatchFixture(self)
        let link = MonitorLink(output: w.out)
        try link.prepare()
        try Data("{\"event\":\"before-serve\"}\n".utf8).write(to: link.eventsURL)
        var c = MonitorServer.Configuration(assets: try ProfilesDirectory.locate().appendingPathComponent("monitor"), previews: link.previews)
        c.port = 0
        let served = try ServedWatch(output: w.out, configuration: c, catalog: MonitorCatalog(films: [], recipes: []))
        defer { served.server.stop() }
        let stream = try MonitorFixture.Connection(port: served.server.port)
        stream.send("GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:\(served.server.port)\r\n\r\n")
        _ = stream.head()

        // Written, rotated away and followed by the new file's first line before serve looked: as a busy loop may see it.
        let old = try FileHandle(forWritingTo: link.eventsURL)
        old.seekToEndOfFile()
        old.write(Data("{\"event\":\"unread-in-old\"}\n".utf8))
        try old.close()
        XCTAssertEqual(rename(link.eventsURL.path, link.rotatedEventsURL.path), 0)
        try Data("{\"event\":\"first-in-new\"}\n".utf8).write(to: link.eventsURL)
        served.readEvents()
        let sent = stream.readToEnd(timeout: 3)   // the stream stays open: read until quiet
        let names = sent.components(separatedBy: "\"event\":\"").dropFirst().map { String($0.prefix { $0 != "\"" }) }
        XCTAssertEqual(names.filter { ["before-serve", "unread-in-old", "first-in-new"].contains($0) }, ["unread-in-old", "first-in-new"], sent)
    }

    /// A restarted watch's filmstrip is the journal's latest files, not empty: the same inputs, outputs and outcomes the
    /// manifest records, each frame's look the current one only when its settings digest is the current one.
    func testARestartedWatchShowsTheFilmstripOfItsJournal() throws {
        let w = try WatchFixture(self)
        for source in try w.makeDNGs(2, prefix: "earlier") { try w.drop(source) }
        try Data([0xFF, 0xD8, 0xFF, 0xD9]).write(to: w.inbox.appendingPathComponent("broken.jpg"))
        let once = try CLIRunner.run(["watch", w.inbox.path, "-o", w.out.path, "--settle", "0.4", "--once", "--format", "jpeg"])
        XCTAssertEqual(once.status, 1, "broken.jpg failed: \(once.stderr)")
        // Live, the filmstrip is in the order files finished; restored, in the journal's numbering.
        let before = try XCTUnwrap(try WatchStatus.read(w.statusURL).recent).sorted { $0.index < $1.index }
        XCTAssertEqual(before.count, 3)

        let catalog = MonitorCatalog.load(profiles: try ProfilesDirectory.locate(), ownRecipe: nil)
        let film = try XCTUnwrap(catalog.films.first).id
        let same = try startWatch(w, ["--format", "jpeg"])
        let restored = try XCTUnwrap(try WatchStatus.read(w.statusURL).recent)
        same.send(SIGTERM)
        _ = same.finish(within: 60)
        XCTAssertEqual(restored.map(\.index), before.map(\.index))
        XCTAssertEqual(restored.map(\.input), before.map(\.input))
        XCTAssertEqual(restored.map(\.output), before.map(\.output))
        XCTAssertEqual(restored.map(\.status), before.map(\.status))
        XCTAssertEqual(restored.map(\.reason), before.map(\.reason))
        XCTAssertEqual(restored.map(\.look), before.map(\.look), "the same settings: the same look")

        let other = try startWatch(w, ["--format", "jpeg", "--film", film])
        let relabelled = try XCTUnwrap(try WatchStatus.read(w.statusURL).recent)
        other.send(SIGTERM)
        _ = other.finish(within: 60)
        XCTAssertEqual(relabelled.map(\.input), before.map(\.input))
        XCTAssertTrue(relabelled.allSatisfy { $0.look.hasPrefix("a look from before this watch started") }, "\(relabelled.map(\.look))")
    }

    /// A request file without `kind` is a look change (as the first monitors wrote them); `kind` tells a re-develop.
    func testRequestFilesSayWhatTheyAsk() throws {
        let old = try JSONDecoder().decode(MonitorRequest.self, from: Data("{\"film\": \"1234567\", \"strength\": 40}".utf8))
        XCTAssertEqual(old, .look(LookChange(film: "1234567", strength: 40)))
        let redevelop = MonitorRequest.redevelop(RedevelopRequest(frame: 7, look: LookChange(recipe: "Portrait")))
        let encoded = try CanonicalJSON.encode(redevelop)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: encoded) as? [String: Any])
        XCTAssertEqual(object["kind"] as? String, "redevelop")
        XCTAssertEqual(object["frame"] as? Int, 7)
        XCTAssertEqual(object["recipe"] as? String, "Portrait")
        XCTAssertEqual(try JSONDecoder().decode(MonitorRequest.self, from: encoded), redevelop)
        XCTAssertThrowsError(try JSONDecoder().decode(MonitorRequest.self, from: Data("{\"kind\": \"erase\"}".utf8)))
    }

    /// One monitor per output folder: a second serve, and a `watch --serve`, are refused with one line (exit 2), and so
    /// is a serve beside a `watch --serve`.
    func testASecondMonitorOnTheSameFolderIsRefused() throws {
        let w = try WatchFixture(self)
        try FileManager.default.createDirectory(at: w.out, withIntermediateDirectories: true)
        let serve = try Serve(w)
        let second = try CLIRunner.run(["serve", w.out.path, "--serve", "127.0.0.1:0"])
        XCTAssertEqual(second.status, 2)
        let line = second.stderr.trimmingCharacters(in: .newlines)
        XCTAssertFalse(line.contains("\n"), "one line: \(second.stderr)")
        XCTAssertTrue(line.contains("already served by pid \(serve.run.process.processIdentifier)") && line.contains("lightwork serve"), line)
        let watchServing = try CLIRunner.run(["watch", w.inbox.path, "-o", w.out.path, "--serve", "127.0.0.1:0", "--once"])
        XCTAssertEqual(watchServing.status, 2, watchServing.stderr)
        XCTAssertTrue(watchServing.stderr.contains("already served by pid \(serve.run.process.processIdentifier)"), watchServing.stderr)
        XCTAssertEqual(serve.stop().status, 0)

        let m = try MonitorFixture(self)
        try m.start()
        defer { m.stop() }
        let beside = try CLIRunner.run(["serve", m.watch.out.path, "--serve", "127.0.0.1:0"])
        XCTAssertEqual(beside.status, 2)
        XCTAssertTrue(beside.stderr.contains("already served by pid") && beside.stderr.contains("--serve"), beside.stderr)
    }

    /// With no watch running, serve shows the last status read-only and says the watch is not running (a look change
    /// is refused); a watch started afterwards is followed live.
    func testServeWithoutAWatchShowsTheLastStatusReadOnly() throws {
        let w = try WatchFixture(self)
        try w.drop(try w.makeDNGs(1, prefix: "earlier")[0])
        let once = try CLIRunner.run(["watch", w.inbox.path, "-o", w.out.path, "--settle", "0.4", "--once"])
        XCTAssertEqual(once.status, 0, once.stderr)
        // The last watch was killed: its status still says running.
        let killed = try w.start()
        XCTAssertTrue(WatchFixture.wait(seconds: 30) { (try? WatchStatus.read(w.statusURL))?.pid == killed.process.processIdentifier })
        killed.send(SIGKILL)
        _ = killed.finish(within: 10)
        XCTAssertEqual(try WatchStatus.read(w.statusURL).state, .running)

        let serve = try Serve(w)
        defer { serve.stop() }
        XCTAssertEqual(serve.serving["watchRunning"] as? Bool, false)
        XCTAssertTrue((serve.serving["message"] as? String)?.contains("the watch is not running") == true, "\(serve.serving)")
        let s = try XCTUnwrap(serve.status())
        XCTAssertEqual(s.state, .notRunning)
        XCTAssertTrue(s.servedNotice?.contains("the watch is not running") == true, "\(String(describing: s.servedNotice))")
        XCTAssertEqual(s.converted, 1, "the last status's counts")
        let refused = serve.postLook("{\"strength\": 50}")
        XCTAssertEqual(refused.status, 409, refused.body)
        XCTAssertTrue(refused.body.contains("not running"), refused.body)
        let requests = MonitorLink(output: w.out).requestsFolder
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: requests.path), [], "nothing handed to a watch that is not there")

        let watch = try w.start()
        defer { watch.send(SIGTERM); _ = watch.finish(within: 60) }
        XCTAssertTrue(WatchFixture.wait(seconds: 30) {
            guard let s = serve.status() else { return false }
            return s.pid == watch.process.processIdentifier && s.servedNotice == nil && s.state == .running
        }, "the new watch is followed: \(String(describing: serve.status()))")
    }
}
