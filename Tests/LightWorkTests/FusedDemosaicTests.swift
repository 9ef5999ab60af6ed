import CShims
import XCTest
@testable import LightWork

/// The fused path (`RawDecoder.convertBands`: demosaic a band of tile rows, turn it into half floats while it is in
/// the cache) against the whole-buffer path it replaces (`DemosaicTiles.run`, then `RawDecoder.convert`): the same
/// working-image bytes for every orientation, both Bayer kernels, sizes that are not whole tiles, with and without a
/// matrix, on 1 and 3 threads; and the same peak.
final class FusedDemosaicTests: XCTestCase {
    /// A noisy mosaic of `w` × `h` (seeded), balanced and black-levelled as a camera's would be.
    func mosaic(_ w: Int, _ h: Int, seed: UInt64) -> [UInt16] {
        var rng = SeededRandom(seed: seed, stream: 0)
        return (0..<(w * h)).map { i in
            let (x, y) = (i % w, i / w)
            // Smooth gradients, an edge and noise: every kernel branch sees something.
            let base = 64.0 + 3000.0 * Double(x) / Double(w) + (x > w / 3 && y > h / 2 ? 9000 : 0)
            return UInt16(min(16383, max(0, base + Double(rng.next() % 400))))
        }
    }

    func testFusedBandsEqualTheWholeBufferPathForEveryOrientation() {
        let matrix = Matrix3(flat: [0.9, 0.2, -0.1, 0.05, 1.1, -0.15, 0.0, -0.3, 1.3])
        for (w, h) in [(150, 97), (64, 64), (301, 130)] {
            let raw = mosaic(w, h, seed: UInt64(w * h))
            raw.withUnsafeBufferPointer { r in
                var b = lw_bayer()
                b.raw = r.baseAddress
                b.pitch = w
                b.width = Int32(w)
                b.height = Int32(h)
                b.colour = (1, 0, 2, 1)
                b.black = (64, 64, 64, 64)
                b.scale = (1.0 / 8000, 1.9 / 8000, 1.4 / 8000, 1.0 / 8000)
                b.to_xyz = (0.4, 0.35, 0.2, 0.2, 0.7, 0.1, 0.02, 0.12, 0.95)
                for kernel in BayerKernel.allCases { withUnsafePointer(to: &b) { bayer in
                    let tiles = kernel.tiles(over: bayer)
                    for orientation in Orientation.allCases {
                        for m in [nil, matrix] as [Matrix3?] {
                            let (uw, uh) = orientation.swapsAxes ? (h, w) : (w, h)
                            var hashes: Set<String> = [], peaks: Set<UInt16> = []
                            let whole = tiles.run(engine: EngineConfiguration(threads: 2))
                            let reference = WorkingImage.unfilled(width: uw, height: uh, space: .rawLinear)
                            peaks.insert(RawDecoder.convert(UnsafeMutableRawPointer(whole).assumingMemoryBound(to: (UInt16, UInt16, UInt16, UInt16).self),
                                                            storedWidth: w, storedHeight: h, orientation: orientation, matrix: m,
                                                            into: reference, engine: EngineConfiguration(threads: 2)))
                            whole.deallocate()
                            hashes.insert(RCDDemosaicTests.hash(reference))
                            for threads in [1, 3] {
                                let fused = WorkingImage.unfilled(width: uw, height: uh, space: .rawLinear)
                                peaks.insert(RawDecoder.convertBands(tiles, orientation: orientation, matrix: m, into: fused,
                                                                     engine: EngineConfiguration(threads: threads)))
                                hashes.insert(RCDDemosaicTests.hash(fused))
                            }
                            XCTAssertEqual(hashes.count, 1, "\(kernel) \(w)×\(h) \(orientation) matrix \(m != nil)")
                            XCTAssertEqual(peaks.count, 1, "\(kernel) \(w)×\(h) \(orientation): peak")
                        }
                    }
                } }
            }
        }
    }
}
