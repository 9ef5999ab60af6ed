import Foundation
import LightWork

/// `lightwork serve OUTDIR`: the studio monitor beside a watch on OUTDIR that runs without `--serve` (`ServedWatch`).
enum ServeCommand {
    static let specs: [OptionSpec] = [
        OptionSpec(name: "serve", value: "[ADDR:]PORT", help: "where to serve the page (default 127.0.0.1:8470; port 0 takes any free one)"),
        OptionSpec(name: "token", value: "TOKEN", help: "the access token (needed off loopback; one is generated and printed when not given)"),
        OptionSpec(name: "json", value: nil, help: "JSON events on stdout (serving, lookHanded, lookTaken, notice)"),
        OptionSpec(name: "quiet", value: nil, help: "only errors", short: "q"),
        OptionSpec(name: "help", value: nil, help: "this text", short: "h"),
    ]

    static let help = """
    Usage: lightwork serve OUTDIR [--serve [ADDR:]PORT] [--token TOKEN] [--json]

    The studio monitor of the watch writing into OUTDIR (started without --serve, here or under systemd): the
    same page as 'watch --serve' (docs/monitor.md), served by this process, until SIGTERM or Ctrl-C.

    It follows OUTDIR/watch-status.json (inotify: no polling, by it or by the browser) and sends each version to
    the page live; the watch's JSON events come through OUTDIR/.lightwork/monitor/events.jsonl, which the watch
    appends to while a monitor is attached. While it is attached the watch's workers also write a preview of
    each file they start (from the render in memory; files already converting when it attached have none).
    A look chosen on the page is handed to the watch as a request file in OUTDIR/.lightwork/monitor/requests/;
    the watch takes it as it takes its own server's and SIGHUP (files that start after those in flight), with
    the same notes in the manifest. The status shows it as handed (handedLook) until the watch takes it
    (nextLook, then look); the events say lookHanded and lookTaken.

    With no watch running (stopped, killed, or none started yet) it serves the last status read-only: the page
    says so (servedNotice in the status) and a look change is refused (409). When a watch starts, the page
    follows it.

    One monitor per OUTDIR: a second 'serve', or a 'watch --serve', on the same OUTDIR is refused (exit 2), as
    is this when one serves already. Safety as 'watch --serve': loopback needs no login, any other address a
    token; changes need the page's own POST.

    Options:
    \(CommandLineParser.help(specs))

    Exit status: 0 stopped by SIGTERM/SIGINT, 1 the monitor could not go on, 2 usage error (no such folder,
    the address cannot be bound, a monitor already serves OUTDIR).

    Examples:
      lightwork serve /srv/developed                         http://127.0.0.1:8470/ beside the service's watch
      lightwork serve out/ --serve 0.0.0.0:8470 --token "$TOKEN"   the studio's network
    """

    static func run(_ args: [String]) -> Int32 {
        let parsed: ParsedArguments
        do {
            parsed = try CommandLineParser.parse(args, specs: specs)
        } catch {
            return usageError(error)
        }
        if parsed.has("help") { print(help); return 0 }
        let console = Console(mode: parsed.has("quiet") ? .quiet : .normal, json: parsed.has("json"))
        let served: ServedWatch
        do {
            guard parsed.positionals.count == 1, let out = parsed.positionals.first else {
                throw LightWorkError.usage("serve takes exactly one OUTDIR, the watch's output folder (got \(parsed.positionals.count))")
            }
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: out, isDirectory: &isDir), isDir.boolValue else {
                throw LightWorkError.usage("\(out) is not a folder (give the watch's output folder)")
            }
            let output = URL(fileURLWithPath: out).standardizedFileURL
            let profiles = try ProfilesDirectory.locate()
            let configuration = try WatchCommand.monitorConfiguration(parsed.value("serve") ?? "127.0.0.1:8470", token: parsed.value("token"),
                                                                      profiles: profiles, previews: MonitorLink(output: output).previews)
            // The watch's own --recipe is not known here: the page offers the data folder's recipes, and "the watch's own" keeps its look.
            served = try ServedWatch(output: output, configuration: configuration, catalog: MonitorCatalog.load(profiles: profiles, ownRecipe: nil))
        } catch let busy as MonitorBusy {
            FileHandle.standardError.write(Data("lightwork serve: \(busy)\n".utf8))
            return 2
        } catch {
            return usageError(error)
        }
        served.onNotice = { console.info($0) }
        served.onEvent = { console.event($0) }
        let url = served.server.url
        let (status, alive) = served.watch
        let beside = alive ? "beside the watch pid \(status!.pid) of \(status!.inbox)"
            : status == nil ? "no watch has written a status there yet; waiting for one" : "the watch is not running: its last status, read-only"
        console.info("studio monitor: \(url) (\(beside))")
        console.event(["event": "serving", "url": url, "watchRunning": alive, "message": beside])
        do {
            try served.run()
        } catch {
            console.error("serve: \(error)")
            return 1
        }
        console.info("studio monitor stopped")
        return 0
    }

    static func usageError(_ error: Error) -> Int32 {
        FileHandle.standardError.write(Data("lightwork serve: \(error)\nRun 'lightwork serve --help' for usage.\n".utf8))
        return 2
    }
}
