import CLCMS2
import CShims
import Foundation
import XCTest
@testable import LightWork

/// LightWork's own AHD (BayerDemosaic) against LibRaw's on real files: the same black, white balance, scale and
/// orientation, at least LibRaw's detail, the same bytes for any thread count, and LibRaw kept where it must be.
final class BayerDemosaicTests: XCTestCase {
    /// Every Bayer file LibRaw reads here, decoded both ways.
    func testOwnAHDAgreesWithLibRawsOnEveryBayerFile() throws {
        var files = try TestPaths.sharedFiles("raw")
        files += ["scene.dng", "scene-tungsten.dng"].map { SampleSceneTests.samples.appendingPathComponent($0) }
        var own: [String] = []
        for url in files {
            var options = DecodeOptions()
            options.demosaic = .ahd
            let ours = try RawDecoder.decode(url: url, options: options)
            options.demosaic = .libRawAHD
            let theirs = try RawDecoder.decode(url: url, options: options)
            let name = url.lastPathComponent
            // The details name what LibRaw ran: AHD on a mosaic, nothing on the linear DNG.
            XCTAssertEqual(theirs.details["demosaic"], name.contains("linear") ? "none (not a mosaic) (LibRaw)" : "ahd (LibRaw)", name)
            guard ours.details["demosaic"] == "ahd (LightWork)" else { continue }
            own.append(name)
            XCTAssertEqual(ours.image.width, theirs.image.width, name)
            XCTAssertEqual(ours.image.height, theirs.image.height, name)
            XCTAssertEqual(ours.metadata.orientation, theirs.metadata.orientation, name)
            // Per channel: the mean level within 1 % (black, balance and scale agree) and the mean absolute
            // difference within 3 % of it (only edges, where the two AHDs pick differently, differ).
            var sumA = SIMD3<Double>(), sumB = SIMD3<Double>(), sumD = SIMD3<Double>()
            let a = ours.image, b = theirs.image
            for y in stride(from: 0, to: a.height, by: 2) {
                for x in stride(from: 0, to: a.width, by: 2) {
                    let pa = a.pixel(x: x, y: y), pb = b.pixel(x: x, y: y)
                    let va = SIMD3(Double(pa.x), Double(pa.y), Double(pa.z)), vb = SIMD3(Double(pb.x), Double(pb.y), Double(pb.z))
                    sumA += va
                    sumB += vb
                    let d = va - vb
                    sumD += SIMD3(Swift.abs(d.x), Swift.abs(d.y), Swift.abs(d.z))
                }
            }
            for c in 0..<3 {
                XCTAssertGreaterThan(sumB[c], 0, name)
                XCTAssertEqual(sumA[c] / sumB[c], 1, accuracy: 0.01, "\(name) channel \(c): mean level vs LibRaw")
                XCTAssertLessThan(sumD[c] / sumB[c], 0.03, "\(name) channel \(c): mean |difference| vs LibRaw")
            }
        }
        // The Samples DNGs and the Bayer camera files take LightWork's path; the D30 (no as-shot balance: LibRaw's
        // auto balance) and the linear DNG (no mosaic) stay with LibRaw.
        XCTAssertTrue(own.contains("scene.dng") && own.contains("scene-tungsten.dng"), "own AHD used for \(own)")
        if files.contains(where: { $0.lastPathComponent == "canon-powershot-g2.crw" }) {
            XCTAssertTrue(own.contains("canon-powershot-g2.crw") && own.contains("kodak-dc50.kdc"), "own AHD used for \(own)")
            XCTAssertFalse(own.contains("canon-eos-d30.crw"))
            XCTAssertFalse(own.contains("lg-g4-h815-lossy-linear.dng"))
        }
    }

    /// Tiles are independent: one thread or three give the same half floats (RCDDemosaicTests holds RCD and dual,
    /// the default, to the same).
    func testSameBytesForAnyThreadCount() throws {
        let url = SampleSceneTests.samples.appendingPathComponent("scene-tungsten.dng")
        var options = DecodeOptions()
        options.demosaic = .ahd
        var hashes: Set<String> = []
        for threads in [1, 3] {
            let decoded = try RawDecoder.decode(url: url, options: options, engine: EngineConfiguration(threads: threads))
            XCTAssertEqual(decoded.details["demosaic"], "ahd (LightWork)")
            hashes.insert(RCDDemosaicTests.hash(decoded.image))
        }
        XCTAssertEqual(hashes.count, 1)
    }

    /// A flat field stays flat at every size, also for images smaller than a tile or its margin, and edges
    /// tiles are mirrored with the mosaic's colours in place: each position's black and balance give one colour.
    func testFlatMosaicGivesOneColourAtEverySize() {
        assertFlatMosaicGivesOneColour(sizes: [(2, 2), (3, 5), (7, 4), (12, 2), (64, 64), (65, 70), (130, 3)], kernel: .ahd)
    }

