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
        var mosaics = [Mosaic(name: "seeded noise", width: width, height: height, values: noise(width * height))]
        if let raw { mosaics.append(try Mosaic(raw, engine: engine)) }
        var lines: [String] = []
        for m in mosaics {
            let mp = Double(m.width * m.height) / 1e6
            lines.append("Demosaic kernels on \(m.name), \(m.width)x\(m.height) (\(String(format: "%.1f", mp)) MP), best of 3")
            for kernel in BayerKernel.allCases {
                var line = "  " + kernel.rawValue.padding(toLength: 4, withPad: " ", startingAt: 0)
                for threads in Set([1, engine.threads]).sorted() {
                    let best = fastest(kernel, mosaic: m, engine: EngineConfiguration(threads: threads, cpu: engine.cpu))
                    line += String(format: "  %d thread%@ %7.1f ms %6.1f MP/s", threads, threads == 1 ? " " : "s", best * 1000, mp / best)
                }
                lines.append(line)
            }
        }
        return lines.joined(separator: "\n")
    }

    /// An RGGB mosaic and how its values are balanced: 14-bit-like, black 512, multipliers 2, 1, 1.6 by default.
    struct Mosaic {
        var name: String
        var width: Int, height: Int
        var values: [UInt16]
        var black = 512.0, white = 16383.0
        var multipliers = SIMD3<Double>(2, 1, 1.6)

        init(name: String, width: Int, height: Int, values: [UInt16]) {
            (self.name, self.width, self.height, self.values) = (name, width, height, values)
        }

        /// A DNG's own mosaic (LightWork's unpack), with its black and white levels and as-shot balance, so dual's
        /// texture measure sees the picture the decoder would; only an RGGB mosaic without margins, as the
        /// kernels are set up here.
        init(_ url: URL, engine: EngineConfiguration) throws {
            let details = try RawDecoder.inspect(url: url).details
            let m = try RawDecoder.unpackMosaic(url: url, lightWork: true, engine: engine)
            guard details["cfa"] == "RGGB", details["rawSize"] == details["imageSize"],
                  let black = details["blackLevel"].flatMap(Double.init), let white = details["whiteLevel"].flatMap(Double.init), white > black else {
                throw LightWorkError.usage("bench --only demosaic --raw: \(url.lastPathComponent) is not an RGGB mosaic without margins and with its levels (cfa \(details["cfa"] ?? "?"), raw \(details["rawSize"] ?? "?"), image \(details["imageSize"] ?? "?"))")
            }
            self.init(name: url.lastPathComponent, width: m.rawWidth, height: m.rawHeight, values: m.values)
            (self.black, self.white) = (black, white)
            let shot = (details["asShotWB"] ?? "").split(separator: " ").compactMap { Double($0) }
            if shot.count >= 3, shot[0] > 0, shot[1] > 0, shot[2] > 0 { multipliers = SIMD3(shot[0], shot[1], shot[2]) / min(shot[0], shot[1], shot[2]) }
        }
    }

    /// A seeded pattern of 14-bit-like values, above a black of 512.
    static func noise(_ count: Int) -> [UInt16] {
        var values = [UInt16](repeating: 0, count: count)
        var rng = SeededRandom(seed: 7, stream: 0)
        for i in values.indices { values[i] = UInt16(512 + Int(rng.unit() * 12000)) }
        return values
    }

    /// The fastest of three runs of `kernel` on `mosaic`, in wall seconds.
    static func fastest(_ kernel: BayerKernel, mosaic m: Mosaic, engine: EngineConfiguration) -> Double {
        let (width, height, raw) = (m.width, m.height, m.values)
        var b = lw_bayer()
        b.pitch = width
        b.width = Int32(width)
        b.height = Int32(height)
        b.colour = (0, 1, 1, 2)
        let black = Float(m.black), range = m.white - m.black
        b.black = (black, black, black, black)
        b.scale = (Float(m.multipliers.x / range), Float(m.multipliers.y / range), Float(m.multipliers.y / range), Float(m.multipliers.z / range))
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
