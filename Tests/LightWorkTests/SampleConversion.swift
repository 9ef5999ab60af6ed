import Foundation
import XCTest
@testable import LightWork

extension XCTestCase {
    /// Converts Samples/`sample` into a fresh temporary folder, with the default options as `adjust` leaves them;
    /// asserts that it converted and returns the output's URL.
    func convertSample(_ sample: String, _ adjust: (inout ConvertSpec) throws -> Void = { _ in }) throws -> URL {
        let dir = try TestPaths.temporaryDirectory(self)
        var spec = ConvertSpec(outputDirectory: dir)
        try adjust(&spec)
        let item = InputItem(url: SampleSceneTests.samples.appendingPathComponent(sample), displayPath: sample, relativePath: sample)
        let converter = try FileConverter(spec: spec)
        let entry = converter.convert(item)
        XCTAssertEqual(entry.status, .converted, entry.reason ?? "")
        return spec.output.directory.appendingPathComponent(converter.relativeOutputPath(for: item))
    }
}