    /// The AVX2 and the baseline x86-64 builds of the kernel give the same bytes, so goldens and decode hashes
    /// blessed on one machine hold on a machine without AVX2.
    func testSameBytesWithAndWithoutAVX2() throws {
        let url = SampleSceneTests.samples.appendingPathComponent("scene.dng")
        var options = DecodeOptions()
        options.demosaic = .ahd
        func hash() throws -> String {
            let decoded = try RawDecoder.decode(url: url, options: options)
            XCTAssertEqual(decoded.details["demosaic"], "ahd (LightWork)")
            return RCDDemosaicTests.hash(decoded.image)
        }
        let automatic = try hash()
        lw_cpu_force_baseline(1)
        defer { lw_cpu_force_baseline(0) }
        XCTAssertEqual(try hash(), automatic)
    }

    /// In the Samples scene's fine-detail area (a zone plate and fine lines, where demosaics differ), LightWork's
    /// AHD is as close to the scene's sRGB rendering as LibRaw's, and much closer than bilinear interpolation.
    func testFineDetailIsAtLeastAsGoodAsLibRaws() throws {
        let truth = try SampleSceneTests.loadTruth("scene.truth.json")
        // The scene's own sRGB rendering, through the RGB path into the same kind of output.
        func render(_ name: String, _ demosaic: DecodeOptions.Demosaic) throws -> LabReader {
            try LabReader(try ImageFileReader.read(try convertSample(name) { $0.decode.demosaic = demosaic }))
        }
        let ref = try render("scene-srgb.png", .ahd)
        func detailError(_ demosaic: DecodeOptions.Demosaic) throws -> Double {
            let out = try render("scene.dng", demosaic)
            let area = truth.detailArea
            var sum = 0.0, n = 0
            for y in area.y..<(area.y + area.h) {
                for x in area.x..<(area.x + area.w) {
                    var a = out.lab(x: x, y: y), b = ref.lab(x: x, y: y)
                    sum += cmsCIE2000DeltaE(&a, &b, 1, 1, 1)
                    n += 1
                }
            }
            return sum / Double(n)
        }
        let ours = try detailError(.ahd), libraw = try detailError(.libRawAHD), bilinear = try detailError(.linear)
        print("fine-detail mean ΔE00 against the scene: LightWork AHD \(ours), LibRaw AHD \(libraw), LibRaw linear \(bilinear)")
        XCTAssertLessThanOrEqual(ours, libraw * 1.05)
        XCTAssertLessThan(ours, bilinear * 0.9)
    }
}

/// `kernel` (`BayerKernel.demosaic`: lw_demosaic.h's tile contract) over a w × h RGGB mosaic above a black of 64,
/// balanced by the scales 1/4000, 1/2000, 1/2000, 1/1000 (so raw 1064, 564, 564, 314 all give 0.25), on `threads`.
func demosaicTestMosaic(_ raw: [UInt16], width w: Int, height h: Int, kernel: BayerKernel, threads: Int = 1) -> [UInt16] {
    var b = lw_bayer()
    b.pitch = w
    b.width = Int32(w)
    b.height = Int32(h)
    b.colour = (0, 1, 1, 2)
    b.black = (64, 64, 64, 64)
    b.scale = (1.0 / 4000, 1.0 / 2000, 1.0 / 2000, 1.0 / 1000)
    b.to_xyz = (0.4, 0.35, 0.2, 0.2, 0.7, 0.1, 0.02, 0.12, 0.95)   // AHD's homogeneity space; RCD and dual ignore it
    var out = [UInt16](repeating: 9, count: w * h * 4)
    raw.withUnsafeBufferPointer { r in
        b.raw = r.baseAddress
        out.withUnsafeMutableBufferPointer { o in kernel.demosaic(&b, into: o.baseAddress!, engine: EngineConfiguration(threads: threads)) }
    }
    return out
}

/// Demosaics a flat grey mosaic (R, G, G, B of one grey over black 64, balanced so every site gives 0.25) tile by
/// tile with `kernel` and asserts every pixel is that grey.
func assertFlatMosaicGivesOneColour(sizes: [(Int, Int)], kernel: BayerKernel, file: StaticString = #filePath, line: UInt = #line) {
    for (w, h) in sizes {
        let raw = (0..<(w * h)).map { i -> UInt16 in [1064, 564, 564, 314][((i / w) & 1) * 2 + ((i % w) & 1)] }
        let out = demosaicTestMosaic(raw, width: w, height: h, kernel: kernel)
        for i in 0..<(w * h) where Array(out[(4 * i)..<(4 * i + 4)]) != [16384, 16384, 16384, 0] {
            XCTFail("\(w)×\(h) pixel \(i): \(Array(out[(4 * i)..<(4 * i + 4)])) is not the flat grey", file: file, line: line)
            break
        }
    }
}
