import CShims
import XCTest

/// `lw_large_alloc`'s pool (lw_buffer.h): a freed large block serves the next request of about its size, and a
/// request beyond what the pool's registry tracks is still met (from the heap) rather than failing.
final class LargeBufferPoolTests: XCTestCase {
    /// 62 MiB: no other test's buffer is that size, so the block freed here is the one the pool hands out.
    private let size = 62 << 20

    func testAFreedBlockServesTheNextRequestOfItsSize() throws {
        let a = try XCTUnwrap(lw_large_alloc(size))
        a.storeBytes(of: 0x5eed, as: UInt32.self)
        XCTAssertEqual(Int(bitPattern: a) % (2 << 20), 0, "large blocks start on a 2 MiB boundary")
        lw_large_free(a)
        let b = try XCTUnwrap(lw_large_alloc(size - 4096))
        XCTAssertEqual(b, a, "a request within an eighth of a kept block's size gets that block")
        XCTAssertEqual(b.load(as: UInt32.self), 0x5eed, "a reused block holds what it held")
        lw_large_free(b)
        // A request needing under seven eighths of the kept block maps a new one.
        let c = try XCTUnwrap(lw_large_alloc(size / 2))
        XCTAssertNotEqual(c, a)
        lw_large_free(c)
    }

    func testMoreLiveBlocksThanTheRegistryHoldsAreAllMet() throws {
        let count = 80   // the registry tracks 64
        var blocks: [UnsafeMutableRawPointer] = []
        for k in 0..<count {
            let p = try XCTUnwrap(lw_large_alloc(4 << 20), "block \(k)")
            p.storeBytes(of: UInt64(k), as: UInt64.self)
            (p + (4 << 20) - 8).storeBytes(of: UInt64(k), as: UInt64.self)
            blocks.append(p)
        }
        XCTAssertEqual(Set(blocks).count, count, "every block is its own")
        for (k, p) in blocks.enumerated() {
            XCTAssertEqual(p.load(as: UInt64.self), UInt64(k))
            XCTAssertEqual((p + (4 << 20) - 8).load(as: UInt64.self), UInt64(k))
        }
        blocks.forEach { lw_large_free($0) }
    }
}
