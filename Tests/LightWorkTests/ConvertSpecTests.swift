import Foundation
import XCTest
@testable import LightWork

/// One conversion spec: it survives JSON, a worker started with it converts as this process does, a LUT whose
/// bytes changed after the spec was made is refused with a reason, verify renders through it, and the manifest
/// record derived from it is the one earlier releases wrote.
final class ConvertSpecTests: XCTestCase {
    /// A 9³ cube that swaps and darkens channels (visible in every output), written to `url`.
    private func writeCube(_ url: URL, gain: Float = 0.9) throws {
        try CubeLUTWriter.write(LUT3D(size: 9, title: "swap") { SIMD3($0.y, $0.z, $0.x) * gain }, to: url)
    }

    /// A spec with every section away from its defaults and a LUT identified by its bytes.
    private func fullSpec(lut: URL, output: URL) throws -> ConvertSpec {
        var spec = ConvertSpec(outputDirectory: output)
        spec.look = ConvertSpec.Look(recipeName: "spec test", filters: [
            "contrast": ResolvedSettings.FilterSetting(ui: 30, value: 0.3, useLeftRange: false),
            "vignette": ResolvedSettings.FilterSetting(ui: -25, value: -0.25, useLeftRange: true),
            "grain": ResolvedSettings.FilterSetting(ui: 20, value: 0.2, useLeftRange: false),
        ], lookup: try ConvertSpec.Lookup(film: nil, url: lut), strength: 60, interpolation: .trilinear)
        spec.decode = ConvertSpec.Decode(demosaic: .linear, colorModel: .dng, intent: .perceptual, maxPixels: 50_000_000)
        spec.export = ConvertSpec.Export(format: .png16, quality: 80, compression: .deflate, colorSpace: .displayP3,
                                         background: SIMD3(0.25, 0.5, 0.75), stripMetadata: true, resize: try ResizeSpec(.longEdge(200)))
        spec.output = ConvertSpec.Output(directory: output, name: try OutputNameTemplate("{film}_{stem}"), onExist: .suffix)
        return spec
    }

    func testSpecRoundTripsThroughJSON() throws {
        let (_, cube, _, spec) = try lutBatch(output: "out")
        XCTAssertEqual(spec.look.lookup?.sha256, try SHA256.hex(fileAt: cube))
        let line = try WorkerLine.encode(WorkerStart(spec: spec, limits: WorkerLimits(threads: 3, memoryLimit: 1 << 31)))
        XCTAssertEqual(line.filter { $0 == 0x0A }.count, 1, "one line, newline-terminated")
        let back = try WorkerLine.decode(WorkerStart.self, from: line.dropLast())
        XCTAssertEqual(back.spec, spec)
        XCTAssertEqual(back.limits.threads, 3)
        XCTAssertEqual(back.limits.memoryLimit, 1 << 31)
        XCTAssertEqual(back.spec.settings, spec.settings)
        for resize in [ResizeSpec.Mode.shortEdge(64), .scale(0.5)] {
            var other = spec
            other.export.resize = try ResizeSpec(resize)
            XCTAssertEqual(try JSONDecoder().decode(ConvertSpec.self, from: JSONEncoder().encode(other)), other)
        }
        // A resize that could not be made is refused when read, as when given.
        let bad = String(decoding: try JSONEncoder().encode(spec), as: UTF8.self).replacingOccurrences(of: "\"value\":200", with: "\"value\":0")
        XCTAssertThrowsError(try JSONDecoder().decode(ConvertSpec.self, from: Data(bad.utf8)))
        // The planner's naming comes from the spec.
        let rules = try PlanRules(spec: spec)
        XCTAssertEqual(rules.name.source, "{film}_{stem}")
        XCTAssertEqual(rules.onExist, .suffix)
        XCTAssertEqual(rules.outputExtension, "png")
        XCTAssertEqual(rules.filmName, "swap")
        XCTAssertEqual(rules.recipeName, "spec test")
    }

