import CHTTPServer
import Foundation

/// The studio monitor: a small web server (libmicrohttpd) beside a running watch. It serves the page (from the
/// data folder's `monitor/`), the status as JSON, the previews, and a server-sent event stream of every status and
/// event the watch writes; it takes look changes by POST.
///
/// Safe by default: on loopback no token is needed but the Host header must name loopback (no DNS rebinding);
/// any other address needs the token (header `X-LightWork-Token`, `Authorization: Bearer`, or `?token=` for the
/// page, its images and its event stream). A change needs a same-origin JSON POST carrying the page's CSRF token.
/// Only fixed routes exist; previews are named by number inside the preview folder (nothing outside OUT is
/// reachable). Every request is bounded: body size, connections (per address too), event streams, rate.
public final class MonitorServer: @unchecked Sendable {
    public struct Configuration: Sendable {
        /// Numeric address to bind.
        public var host = "127.0.0.1"
        public var port: UInt16 = 8470
        /// Required on every request when set (always set off loopback).
        public var token: String?
        /// The page's files (`index.html`, `monitor.js`, `monitor.css`).
        public var assets: URL
        /// The previews the workers write (`WatchService.previewFolder` under OUT).
        public var previews: URL
        public var maxConnections: UInt32 = 128
        public var maxPerAddress: UInt32 = 96
        public var maxStreams: UInt32 = 64
        public var maxBody = 4096
        public var idleTimeout: UInt32 = 30
        /// Requests per second (burst twice that) for all clients together, and look changes per second.
        public var requestsPerSecond = 200.0
        public var changesPerSecond = 2.0

        public init(assets: URL, previews: URL) {
            self.assets = assets
            self.previews = previews
        }

        /// Whether `host` is a loopback address (127.0.0.0/8 or ::1).
        public var isLoopback: Bool { host.hasPrefix("127.") || host == "::1" }

        /// `[ADDR:]PORT` (IPv6 as `[::1]:PORT`); `localhost` means 127.0.0.1.
        public static func parseAddress(_ text: String) throws -> (host: String, port: UInt16) {
            var host = "127.0.0.1"
            var portText = text
            if let colon = text.lastIndex(of: ":") {
                host = String(text[..<colon])
                portText = String(text[text.index(after: colon)...])
                if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
                if host == "localhost" { host = "127.0.0.1" }
            }
            guard let port = UInt16(portText) else {
                throw LightWorkError.usage("--serve takes [ADDR:]PORT (e.g. 8470 or 0.0.0.0:8470), not '\(text)'")
            }
            var v4 = in_addr(), v6 = in6_addr()
            guard inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1 else {
                throw LightWorkError.usage("--serve: '\(host)' is not a numeric IPv4 or IPv6 address")
            }
            return (host, port)
        }
    }

    public let configuration: Configuration
    /// The page's address (with the token when one is needed).
    public private(set) var url = ""
    public private(set) var port: UInt16 = 0
    private var server: OpaquePointer?
    private let csrf: String
    private let catalogJSON: Data
    private let catalog: MonitorCatalog
    private let onLook: @Sendable (LookChange) throws -> Void
    private let lookRefusal = LockedBox<String?>(nil)
    /// Takes each `POST /api/redevelop` that passed the checks (a refusal answers with its status); nil: re-developing
    /// is not offered (404).
    private let redevelop: (@Sendable (RedevelopRequest) throws(RedevelopRequests.Refusal) -> Void)?
    private let assets: [String: (type: String, body: Data)]
    private let latestStatus = LockedBox<Data>(Data("{}".utf8))
    private let buckets = LockedBox<(requests: TokenBucket, changes: TokenBucket)>((TokenBucket(rate: 1, burst: 1), TokenBucket(rate: 1, burst: 1)))

