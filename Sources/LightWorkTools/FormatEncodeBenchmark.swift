import Foundation
import LightWork

/// `bench --only encode --image FILE.tif`: each output format's writer on one rendered image (a 16-bit TIFF
/// LightWork wrote, so the pixels are a real render): wall and CPU seconds of one encode with the format's default
/// options, again with each flag option on (`--lossless`), and the file's size. Formats come from the registry, so
/// a new codec is timed without a line here; `--formats webp,heif` picks some.
public enum FormatEncodeBenchmark {
    public static func run(image url: URL, formats names: [String]?, engine: EngineConfiguration) throws -> String {
        let file = try ImageFileReader.read(url)
        guard file.bitDepth == 16, file.channels == 3 else {
            throw LightWorkError.usage("--image must be a 16-bit RGB TIFF (lightwork convert's default output)")
        }
        var sixteen = EncodedPixels(width: file.width, height: file.height, channels: 3, depth: .sixteen)
        sixteen.samples16 = file.samples
        var eight = EncodedPixels(width: file.width, height: file.height, channels: 3, depth: .eight)
        eight.samples8 = file.samples.map { UInt8((UInt32($0) * 255 + 32767) / 65535) }
        let formats = CodecRegistry.outputFormats.filter { f in names.map { $0.contains(f.rawValue) || $0.contains(f.codecName) } ?? true }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("lightwork-encode-bench-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let mp = Double(file.width * file.height) / 1e6
        var lines = [String(format: "encoding one %d×%d (%.1f MP) render, %d threads", file.width, file.height, mp, engine.threads)]
        for format in formats {
            let variants: [(String, [String: String])] = [("default", [:])]
                + format.codec.options.filter { $0.values == .flag && $0.defaultValue == "false" }.map { ("--\($0.name)", [$0.name: "true"]) }
            for (label, options) in variants {
                var settings = EncodeSettings(format: format, iccProfile: ICCProfile.embedded(for: .srgb), exif: EXIFWriter.blob(for: ImageMetadata()))
                settings.options = CodecOptionValues(options)
                let target = dir.appendingPathComponent("bench.\(format.fileExtension)")
                var size = 0
                var failure: Error?
                let time = ChainBenchmark.timed {
                    do { size = try format.writer(engine: engine).write(format.depth == .eight ? eight : sixteen, settings: settings, to: target).size }
                    catch { failure = error }
                }
                if let failure { throw failure }
                lines.append(String(format: "%-8@ %-12@ %6.2f s wall, %6.2f s cpu, %7.2f MB (%.2f bits/pixel)",
                                    format.rawValue, label, time.wall, time.cpu, Double(size) / 1e6, Double(size * 8) / (mp * 1e6)))
            }
        }
        return lines.joined(separator: "\n")
    }
}
