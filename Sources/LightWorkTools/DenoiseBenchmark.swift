import Foundation
import LightWork

/// Times `--denoise` on a synthetic linear ProPhoto frame, and apart from it the develop stage's conversion to
/// float planes and back that every scene module shares. Wall and CPU time as in `ChainBenchmark`.
public enum DenoiseBenchmark {
    public static func run(width: Int, height: Int, repeats: Int = 2, engine: EngineConfiguration) -> String {
        let mp = Double(width * height) / 1e6
        let source = ChainBenchmark.syntheticImage(width: width, height: height, space: .rawLinear)
        var planes = PlanarImage(source, engine: engine)
        let convert = ChainBenchmark.best(repeats) {
            ChainBenchmark.timed { planes = PlanarImage(source, engine: engine); _ = planes.workingImage(space: source.space, engine: engine) }
        }
        var lines = [String(format: "develop planes in and out on %d×%d, %d threads: %.3f s wall, %.3f s cpu",
                            width, height, engine.threads, convert.wall, convert.cpu)]
        for setting in ["50", "auto"] {
            let time = ChainBenchmark.best(repeats) {
                let image = PlanarImage(source, engine: engine)
                var context = DevelopContext(kind: .raw, metadata: ImageMetadata(), engine: engine)
                let parsed = try! Denoise.Setting(parsing: setting)
                return ChainBenchmark.timed { _ = try! Denoise.apply(parsed, to: image, context: &context) }
            }
            lines.append(String(format: "denoise %-4@ %.3f s wall, %.3f s cpu per %.0f MP (%.1f MP/s wall)",
                                setting, time.wall, time.cpu, mp, mp / time.wall))
        }
        return lines.joined(separator: "\n")
    }
}
