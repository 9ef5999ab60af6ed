import Foundation
import XCTest
@testable import LightWork

/// The monitor server's bounds, each driven past its limit over plain sockets on a server started with small limits:
/// the body size (declared and chunked), the event streams, the connections per address, the idle timeout, and the
/// request and look-change rates.
final class MonitorLimitsTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("lw-monitor-limits-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    private func server(_ adjust: (inout MonitorServer.Configuration) -> Void,
                        onLook: @escaping @Sendable (LookChange) -> Void = { _ in }) throws -> MonitorServer {
        var c = MonitorServer.Configuration(assets: try ProfilesDirectory.locate().appendingPathComponent("monitor"), previews: folder)
        c.port = 0
        adjust(&c)
        return try MonitorServer(configuration: c, catalog: MonitorCatalog(films: [], recipes: []), onLook: onLook)
    }

    private func post(_ body: String, port: UInt16, chunked: Bool = false, csrf: String = "none") -> Int {
        let head = "POST /api/look HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Type: application/json\r\nX-LightWork-CSRF: \(csrf)\r\n"
        if chunked {
            // Two chunks, so the body outgrows the limit while it arrives, with no Content-Length to refuse it by.
            let half = body.utf8.count / 2
            let a = String(body.prefix(half)), b = String(body.dropFirst(half))
            let chunks = [a, b].map { String($0.utf8.count, radix: 16) + "\r\n" + $0 + "\r\n" }.joined() + "0\r\n\r\n"
            return MonitorFixture.raw(head + "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n" + chunks, port: port).status
        }
        return MonitorFixture.raw(head + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body, port: port).status
    }

    /// 4096 bytes are read (and then refused for the missing CSRF token, 403); 4097 are not (413), declared or chunked.
    func testABodyPastTheLimitIsRefusedDeclaredOrChunked() throws {
        let s = try server { $0.maxBody = 4096 }
        defer { s.stop() }
        let at = String(repeating: "x", count: 4096), past = String(repeating: "x", count: 4097)
        XCTAssertEqual(post(at, port: s.port), 403, "a body at the limit reaches the handler")
        XCTAssertEqual(post(at, port: s.port, chunked: true), 403)
        XCTAssertEqual(post(past, port: s.port), 413, "one byte past the limit, by its Content-Length")
        XCTAssertEqual(post(past, port: s.port, chunked: true), 413, "one byte past the limit, counted as it arrives")
    }

    /// Two streams open, the third is 503 with Retry-After; once one closes a new one is let in.
    func testEventStreamsPastTheLimitAre503() throws {
        let s = try server { $0.maxStreams = 2 }
        defer { s.stop() }
        let get = "GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:\(s.port)\r\n\r\n"
        let a = try MonitorFixture.Connection(port: s.port), b = try MonitorFixture.Connection(port: s.port)
        a.send(get)
        b.send(get)
        XCTAssertTrue(a.head().hasPrefix("HTTP/1.1 200"))
        XCTAssertTrue(b.head().hasPrefix("HTTP/1.1 200"))
        XCTAssertEqual(s.streamCount, 2)
        let third = MonitorFixture.raw(get.replacingOccurrences(of: "\r\n\r\n", with: "\r\nConnection: close\r\n\r\n"), port: s.port)
        XCTAssertEqual(third.status, 503)
        XCTAssertEqual(s.streamCount, 2)
        a.close()
        // The server notices the closed stream when a write to it fails: frames are published until it does.
        XCTAssertTrue(WatchFixture.wait(seconds: 15) {
            s.publish(event: ["event": "ping"])
            return s.streamCount == 1
        }, "the closed stream is let go")
        let c = try MonitorFixture.Connection(port: s.port)
        c.send(get)
        XCTAssertTrue(c.head().hasPrefix("HTTP/1.1 200"), "a stream is let in again")
        b.close()
        c.close()
    }

    /// With three connections open from loopback a fourth is closed unanswered; after one closes, it is served.
    func testConnectionsPerAddressAreBounded() throws {
        let s = try server { $0.maxPerAddress = 3 }
        defer { s.stop() }
        let open = try (0..<3).map { _ in try MonitorFixture.Connection(port: s.port) }
        let status = "GET /api/status HTTP/1.1\r\nHost: 127.0.0.1:\(s.port)\r\nConnection: close\r\n\r\n"
        // The three are accepted once one of them is answered (the server accepts in order).
        open[2].send("GET /api/status HTTP/1.1\r\nHost: 127.0.0.1:\(s.port)\r\n\r\n")
        XCTAssertTrue(open[2].head().hasPrefix("HTTP/1.1 200"))
        XCTAssertEqual(MonitorFixture.raw(status, port: s.port).status, 0, "a fourth connection gets no answer")
        open[0].close()
        XCTAssertTrue(WatchFixture.wait(seconds: 10) { MonitorFixture.raw(status, port: s.port).status == 200 }, "served once one closed")
        open[1].close()
        open[2].close()
    }

    /// A connection that sends nothing is closed after the idle timeout (1 s here), not held.
    func testAnIdleConnectionIsClosed() throws {
        let s = try server { $0.idleTimeout = 1 }
        defer { s.stop() }
        let idle = try MonitorFixture.Connection(port: s.port)
        let started = Date()
        XCTAssertEqual(idle.readToEnd(timeout: 10), "", "closed without an answer")
        let waited = Date().timeIntervalSince(started)
        print("monitor limits: an idle connection closed after \(String(format: "%.2f", waited)) s (timeout 1 s)")
        XCTAssertLessThan(waited, 4)
        idle.close()
    }

    /// At 20 requests a second (burst 40) the first 40 quick requests are answered and the rest beyond the refill get 429;
    /// at 2 look changes a second (burst 8) the first 8 valid changes are taken and the next are 429, never applied.
    func testRequestsAndLookChangesPastTheirRatesAre429() throws {
        let taken = LockedBox(0)
        let s = try server({ $0.requestsPerSecond = 20; $0.changesPerSecond = 2 }, onLook: { _ in taken.withLock { $0 += 1 } })
        defer { s.stop() }
        let get = "GET /api/status HTTP/1.1\r\nHost: 127.0.0.1:\(s.port)\r\nConnection: close\r\n\r\n"
        let started = Date()
        let statuses = (0..<100).map { _ in MonitorFixture.raw(get, port: s.port).status }
        let elapsed = Date().timeIntervalSince(started)
        let answered = statuses.filter { $0 == 200 }.count
        print("monitor limits: \(answered) of 100 requests answered in \(String(format: "%.3f", elapsed)) s at 20/s, burst 40")
        XCTAssertEqual(Set(statuses), [200, 429])
        XCTAssertEqual(Array(statuses.prefix(40)), Array(repeating: 200, count: 40), "the burst is served")
        XCTAssertLessThanOrEqual(answered, 40 + Int((20 * elapsed).rounded(.up)), "no more than the burst and the refill")

        // The changes: the page's CSRF token from the page, then 12 changes at once.
        Thread.sleep(forTimeInterval: 2.1)  // the request bucket refills (40 tokens at 20/s)
        let page = MonitorFixture.raw("GET / HTTP/1.1\r\nHost: 127.0.0.1:\(s.port)\r\nConnection: close\r\n\r\n", port: s.port)
        XCTAssertEqual(page.status, 200)
        let csrf = try XCTUnwrap(page.body.components(separatedBy: "name=\"lightwork-csrf\" content=\"").dropFirst().first?.prefix { $0 != "\"" })
        XCTAssertEqual(csrf.count, 64)
        let changes = (0..<12).map { _ in post("{\"strength\": 10}", port: s.port, csrf: String(csrf)) }
        XCTAssertEqual(Array(changes.prefix(8)), Array(repeating: 202, count: 8), "the burst of changes is taken")
        XCTAssertTrue(changes.dropFirst(8).contains(429), "\(changes)")
        XCTAssertEqual(taken.withLock { $0 }, changes.filter { $0 == 202 }.count, "a refused change is never applied")
    }
}
