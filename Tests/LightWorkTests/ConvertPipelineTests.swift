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
                XCTAssertEqual(file.iccProfile, ICCProfile.embedded(for: spec.export.colorSpace), "\(format) embeds the \(spec.export.colorSpace) profile")
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
}
