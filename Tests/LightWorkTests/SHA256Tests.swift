import Foundation
import XCTest
import CShims
@testable import LightWork

final class SHA256Tests: XCTestCase {
    /// FIPS 180-4 / NIST example vectors.
    func testKnownVectors() {
        XCTAssertEqual(SHA256.hex(Data()), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(SHA256.hex(Data("abc".utf8)), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(SHA256.hex(Data("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)),
                       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    /// Incremental updates of odd sizes give the one-shot digest; the shared samples' published digests match.
    func testFileDigestMatchesSourcesManifest() throws {
        let url = try TestPaths.sharedSamples("raw").appendingPathComponent("kodak-dc50.kdc")
        XCTAssertEqual(try SHA256.hex(fileAt: url), "941b1ffcb54d637f1d5bd58c4d9134154660829b085037b9e87e6cfd10f84804")
        let data = try Data(contentsOf: url)
        var s = SHA256()
        var i = 0
        for step in [1, 63, 64, 65, 1000, 7] where i < data.count {
            s.update(data[i..<min(i + step, data.count)])
            i += step
        }
        s.update(data[min(i, data.count)...])
        XCTAssertEqual(s.finalizeHex(), SHA256.hex(data))
    }

    /// The CPU's SHA instructions and the portable C rounds (forced through cpu.c's one switch) agree on every
    /// length around block edges and on a large buffer; the known vectors hold on both paths.
    func testHardwareAndPortablePathsAgree() throws {
        try XCTSkipUnless(lw_cpu_sha() == 1, "this CPU has no SHA extensions: only the portable path runs")
        defer { lw_cpu_force_baseline(0) }
        var rng = SystemRandomNumberGenerator()
        let big = Data((0..<(3 << 20) + 17).map { _ in UInt8.random(in: 0...255, using: &rng) })
        var lengths = Array(0...200) + [1000, 4095, 4096, 4097, 65536 + 5]
        lengths.append(big.count)
        for n in lengths {
            let data = big.prefix(n)
            lw_cpu_force_baseline(0)
            let fast = SHA256.hex(data)
            lw_cpu_force_baseline(1)
            XCTAssertEqual(lw_cpu_sha(), 0, "the baseline is forced")
            XCTAssertEqual(fast, SHA256.hex(data), "length \(n)")
        }
        for forced: Int32 in [0, 1] {
            lw_cpu_force_baseline(forced)
            XCTAssertEqual(lw_cpu_sha(), 1 - forced)
            testKnownVectors()
        }
    }
}
