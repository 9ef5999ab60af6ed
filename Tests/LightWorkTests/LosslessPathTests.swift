import Foundation
import XCTest
@testable import LightWork

/// Issue #23 item 3 on every PNG layout (libpng's PngSuite is not packaged by Debian, so each layout is written here
/// with known samples): with no look, into the same colour space, at the same or a higher depth the output is
/// bit-exact (v becomes v·65535/(2^bits − 1)); alpha always is, also when the look changes the colours. Outputs are
/// read back by ImageMagick.
final class LosslessPathTests: XCTestCase, LosslessConversion {
    /// One PNG layout: its builder, stored samples (values per channel, 0…2^depth − 1) and the chunks it carries.
    private struct Layout {
        let name: String
        var png: PNGBuilder
        /// Stored samples, `width × height × channels`.
        let samples: [Int]
        var palette: [[Int]]? = nil
        var transparency: [Int]? = nil
    }

    private static let w = 19, h = 7

    /// Packs one row of samples at `depth` bits (big-endian, bit-packed below 8).
    private func pack(_ row: [Int], depth: Int) -> [UInt8] {
        if depth == 16 { return row.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xff)] } }
        if depth == 8 { return row.map(UInt8.init) }
        var out = [UInt8](repeating: 0, count: (row.count * depth + 7) / 8)
        for (i, v) in row.enumerated() { out[i * depth / 8] |= UInt8(v << (8 - depth - (i * depth) % 8)) }
        return out
    }

    private func layout(_ name: String, type: UInt8, depth: Int, seed: UInt64, interlaced: Bool = false,
                        chunks: [(String, [UInt8])] = []) -> Layout {
        var png = PNGBuilder(width: UInt32(Self.w), height: UInt32(Self.h), bitDepth: UInt8(depth), colourType: type, interlaced: interlaced)
        png.before = chunks
        var noise = TestNoise(seed)
        let top = 1 << depth
        let samples = (0..<(Self.w * Self.h * png.channels)).map { i in i == 0 ? 0 : i == 1 ? top - 1 : noise.next(top) }
        return Layout(name: name, png: png, samples: samples)
    }

    private func file(_ l: Layout) -> Data {
        let ch = l.png.channels, depth = Int(l.png.bitDepth)
        var png = l.png
        if let palette = l.palette { png.before.insert(("PLTE", palette.flatMap { $0.map(UInt8.init) }), at: 0) }
        if let t = l.transparency { png.before.append(("tRNS", t.map(UInt8.init))) }
        let rows = (0..<Self.h).map { y in pack(Array(l.samples[(y * Self.w * ch)..<((y + 1) * Self.w * ch)]), depth: depth) }
        return png.build(rows: rows)
    }

    /// The 16-bit RGBA truth of a layout: samples scaled exactly to 16 bits, grey repeated, palette looked up.
    private func truth(_ l: Layout) -> [UInt16] {
        let ch = l.png.channels, depth = Int(l.png.bitDepth)
        let scale = { (v: Int, bits: Int) in UInt16(v * 65535 / ((1 << bits) - 1)) }
        return (0..<(Self.w * Self.h)).flatMap { i -> [UInt16] in
            let p = Array(l.samples[(i * ch)..<((i + 1) * ch)])
            if let palette = l.palette {
                let c = palette[p[0]]
                let a = l.transparency.map { p[0] < $0.count ? $0[p[0]] : 255 } ?? 255
                return c.map { scale($0, 8) } + [scale(a, 8)]
            }
            switch ch {
            case 1: return [scale(p[0], depth), scale(p[0], depth), scale(p[0], depth), 65535]
            case 2: return [scale(p[0], depth), scale(p[0], depth), scale(p[0], depth), scale(p[1], depth)]
            case 3: return [scale(p[0], depth), scale(p[1], depth), scale(p[2], depth), 65535]
            default: return [scale(p[0], depth), scale(p[1], depth), scale(p[2], depth), scale(p[3], depth)]
            }
        }
    }

    /// An iCCP chunk holding LightWork's own sRGB profile (sRGB-equivalent: the samples are not converted).
    private var srgbICCP: (String, [UInt8]) {
        ("iCCP", Array("LightWork sRGB".utf8) + [0, 0] + PNGBuilder.zlibStored([UInt8](ICCProfile.embedded(for: .srgb))))
    }

    private func layouts() -> [Layout] {
        var all: [Layout] = []
        for depth in [1, 2, 4, 8, 16] { all.append(layout("grey\(depth)", type: 0, depth: depth, seed: UInt64(depth))) }
        for depth in [8, 16] {
            all.append(layout("grey-alpha\(depth)", type: 4, depth: depth, seed: UInt64(10 + depth)))
            all.append(layout("rgb\(depth)", type: 2, depth: depth, seed: UInt64(20 + depth)))
            all.append(layout("rgba\(depth)", type: 6, depth: depth, seed: UInt64(30 + depth)))
            all.append(layout("rgba\(depth)-interlaced", type: 6, depth: depth, seed: UInt64(40 + depth), interlaced: true))
            all.append(layout("rgb\(depth)-sRGB-chunk", type: 2, depth: depth, seed: UInt64(50 + depth), chunks: [("sRGB", [0])]))
            all.append(layout("rgba\(depth)-iCCP-sRGB", type: 6, depth: depth, seed: UInt64(60 + depth), chunks: [srgbICCP]))
        }
        all.append(layout("grey16-interlaced", type: 0, depth: 16, seed: 70, interlaced: true))
        var noise = TestNoise(80)
        let palette = (0..<256).map { _ in [noise.next(256), noise.next(256), noise.next(256)] }
        for depth in [4, 8] {
            var p = layout("palette\(depth)", type: 3, depth: depth, seed: UInt64(90 + depth))
            p.palette = Array(palette.prefix(1 << depth))
            all.append(p)
            var t = layout("palette\(depth)-tRNS", type: 3, depth: depth, seed: UInt64(100 + depth))
            t.palette = Array(palette.prefix(1 << depth))
            t.transparency = (0..<min(12, 1 << depth)).map { _ in noise.next(256) }
            all.append(t)
        }
        return all
    }

    func testEveryPNGLayoutComesBackBitExact() throws {
        var worst = 0
        for l in layouts() {
            let data = file(l), expected = truth(l)
            let depth = l.palette == nil ? Int(l.png.bitDepth) : 8
            for format in [OutputFormat.png16, .tiff16] + (depth <= 8 ? [OutputFormat.png, .tiff8] : []) {
                let (entry, got) = try convert(data, name: "\(l.name).png", format: format)
                XCTAssertEqual(entry.input.decisions?["pixels"]?.hasPrefix("passed through"), true, "\(l.name) → \(format.rawValue): \(entry.input.decisions ?? [:])")
                let difference = maxDifference(got, expected, "\(l.name) → \(format.rawValue)")
                worst = max(worst, difference)
                XCTAssertEqual(difference, 0, "\(l.name) → \(format.rawValue)")
            }
        }
        print("PNG layouts (\(layouts().count)) → png16/tiff16 (and png/tiff8 from ≤8 bits): max difference \(worst)/65535")
    }

    /// Colour changes (a look, another colour space, a gAMA curve, fewer bits) render the image; alpha stays exact.
    func testAlphaIsExactWhenColoursChange() throws {
        let rgba16 = layout("rgba16", type: 6, depth: 16, seed: 36)
        let gamma = layout("rgba16-gAMA", type: 6, depth: 16, seed: 37, chunks: [("gAMA", PNGBuilder.be32(45455))])
        let cases: [(Layout, OutputFormat, OutputColorSpace, Bool, String)] = [
            (rgba16, .png16, .srgb, true, "rendered: the look changes the pixels"),
            (rgba16, .png16, .displayP3, false, "rendered: sRGB samples into display-p3"),
            (gamma, .tiff16, .srgb, false, "rendered: the input's ICC profile is not the output's (srgb)"),
            (rgba16, .png, .srgb, false, "rendered: 16-bit samples into 8-bit output"),
        ]
        for (l, format, space, look, decision) in cases {
            let (entry, got) = try convert(file(l), name: "\(l.name).png", format: format, space: space) { spec in
                if look { spec.look.filters["contrast"] = ResolvedSettings.FilterSetting(ui: 30, value: 0.3, useLeftRange: false) }
            }
            XCTAssertEqual(entry.input.decisions?["pixels"], decision, l.name)
            // 16-bit alpha into 8 bits: rounded to nearest, as ImageMagick then widens it (×257).
            let expected = truth(l).enumerated().map { i, v in i % 4 == 3 && format.bitDepth == 8 ? UInt16((Int(v) * 255 + 32767) / 65535 * 257) : v }
            XCTAssertEqual(maxDifference(got, expected, channels: 3...3, "\(l.name) alpha → \(format.rawValue) \(space.rawValue)"), 0)
            let colour = maxDifference(got, expected, channels: 0...2, "colour")
            print("PNG \(l.name) → \(format.rawValue) \(space.rawValue)\(look ? " + contrast" : ""): alpha exact, colour differs up to \(colour)/65535 (\(decision))")
        }
    }

    /// A resize moves pixels: the working image is rendered and alpha resampled with it.
    func testResizeRendersTheWorkingImage() throws {
        let l = layout("rgba8", type: 6, depth: 8, seed: 38)
        let (entry, _) = try convert(file(l), name: "resized.png", format: .png16) { spec in
            spec.export.resize = try? ResizeSpec(.longEdge(10))
        }
        XCTAssertEqual(entry.input.decisions?["pixels"], "rendered: resizing changes the pixels")
    }
}
