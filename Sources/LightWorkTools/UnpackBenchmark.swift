import Foundation
import LightWork

/// `bench --only unpack --raw FILE…`: the unpack of each file by LibRaw's own loader and by LightWork's
/// (its lossless-JPEG decoder or its uncompressed copy; RawDecoder.unpackMosaic), alternating, best of a few runs each, and whether the two
/// mosaics are the same bit for bit (a figure for a wrong mosaic would be worthless).
enum UnpackBenchmark {
    static func run(urls: [URL], engine: EngineConfiguration, rounds: Int = 3) throws -> String {
        guard !urls.isEmpty else { throw LightWorkError.usage("bench --only unpack needs --raw FILE (repeatable)") }
        var lines: [String] = []
        for url in urls {
            var libRaw = Double.infinity, own = Double.infinity
            var reference: RawDecoder.UnpackedMosaic?, ours: RawDecoder.UnpackedMosaic?
            for _ in 0..<rounds {
                let a = try RawDecoder.unpackMosaic(url: url, lightWork: false, engine: engine)
                libRaw = min(libRaw, a.seconds)
                reference = a
                let b = try RawDecoder.unpackMosaic(url: url, lightWork: true, engine: engine)
                own = min(own, b.seconds)
                ours = b
            }
            guard let reference, let ours else { continue }
            let mp = Double(reference.rawWidth * reference.rawHeight) / 1e6
            let same = reference.values == ours.values
            lines.append(String(format: "%@ (%.1f MP): LibRaw %.0f ms, LightWork %.0f ms on %d threads: %.2fx; mosaics %@",
                                url.lastPathComponent, mp, libRaw * 1000, own * 1000, engine.threads, libRaw / own,
                                same ? "identical" : "DIFFER"))
            lines.append("    LightWork's: \(ours.unpacker)")
            if !same { throw LightWorkError.decodeFailed("\(url.lastPathComponent): LightWork's mosaic differs from LibRaw's") }
        }
        return "Unpack (best of \(rounds) each):\n" + lines.map { "  " + $0 }.joined(separator: "\n")
    }
}
