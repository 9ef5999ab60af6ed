import Foundation
import LightWork

/// `lightwork watch INBOX -o OUTDIR`: a hot folder that converts every complete file exactly once.
enum WatchCommand {
    /// The convert flags a watch does not take: pairs, shards, --force and --verify belong to batches.
    // --min-rating/--label too: a hot folder's sidecar may land after its image, and the watch has no filtered-out count.
    static let convertOnly: Set<String> = ["prefer", "shard", "shard-count", "force", "verify", "min-rating", "label"]

    static let watchSpecs: [OptionSpec] = [
        OptionSpec(name: "poll", value: "SECONDS", help: "look at the folder every SECONDS instead of inotify (NFS/SMB shares, where inotify sees nothing)"),
        OptionSpec(name: "settle", value: "SECONDS", help: "how long size and mtime must stay unchanged after the last write (default 2)"),
        OptionSpec(name: "give-up", value: "SECONDS", help: "a file that stays truncated this long without a change is converted anyway and fails (default 60)"),
        OptionSpec(name: "no-dedupe", value: nil, help: "convert content already converted (with the same settings) under another name again (default: skip it, with a note)"),
        OptionSpec(name: "retry-failed", value: nil, help: "at start, try again the files the journal records failed (their originals still in INBOX); without it a failed file is tried again when it is written again"),
        OptionSpec(name: "dedupe", value: nil, help: "skip content already converted with the same settings under another name (the default)"),
        OptionSpec(name: "archive", value: "DIR", help: "move each original here once converted (folders mirrored; never deleted)"),
        OptionSpec(name: "failed", value: "DIR", help: "move originals that fail here, each with NAME.error.txt saying why"),
        OptionSpec(name: "heartbeat", value: "SECONDS", help: "a status line (a JSON event with --json) every SECONDS (default 60; 0 = none)"),
        OptionSpec(name: "queue-limit", value: "N", help: "files tracked at once; a larger burst is picked up by rescans as the queue drains (default 10000)"),
        OptionSpec(name: "once", value: nil, help: "convert what is in INBOX, then exit (0, or 1 if a file failed) instead of watching"),
        OptionSpec(name: "serve", value: "[ADDR:]PORT", help: "serve the studio monitor (a live page: newest picture, queue, look) at ADDR:PORT (default address 127.0.0.1; port 8470 is usual)"),
        OptionSpec(name: "token", value: "TOKEN", help: "the monitor's access token (needed off loopback; one is generated and printed when not given)"),
        OptionSpec(name: "status", value: nil, help: "lightwork watch --status OUTDIR: what a watch writing there has queued, in progress, done, failed"),
    ]

    static let specs: [OptionSpec] = ConvertCommand.specs.filter { !convertOnly.contains($0.name) }.map { spec in
        guard spec.name == "on-exist" else { return spec }
        return OptionSpec(name: spec.name, value: spec.value,
                          help: "an output name already taken by another file: suffix (default: name-2), skip, overwrite")
    } + watchSpecs

