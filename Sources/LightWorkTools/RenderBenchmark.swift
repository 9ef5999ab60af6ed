import Foundation
import LightWork

/// Times the neutral render (no filters: half floats → matrix → clamp → curve → 16-bit sRGB) and a RAW
/// decode, the two stages around the filter chain. Wall and CPU time as in `ChainBenchmark`.
public enum RenderBenchmark {
    /// A synthetic linear ProPhoto image through `Renderer.render` with an empty chain to 16-bit sRGB,
    /// against a plain copy of the working pixels.
    public static func neutral(width: Int, height: Int, repeats: Int = 3, engine: EngineConfiguration) -> String {
        let mp = Double(width * height) / 1e6
        let threads = Double(engine.threads)
        let source = ChainBenchmark.syntheticImage(width: width, height: height, space: .rawLinear)
        let context = RenderContext(width: width, height: height, seed: 1)
        var lines = ["neutral render on \(width)×\(height), \(engine.threads) threads"]
        let copy = WorkingImage(width: width, height: height, space: source.space)
        let copyTime = ChainBenchmark.best(repeats) {
            ChainBenchmark.timed { copy.storage.update(from: source.storage, count: 4 * source.pixelCount) }
        }
        lines.append(String(format: "buffer copy:      %7.1f MP/s wall (%.3f s)", mp / copyTime.wall, copyTime.wall))
        for depth in [EncodedPixels.Depth.sixteen, .eight] {
            let spec = OutputSpec(space: .srgb, depth: depth, keepAlpha: false)
            let time = ChainBenchmark.best(repeats) {
                ChainBenchmark.timed { _ = Renderer(chain: [], engine: engine).render(source, context: context, output: spec) }
            }
            lines.append(String(format: "→ sRGB %2d-bit:    %7.1f MP/s wall, %7.1f MP/s cpu (%.3f s wall, %.3f s cpu)",
                                depth == .sixteen ? 16 : 8, mp / time.wall, mp * threads / time.cpu, time.wall, time.cpu))
        }
        return lines.joined(separator: "\n")
    }

    /// `--highlights reconstruct`'s cost: each RAW decoded with `clip` and with `reconstruct` (best of `repeats`),
    /// the difference scaled to 24 MP, with the share of pixels the clip touched.
    public static func highlights(urls: [URL], repeats: Int = 2, engine: EngineConfiguration) throws -> String {
        var lines: [String] = []
        for url in urls {
            var times: [Double] = [], size = (0, 0), note = ""
            for setting in Highlights.Setting.allCases {
                var options = DecodeOptions()
                options.develop[Highlights.self] = setting
                var failure: Error?
                let time = ChainBenchmark.best(repeats) {
                    ChainBenchmark.timed {
                        do {
                            let d = try RawDecoder.decode(url: url, options: options, engine: engine)
                            size = (d.image.width, d.image.height)
                            note = d.details["highlights"] ?? note
                        } catch { failure = error }
                    }
                }
                if let failure { throw failure }
                times.append(time.wall)
            }
            let per24 = 24e6 / Double(size.0 * size.1)
            lines.append(String(format: "highlights reconstruct on %@ (%d×%d): decode %.3f s → %.3f s, +%.3f s per 24 MP (%@)",
                                url.lastPathComponent, size.0, size.1, times[0], times[1], (times[1] - times[0]) * per24, note))
        }
        return lines.joined(separator: "\n")
    }

    /// Decodes a RAW file `repeats` times on `engine.threads` threads (LibRaw's OpenMP stages too) and reports the best run.
    public static func decode(url: URL, repeats: Int = 2, engine: EngineConfiguration) throws -> String {
        let options = DecodeOptions()
        var size = (0, 0)
        var failure: Error?
        let time = ChainBenchmark.best(repeats) {
            ChainBenchmark.timed {
                do {
                    let d = try RawDecoder.decode(url: url, options: options, engine: engine)
                    size = (d.image.width, d.image.height)
                } catch { failure = error }
            }
        }
        if let failure { throw failure }
        let mp = Double(size.0 * size.1) / 1e6
        return String(format: "RAW decode %d×%d: %.3f s wall, %.3f s cpu (%.1f MP/s wall)", size.0, size.1, time.wall, time.cpu, mp / time.wall)
    }
}