    /// The manifest record of the baseline's fifth option set (`--set contrast=35 --set grain=40 --set vignette=-30
    /// --set dust=50 --film 0001002 --strength 70 --format png`), as LightWork 0.2.0 wrote it before the spec existed:
    /// the same settings, hence the same digest, so outputs of earlier runs are still reused. (`--tone linear`: 0.2.0
    /// had no base tone; exports now default to `standard`, which is recorded and so changes the digest. `--demosaic
    /// ahd`: 0.2.0's default; the default is now `dual`, recorded likewise, so a run with defaults redoes old outputs.)
    func testManifestSettingsAreThoseEarlierRunsRecorded() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let out = dir.appendingPathComponent("out")
        let r = try CLIRunner.run(["convert", SampleSceneTests.samples.appendingPathComponent("scene-srgb.png").path, "-o", out.path,
                                   "--set", "contrast=35", "--set", "grain=40", "--set", "vignette=-30", "--set", "dust=50",
                                   "--film", "0001002", "--strength", "70", "--format", "png", "--tone", "linear", "--demosaic", "ahd", "-q"],
                                  environment: ["XDG_CONFIG_HOME": dir.appendingPathComponent("cfg").path])
        XCTAssertEqual(r.status, 0, r.stderr)
        let m = try Manifest.decode(Data(contentsOf: out.appendingPathComponent("manifest.json")))
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys]
        let recorded = #"{"background":"1.0000,1.0000,1.0000","bitDepth":8,"colorModel":"dng","colorSpace":"srgb","demosaic":"ahd","film":"0001002 Daylight Slide 100","filters":{"brightness":{"ui":0,"useLeftRange":false,"value":0},"clarity":{"ui":0,"useLeftRange":false,"value":0},"clarity2":{"ui":0,"useLeftRange":false,"value":0},"contrast":{"ui":35,"useLeftRange":false,"value":0.35},"dust":{"ui":50,"useLeftRange":false,"value":0.5},"dust.size":{"ui":0,"useLeftRange":false,"value":0.5},"fade":{"ui":0,"useLeftRange":false,"value":0},"grain":{"ui":40,"useLeftRange":false,"value":0.4},"grain.size":{"ui":0,"useLeftRange":false,"value":0.5},"postTint":{"ui":0,"useLeftRange":false,"value":0},"postWarmth":{"ui":0,"useLeftRange":false,"value":0},"saturation":{"ui":0,"useLeftRange":false,"value":0},"tint":{"ui":0,"useLeftRange":false,"value":0},"vignette":{"ui":-30,"useLeftRange":true,"value":-0.3},"vignette.feather":{"ui":0,"useLeftRange":false,"value":0.5},"vignette.size":{"ui":0,"useLeftRange":false,"value":0.5},"warmth":{"ui":0,"useLeftRange":false,"value":0}},"format":"png","intent":"relative","lutInterpolation":"tetrahedral","recipeName":"neutral","strength":70,"stripMetadata":false}"#
        XCTAssertEqual(String(decoding: try e.encode(m.settings), as: UTF8.self), recorded)
        XCTAssertEqual(Manifest.digest(settings: m.settings, toolVersion: "0.2.0"),
                       "a3c0e3b2f982d0b191d6e5ccbd58c78fc251317a1a7d82104cf749fe62d42d47", "the digest 0.2.0 recorded for these settings")
        XCTAssertEqual(m.settingsDigest, Manifest.digest(settings: m.settings, toolVersion: m.tool.version))
    }

    /// Inputs for the batch tests: two generated DNGs and the Samples sRGB PNG.
    private func inputs(_ dir: URL) throws -> [InputItem] {
        let input = dir.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        for i in 1...2 { try BatchFixture.makeDNG(input.appendingPathComponent("gen-\(i).dng"), seed: 40 + i) }
        try FileManager.default.copyItem(at: SampleSceneTests.samples.appendingPathComponent("scene-srgb.png"), to: input.appendingPathComponent("scene-srgb.png"))
        return InputWalker.items(for: [input.path])
    }

    private func run(_ items: [InputItem], converter: FileConverter, workers: Bool) -> Manifest {
        var config = BatchConfiguration()
        if workers {
            var launch = WorkerLaunch(executable: CLIRunner.binary.path, environment: ["OMP_NUM_THREADS": "1", "SWIFT_BACKTRACE": "enable=no"])
            launch.limits = WorkerLimits(threads: 1, memoryLimit: 4 << 30)
            config.isolation = .workers(launch)
            config.jobs = 2
        }
        let runner = BatchRunner(converter: converter, manifestURL: converter.outputDirectory.appendingPathComponent("manifest.json"), configuration: config)
        let jobs = items.map { PlannedJob(item: $0, action: .convert(output: converter.relativeOutputPath(for: $0))) }
        return runner.run(jobs, onEvent: { _ in }, onManifestError: { XCTFail("\($0)") })
    }

    /// A temporary folder with the batch inputs and a LUT, and the full spec using it.
    private func lutBatch(output: String) throws -> (dir: URL, cube: URL, items: [InputItem], spec: ConvertSpec) {
        let dir = try TestPaths.temporaryDirectory(self)
        let cube = dir.appendingPathComponent("swap.cube")
        try writeCube(cube)
        return (dir, cube, try inputs(dir), try fullSpec(lut: cube, output: dir.appendingPathComponent(output)))
    }

    func testWorkerStartedWithASpecConvertsAsThisProcessDoes() throws {
        let (dir, _, items, made) = try lutBatch(output: "here")
        var spec = made
        let here = run(items, converter: try FileConverter(spec: spec), workers: false)
        spec.output.directory = dir.appendingPathComponent("workers")
        let there = run(items, converter: try FileConverter(spec: spec), workers: true)
        XCTAssertEqual(here.entries.count, 3)
        XCTAssertEqual(here.settings, there.settings)
        XCTAssertEqual(here.settingsDigest, there.settingsDigest)
        for (a, b) in zip(here.entries, there.entries) {
            XCTAssertEqual(a.status, .converted, a.reason ?? "")
            XCTAssertEqual(b.status, .converted, b.reason ?? "")
            XCTAssertEqual(try XCTUnwrap(a.output?.sha256), b.output?.sha256, "\(a.input.relativePath): in-process and worker bytes")
            print("spec through a worker: \(a.input.relativePath) \(a.output?.width ?? 0)×\(a.output?.height ?? 0) sha256 \(a.output?.sha256.prefix(16) ?? "")… both")
        }
        // The look was applied: the neutral spec gives other bytes.
        let neutral = try FileConverter(spec: ConvertSpec(outputDirectory: dir.appendingPathComponent("neutral"))).convert(items[0])
        XCTAssertNotEqual(neutral.output?.sha256, here.entries[0].output?.sha256)
    }

    func testLUTChangedAfterTheSpecWasMadeFailsWithAReason() throws {
        let (_, cube, items, made) = try lutBatch(output: "out")
        var spec = made
        let expected = try XCTUnwrap(spec.look.lookup?.sha256)
        // Made before the change: the parent's converter holds the old table; its workers load the file again.
        let converter = try FileConverter(spec: spec)
        try writeCube(cube, gain: 0.8)
        let found = try SHA256.hex(fileAt: cube)
        XCTAssertNotEqual(found, expected)
        XCTAssertThrowsError(try FileConverter(spec: spec)) { error in
            XCTAssertEqual(error as? LightWorkError, .lookupChanged(file: cube.path, expected: expected, found: found))
        }
        let m = run(items, converter: converter, workers: true)
        XCTAssertEqual(m.entries.count, 3)
        for entry in m.entries {
            XCTAssertEqual(entry.status, .failed)
            XCTAssertEqual(entry.failureKind, .lookupChanged)
            XCTAssertEqual(entry.reason, LightWorkError.lookupChanged(file: cube.path, expected: expected, found: found).description)
            XCTAssertNil(entry.output)
        }
        print("changed LUT: \(m.entries.count) files failed: \(m.entries[0].reason ?? "")")
        let written = try FileManager.default.contentsOfDirectory(atPath: spec.output.directory.path).filter { $0 != "manifest.json" }
        XCTAssertEqual(written, [], "nothing rendered with other bytes")
        // A LUT that is gone is named as missing.
        try FileManager.default.removeItem(at: cube)
        XCTAssertThrowsError(try FileConverter(spec: spec)) { XCTAssertEqual($0 as? LightWorkError, .missingInput(cube.path)) }
        spec.look.lookup = nil
        XCTAssertNoThrow(try FileConverter(spec: spec))
    }

    /// `lightwork worker` parses no convert options; its work starts with a `WorkerStart` line, or not at all.
    func testWorkerTakesNoArgumentsAndWantsAStartLine() throws {
        let r = try CLIRunner.run(["worker", "-o", "/tmp/x", "--recipe", "r.json"])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("takes no arguments"), r.stderr)
        let p = Process()
        p.executableURL = CLIRunner.binary
        p.arguments = ["worker"]
        let input = Pipe(), output = Pipe(), errors = Pipe()
        (p.standardInput, p.standardOutput, p.standardError) = (input, output, errors)
        try p.run()
        // A job line where the start message belongs.
        let job = WorkerJob(index: 1, item: InputItem(url: URL(fileURLWithPath: "/tmp/a.dng"), displayPath: "a.dng", relativePath: "a.dng"),
                            output: "a.tif", previous: nil)
        input.fileHandleForWriting.write(try WorkerLine.encode(job))
        try input.fileHandleForWriting.close()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 2)
        XCTAssertEqual(output.fileHandleForReading.readDataToEndOfFile(), Data(), "no reply to a worker that was not started")
        XCTAssertTrue(String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).contains("not a start message"))
    }

    /// A verify case becomes the spec `convert` builds from the same settings, and renders the same bytes.
    func testVerifyRendersThroughTheSpecConvertBuilds() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let input = SampleSceneTests.samples.appendingPathComponent("scene.dng")
        var c = VerifyCase(name: "spec", input: input.path)
        c.set = ["contrast": 35, "grain": 40]
        c.film = "0001002"
        c.strength = 70
        c.format = .png16
        c.longEdge = 300
        let renderer = try CaseRenderer(suiteDirectory: dir)
        let spec = try renderer.spec(for: c, outputDirectory: dir.appendingPathComponent("verify"))
        let lookup = try XCTUnwrap(spec.look.lookup)
        XCTAssertEqual(lookup.film?.lookupId, "0001002")
        XCTAssertEqual(lookup.sha256, try SHA256.hex(fileAt: URL(fileURLWithPath: lookup.path)))
        XCTAssertEqual(spec.look.filters["contrast"]?.value, 0.35)
        XCTAssertEqual(spec.look.strength, 70)
        XCTAssertEqual(spec.export.format, .png16)
        XCTAssertEqual(spec.export.resize, try ResizeSpec(.longEdge(300)))
        let rendered = try renderer.render(c, spec: spec)

        let out = dir.appendingPathComponent("convert")
        let r = try CLIRunner.run(["convert", input.path, "-o", out.path, "--set", "contrast=35", "--set", "grain=40", "--film", "0001002",
                                   "--strength", "70", "--format", "png16", "--long-edge", "300", "--tone", "linear", "-q"],
                                  environment: ["XDG_CONFIG_HOME": dir.appendingPathComponent("cfg").path])
        XCTAssertEqual(r.status, 0, r.stderr)
        let m = try Manifest.decode(Data(contentsOf: out.appendingPathComponent("manifest.json")))
        XCTAssertEqual(m.settings, spec.settings, "verify's spec records what convert's does")
        XCTAssertEqual(m.entries.first?.output?.sha256, try SHA256.hex(fileAt: rendered), "verify renders convert's bytes")
    }
}
