import Foundation
import XCTest
@testable import LightWork

/// The develop stage's frame: settings typed and declared once, off at zero cost, recorded in the manifest.
final class DevelopStageTests: XCTestCase {
    /// Every module's default text parses back to itself, and names and flags are unique.
    func testModulesDeclareUniqueNamesAndRoundTripTheirText() throws {
        XCTAssertEqual(Set(DevelopStage.names).count, DevelopStage.modules.count)
        XCTAssertEqual(Set(DevelopStage.modules.map { $0.descriptor.flag }).count, DevelopStage.modules.count)
        var settings = DevelopSettings()
        for name in DevelopStage.names {
            let text = try XCTUnwrap(settings.text(name))
            try settings.set(name, text: text)
            XCTAssertEqual(settings.text(name), text, name)
        }
    }

    /// With every module off the image is not touched, and the settings record (hence the digest) is the old one.
    func testEverythingOffChangesNothingAndRecordsNothing() throws {
        let image = WorkingImage(width: 4, height: 3, space: .rawLinear)
        var context = DevelopContext(kind: .raw, metadata: ImageMetadata(), engine: EngineConfiguration(threads: 2))
        XCTAssertNil(try DevelopStage.run(.scene, settings: DevelopSettings(), image: image, context: &context))
        let dir = URL(fileURLWithPath: "/tmp/out")
        XCTAssertNil(ConvertSpec(outputDirectory: dir).settings.develop)
        XCTAssertEqual(ConvertSpec(outputDirectory: dir).settingsDigest(toolVersion: "x"),
                       ConvertSpec(develop: DevelopSettings(), output: ConvertSpec.Output(directory: dir)).settingsDigest(toolVersion: "x"))
    }

    /// A placement of per-pixel modules only (tone, a fixed exposure) runs on the half-float rows without float
    /// planes, and gives the planar path's bits: on linear RAW data and on an sRGB-encoded image with alpha, with
    /// values past white and below black, at 1 and 3 threads. `exposure auto` needs the whole image: planes.
    func testPerPixelModulesOnRowsGiveThePlanarPathsBits() throws {
        var settings = DevelopSettings()
        try settings.set("exposure", text: "+0.7")
        try settings.set("tone", text: "filmic")
        for (space, alpha) in [(WorkingSpace.rawLinear, false), (.deviceRGB, true)] {
            let image = WorkingImage(width: 97, height: 53, space: space, hasAlpha: alpha)
            var seed: UInt64 = 7
            func next() -> Float { seed = seed &* 6364136223846793005 &+ 1442695040888963407; return Float(seed >> 40) / Float(1 << 24) }
            for y in 0..<53 { for x in 0..<97 { image.setPixel(x: x, y: y, SIMD4(3 * next() - 0.2, next(), 1.5 * next(), next())) } }
            for threads in [1, 3] {
                let engine = EngineConfiguration(threads: threads)
                var rows = DevelopContext(kind: .raw, metadata: ImageMetadata(), engine: engine)
                let fast = try XCTUnwrap(try DevelopStage.run(.scene, settings: settings, image: image, context: &rows))
                var planar = DevelopContext(kind: .raw, metadata: ImageMetadata(), engine: engine)
                var planes = PlanarImage(image, engine: engine)
                planes = try Exposure.apply(.ev(0.7), to: planes, context: &planar)
                planes = try Tone.apply(.filmic, to: planes, context: &planar)
                let reference = planes.workingImage(space: space, engine: engine)
                XCTAssertEqual(fast.hasAlpha, alpha)
                XCTAssertTrue(memcmp(fast.storage, reference.storage, 8 * 97 * 53) == 0, "\(space) at \(threads) threads")
                XCTAssertEqual(rows.decisions, planar.decisions)
                XCTAssertEqual(rows.decisions["tone"], "filmic")
                // Overwriting: the same bits, in the image given up.
                let copy = image.copy()
                var again = DevelopContext(kind: .raw, metadata: ImageMetadata(), engine: engine)
                let inPlace = try XCTUnwrap(try DevelopStage.run([.scene], settings: settings, image: copy, overwriting: true, context: &again))
                XCTAssertTrue(inPlace === copy)
                XCTAssertTrue(memcmp(copy.storage, reference.storage, 8 * 97 * 53) == 0, "in place, \(space) at \(threads) threads")
            }
        }
        // auto: the planar path, with its decision.
        try settings.set("exposure", text: "auto")
        let grey = WorkingImage(width: 32, height: 32, space: .rawLinear)
        for y in 0..<32 { for x in 0..<32 { grey.setPixel(x: x, y: y, SIMD4(0.09, 0.09, 0.09, 1)) } }
        var context = DevelopContext(kind: .raw, metadata: ImageMetadata(), engine: EngineConfiguration(threads: 2))
        _ = try XCTUnwrap(try DevelopStage.run(.scene, settings: settings, image: grey, context: &context))
        XCTAssertEqual(context.decisions["exposure"]?.hasPrefix("auto: +1.0"), true, context.decisions["exposure"] ?? "none")
    }

