import Foundation
import LightWork

/// `bench --only develop`: the develop modules' cost on a synthetic frame (one line per module).
enum LensBenchmark {
    /// `--lens` with the Canon EF 20mm f/2.8 USM at 20 mm f/2.8 (distortion, TCA in camera RGB, vignetting).
    static func run(width: Int, height: Int, repeats: Int = 2, engine: EngineConfiguration) throws -> String {
        let source = ChainBenchmark.syntheticImage(width: width, height: height, space: .rawLinear)
        var m = ImageMetadata()
        m.make = "Canon"; m.model = "Canon EOS 5D Mark II"; m.lens = "Canon EF 20mm f/2.8 USM"
        m.focalLength = 20; m.fNumber = 2.8
        let details = ["cameraToWorking": "0.9 0.1 0.0; 0.1 0.8 0.1; 0.0 0.1 0.9"]
        _ = try LensDatabase.shared.loaded()
        var decision = ""
        let time = ChainBenchmark.best(repeats) {
            let planes = PlanarImage(source, engine: engine)
            var context = DevelopContext(kind: .raw, metadata: m, details: details, engine: engine)
            let t = ChainBenchmark.timed { _ = try? LensCorrection.apply(.auto, to: planes, context: &context) }
            decision = context.decisions["lens"] ?? "no decision"
            return t
        }
        guard decision.contains("distortion, TCA, vignetting") else { throw LightWorkError.usage("lens benchmark: \(decision)") }
        let per24 = 24e6 / Double(width * height)
        return String(format: "develop lens (EF 20mm f/2.8, distortion+TCA+vignetting): %.3f s wall per 24 MP, %.3f s cpu, %d threads",
                      time.wall * per24, time.cpu * per24, engine.threads)
    }
}
