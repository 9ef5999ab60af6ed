import Foundation
import XCTest
@testable import LightWork

/// The mutation campaign end to end: a few hundred damaged copies of real files (bit flips, truncations,
/// duplicated chunks and segments, huge declared sizes; `lightwork-tools mutate-samples`) converted in one
/// batch by the real binary with a per-file time limit and a per-worker memory limit. Every input must end
/// `converted` (its output a valid image) or `failed` in the manifest; the batch process itself must never
/// crash or hang, and no output may be lost, duplicated or left half-written.
///
/// `LIGHTWORK_HOSTILE_COUNT=3000` runs a larger campaign (the default keeps CI to about a minute).
final class HostileFilesTests: XCTestCase {
    func testMutatedSamplesEndConvertedOrFailedAndTheBatchNeverCrashes() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let sources = dir.appendingPathComponent("sources")
        try FileManager.default.createDirectory(at: sources, withIntermediateDirectories: true)
        let fm = FileManager.default
        // Real files: the committed DNG scene and its sRGB PNG, a JPEG LightWork wrote (EXIF and ICC
        // inside), a small DNG, and the shared camera samples that are small enough to decode quickly.
        try fm.copyItem(at: SampleSceneTests.samples.appendingPathComponent("scene.dng"), to: sources.appendingPathComponent("scene.dng"))
        try fm.copyItem(at: SampleSceneTests.samples.appendingPathComponent("scene-srgb.png"), to: sources.appendingPathComponent("scene-srgb.png"))
        try BatchFixture.makeDNG(sources.appendingPathComponent("small.dng"), seed: 3, width: 320, height: 240)
        let jpegDir = dir.appendingPathComponent("jpeg")
        let made = try CLIRunner.run(["convert", SampleSceneTests.samples.appendingPathComponent("scene-srgb.png").path, "-o", jpegDir.path,
                                      "--format", "jpeg", "--long-edge", "480", "--no-isolation"])
        XCTAssertEqual(made.status, 0, made.stderr)
        try fm.copyItem(at: jpegDir.appendingPathComponent("scene-srgb.jpg"), to: sources.appendingPathComponent("scene.jpg"))
        if let raw = try? TestPaths.sharedSamples("raw"), let rgb = try? TestPaths.sharedSamples("rgb") {
            for (folder, name) in [(raw, "kodak-dc50.kdc"), (raw, "lg-g4-h815-lossy-linear.dng"), (rgb, "iccp-srgb.png"),
                                   (rgb, "progressive-big-icc.jpg"), (rgb, "cmyk-swop-profile.jpg"), (rgb, "gray-gamma22-concert.jpg"),
                                   (rgb, "rgb16-flag-gama-chrm.png")] {
                try fm.copyItem(at: folder.appendingPathComponent(name), to: sources.appendingPathComponent(name))
            }
        }
        let sourceFiles = try fm.contentsOfDirectory(atPath: sources.path).sorted().map { sources.appendingPathComponent($0).path }

        let count = ProcessInfo.processInfo.environment["LIGHTWORK_HOSTILE_COUNT"].flatMap(Int.init) ?? 300
        let input = dir.appendingPathComponent("hostile")
        let tools = CLIRunner.binary.deletingLastPathComponent().appendingPathComponent("lightwork-tools")
        let mutate = Process()
        mutate.executableURL = tools
        mutate.arguments = ["mutate-samples", "-o", input.path, "--seed", "9", "--count", String(count)] + sourceFiles
        mutate.standardError = FileHandle.nullDevice
        try mutate.run()
        mutate.waitUntilExit()
        XCTAssertEqual(mutate.terminationStatus, 0, "mutate-samples")
        let inputs = BatchFixture.inputCount(input)
        XCTAssertEqual(inputs, count, "every mutant is an input the batch walks")

        let inputsBefore = try BatchFixture.outputDigests(under: input)

        // The default decode path (LightWork's own AHD on Bayer data, LibRaw for the rest), so damaged data reaches
        // the demosaic users get; small outputs keep the campaign about the decoders, and the limits are the point.
        let out = dir.appendingPathComponent("out")
        let started = Date()
        let run = try CLIRunner.Background(["convert", input.path, "-o", out.path, "--format", "jpeg", "--long-edge", "96",
                                            "--jobs", "2", "--timeout", "15", "--worker-memory", "2G"],
                                           environment: ["SWIFT_BACKTRACE": "enable=no"], logs: dir)
        let result = run.finish(within: 900)
        let seconds = Date().timeIntervalSince(started)
        let batchCrashed = result.status >= 128 ? 1 : 0
        XCTAssertTrue(result.status == 0 || result.status == 1, "the batch process itself must end normally, got \(result.status)")

        let m = try BatchFixture.manifest(out.appendingPathComponent("manifest.json"))
        XCTAssertNotNil(m.finishedAt, "the run finished")
        XCTAssertEqual(m.entries.count, inputs, "every input has an entry")
        XCTAssertEqual(Set(m.entries.map(\.input.relativePath)).count, inputs, "no input twice")
        let converted = m.entries.filter { $0.status == .converted }
        let failed = m.entries.filter { $0.status == .failed }
        XCTAssertEqual(converted.count + failed.count, inputs, "each input converted or failed")
        for e in failed { XCTAssertFalse((e.reason ?? "").isEmpty, "\(e.input.relativePath): a failure says why") }
        try BatchFixture.assertOutputsValid(m, in: out)
        let outputs = try BatchFixture.outputDigests(under: out)
        let recorded = Set(converted.compactMap { $0.output?.path })
        let lost = converted.filter { $0.output.map { outputs[$0.path] == nil } ?? true }.count
        let duplicated = outputs.count - recorded.intersection(outputs.keys).count + (converted.count - recorded.count)
        XCTAssertEqual(lost, 0, "outputs lost")
        XCTAssertEqual(duplicated, 0, "outputs not recorded or shared")
        XCTAssertEqual(BatchFixture.temporaries(under: out), [])
        XCTAssertEqual(try BatchFixture.outputDigests(under: input), inputsBefore, "inputs are never modified")

        // Why files failed, by kind of reason (the first words), for the log.
        var kinds: [String: Int] = [:]
        for e in failed {
            let reason = e.reason ?? ""
            let key = e.failureKind == .workerCrashed ? (reason.components(separatedBy: "(").first ?? reason)
                : reason.split(separator: ":").prefix(2).joined(separator: ":")
            kinds[String(key.prefix(70)), default: 0] += 1
        }
        print(String(format: "hostile files: %d inputs tried from %d source files, %d converted, %d failed, batch process crashes %d, outputs lost %d, duplicated %d (%.0f s)",
                     inputs, sourceFiles.count, converted.count, failed.count, batchCrashed, lost, duplicated, seconds))
        for (k, n) in kinds.sorted(by: { $0.value > $1.value }).prefix(12) { print("  \(n)× \(k)") }
        XCTAssertEqual(batchCrashed, 0)
        // A worker killed by SIGILL or SIGTRAP is a Swift trap in LightWork's own code on damaged data (a null
        // loader name did this once): crash isolation saves the batch, but the decoder must refuse, not trap.
        let trapped = failed.filter { ($0.reason ?? "").contains("signal 4 ") || ($0.reason ?? "").contains("signal 5 ") }
        XCTAssertEqual(trapped.map(\.input.relativePath), [], "workers trapped in LightWork's code")
    }
}
