import Foundation
import XCTest
@testable import LightWork

/// The hand-off of the page's look changes to the watch loop: changes made before the loop takes them add up, the
/// later naming what it changes (a film, then a strength: both apply), and the loop is woken.
final class MonitorLookRequestsTests: XCTestCase {
    func testChangesWaitingForTheWatchAreLaidOverEachOther() throws {
        let requests = LookRequests()
        XCTAssertNil(requests.take())
        requests.submit(LookChange(recipe: "portrait", film: "kodak-portra-400"))
        requests.submit(LookChange(strength: 60))
        var ready = pollfd(fd: requests.wakeFD, events: Int16(POLLIN), revents: 0)
        XCTAssertEqual(poll(&ready, 1, 0), 1, "the watch loop is woken")
        XCTAssertEqual(requests.take(), LookChange(recipe: "portrait", film: "kodak-portra-400", strength: 60))
        XCTAssertNil(requests.take(), "taken once")
        XCTAssertEqual(poll(&ready, 1, 0), 0, "and the wake pipe is empty")

        // "" (no film) is a change too: it replaces the waiting film, the rest stays.
        requests.submit(LookChange(film: "kodak-portra-400", strength: 30))
        requests.submit(LookChange(film: ""))
        XCTAssertEqual(requests.take(), LookChange(film: "", strength: 30))
    }
}
