import Foundation
import XCTest
@testable import LightWork

/// A recipe means the same thing at any resolution: the scene at 24 MP, downscaled to 6 MP before the chain,
/// looks like the same scene generated at 6 MP through the same recipe (grain excluded: it is texture).
final class ResolutionIndependenceTests: XCTestCase {
    /// Runs `lightwork-tools` (built beside the tests) to generate a scene DNG.
    func generate(_ args: [String]) throws {
        let tools = CLIRunner.binary.deletingLastPathComponent().appendingPathComponent("lightwork-tools")
        let p = Process()
        p.executableURL = tools
        p.arguments = args
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0, "lightwork-tools \(args.joined(separator: " "))")
    }

    func testRecipeOnDownscaled24MPMatchesRecipeOn6MP() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let big = dir.appendingPathComponent("big.dng"), small = dir.appendingPathComponent("small.dng")
        try generate(["make-bench-dng", "-o", big.path, "--width", "6000", "--height", "4000", "--seed", "3"])
        try generate(["make-sample-dng", "-o", small.path, "--width", "3000", "--height", "2000", "--seed", "3",
                      "--truth", dir.appendingPathComponent("small.json").path])
        let truth = try JSONDecoder().decode(SampleSceneTests.Truth.self, from: Data(contentsOf: dir.appendingPathComponent("small.json")))

        let profiles = TestPaths.repoRoot.appendingPathComponent("Profiles")
        let ranges = FilterRanges.standard
        var recipe = try Recipe.load(from: SampleSceneTests.samples.appendingPathComponent("recipes/harbour-evening.json"), ranges: ranges)
        recipe = try recipe.applying(sets: ["clarity2=40", "dust=0", "grain=0"], ranges: ranges)
        let setup = try LookSetup(recipe: recipe, ranges: ranges, catalog: try FilmCatalog.bundled(profiles: profiles),
                                  entitlements: Entitlements(url: dir.appendingPathComponent("entitlements.json")))
        func render(_ url: URL, resize: ResizeSpec?) throws -> URL {
            let out = dir.appendingPathComponent(url.deletingPathExtension().lastPathComponent)
            var spec = ConvertSpec(look: setup.look, output: ConvertSpec.Output(directory: out))
            spec.decode.demosaic = .linear
            spec.export.resize = resize
            let item = InputItem(url: url, displayPath: url.path, relativePath: url.lastPathComponent)
            let converter = try FileConverter(spec: spec)
            let entry = converter.convert(item)
            XCTAssertEqual(entry.status, .converted, entry.reason ?? "")
            return out.appendingPathComponent(converter.relativeOutputPath(for: item))
        }
        let downscaled = try render(big, resize: try ResizeSpec(.longEdge(3000)))
        let native = try render(small, resize: nil)
        let de = try PathParityTests.meanDeltaE(downscaled, native, excluding: truth.detailArea, step: 5)
        XCTAssertLessThanOrEqual(de, 2.0, "24 MP downscaled vs 6 MP, same recipe: mean ΔE00 \(de)")
    }
}
