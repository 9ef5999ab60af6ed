import Foundation
import LightWork

/// Cost of the develop stage's sharpening and geometry modules (sharpen, rotate, crop, aspect, outputSharpen)
/// on a 24 MP linear ProPhoto image, each module alone, float planes in and out (the stage's conversion from
/// and to half floats is not counted: it is paid once for the whole stage).
public enum SharpenGeometryBenchmark {
    public static func run(width: Int, height: Int, repeats: Int = 3, engine: EngineConfiguration) throws -> String {
        let mp = Double(width * height) / 1e6
        let source = PlanarImage(ChainBenchmark.syntheticImage(width: width, height: height, space: .rawLinear), engine: engine)
        let work = PlanarImage(width: width, height: height, primaries: source.primaries)
        typealias Step = (PlanarImage, inout DevelopContext) throws -> PlanarImage
        func step<M: DevelopModule>(_ module: M.Type, _ text: String) throws -> Step {
            let setting = try M.Setting(parsing: text)
            return { try M.apply(setting, to: $0, context: &$1) }
        }
        let cases: [(label: String, step: Step)] = [
            ("sharpen 1:0.8", try step(Sharpen.self, "1:0.8")), ("sharpen 1:2 (radius 2)", try step(Sharpen.self, "1:2")),
            ("rotate 3.5 (bicubic)", try step(Rotate.self, "3.5")), ("crop 0.1,0.1,0.8,0.8", try step(Crop.self, "0.1,0.1,0.8,0.8")),
            ("aspect 1:1", try step(Aspect.self, "1:1")), ("output-sharpen 0.6", try step(OutputSharpen.self, "0.6")),
        ]
        var lines = ["develop sharpening and geometry on \(width)×\(height) (\(String(format: "%.1f", mp)) MP), \(engine.threads) threads, per module (cost per 24 MP)"]
        for c in cases {
            let time = ChainBenchmark.best(repeats) {
                for p in 0..<3 { work.plane(p).update(from: source.plane(p), count: source.pixelCount) }
                var context = DevelopContext(kind: .raw, metadata: ImageMetadata(), engine: engine)
                return ChainBenchmark.timed { _ = try? c.step(work, &context) }
            }
            lines.append(c.label.padding(toLength: 24, withPad: " ", startingAt: 0) + String(format: " %7.3f s wall per 24 MP, %6.3f s cpu  (%.0f MP/s)",
                                time.wall * 24 / mp, time.cpu * 24 / mp, mp / time.wall))
        }
        return lines.joined(separator: "\n")
    }
}