    static let help = """
    Usage: lightwork watch INBOX -o OUTDIR [convert options] [watch options]
           lightwork watch --status OUTDIR [--json]

    A hot folder. Converts the files already in INBOX and its subfolders, then every file that arrives
    (subfolders created later included), each exactly once, with the same options, workers, atomic outputs
    and manifest as 'lightwork convert'. Runs until SIGTERM or Ctrl-C; meant to run as a service (see the
    README's systemd section and contrib/systemd/lightwork-watch.service).

    Only complete files are converted. A file is taken when it is closed after writing or renamed into
    place (inotify IN_CLOSE_WRITE / IN_MOVED_TO; with --poll, when two looks agree), its size and mtime
    then stay unchanged for --settle seconds (a camera uploading in chunks restarts the wait with each
    chunk), and its structure is whole (a JPEG has its end marker, a DNG's strips lie inside the file).
    Names writers use while writing are ignored: *.part, *.tmp, *.crdownload, *~, dotfiles; so are
    non-image files.

    Exactly once, across restarts: OUTDIR/watch-journal.jsonl records each file's content hash and output
    name before a worker touches it, and its outcome after. After a kill -9 a restart converts exactly what
    was not recorded done, to the same name, and no final name ever holds a half-written file. The same
    content dropped again under another name is skipped with a note while the settings are the same
    (--no-dedupe converts it). A file that fails is recorded 'failed' (and moved to --failed DIR with a
    note); the watch goes on. A failed file is tried again when it is written again (a new mtime, even
    with the same bytes), or at start with --retry-failed.

    Signals: SIGTERM/SIGINT stop taking files, finish those in flight (60 s at most; a second signal
    abandons them, the next start converts them) and exit 0. SIGHUP reads --recipe again: files started
    after it get the new look (the manifest notes entries made with earlier settings); a recipe with a
    mistake is refused and the old one stays. Signal the watch's own pid (watch --status shows it), not
    every lightwork process: workers ignore SIGHUP, SIGINT and SIGTERM, and the watch decides for them.

    Studio monitor: --serve 8470 serves a page at http://127.0.0.1:8470/ with the newest picture (a small
    JPEG the worker makes from the render in memory), the filmstrip, the queue, the rate and the look, updated
    live (server-sent events). Choosing a recipe, film or strength there applies to the files that start after
    those in flight (as SIGHUP does; the manifest notes it). Loopback needs no login; any other address needs
    --token (or prints a generated one); changes need the page's own POST. See docs/monitor.md.

    Status: OUTDIR/watch-status.json is rewritten as things change; 'lightwork watch --status OUTDIR'
    shows it, with the film and recipe in use (exit 0 while the watch runs, 3 when it is not running).
    --json streams one JSON event per line (converted, skipped, failed, heartbeat, reloaded, notice, stopped).

    Options:
    \(CommandLineParser.help(specs))

    Workers: --jobs files convert at once, each in a worker process (a decoder crash fails that file only);
    --timeout stops a file that hangs. Output names: as convert (--name, {index} counts the watch's files);
    a name already taken gets a suffix (--on-exist suffix is the watch's default).

    Exit status: 0 stopped by SIGTERM/SIGINT (or --once with every file converted or skipped), 1 the watch
    could not go on (INBOX gone, another watch holds OUTDIR) or --once with a failed file, 2 usage error.

    Examples:
      lightwork watch /srv/inbox -o /srv/developed                          16-bit TIFFs of whatever arrives
      lightwork watch inbox/ -o web/ --format jpeg --long-edge 2048 --recipe looks/studio.json
      lightwork watch inbox/ -o out/ --archive done/ --failed rejected/     move originals once handled
      lightwork watch /mnt/share/in -o /mnt/share/out --poll 5              an NFS or SMB share
      lightwork watch inbox/ -o out/ --once                                 convert the backlog and exit
      lightwork watch --status out/                                         what it is doing
      systemctl reload lightwork-watch                                      reload the recipe (the unit's ExecReload)
      kill -HUP PID                                                         the same, PID as 'watch --status OUTDIR' shows
    """

    static func run(_ args: [String]) -> Int32 {
        let parsed: ParsedArguments
        do {
            parsed = try CommandLineParser.parse(args, specs: specs)
        } catch {
            return usageError(error)
        }
        if parsed.has("help") { print(help); return 0 }
        if parsed.has("status") { return StatusReport.run(parsed) }

        let configuration: WatchConfiguration
        let converter: FileConverter
        do {
            guard let out = parsed.value("output") else { throw LightWorkError.usage("watch needs an output folder: -o OUTDIR") }
            guard parsed.positionals.count == 1, let inbox = parsed.positionals.first else {
                throw LightWorkError.usage("watch takes exactly one INBOX folder (got \(parsed.positionals.count))")
            }
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: inbox, isDirectory: &isDir), isDir.boolValue else {
                throw LightWorkError.usage("the inbox \(inbox) is not a folder")
            }
            let spec = try makeSpec(parsed)
            let batch = try BatchArguments.configuration(parsed)
            let manifestURL = parsed.value("manifest").map { URL(fileURLWithPath: $0) } ?? spec.output.directory.appendingPathComponent("manifest.json")
            var c = WatchConfiguration(inbox: URL(fileURLWithPath: inbox), manifestURL: manifestURL, batch: batch,
                                       rules: try ExportArguments.rules(parsed, spec: spec))
            c.batch.gracePeriod = 60
            if let v = parsed.value("poll") { c.poll = try seconds("--poll", v, minimum: 0.1) }
            if let v = parsed.value("settle") { c.settle = try seconds("--settle", v, minimum: 0) }
            if let v = parsed.value("give-up") { c.giveUp = try seconds("--give-up", v, minimum: 0) }
            if let v = parsed.value("heartbeat") { let s = try seconds("--heartbeat", v, minimum: 0); c.heartbeat = s == 0 ? nil : s }
            if let v = parsed.value("queue-limit") {
                guard let n = Int(v), n >= 1 else { throw LightWorkError.usage("--queue-limit takes a whole number ≥ 1, not '\(v)'") }
                c.queueLimit = n
            }
            if parsed.has("dedupe") && parsed.has("no-dedupe") { throw LightWorkError.usage("--dedupe and --no-dedupe exclude each other") }
            c.dedupe = !parsed.has("no-dedupe")
            c.retryFailed = parsed.has("retry-failed")
            c.archive = try folder("--archive", parsed.value("archive"), inbox: inbox)
            c.failed = try folder("--failed", parsed.value("failed"), inbox: inbox)
            c.once = parsed.has("once")
            configuration = c
            converter = try FileConverter(spec: spec, engine: try EngineArguments.configuration(parsed))
            try OutputDirectory.prepare(spec.output.directory)
        } catch {
            return usageError(error)
        }

