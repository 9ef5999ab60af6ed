import Foundation
import Glibc
import XCTest
@testable import LightWork

/// The studio monitor under test: a `lightwork watch --serve` on a free loopback port, headless Chromium driven over
/// its DevTools pipe (`scripts/cdp-drive.py`), and plain HTTP over a socket for what a browser would not send.
final class MonitorFixture {
    let watch: WatchFixture
    private(set) var run: CLIRunner.Background?
    /// The page's address as the watch printed it (with `?token=` when there is one).
    private(set) var url = ""
    private(set) var port: UInt16 = 0

    init(_ test: XCTestCase) throws {
        watch = try WatchFixture(test)
    }

    /// Starts the watch serving on `address` (port 0: any free one) and waits for its "serving" event.
    func start(_ extra: [String] = [], address: String = "127.0.0.1:0") throws {
        let r = try watch.start(["--serve", address, "--json"] + extra)
        run = r
        let served = WatchFixture.wait(seconds: 30) { self.servingURL(r) != nil }
        guard served, let found = servingURL(r) else {
            throw MonitorTestError("the watch never served: \(watch.stderr(r))")
        }
        url = found
        let hostPort = found.dropFirst("http://".count).prefix { $0 != "/" }
        port = UInt16(hostPort.split(separator: ":").last ?? "") ?? 0
    }

    private func servingURL(_ r: CLIRunner.Background) -> String? {
        for line in watch.stdout(r).split(separator: "\n") {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  object["event"] as? String == "serving" else { continue }
            return object["url"] as? String
        }
        return nil
    }

    /// Stops the watch (SIGTERM) and returns its result.
    @discardableResult
    func stop() -> CLIRunner.Result? {
        guard let r = run else { return nil }
        r.send(SIGTERM)
        run = nil
        return r.finish(within: 60)
    }

