import Foundation
import XCTest
@testable import LightWork

/// The Samples recipes do what their descriptions say.
final class SampleRecipeTests: XCTestCase {
    static let folder = TestPaths.repoRoot.appendingPathComponent("Samples/recipes")

    /// Corner over centre of a flat mid-grey frame (8-bit sRGB, each recipe's chain with grain and dust off so
    /// only tones count), for the recipe as written and with its vignette at 0.
    func cornerToCentre(_ recipe: Recipe, ranges: FilterRanges) throws -> Double {
        let setup = try LookSetup(recipe: recipe, ranges: ranges, catalog: try FilmCatalog.bundled(profiles: TestPaths.repoRoot.appendingPathComponent("Profiles")),
                                  entitlements: Entitlements(url: try TestPaths.temporaryDirectory(self).appendingPathComponent("entitlements.json")))
        let w = 300, h = 200
        let image = WorkingImage(width: w, height: h, space: .rawLinear)
        for y in 0..<h { for x in 0..<w { image.setPixel(x: x, y: y, SIMD4(0.18, 0.18, 0.18, 1)) } }
        let pixels = Renderer(chain: setup.chain, engine: EngineConfiguration(threads: 2))
            .render(image, context: RenderContext(width: w, height: h, seed: 1), output: OutputSpec(space: .srgb, depth: .eight, keepAlpha: false))
        func mean(_ xs: Range<Int>, _ ys: Range<Int>) -> Double {
            var sum = 0.0
            for y in ys { for x in xs { for c in 0..<3 { sum += Double(pixels.samples8[(y * w + x) * pixels.channels + c]) } } }
            return sum / Double(xs.count * ys.count * 3)
        }
        let b = 12
        let corners = (mean(0..<b, 0..<b) + mean((w - b)..<w, 0..<b) + mean(0..<b, (h - b)..<h) + mean((w - b)..<w, (h - b)..<h)) / 4
        let centre = mean((w / 2 - b)..<(w / 2 + b), (h / 2 - b)..<(h / 2 + b))
        return corners / centre
    }

    /// "darker corners" (harbour-evening) and "a soft vignette" (silver-grain) darken the corners: the vignette
    /// filter darkens for + (−2 EV at +1, as documented and as Core Image's vignette the original app ran on), so
    /// the recipes' sliders are positive. The recipes' old −35 and −20 lightened them (this test failed then).
    func testRecipesThatPromiseDarkerCornersDarkenThem() throws {
        let ranges = FilterRanges.standard
        for name in ["harbour-evening.json", "silver-grain.json"] {
            let recipe = try Recipe.load(from: Self.folder.appendingPathComponent(name), ranges: ranges).applying(sets: ["grain=0", "dust=0"], ranges: ranges)
            let description = try XCTUnwrap(recipe.description)
            XCTAssertTrue(description.contains("darker corners") || description.contains("vignette"), description)
            let with = try cornerToCentre(recipe, ranges: ranges)
            let without = try cornerToCentre(recipe.applying(sets: ["vignette=0"], ranges: ranges), ranges: ranges)
            print(String(format: "recipe %@: corner/centre %.3f with its vignette, %.3f without (ratio %.3f)", name, with, without, with / without))
            XCTAssertLessThan(with / without, 0.92, "\(name) promises darker corners")
        }
    }

    /// The develop sections the Samples recipes show parse to modules that exist, and their descriptions name them.
    func testRecipesShowTheDevelopModules() throws {
        let ranges = FilterRanges.standard
        let harbour = try Recipe.load(from: Self.folder.appendingPathComponent("harbour-evening.json"), ranges: ranges)
        XCTAssertEqual(harbour.develop[Tone.self], .filmic)
        let silver = try Recipe.load(from: Self.folder.appendingPathComponent("silver-grain.json"), ranges: ranges)
        XCTAssertEqual(silver.develop[Tone.self], .standard)
        XCTAssertEqual(silver.develop.text("exposure"), "+0.30")
        XCTAssertEqual(Set(try XCTUnwrap(harbour.develop.record).keys).union(try XCTUnwrap(silver.develop.record).keys), ["tone", "exposure"])
    }
}
