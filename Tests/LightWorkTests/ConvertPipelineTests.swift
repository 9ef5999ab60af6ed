import CLCMS2
import CShims
import Foundation
import XCTest
@testable import LightWork

/// Every shared RAW and every output format through FileConverter, read back with ImageFileReader.
final class ConvertPipelineTests: XCTestCase {
    func testEverySharedRawConvertsToEveryFormatWithTheRightProfile() throws {
        let raws = try TestPaths.sharedFiles("raw") + [SampleSceneTests.samples.appendingPathComponent("scene.dng")]
        for format in OutputFormat.allCases {
            let dir = try TestPaths.temporaryDirectory(self)
            var spec = ConvertSpec(outputDirectory: dir)
            spec.export.format = format
            spec.export.colorSpace = format == .png16 ? .adobeRGB : .srgb
            spec.decode.demosaic = .linear
            let converter = try FileConverter(spec: spec)
            for url in raws {
                let item = InputItem(url: url, displayPath: url.path, relativePath: url.lastPathComponent)
                let entry = converter.convert(item)
                XCTAssertEqual(entry.status, .converted, "\(url.lastPathComponent) → \(format): \(entry.reason ?? "")")
                guard let out = entry.output else { continue }
                let file = try ImageFileReader.read(dir.appendingPathComponent(out.path))
                XCTAssertEqual(file.bitDepth, format.bitDepth, "\(format)")
                XCTAssertEqual(file.channels, 3)
                XCTAssertEqual(file.width, entry.input.width)
                XCTAssertEqual(file.height, entry.input.height)
                let expected = ICCProfile.embedded(for: spec.export.colorSpace)
                if format.codecName == "jxl", file.iccProfile != expected {
                    // Lossy JPEG XL stores a profile it recognises as its own colour encoding; libjxl reads it back as
                    // a profile of its own making, which must describe the same colours.
                    let back = try XCTUnwrap(file.iccProfile.flatMap(ICCProfile.init(data:)), "\(format) has a profile")
                    let difference = try Self.largestDifference(back, try XCTUnwrap(ICCProfile(data: expected)))
                    print("\(format): libjxl's profile against the embedded one: largest difference \(difference) (of 1)")
                    // Measured 0.0011 (libjxl 0.7's sRGB against LightWork's); lossy anyway.
                    XCTAssertLessThan(difference, 1.0 / 256, "\(format)'s colour encoding is the \(spec.export.colorSpace) profile's")
                } else {
                    XCTAssertEqual(file.iccProfile, expected, "\(format) embeds the \(spec.export.colorSpace) profile")
                }
                XCTAssertEqual(out.sha256, try SHA256.hex(fileAt: dir.appendingPathComponent(out.path)))
                XCTAssertEqual(entry.input.sha256, try SHA256.hex(fileAt: url))
                XCTAssertEqual(entry.input.kind, "raw")
            }
            // No temporary file is left behind.
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains(".lwtmp") }
            XCTAssertEqual(leftovers, [])
        }
    }

    /// Output bytes do not depend on the number of engine threads, nor on the run.
    func testOutputIsByteIdenticalForOneAndManyThreads() throws {
        let url = SampleSceneTests.samples.appendingPathComponent("scene.dng")
        var digests: [String] = []
        for threads in [1, 4, 4] {
            let dir = try TestPaths.temporaryDirectory(self)
            let entry = try FileConverter(spec: ConvertSpec(outputDirectory: dir), engine: EngineConfiguration(threads: threads)).convert(InputItem(url: url, displayPath: "scene.dng", relativePath: "scene.dng"))
            digests.append(try XCTUnwrap(entry.output?.sha256))
        }
        XCTAssertEqual(Set(digests).count, 1, "\(digests)")
    }

    /// A DNG whose image strips are zeroed decodes to black in LibRaw: LightWork refuses it.
    func testDNGWithStrippedImageDataFails() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let stripped = try BadInputs.strippedDNG(in: dir)
        let entry = try FileConverter(spec: ConvertSpec(outputDirectory: dir)).convert(InputItem(url: stripped, displayPath: stripped.path, relativePath: "stripped.dng"))
        XCTAssertEqual(entry.status, .failed)
        XCTAssertEqual(entry.reason?.hasPrefix("image has no picture data"), true, entry.reason ?? "")
    }

    /// The largest channel difference (0…1) between converting a 9×9×9 grid of RGB values from `a` and from `b` into
    /// `b`'s space, by LittleCMS in floating point: how far apart two profiles say the same colours are.
    static func largestDifference(_ a: ICCProfile, _ b: ICCProfile) throws -> Double {
        let format = LW_TYPE_RGB_DBL
        guard let t = cmsCreateTransform(a.handle, format, b.handle, format, UInt32(INTENT_RELATIVE_COLORIMETRIC), UInt32(cmsFLAGS_NOOPTIMIZE)) else {
            throw LightWorkError.colour("LittleCMS cannot convert between the two profiles")
        }
        defer { cmsDeleteTransform(t) }
        var grid: [Double] = []
        for r in 0...8 { for g in 0...8 { for b in 0...8 { grid += [Double(r) / 8, Double(g) / 8, Double(b) / 8] } } }
        var out = [Double](repeating: 0, count: grid.count)
        cmsDoTransform(t, grid, &out, UInt32(grid.count / 3))
        return zip(grid, out).map { abs($0 - $1) }.max() ?? 0
    }
}