    /// Starts serving; throws when the page's files are missing or the address cannot be bound.
    /// `onLook` takes each accepted change (a throw answers 503 with its reason: the change was not passed on).
    public init(configuration: Configuration, catalog: MonitorCatalog,
                redevelop: (@Sendable (RedevelopRequest) throws(RedevelopRequests.Refusal) -> Void)? = nil,
                onLook: @escaping @Sendable (LookChange) throws -> Void) throws {
        self.configuration = configuration
        self.catalog = catalog
        self.onLook = onLook
        self.redevelop = redevelop
        csrf = MonitorServer.randomToken()
        catalogJSON = try CanonicalJSON.encode(catalog)
        var files: [String: (String, Data)] = [:]
        for (name, type) in [("index.html", "text/html; charset=utf-8"), ("monitor.js", "text/javascript; charset=utf-8"),
                             ("monitor.css", "text/css; charset=utf-8")] {
            let url = configuration.assets.appendingPathComponent(name)
            guard let data = try? Data(contentsOf: url) else { throw LightWorkError.usage("the monitor's page is missing: \(url.path)") }
            files["/" + name] = (type, data)
        }
        assets = files
        buckets.withLock {
            $0 = (TokenBucket(rate: configuration.requestsPerSecond, burst: 2 * configuration.requestsPerSecond),
                  TokenBucket(rate: configuration.changesPerSecond, burst: 4 * configuration.changesPerSecond))
        }

        var config = lw_http_config()
        var error = [CChar](repeating: 0, count: 256)
        let started: OpaquePointer? = configuration.host.withCString { host in
            config.address = host
            config.port = configuration.port
            config.max_connections = configuration.maxConnections
            config.max_per_ip = configuration.maxPerAddress
            config.max_streams = configuration.maxStreams
            config.max_body = configuration.maxBody
            config.timeout_seconds = configuration.idleTimeout
            config.keepalive_seconds = 10
            return lw_http_start(&config, { context, request in
                guard let context, let request else { return }
                Unmanaged<MonitorServer>.fromOpaque(context).takeUnretainedValue().handle(request)
            }, Unmanaged.passUnretained(self).toOpaque(), &error, error.count)
        }
        guard let started else {
            throw LightWorkError.usage("--serve: " + String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        server = started
        port = lw_http_port(started)
        let shownHost = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        url = "http://\(shownHost):\(port)/" + (configuration.token.map { "?token=\($0)" } ?? "")
    }

    deinit { stop() }

    /// Ends every stream and closes the server (idempotent).
    public func stop() {
        guard let s = server else { return }
        server = nil
        lw_http_stop(s)
    }

    /// Open event streams (for the load test's report).
    public var streamCount: Int { server.map { Int(lw_http_stream_count($0)) } ?? 0 }

    /// The status the watch just wrote: `/api/status` answers it and every stream gets it (and a new one first).
    public func publish(status: WatchStatus) {
        guard let server, let json = try? MonitorServer.compactJSON(status) else { return }
        latestStatus.withLock { $0 = json }
        send(event: "status", json: json, snapshot: true, to: server)
    }

    /// Why look changes are refused now (409 with this reason), nil when they are taken: `lightwork serve` while no
    /// watch runs on its folder.
    public func refuseLooks(_ reason: String?) { lookRefusal.withLock { $0 = reason } }

    /// One of the watch's JSON events (the `--json` lines), to every stream.
    public func publish(event fields: [String: Any]) {
        guard let server, let json = try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys, .withoutEscapingSlashes]) else { return }
        send(event: "watch", json: json, snapshot: false, to: server)
    }

    private func send(event: String, json: Data, snapshot: Bool, to server: OpaquePointer) {
        var frame = Data("event: \(event)\ndata: ".utf8)
        frame.append(json)
        frame.append(contentsOf: Array("\n\n".utf8))
        frame.withUnsafeBytes { lw_http_publish(server, $0.baseAddress!.assumingMemoryBound(to: CChar.self), $0.count, snapshot ? 1 : 0) }
    }

    static func compactJSON<T: Encodable>(_ value: T) throws -> Data {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try e.encode(value)
    }

    /// 32 random bytes as hex (the generated token and the page's CSRF token).
    public static func randomToken() -> String {
        var g = SystemRandomNumberGenerator()
        return (0..<4).map { _ in String(format: "%016llx", g.next() as UInt64) }.joined()
    }

    // MARK: - Requests

    /// Headers every answer carries: no sniffing, framing, referrer (the token is in URLs) or caching, and a
    /// content policy that allows only the page's own files.
    static let commonHeaders = """
        X-Content-Type-Options: nosniff
        X-Frame-Options: DENY
        Referrer-Policy: no-referrer
        Cache-Control: no-store
        Content-Security-Policy: default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'

        """

