import XCTest
@testable import LightWork

/// The monitor's preview reduction (`PreviewImage.reduce`, `lw_reduce.h`) against the block mean written out
/// sample by sample, on sizes the factor does not divide, every channel layout and both depths.
final class PreviewImageTests: XCTestCase {
    func testReductionIsTheRoundedBlockMean() throws {
        var rng = SeededRandom(seed: 7, stream: 0)
        for (width, height, longEdge) in [(37, 23, 40), (37, 23, 12), (64, 48, 20), (1301, 5, 1280), (9, 9, 1)] {
            for channels in [1, 3, 4] {
                for depth in [EncodedPixels.Depth.eight, .sixteen] {
                    var pixels = EncodedPixels(width: width, height: height, channels: channels, depth: depth)
                    let count = width * height * channels
                    if depth == .eight {
                        pixels.samples8 = (0..<count).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                    } else {
                        pixels.samples16 = (0..<count).map { _ in UInt16(truncatingIfNeeded: rng.next()) }
                    }
                    let small = try PreviewImage.reduce(pixels, longEdge: longEdge)
                    let k = max(1, (max(width, height) + longEdge - 1) / longEdge)
                    let (w, h, out) = (max(1, width / k), max(1, height / k), channels >= 3 ? 3 : 1)
                    XCTAssertEqual([small.width, small.height, small.channels], [w, h, out])
                    XCTAssertEqual(small.depth, .eight)
                    var expected = [UInt8]()
                    for y in 0..<h { for x in 0..<w { for c in 0..<out {
                        var sum = 0
                        for dy in 0..<k { for dx in 0..<k {
                            let i = ((y * k + dy) * width + x * k + dx) * channels + c
                            sum += depth == .eight ? Int(pixels.samples8[i]) : Int(pixels.samples16[i])
                        } }
                        let mean = (sum + k * k / 2) / (k * k)
                        expected.append(UInt8(depth == .eight ? mean : min(255, (mean * 255 + 32767) / 65535)))
                    } } }
                    XCTAssertEqual(small.samples8, expected, "\(width)x\(height)x\(channels) \(depth), k \(k)")
                }
            }
        }
    }
}
