import Foundation
import XCTest
@testable import LightWork

/// Failures carry a typed kind beside their reason: each error's kind, the kinds the schema documents, old
/// manifests without one, and the kind crossing the worker protocol.
final class FailureKindTests: XCTestCase {
    func testEachLightWorkErrorHasItsKind() {
        let cases: [(LightWorkError, FailureKind)] = [
            (.missingInput("/x.dng"), .missingInput),
            (.emptyFile, .emptyFile),
            (.unsupportedFormat("GoPro GPR"), .unsupportedFormat),
            (.decodeFailed("LibRaw unpack failed"), .decodeFailed),
            (.truncated(dataEnd: 10, needed: 20), .truncated),
            (.blankImage("no strips"), .blankImage),
            (.tooManyPixels(width: 30_000, height: 30_000, limit: 200_000_000), .tooManyPixels),
            (.colour("bad ICC profile"), .colour),
            (.writeFailed("read-only folder"), .writeFailed),
            (.usage("unknown option"), .usage),
            (.invalidDocument(file: "r.json", path: "$.filters", reason: "not an object"), .invalidDocument),
            (.locked("pack locked"), .locked),
            (.unlockRefused(file: "e.json", packId: "p", label: "(paid)", reason: .unsigned), .unlockRefused),
            (.diskFull("No space left on device"), .diskFull),
            (.workerCrashed("signal 11 (SIGSEGV)"), .workerCrashed),
            (.workerTimedOut(seconds: 4), .workerTimedOut),
            (.missingTool("dcraw_emu not found"), .missingTool),
            (.lookupChanged(file: "/films/a.png", expected: "ab", found: "cd"), .lookupChanged),
            (.ledger("database disk image is malformed"), .ledger),
        ]
        for (error, kind) in cases { XCTAssertEqual(error.kind, kind, "\(error)") }
        // Every kind is made somewhere: by an error above, the planner's refused name, or a system error.
        XCTAssertEqual(Set(cases.map(\.1)).union([.outputNameRefused, .other]), Set(FailureKind.allCases))
        // The reasons people read are the ones LightWork always gave.
        XCTAssertEqual(LightWorkError.workerTimedOut(seconds: 4).description,
                       "timed out: still converting after 4 s (raise --timeout); its worker was stopped")
        XCTAssertEqual(LightWorkError.workerTimedOut(seconds: 0.5).description,
                       "timed out: still converting after 0.5 s (raise --timeout); its worker was stopped")
        XCTAssertEqual(LightWorkError.diskFull("No space left on device").description, "disk full: No space left on device")
    }

    /// A worker's end becomes a crash with the reason the manifest always carried.
    func testWorkerEndsAreCrashes() {
        XCTAssertEqual(WorkerPool.failure(.signaled(SIGSEGV)), .workerCrashed("signal 11 (SIGSEGV)"))
        XCTAssertEqual(WorkerPool.failure(.signaled(SIGKILL)).description,
                       "decoder crashed: signal 9 (SIGKILL): killed from outside, often by the out-of-memory killer (try a lower --jobs or --max-memory)")
        XCTAssertEqual(WorkerPool.failure(.exited(3)).description, "decoder crashed: the worker process exited with status 3 while converting this file")
        XCTAssertEqual(WorkerPool.failure(.exited(3)).kind, .workerCrashed)
    }

    /// The schema lists exactly the kinds there are.
    func testSchemaDocumentsEveryKind() throws {
        let url = TestPaths.repoRoot.appendingPathComponent("docs/manifest.schema.json")
        let schema = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        func object(_ value: Any?, _ key: String) throws -> [String: Any] { try XCTUnwrap((value as? [String: Any])?[key] as? [String: Any], key) }
        let entry = try XCTUnwrap((try object(schema, "properties")["entries"] as? [String: Any])?["items"] as? [String: Any])
        let kind = try object(try object(entry, "properties"), "failureKind")
        XCTAssertEqual(kind["enum"] as? [String], FailureKind.allCases.map(\.rawValue))
    }

    /// A manifest written before kinds existed still decodes (no kind); a kind survives the worker's reply line.
    func testOldManifestsDecodeAndTheKindCrossesTheWorkerProtocol() throws {
        let old = Data(#"{"input": {"path": "in/a.dng", "relativePath": "a.dng"}, "status": "failed", "reason": "disk full: x", "timings": {}, "notes": []}"#.utf8)
        let entry = try JSONDecoder().decode(Manifest.Entry.self, from: old)
        XCTAssertNil(entry.failureKind)
        XCTAssertEqual(entry.reason, "disk full: x")

        let failed = Manifest.Entry(input: Manifest.Input(path: "in/a.dng", relativePath: "a.dng"), status: .failed,
                                    reason: LightWorkError.diskFull("x").description, failureKind: .diskFull)
        let line = try WorkerLine.encode(WorkerReply(index: 1, entry: failed, maxRSSKiB: 1))
        XCTAssertTrue(String(decoding: line, as: UTF8.self).contains(#""failureKind":"diskFull""#))
        XCTAssertEqual(try WorkerLine.decode(WorkerReply.self, from: line.dropLast()).entry, failed)
        // A converted entry carries no kind: the key is absent, so successful entries are written as before.
        let converted = Manifest.Entry(input: Manifest.Input(path: "in/a.dng", relativePath: "a.dng"), status: .converted)
        XCTAssertFalse(String(decoding: try CanonicalJSON.encode(converted), as: UTF8.self).contains("failureKind"))
    }
}