    /// The JSON events the watch wrote so far.
    func events() -> [[String: Any]] {
        guard let r = run else { return [] }
        return watch.stdout(r).split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// Where screenshots are kept after the test (its temporary folder is removed): .build/test-output/monitor.
    static var outputFolder: URL {
        let url = TestPaths.repoRoot.appendingPathComponent(".build/test-output/monitor")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    // MARK: - Chromium

    /// Chromium running `steps` against `page` in the background.
    final class Browser {
        let process: Process
        let reportURL: URL
        let stdoutURL: URL

        init(page: String, steps: [[String: Any]], folder: URL) throws {
            guard let chromium = MonitorFixture.tool("chromium"), let python = MonitorFixture.tool("python3") else {
                throw MonitorTestError("chromium and python3 are needed (scripts/ensure-deps.sh --test installs them)")
            }
            let tag = UUID().uuidString.prefix(8)
            let stepsURL = folder.appendingPathComponent("steps-\(tag).json")
            reportURL = folder.appendingPathComponent("report-\(tag).json")
            stdoutURL = folder.appendingPathComponent("browser-\(tag).txt")
            try JSONSerialization.data(withJSONObject: steps).write(to: stepsURL)
            FileManager.default.createFile(atPath: stdoutURL.path, contents: nil)
            process = Process()
            process.executableURL = python
            process.arguments = [TestPaths.repoRoot.appendingPathComponent("scripts/cdp-drive.py").path, page, stepsURL.path, reportURL.path]
            var env = ProcessInfo.processInfo.environment
            env["CHROMIUM"] = chromium.path
            process.environment = env
            process.standardOutput = try FileHandle(forWritingTo: stdoutURL)
            process.standardError = FileHandle.standardError
            try process.run()
        }

        /// Waits until the script printed `MARK name` (false when it ended or `seconds` passed first).
        func waitForMark(_ name: String, seconds: Double = 60) -> Bool {
            WatchFixture.wait(seconds: seconds) {
                ((try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? "").contains("MARK \(name)\n") || !process.isRunning
            } && ((try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? "").contains("MARK \(name)\n")
        }

        /// Waits for the script to end and returns its report (steps, their values, the page's problems).
        func finish(seconds: Double = 120) -> [String: Any] {
            let deadline = Date().addingTimeInterval(seconds)
            while process.isRunning, Date() < deadline { usleep(20_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            guard let data = try? Data(contentsOf: reportURL), let report = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
                return ["ok": false, "error": "no report"]
            }
            return report
        }
    }

    static func tool(_ name: String) -> URL? {
        (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":")
            .map { URL(fileURLWithPath: String($0)).appendingPathComponent(name) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// Steps 0…3 of a page test: wait until the page is ready (mark "ready"), then until `input`'s filmstrip thumbnail
    /// and the large picture are loaded (mark "shown").
    static func shownSteps(input: String) -> [[String: Any]] {
        let selector = "#filmstrip li[data-input=\"\(input)\"] img"
        return [
            ["wait": "document.body.dataset.ready === '1' && Number(document.body.dataset.catalog) > 0", "timeout": 20],
            ["mark": "ready"],
            ["wait": "(() => { const i = document.querySelector('\(selector)'); const big = document.getElementById('latest-img');"
                + " return i && i.complete && i.naturalWidth > 0 && big.complete && big.naturalWidth > 0 && !big.hidden; })()", "timeout": 15],
            ["mark": "shown"],
        ]
    }

    /// A step's value from a report (by position).
    static func value(_ report: [String: Any], step: Int) -> Any? {
        ((report["steps"] as? [[String: Any]]) ?? []).dropFirst(step).first?["value"]
    }

    // MARK: - Raw HTTP

    /// One TCP connection to the monitor on loopback, read with a timeout (10 s unless told).
    final class Connection {
        let fd: Int32

        init(port: UInt16) throws {
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw MonitorTestError("no socket: errno \(errno)") }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else {
                Glibc.close(fd)
                throw MonitorTestError("cannot connect to port \(port): errno \(errno)")
            }
        }

        deinit { close() }

        private var closed = false
        func close() {
            guard !closed else { return }
            closed = true
            Glibc.close(fd)
        }

        func send(_ text: String) {
            let bytes = Array(text.utf8)
            _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }

        /// Reads until `done` says the bytes so far are enough, the peer closes, or `timeout` seconds pass.
        private func read(timeout: Int, until done: (Data) -> Bool) -> Data {
            var tv = timeval(tv_sec: timeout, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
            var answer = Data()
            var buffer = [UInt8](repeating: 0, count: 65536)
            while !done(answer) {
                let n = recv(fd, &buffer, buffer.count, 0)
                if n <= 0 { break }
                answer.append(contentsOf: buffer[0..<n])
            }
            return answer
        }

        /// Everything until the peer closes.
        func readToEnd(timeout: Int = 10) -> String {
            String(decoding: read(timeout: timeout) { _ in false }, as: UTF8.self)
        }

        /// The status line and headers of the answer.
        func head(timeout: Int = 10) -> String {
            let end = Data("\r\n\r\n".utf8)
            return String(decoding: read(timeout: timeout) { $0.range(of: end) != nil }, as: UTF8.self)
        }
    }

    /// Sends `request` as is (no URL normalising, any Host) to the monitor and returns the status and body
    /// (status 0 when the connection was refused or closed unanswered).
    static func raw(_ request: String, port: UInt16) -> (status: Int, body: String) {
        guard let connection = try? Connection(port: port) else { return (0, "") }
        connection.send(request)
        let text = connection.readToEnd()
        let status = Int(text.split(separator: " ").dropFirst().first ?? "") ?? 0
        let body = text.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n")
        return (status, body)
    }

    /// `raw` to this monitor (or `port`).
    func raw(_ request: String, port: UInt16? = nil) -> (status: Int, body: String) {
        MonitorFixture.raw(request, port: port ?? self.port)
    }

    /// A GET with a loopback Host and the connection closed after it.
    func get(_ path: String, headers: [String] = []) -> (status: Int, body: String) {
        raw("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n" + headers.map { $0 + "\r\n" }.joined() + "Connection: close\r\n\r\n")
    }
}

struct MonitorTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