    private func handle(_ r: OpaquePointer) {
        let method = String(cString: lw_http_method(r))
        let path = String(cString: lw_http_path(r))
        let allowed = buckets.withLock { $0.requests.take() }
        guard allowed else { return text(r, 429, "too many requests; slow down\n", extra: "Retry-After: 1\n") }
        if let problem = hostProblem(r) { return text(r, 403, problem + "\n") }
        if let token = configuration.token, !MonitorServer.sameToken(presentedToken(r), token) {
            return text(r, 401, "a wrong or missing token: open the address the watch printed (with ?token=…)\n")
        }
        // No route holds these; refusing them first keeps every lookup below to plain names.
        if path.contains("..") || path.contains("\\") || path.contains("%") || path.contains("\0") || path.contains("//") {
            return text(r, 400, "a path outside the monitor's routes was refused\n")
        }
        switch (method, path) {
        case ("GET", "/"), ("GET", "/index.html"):
            let page = String(decoding: assets["/index.html"]!.body, as: UTF8.self).replacingOccurrences(of: "__CSRF_TOKEN__", with: csrf)
            reply(r, 200, "text/html; charset=utf-8", Data(page.utf8))
        case ("GET", "/monitor.js"), ("GET", "/monitor.css"):
            let asset = assets[path]!
            reply(r, 200, asset.type, asset.body)
        case ("GET", "/favicon.ico"):
            reply(r, 204, "image/x-icon", Data())
        case ("GET", "/api/status"):
            reply(r, 200, "application/json", latestStatus.withLock { $0 })
        case ("GET", "/api/catalog"):
            reply(r, 200, "application/json", catalogJSON)
        case ("GET", "/api/events"):
            lw_http_reply_stream(r, MonitorServer.commonHeaders)
        case ("POST", "/api/look"):
            changeLook(r)
        case ("POST", "/api/redevelop") where redevelop != nil:
            redevelopFrame(r)
        case (_, "/api/redevelop") where redevelop != nil:
            text(r, 405, "\(method) is not allowed here\n")
        case ("GET", _) where path.hasPrefix("/previews/"):
            preview(r, name: String(path.dropFirst("/previews/".count)))
        case (_, "/"), (_, "/index.html"), (_, "/api/status"), (_, "/api/catalog"), (_, "/api/events"), (_, "/api/look"):
            text(r, 405, "\(method) is not allowed here\n")
        default:
            text(r, 404, "no such page\n")
        }
    }

    /// On loopback the Host must be a loopback name: a page elsewhere that rebinds its own name to 127.0.0.1
    /// gets its own Host and is refused.
    private func hostProblem(_ r: OpaquePointer) -> String? {
        guard configuration.isLoopback else { return nil }
        guard let raw = lw_http_header(r, "Host") else { return "a request without a Host header was refused" }
        let host = String(cString: raw).lowercased()
        let names = ["127.0.0.1", "localhost", "[::1]", configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host]
        guard names.contains(where: { host == $0 || host == "\($0):\(port)" }) else {
            return "the Host '\(host)' is not this monitor's loopback address"
        }
        return nil
    }

    private func presentedToken(_ r: OpaquePointer) -> String? {
        if let h = lw_http_header(r, "X-LightWork-Token") { return String(cString: h) }
        if let h = lw_http_header(r, "Authorization") {
            let value = String(cString: h)
            if value.hasPrefix("Bearer ") { return String(value.dropFirst(7)) }
        }
        return lw_http_query(r, "token").map { String(cString: $0) }
    }

    /// Compares in time independent of where the strings differ.
    static func sameToken(_ a: String?, _ b: String) -> Bool {
        guard let a else { return false }
        let x = Array(a.utf8), y = Array(b.utf8)
        var diff = x.count ^ y.count
        for i in 0..<min(x.count, y.count) { diff |= Int(x[i] ^ y[i]) }
        return diff == 0
    }

    /// A JSON POST from the page itself: the CSRF token it was served, its own origin, a JSON body.
    private func changeLook(_ r: OpaquePointer) {
        guard let body = checkedChange(r) else { return }
        guard let change = try? JSONDecoder().decode(LookChange.self, from: body) else {
            return text(r, 400, "the body is not a look change: {\"recipe\":…, \"film\":…, \"strength\":…}\n")
        }
        if let problem = catalog.problem(with: change) { return text(r, 400, problem + "\n") }
        if let refusal = lookRefusal.withLock({ $0 }) { return text(r, 409, refusal + "\n") }
        do { try onLook(change) } catch { return text(r, 503, "the look change was not passed on: \(error)\n") }
        let answer: [String: Any] = ["accepted": true, "look": change.summary, "applies": "to files that start after those in flight"]
        reply(r, 202, "application/json", (try? JSONSerialization.data(withJSONObject: answer, options: [.sortedKeys])) ?? Data())
    }