        guard let lock = BatchArguments.lockOutput(parsed, folder: converter.outputDirectory, shard: nil, command: "watch") else { return 2 }
        defer { withExtendedLifetime(lock) {} }
        let console = Console(mode: parsed.has("quiet") ? .quiet : parsed.has("verbose") ? .verbose : .normal, json: parsed.has("json"))
        let service = WatchService(converter: converter, configuration: configuration)
        var monitor: MonitorServer?
        var catalog: MonitorCatalog?
        var monitorLock: MonitorLock?
        defer { withExtendedLifetime(monitorLock) {} }
        if let address = parsed.value("serve") {
            do {
                (monitor, catalog, monitorLock) = try startMonitor(address, parsed: parsed, service: service)
            } catch let busy as MonitorBusy {
                FileHandle.standardError.write(Data("lightwork watch: \(busy)\n".utf8))
                return 2
            } catch {
                return usageError(error)
            }
            console.info("studio monitor: \(monitor!.url)")
            console.event(["event": "serving", "url": monitor!.url])
        } else if parsed.value("token") != nil {
            return usageError(LightWorkError.usage("--token goes with --serve"))
        } else {
            // A `lightwork serve OUTDIR` may attach at any time.
            service.monitorLink = MonitorLink(output: converter.outputDirectory)
        }
        let link = service.monitorLink
        defer { monitor?.stop() }
        // SIGHUP: the recipe is read into a new spec; workers started after it are sent that spec. The monitor's look
        // changes are kept and laid over the command line's flags at every reload after them.
        let engine = converter.engine
        var chosen = LookChange()
        // Nil for a watch without --serve until a `lightwork serve` hands it a change.
        var monitorCatalog = catalog
        func lookConverter(_ look: LookChange) throws -> (FileConverter, PlanRules) {
            var p = parsed
            if let r = look.recipe {
                p.values["recipe"] = r.isEmpty ? nil : [try monitorCatalog?.recipeFile(named: r)?.path ?? { throw LightWorkError.usage("no recipe \(r)") }()]
            }
            if let f = look.film {
                p.values["lut"] = nil
                p.values["film"] = f.isEmpty ? nil : [f]
            }
            if let s = look.strength { p.values["strength"] = [String(format: "%g", s)] }
            let spec = try makeSpec(p)
            return (try FileConverter(spec: spec, engine: engine), try ExportArguments.rules(p, spec: spec))
        }
        // A change from `lightwork serve` arrives as a request file: checked here against this watch's own catalog
        // (its server checked the changes posted to it already; checking again is cheap).
        func check(_ change: LookChange) throws {
            if monitorCatalog == nil {
                monitorCatalog = MonitorCatalog.load(profiles: try ProfilesDirectory.locate(), ownRecipe: parsed.value("recipe").map { URL(fileURLWithPath: $0) })
            }
            if let problem = monitorCatalog?.problem(with: change) { throw LightWorkError.usage(problem) }
        }
        service.reload = { change in
            if let change {
                try check(change)
                chosen.overlay(change)
            }
            return try lookConverter(chosen)
        }
        // A re-develop (from its own server or a `lightwork serve`): the look in use (the flags and the monitor's
        // changes so far) with the request's laid over it.
        service.redevelopLook = { change in
            try check(change)
            var look = chosen
            look.overlay(change)
            return try lookConverter(look)
        }
        do {
            let outcome = try service.run { event in
                report(event, console: console, manifestURL: configuration.manifestURL, monitor: monitor, link: link)
            }
            let s = service.status()
            console.event(["event": "stopped", "converted": s.converted, "skipped": s.skipped, "failed": s.failed,
                           "manifest": configuration.manifestURL.path])
            console.info("watch stopped: \(s.converted) converted, \(s.skipped) skipped, \(s.failed) failed in all; manifest \(configuration.manifestURL.path)")
            switch outcome {
            case .stopped: return 0
            case .drained(let failed): return failed > 0 ? 1 : 0
            }
        } catch {
            console.error("watch: \(error)")
            console.event(["event": "stopped", "error": "\(error)"])
            return 1
        }
    }

    /// The watch's spec: convert's, with collisions suffixed by default (files arrive one by one: a second
    /// IMG_0001.JPG from another card must not be dropped).
    static func makeSpec(_ parsed: ParsedArguments) throws -> ConvertSpec {
        try ConvertCommand.makeSpec(parsed, outputDirectory: URL(fileURLWithPath: parsed.value("output")!), onExist: .suffix)
    }

    static func seconds(_ flag: String, _ v: String, minimum: Double) throws -> Double {
        guard let s = Double(v), s.isFinite, s >= minimum else { throw LightWorkError.usage("\(flag) takes seconds ≥ \(minimum), not '\(v)'") }
        return s
    }

    /// --archive / --failed: a folder that is not the inbox itself (inside it is fine: it is never watched).
    static func folder(_ flag: String, _ value: String?, inbox: String) throws -> URL? {
        guard let value else { return nil }
        let url = URL(fileURLWithPath: value).standardizedFileURL
        if url.path == URL(fileURLWithPath: inbox).standardizedFileURL.path {
            throw LightWorkError.usage("\(flag) cannot be the inbox itself")
        }
        return url
    }

    /// The monitor's server for `--serve ADDR:PORT`: a token off loopback (given or generated), previews under OUT,
    /// and the monitor's lock of OUT (no `lightwork serve` beside it).
    static func startMonitor(_ address: String, parsed: ParsedArguments, service: WatchService) throws -> (MonitorServer, MonitorCatalog, MonitorLock) {
        let profiles = try ProfilesDirectory.locate()
        let previews = service.converter.outputDirectory.appendingPathComponent(WatchService.previewFolder)
        let lock = try MonitorLink(output: service.converter.outputDirectory).lock(output: service.converter.outputDirectory)
        let c = try monitorConfiguration(address, token: parsed.value("token"), profiles: profiles, previews: previews)
        let catalog = MonitorCatalog.load(profiles: profiles, ownRecipe: parsed.value("recipe").map { URL(fileURLWithPath: $0) })
        let requests = service.lookRequests
        let redevelops = service.redevelopRequests
        let server = try MonitorServer(configuration: c, catalog: catalog, redevelop: { request throws(RedevelopRequests.Refusal) in try redevelops.submit(request) }) { requests.submit($0) }
        service.previewDirectory = previews
        service.monitorAddress = server.url.components(separatedBy: "?").first
        return (server, catalog, lock)
    }

    /// `--serve [ADDR:]PORT` and `--token` (checked; generated off loopback when not given), for watch and serve alike.
    static func monitorConfiguration(_ address: String, token: String?, profiles: URL, previews: URL) throws -> MonitorServer.Configuration {
        let (host, port) = try MonitorServer.Configuration.parseAddress(address)
        try FileManager.default.createDirectory(at: previews, withIntermediateDirectories: true)
        var c = MonitorServer.Configuration(assets: profiles.appendingPathComponent("monitor"), previews: previews)
        c.host = host
        c.port = port
        c.token = token ?? (c.isLoopback ? nil : MonitorServer.randomToken())
        if let t = c.token, t.count < 16 || !t.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) {
            throw LightWorkError.usage("--token needs at least 16 letters, digits, '-' or '_'")
        }
        return c
    }

    static func usageError(_ error: Error) -> Int32 {
        FileHandle.standardError.write(Data("lightwork watch: \(error)\nRun 'lightwork watch --help' for usage.\n".utf8))
        return 2
    }

    /// One event: a log line (stderr, for journald) and/or a JSON event (stdout).
    static func report(_ event: WatchService.Event, console: Console, manifestURL: URL, monitor: MonitorServer? = nil, link: MonitorLink? = nil) {
        // Each JSON event goes to stdout (--json) and to the monitor's streams alike (its own, or an attached `serve`'s).
        let console = EventFanout(console: console, monitor: monitor, link: link)
        switch event {
        case let .started(backlog, mode):
            console.event(["event": "started", "backlog": backlog, "mode": mode, "manifest": manifestURL.path])
            console.info("watching (\(mode)); \(backlog) file(s) already in the inbox to look at")
        case .converting(let item):
            console.verbose("converting \(item.relativePath)")
        case let .finished(item, entry):
            let seconds = ((entry.timings["total"] ?? 0) * 1000).rounded() / 1000
            let index = entry.input.index ?? 0
            switch entry.status {
            case .converted:
                console.event(["event": "converted", "index": index, "input": item.relativePath, "output": entry.output?.path ?? "", "seconds": seconds])
                console.info("converted \(item.relativePath) -> \(entry.output?.path ?? "")" + String(format: " (%.2f s)", seconds))
            case .skipped:
                console.event(["event": "skipped", "index": index, "input": item.relativePath, "reason": entry.reason ?? ""])
                console.info("skipped \(item.relativePath): \(entry.reason ?? "")")
            case .failed:
                console.event(["event": "failed", "index": index, "input": item.relativePath, "reason": entry.reason ?? ""])
                console.error("\(item.relativePath): \(entry.reason ?? "failed")")
            }
        case .heartbeat(let s):
            console.event(["event": "heartbeat", "state": s.state.rawValue, "waiting": s.waiting, "queued": s.queued, "inProgress": s.inProgress,
                           "converted": s.converted, "skipped": s.skipped, "failed": s.failed, "uptime": s.uptime])
            console.info("heartbeat: \(s.state.rawValue); \(s.waiting) settling, \(s.queued) queued, \(s.inProgress) in progress; "
                         + "\(s.converted) converted, \(s.skipped) skipped, \(s.failed) failed")
        case let .reloaded(settings, digest):
            console.event(["event": "reloaded", "recipe": settings.recipeName ?? "", "settingsDigest": digest])
            console.info("SIGHUP: recipe reloaded\(settings.recipeName.map { " (\($0))" } ?? ""); settings digest \(digest.prefix(16))…")
        case .notice(let text):
            console.event(["event": "notice", "message": text])
            console.info(text)
        case .lookRequested(let change):
            console.event(["event": "lookRequested", "look": change.summary])
            console.info("monitor: look change asked for (\(change.summary)); it applies to files that start after those in flight")
        case .statusChanged(let status):
            monitor?.publish(status: status)
        case let .redeveloped(frame, item, entry, look):
            if entry.status == .converted {
                console.event(["event": "redeveloped", "index": frame, "input": item.relativePath, "output": entry.output?.path ?? "", "look": look,
                               "seconds": ((entry.timings["total"] ?? 0) * 1000).rounded() / 1000])
                console.info("re-developed \(item.relativePath) (frame \(frame)) with \(look) -> \(entry.output?.path ?? "")")
            } else {
                console.event(["event": "redevelopFailed", "index": frame, "input": item.relativePath, "look": look, "reason": entry.reason ?? ""])
            }
        case let .redevelopRefused(frame, reason):
            console.event(["event": "redevelopFailed", "index": frame, "reason": reason])
            console.info("monitor: frame \(frame) was not re-developed: \(reason)")
        }
    }
}

/// The console and the monitor's event streams as one: every JSON event reaches both.
struct EventFanout {
    let console: Console
    let monitor: MonitorServer?
    /// Set when the watch does not serve: the events go to `lightwork serve` while one is attached.
    var link: MonitorLink? = nil

    func event(_ fields: [String: Any]) {
        console.event(fields)
        monitor?.publish(event: fields)
        link?.append(event: fields)
    }
    func info(_ text: String) { console.info(text) }
    func verbose(_ text: String) { console.verbose(text) }
    func error(_ text: String) { console.error(text) }
}
