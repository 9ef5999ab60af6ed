import CShims
import Foundation
import XCTest
@testable import LightWork

/// What the WebP and HEIF codec tests share: the formats' own tools (cwebp, dwebp, webpmux, heif-enc,
/// heif-convert, exiftool; `scripts/ensure-deps.sh --test` installs them, and a missing one fails), PNG truth
/// written by LightWork's libpng writer, and decoded working images as 16-bit files for `PixelComparison`.
enum CodecTools {
    /// The installed tool `name`; missing is a failure, not a skip.
    static func path(_ name: String) throws -> URL {
        for dir in ["/usr/bin", "/usr/local/bin", "/bin"] {
            let url = URL(fileURLWithPath: dir).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        XCTFail("\(name) is not installed: run scripts/ensure-deps.sh --test")
        throw LightWorkError.missingTool(name)
    }

    /// Runs `name` with `args`, asserting it succeeds; returns its standard output.
    @discardableResult
    static func run(_ name: String, _ args: [String], file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let (status, out, err) = try CLIRunner.capture(try path(name), args)
        XCTAssertEqual(status, 0, "\(name) \(args.joined(separator: " ")): \(String(decoding: err, as: UTF8.self))", file: file, line: line)
        return String(decoding: out, as: UTF8.self)
    }

    /// `pixels` as a PNG at `url` (LightWork's libpng writer), with `icc` and `exif` when given.
    @discardableResult
    static func png(_ pixels: EncodedPixels, at url: URL, icc: Data? = nil, exif: Data? = nil) throws -> URL {
        try PNGWriter().write(pixels, settings: EncodeSettings(format: pixels.depth == .eight ? .png : .png16, iccProfile: icc, exif: exif), to: url)
        return url
    }

    /// A decoded image's device-RGB values as a 16-bit file (v·65535 rounded), read as sRGB by `PixelComparison`.
    static func file(_ image: WorkingImage) -> ImageFile {
        let n = image.width * image.height
        var floats = [Float](repeating: 0, count: 4 * n)
        lw_half_to_float(image.storage, &floats, 4 * n)
        let channels = image.hasAlpha ? 4 : 3
        var samples = [UInt16](repeating: 0, count: channels * n)
        for i in 0..<n {
            for c in 0..<channels { samples[i * channels + c] = UInt16((min(max(floats[4 * i + c], 0), 1) * 65535).rounded()) }
        }
        return ImageFile(format: .tiff, width: image.width, height: image.height, channels: channels, bitDepth: 16,
                         iccProfile: nil, exif: nil, samples: samples)
    }

    /// `file` without its alpha channel and profile (PixelComparison compares colours only), as 16-bit samples.
    static func colour(_ file: ImageFile) -> ImageFile {
        let colour = min(file.channels, 3)
        let scale: UInt16 = file.bitDepth == 8 ? 257 : 1
        var samples = [UInt16]()
        samples.reserveCapacity(file.width * file.height * colour)
        for i in 0..<(file.width * file.height) {
            for c in 0..<colour { samples.append(file.samples[i * file.channels + c] &* scale) }
        }
        return ImageFile(format: file.format, width: file.width, height: file.height, channels: colour, bitDepth: 16,
                         iccProfile: file.iccProfile, exif: nil, samples: samples)
    }

    /// ΔE00 of `candidate` against `truth` (colour only), printed under `label`.
    static func deltaE(_ truth: ImageFile, _ candidate: ImageFile, _ label: String) throws -> DeltaEStatistics {
        let stats = try PixelComparison(golden: colour(truth), candidate: colour(candidate), threshold: 100).statistics
        print(String(format: "%@: ΔE00 mean %.3f, p99 %.3f, max %.3f", label, stats.mean, stats.p99, stats.max))
        return stats
    }

    /// The columns `fraction` of the width from the left: for the Samples scene, the ColorChecker, the grey
    /// steps and the flat surround, leaving out the zone plate and the pixel-frequency patches on the right, whose
    /// colour moiré no 4:2:0 codec keeps (the whole frame is measured and printed as well).
    static func left(_ file: ImageFile, fraction: Double = 0.62) -> ImageFile {
        let w = Int(Double(file.width) * fraction)
        var samples = [UInt16]()
        samples.reserveCapacity(w * file.height * file.channels)
        for y in 0..<file.height {
            let start = y * file.width * file.channels
            samples += file.samples[start..<(start + w * file.channels)]
        }
        return ImageFile(format: file.format, width: w, height: file.height, channels: file.channels, bitDepth: file.bitDepth,
                         iccProfile: file.iccProfile, exif: nil, samples: samples)
    }

    /// Largest difference of channel `channel` (8-bit units when both are 8-bit).
    static func maxDifference(_ a: ImageFile, _ b: ImageFile, channel: Int) -> Int {
        var worst = 0
        for i in 0..<(a.width * a.height) {
            worst = max(worst, abs(Int(a.samples[i * a.channels + channel]) - Int(b.samples[i * b.channels + channel])))
        }
        return worst
    }

    /// A smooth, photo-like 8-bit test picture with an alpha ramp when `channels` is 4.
    static func picture(width: Int, height: Int, channels: Int) -> EncodedPixels {
        var p = EncodedPixels(width: width, height: height, channels: channels, depth: .eight)
        for y in 0..<height {
            for x in 0..<width {
                let fx = Double(x) / Double(width - 1), fy = Double(y) / Double(height - 1)
                let v = [0.5 + 0.45 * sin(6 * fx + 2 * fy), 0.5 + 0.4 * cos(5 * fy - 3 * fx), 0.2 + 0.7 * fx * fy, fy]
                for c in 0..<channels { p.samples8[(y * width + x) * channels + c] = UInt8((v[c] * 255).rounded()) }
            }
        }
        return p
    }
}

/// A test case with a fresh temporary folder and the decodes the codec tests compare.
class CodecFileTestCase: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws { dir = try TestPaths.temporaryDirectory(self) }

    func url(_ name: String) -> URL { dir.appendingPathComponent(name) }

    /// `u` decoded by the codec the registry picks, which must be a `C`.
    func decode<C: ImageCodec>(_ u: URL, as codec: C.Type) throws -> DecodedImage {
        let data = try Data(contentsOf: u)
        let chosen = CodecRegistry.decoder(for: data)
        XCTAssertTrue(chosen is C, "\(u.lastPathComponent) is read as \(chosen.name)")
        return try chosen.decode(data: data, url: u, options: DecodeOptions(), engine: .detected)
    }

    /// The PNG at `u` through LightWork's PNG path (the truth the new formats' decodes are held to).
    func pngDecode(_ u: URL) throws -> DecodedImage { try PNGDecoder.decode(data: Data(contentsOf: u), options: DecodeOptions()) }
}