    /// Frame N developed again with a look from the catalog, as an extra output: checked as a look change is, then
    /// queued for the watch (202), or refused for an unknown frame (404), one that failed (409) or whose input is gone (422).
    private func redevelopFrame(_ r: OpaquePointer) {
        guard let redevelop, let body = checkedChange(r) else { return }
        guard let request = try? JSONDecoder().decode(RedevelopRequest.self, from: body) else {
            return text(r, 400, "the body is not a re-develop: {\"frame\": N, \"recipe\":…, \"film\":…, \"strength\":…}\n")
        }
        if let problem = catalog.problem(with: request.look) { return text(r, 400, problem + "\n") }
        do {
            try redevelop(request)
        } catch {
            switch error {
            case .unknownFrame(let why): return text(r, 404, why + "\n")
            case .notConverted(let why), .notRunning(let why): return text(r, 409, why + "\n")
            case .inputGone(let why): return text(r, 422, why + "\n")
            case .busy(let why): return text(r, 503, why + "\n", extra: "Retry-After: 5\n")
            }
        }
        let answer: [String: Any] = ["accepted": true, "frame": request.frame, "look": request.look.summary,
                                     "applies": "an extra output of that frame, beside its own"]
        reply(r, 202, "application/json", (try? JSONSerialization.data(withJSONObject: answer, options: [.sortedKeys])) ?? Data())
    }

    /// The checks every change passes (JSON content type, the page's CSRF token, same origin and site, the change rate);
    /// the body, or nil when the request was refused (and answered).
    private func checkedChange(_ r: OpaquePointer) -> Data? {
        let header = { (name: String) in lw_http_header(r, name).map { String(cString: $0) } }
        guard header("Content-Type")?.lowercased().hasPrefix("application/json") == true else {
            text(r, 415, "a change is a JSON POST (Content-Type: application/json)\n")
            return nil
        }
        guard MonitorServer.sameToken(header("X-LightWork-CSRF"), csrf) else {
            text(r, 403, "a change needs the page's CSRF token (X-LightWork-CSRF); reload the page\n")
            return nil
        }
        if let origin = header("Origin"), let host = header("Host"), origin.lowercased() != "http://\(host.lowercased())" {
            text(r, 403, "a change from another origin (\(origin)) was refused\n")
            return nil
        }
        if let site = header("Sec-Fetch-Site"), site != "same-origin" {
            text(r, 403, "a change from another site (\(site)) was refused\n")
            return nil
        }
        guard buckets.withLock({ $0.changes.take() }) else {
            text(r, 429, "too many look changes; wait a second\n", extra: "Retry-After: 1\n")
            return nil
        }
        var length = 0
        let bytes = lw_http_body(r, &length)!
        return Data(bytes: bytes, count: length)
    }

    /// `NNNNNN.jpg` (or its before picture, `NNNNNN-before.jpg`, or a re-develop's `NNNNNN-rK.jpg`) from the preview
    /// folder, resolved inside it (a link leading out is refused).
    private func preview(_ r: OpaquePointer, name: String) {
        var stem = name.hasSuffix(".jpg") ? Substring(name.dropLast(4)) : ""
        if stem.hasSuffix(PreviewImage.beforeSuffix) { stem = stem.dropLast(PreviewImage.beforeSuffix.count) }
        guard name.count <= 32, MonitorServer.isPreviewStem(stem) else {
            return text(r, 404, "no such preview\n")
        }
        guard let url = try? ContainedPath.resolve(name, inside: configuration.previews) else { return text(r, 404, "no such preview\n") }
        let fd = open(url.path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return text(r, 404, "no such preview\n") }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { close(fd); return text(r, 404, "no such preview\n") }
        lw_http_reply_file(r, 200, "image/jpeg", fd, Int(st.st_size), MonitorServer.commonHeaders)
    }

    /// `NNNNNN` (a file's preview) or `NNNNNN-rK` (its re-develop number K's): ASCII digits, one optional `-r`.
    static func isPreviewStem(_ stem: Substring) -> Bool {
        let parts = stem.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        func digits(_ s: Substring) -> Bool { !s.isEmpty && s.allSatisfy { $0.isASCII && $0.isNumber } }
        guard let first = parts.first, digits(first) else { return false }
        return parts.count == 1 || (parts[1].hasPrefix("r") && digits(parts[1].dropFirst()))
    }

    private func reply(_ r: OpaquePointer, _ status: UInt32, _ type: String, _ body: Data, extra: String = "") {
        body.withUnsafeBytes { lw_http_reply(r, status, type, $0.baseAddress, $0.count, MonitorServer.commonHeaders + extra) }
    }

    private func text(_ r: OpaquePointer, _ status: UInt32, _ message: String, extra: String = "") {
        reply(r, status, "text/plain; charset=utf-8", Data(message.utf8), extra: extra)
    }
}

/// A token bucket: `rate` per second, at most `burst` saved up.
struct TokenBucket {
    let rate: Double
    let burst: Double
    private var tokens: Double
    private var last: Double

    init(rate: Double, burst: Double) {
        self.rate = rate
        self.burst = burst
        tokens = burst
        last = JobScheduler.clock()
    }

    mutating func take() -> Bool {
        let now = JobScheduler.clock()
        tokens = min(burst, tokens + (now - last) * rate)
        last = now
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}
