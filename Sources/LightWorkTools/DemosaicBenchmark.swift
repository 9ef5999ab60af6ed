import CShims
import Foundation
import LightWork

/// `bench --only demosaic [--raw FILE.dng]`: the cost of each of LightWork's Bayer demosaic kernels
/// (`BayerKernel.demosaic`, the decoder's tile loop), on one thread and on the engine's, in ms and MP/s, on a seeded
/// noise mosaic of 14-bit-like values and, given `--raw`, on that file's own mosaic. AHD and RCD are branch-free, so
/// the content does not change their cost; dual computes its second estimate only in tiles with periodic texture,
/// so noise (texture everywhere) is its worst case and a photograph's mosaic its usual one.
enum DemosaicBenchmark {
    static func run(width: Int, height: Int, raw: URL?, engine: EngineConfiguration) throws -> String {
        var mosaics: [(name: String, width: Int, height: Int, values: [UInt16])] = [("seeded noise", width, height, noise(width * height))]
        if let raw {
            let m = try RawDecoder.unpackMosaic(url: raw, lightWork: true, engine: engine)
            mosaics.append((raw.lastPathComponent, m.rawWidth, m.rawHeight, m.values))
        }
        var lines: [String] = []
        for m in mosaics {
            let mp = Double(m.width * m.height) / 1e6
            lines.append("Demosaic kernels on \(m.name), \(m.width)x\(m.height) (\(String(format: "%.1f", mp)) MP), best of 3")
            for kernel in BayerKernel.allCases {
                var line = "  " + kernel.rawValue.padding(toLength: 4, withPad: " ", startingAt: 0)
                for threads in Set([1, engine.threads]).sorted() {
                    let best = fastest(kernel, mosaic: m.values, width: m.width, height: m.height,
                                       engine: EngineConfiguration(threads: threads, cpu: engine.cpu))
                    line += String(format: "  %d thread%@ %7.1f ms %6.1f MP/s", threads, threads == 1 ? " " : "s", best * 1000, mp / best)
                }
                lines.append(line)
            }
        }
        return lines.joined(separator: "\n")
    }

    /// A seeded pattern of 14-bit-like values, above a black of 512.
    static func noise(_ count: Int) -> [UInt16] {
        var values = [UInt16](repeating: 0, count: count)
        var rng = SeededRandom(seed: 7, stream: 0)
        for i in values.indices { values[i] = UInt16(512 + Int(rng.unit() * 12000)) }
        return values
    }

    /// The fastest of three runs of `kernel` on a width × height mosaic (RGGB, 14-bit-like scaling), in wall seconds.
    static func fastest(_ kernel: BayerKernel, mosaic raw: [UInt16], width: Int, height: Int, engine: EngineConfiguration) -> Double {
        var b = lw_bayer()
        b.pitch = width
        b.width = Int32(width)
        b.height = Int32(height)
        b.colour = (0, 1, 1, 2)
        b.black = (512, 512, 512, 512)
        b.scale = (2.0 / 15871, 1.0 / 15871, 1.0 / 15871, 1.6 / 15871)
        b.to_xyz = (0.41, 0.36, 0.18, 0.21, 0.72, 0.07, 0.02, 0.12, 0.95)
        let out = UnsafeMutablePointer<UInt16>.allocate(capacity: width * height * 4)
        defer { out.deallocate() }
        var best = Double.infinity
        raw.withUnsafeBufferPointer { r in
            b.raw = r.baseAddress
            withUnsafePointer(to: &b) { p in
                for _ in 0..<3 {
                    let start = Date()
                    kernel.demosaic(p, into: out, engine: engine)
                    best = min(best, Date().timeIntervalSince(start))
                }
            }
        }
        return best
    }
}