    /// `--exposure +1` doubles linear values (RAW) and works in linear light on an sRGB-encoded image too.
    func testExposureIsAGainInLinearLight() throws {
        var settings = DevelopSettings()
        try settings.set("exposure", text: "+1")
        XCTAssertEqual(settings.text("exposure"), "+1.00")
        XCTAssertEqual(settings.record, ["exposure": "+1.00"])
        let engine = EngineConfiguration(threads: 2)
        let raw = WorkingImage(width: 5, height: 2, space: .rawLinear)
        raw.setPixel(x: 3, y: 1, SIMD4(0.1, 0.2, 0.3, 1))
        var context = DevelopContext(kind: .raw, metadata: ImageMetadata(), engine: engine)
        let out = try XCTUnwrap(try DevelopStage.run(.scene, settings: settings, image: raw, context: &context))
        let p = out.pixel(x: 3, y: 1)
        XCTAssertEqual(p.x, 0.2, accuracy: 2e-4); XCTAssertEqual(p.y, 0.4, accuracy: 4e-4); XCTAssertEqual(p.z, 0.6, accuracy: 6e-4)
        XCTAssertEqual(p.w, 1)
        XCTAssertEqual(context.decisions["exposure"], "+1.00 EV")

        let rgb = WorkingImage(width: 2, height: 2, space: .deviceRGB)
        let encoded = Float(TransferFunction.sRGB.encode(0.2))
        rgb.setPixel(x: 0, y: 0, SIMD4(encoded, encoded, encoded, 1))
        var rgbContext = DevelopContext(kind: .rgb, metadata: ImageMetadata(), engine: engine)
        let brighter = try XCTUnwrap(try DevelopStage.run(.scene, settings: settings, image: rgb, context: &rgbContext))
        XCTAssertEqual(brighter.space, .deviceRGB)
        XCTAssertEqual(Double(brighter.pixel(x: 0, y: 0).x), TransferFunction.sRGB.encode(0.4), accuracy: 1e-3)
    }

    /// A recipe's `develop` section is parsed by the modules; mistakes name their JSON path; it survives a save.
    func testRecipeDevelopSectionParsesAndRoundTrips() throws {
        let json = #"{"version": 1, "name": "d", "develop": {"exposure": 0.5}}"#
        let recipe = try Recipe.parse(Data(json.utf8), file: "d.json", ranges: .standard)
        XCTAssertEqual(recipe.develop.text("exposure"), "+0.50")
        let again = try Recipe.parse(try recipe.jsonData(), file: "again.json", ranges: .standard)
        XCTAssertEqual(again.develop, recipe.develop)
        let resolved = try recipe.resolve(ranges: .standard)
        XCTAssertEqual(resolved.develop.text("exposure"), "+0.50")

        let unknown = #"{"version": 1, "develop": {"sparkle": "on"}}"#
        XCTAssertThrowsError(try Recipe.parse(Data(unknown.utf8), file: "u.json", ranges: .standard)) { error in
            XCTAssertTrue("\(error)".contains("$.develop.sparkle"), "\(error)")
        }
        let bad = #"{"version": 1, "develop": {"exposure": "bright"}}"#
        XCTAssertThrowsError(try Recipe.parse(Data(bad.utf8), file: "b.json", ranges: .standard)) { error in
            XCTAssertTrue("\(error)".contains("$.develop.exposure"), "\(error)")
        }
    }

    /// The spec carries develop settings to workers intact.
    func testSpecRoundTripsDevelopSettings() throws {
        var spec = ConvertSpec(outputDirectory: URL(fileURLWithPath: "/tmp/o"))
        try spec.develop.set("exposure", text: "-0.7")
        let back = try JSONDecoder().decode(ConvertSpec.self, from: JSONEncoder().encode(spec))
        XCTAssertEqual(back, spec)
        XCTAssertEqual(back.develop.text("exposure"), "-0.70")
    }

    /// Through the converter: the output is brighter by the gain and the manifest says what was done.
    func testConverterAppliesAndRecordsExposure() throws {
        let url = SampleSceneTests.samples.appendingPathComponent("scene.dng")
        let item = InputItem(url: url, displayPath: "scene.dng", relativePath: "scene.dng")
        var greens: [[Double]] = []
        for ev in ["0", "+1"] {
            let dir = try TestPaths.temporaryDirectory(self)
            var spec = ConvertSpec(outputDirectory: dir)
            try spec.develop.set("exposure", text: ev)
            let entry = try FileConverter(spec: spec).convert(item)
            XCTAssertEqual(entry.status, .converted, entry.reason ?? "")
            XCTAssertEqual(entry.input.decisions?["exposure"], ev == "0" ? nil : "+1.00 EV")
            let file = try ImageFileReader.read(dir.appendingPathComponent(try XCTUnwrap(entry.output?.path)))
            greens.append(stride(from: 1, to: file.samples.count, by: 3).map { TransferFunction.sRGB.decode(Double(file.samples[$0]) / 65535) })
        }
        // Linear green of the pixels well inside the range both times: doubled.
        var before = 0.0, after = 0.0
        for (a, b) in zip(greens[0], greens[1]) where a > 0.02 && a < 0.3 { before += a; after += b }
        print("develop exposure +1: linear green ratio \(after / before) (expected 2)")
        XCTAssertEqual(after / before, 2, accuracy: 0.02)
    }
}
