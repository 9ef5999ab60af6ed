import Foundation
import LightWork

/// Times each develop module on a 24 MP linear ProPhoto image (float planes, as the stage hands them over), and
/// the whole stage with every module on (half floats in → planes → every module → half floats out, the way
/// `FileConverter` runs it without a resize: the output placement in the same session).
public enum DevelopBenchmark {
    /// A typical setting per module, by descriptor name: what `make bench` times. A module missing here fails the
    /// benchmark (so a new module cannot go unmeasured).
    public static let typical: [String: String] = [
        // Decode-placement modules work inside the RAW decode (their cost is in the decode lines of make bench).
        "whiteBalance": "camera",
        "highlights": "clip",
        "denoise": "auto",
        // The image claims the lens below: `auto` corrects distortion, TCA (in camera RGB) and vignetting.
        "lens": "auto",
        "sharpen": "1",
        "rotate": "2",
        "crop": "0.05,0.05,0.9,0.9",
        "aspect": "3:2",
        "exposure": "+0.5",
        "tone": "standard",
        "outputSharpen": "0.5",
    ]

    public static func run(width: Int, height: Int, repeats: Int = 3, engine: EngineConfiguration) throws -> String {
        let mp = Double(width * height) / 1e6
        let scale = 24 / mp
        let source = ChainBenchmark.syntheticImage(width: width, height: height, space: .rawLinear)
        // A lens lensfun profiles, on a camera it knows, and a camera matrix as the DNG colour model reports one.
        var metadata = ImageMetadata()
        metadata.make = "Canon"; metadata.model = "Canon EOS 5D Mark II"; metadata.lens = "Canon EF 20mm f/2.8 USM"
        metadata.focalLength = 20; metadata.fNumber = 2.8
        let details = ["cameraToWorking": "0.9 0.1 0.0; 0.1 0.8 0.1; 0.0 0.1 0.9"]
        _ = try LensDatabase.shared.loaded()
        var lines = ["develop modules on \(width)×\(height) linear ProPhoto, \(engine.threads) threads (seconds per 24 MP, wall; best of \(repeats))"]
        var all = DevelopSettings()
        for module in DevelopStage.modules {
            let name = module.descriptor.name
            guard let text = typical[name] else {
                throw LightWorkError.usage("DevelopBenchmark.typical has no setting for the module \"\(name)\": add one")
            }
            var one = DevelopSettings()
            try one.set(name, text: text)
            try all.set(name, text: text)
            // The module alone on float planes (a fresh copy each run: modules work in place).
            let time = try fastest(repeats) {
                let planes = PlanarImage(source, engine: engine)
                var context = DevelopContext(kind: .raw, metadata: metadata, details: details, engine: engine)
                let t = try timed { for m in DevelopStage.modules { _ = try m.benchmarkRun(one, on: planes, context: &context) } }
                if name == "lens", context.decisions["lens"]?.contains("distortion, TCA, vignetting") != true {
                    throw LightWorkError.usage("develop benchmark: lens auto did not correct (\(context.decisions["lens"] ?? "no decision"))")
                }
                return t
            }
            let where_ = module.descriptor.placement == .decode ? " (decode placement: its work is inside the RAW decode)" : ""
            let label = "\(name) \(text)".padding(toLength: 28, withPad: " ", startingAt: 0)
            lines.append("  " + label + String(format: "%6.3f s per 24 MP  (%.3f s cpu)", time.wall * scale, time.cpu * scale) + where_)
        }
        let stage = try fastest(repeats) {
            var context = DevelopContext(kind: .raw, metadata: metadata, details: details, engine: engine)
            return try timed {
                // As FileConverter runs it when no resize is asked: both placements on one conversion each way.
                _ = try DevelopStage.run([.scene, .output], settings: all, image: source, context: &context)
            }
        }
        // The same modules one at a time (each geometric module resampling alone): what composing the geometry saves.
        let apart = try fastest(repeats) {
            var context = DevelopContext(kind: .raw, metadata: metadata, details: details, engine: engine)
            return try timed {
                var planes = PlanarImage(source, engine: engine)
                for m in DevelopStage.modules { planes = try m.benchmarkRun(all, on: planes, context: &context) }
                _ = planes.workingImage(space: source.space, engine: engine)
            }
        }
        let onList = DevelopStage.modules.map { "\($0.descriptor.name) \(typical[$0.descriptor.name]!)" }.joined(separator: ", ")
        // The target was set (≤ 1 s on two cores) on a machine where AHD, the default then, took 0.45 s: the same
        // demosaic timed here, in this run, says how this machine compares.
        let demosaic = DemosaicBenchmark.fastest(.ahd, mosaic: .init(name: "seeded noise", width: width, height: height, values: DemosaicBenchmark.noise(width * height)), engine: engine) * scale
        lines.append("  develop stage, everything on (\(onList)), with the plane conversions: "
                     + String(format: "%.3f s per 24 MP (%.3f s cpu); target ≤ 1 s on two cores", stage.wall * scale, stage.cpu * scale))
        lines.append(String(format: "  AHD (the default when the target was set) on the same threads in this run: %.3f s per 24 MP, the stage %.2f× it (where the target was set: 0.45 s, so 1 s was %.2f×)",
                            demosaic, stage.wall * scale / demosaic, 1 / 0.45))
        lines.append("  the same, each module alone in turn (every geometric module resampling by itself), one conversion each way: "
                     + String(format: "%.3f s per 24 MP (%.3f s cpu)", apart.wall * scale, apart.cpu * scale))
        return lines.joined(separator: "\n")
    }

    /// Wall and CPU seconds of a body that may throw.
    static func timed(_ body: () throws -> Void) throws -> (wall: Double, cpu: Double) {
        var failure: Error?
        let t = ChainBenchmark.timed { do { try body() } catch { failure = error } }
        if let failure { throw failure }
        return t
    }

    /// The fastest of `n` runs by wall time.
    static func fastest(_ n: Int, _ run: () throws -> (wall: Double, cpu: Double)) throws -> (wall: Double, cpu: Double) {
        var best: (wall: Double, cpu: Double)?
        for _ in 0..<max(1, n) {
            let t = try run()
            if best == nil || t.wall < best!.wall { best = t }
        }
        return best!
    }
}

extension DevelopModule {
    /// Runs the module when `settings` turns it on (the stage's own dispatch, for timing one module alone).
    static func benchmarkRun(_ settings: DevelopSettings, on image: PlanarImage, context: inout DevelopContext) throws -> PlanarImage {
        guard let text = settings.text(descriptor.name) else { return image }
        let setting = try Setting(parsing: text)
        return setting.isOff ? image : try apply(setting, to: image, context: &context)
    }
}
