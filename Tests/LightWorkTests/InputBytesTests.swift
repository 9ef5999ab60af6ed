import Foundation
import XCTest
@testable import LightWork

/// `InputBytes`: the file is read in pieces at once, and `release` gives the memory back without waiting for the
/// hash thread, which still reads the whole file (its digest is coreutils' `sha256sum`); the last reader unmaps it.
final class InputBytesTests: XCTestCase {
    /// Whether the page at `address` is mapped in this process (msync fails with ENOMEM on an unmapped range).
    private static func isMapped(_ address: UInt) -> Bool {
        msync(UnsafeMutableRawPointer(bitPattern: address), 4096, MS_ASYNC) == 0
    }

    private static func sha256sum(_ url: URL) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        p.arguments = [url.path]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        return String(text.prefix(64))
    }

    func testReleaseDoesNotWaitForAReaderAndTheLastReaderUnmaps() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let file = dir.appendingPathComponent("input.bin")
        var rng = SystemRandomNumberGenerator()
        // Two pieces and a bit (`InputBytes.pieceBytes`), read at once: the digest below holds them to the file.
        let words = (0..<(2 * InputBytes.pieceBytes / 8 + 1544)).map { _ in rng.next() as UInt64 }
        try words.withUnsafeBytes { Data($0).prefix(2 * InputBytes.pieceBytes + 12_345) }.write(to: file)
        let input = try InputBytes(contentsOf: file)
        XCTAssertEqual(input.data.count, 2 * InputBytes.pieceBytes + 12_345)
        let base = input.data.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) }
        XCTAssertTrue(Self.isMapped(base))

        let gate = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        let digest = LockedBox<String?>(nil)
        input.readAsync { data in
            gate.wait()
            digest.withLock { $0 = SHA256.hex(data) }
            done.signal()
        }
        input.release()     // returns while the reader waits at the gate
        XCTAssertTrue(Self.isMapped(base), "released under a reader: still mapped")
        gate.signal()
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(digest.withLock { $0 }, try Self.sha256sum(file))
        // The reader unmaps just after its body returns.
        let deadline = Date().addingTimeInterval(5)
        while Self.isMapped(base) && Date() < deadline { usleep(1000) }
        XCTAssertFalse(Self.isMapped(base), "the last reader gave the memory back")

        // Without readers, release unmaps at once.
        let alone = try InputBytes(contentsOf: file)
        let aloneBase = alone.data.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) }
        alone.release()
        XCTAssertFalse(Self.isMapped(aloneBase))
    }
}
