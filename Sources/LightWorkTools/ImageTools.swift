import CShims
import Foundation
import LightWork

/// Small image measurements and layouts for the comparison scripts (scripts/tone-compare.sh,
/// scripts/develop-gallery.sh): LightWork's own readers and PNG writer, no ImageMagick needed.
enum ImageTools {
    /// `image-stats FILE...`: one line per file with its mean grey — the mean of every R, G and B sample on the
    /// 8-bit scale (0…255) as the file encodes it (alpha ignored), the figure the "mean grey" quotes.
    static func stats(_ arguments: ArraySlice<String>) throws {
        guard !arguments.isEmpty else { throw LightWorkError.usage("image-stats needs one or more image files") }
        for path in arguments {
            let file = try ImageFileReader.read(URL(fileURLWithPath: path))
            print("\(path) \(file.width)x\(file.height) mean-grey " + String(format: "%.1f", meanGrey(file)))
        }
    }

    /// The mean of the colour samples scaled to 0…255.
    static func meanGrey(_ file: ImageFile) -> Double {
        let colour = file.channels >= 3 ? 3 : 1
        let scale = 255 / Double((1 << file.bitDepth) - 1)
        var sum = 0.0, count = 0
        for i in stride(from: 0, to: file.samples.count, by: file.channels) {
            for c in 0..<colour { sum += Double(file.samples[i + c]) }
            count += colour
        }
        return count == 0 ? 0 : sum / Double(count) * scale
    }

    /// `contact-sheet -o OUT.png --columns N --tile W:H FILE...`: the files in rows of N, each scaled down (box
    /// average) to fit a W×H cell and centred on mid grey, 8 px apart: a side-by-side comparison image.
    static func contactSheet(_ arguments: ArraySlice<String>) throws {
        var output: URL?, columns = 4, tileW = 240, tileH = 180, files: [String] = []
        var rest = arguments
        while let arg = rest.popFirst() {
            switch arg {
            case "-o", "--columns", "--tile":
                guard let value = rest.popFirst() else { throw LightWorkError.usage("\(arg) needs a value") }
                if arg == "-o" { output = URL(fileURLWithPath: value) }
                if arg == "--columns" {
                    guard let n = Int(value), n > 0 else { throw LightWorkError.usage("--columns expects a positive whole number, not '\(value)'") }
                    columns = n
                }
                if arg == "--tile" {
                    let parts = value.split(separator: ":").compactMap { Int($0) }
                    guard parts.count == 2, parts.allSatisfy({ $0 > 0 }) else { throw LightWorkError.usage("--tile expects W:H, not '\(value)'") }
                    tileW = parts[0]; tileH = parts[1]
                }
            default: files.append(arg)
            }
        }
        guard let output, !files.isEmpty else { throw LightWorkError.usage("contact-sheet needs -o OUT.png and image files") }
        let gap = 8
        let rows = (files.count + columns - 1) / columns
        let width = columns * tileW + (columns + 1) * gap, height = rows * tileH + (rows + 1) * gap
        var sheet = [UInt8](repeating: 128, count: width * height * 3)
        for (index, path) in files.enumerated() {
            let file = try ImageFileReader.read(URL(fileURLWithPath: path))
            let factor = max(1, Int(ceil(max(Double(file.width) / Double(tileW), Double(file.height) / Double(tileH)))))
            let w = file.width / factor, h = file.height / factor
            let x0 = gap + (index % columns) * (tileW + gap) + (tileW - w) / 2
            let y0 = gap + (index / columns) * (tileH + gap) + (tileH - h) / 2
            let scale = 255 / Double((1 << file.bitDepth) - 1) / Double(factor * factor)
            for y in 0..<h {
                for x in 0..<w {
                    for c in 0..<3 {
                        var sum = 0.0
                        for dy in 0..<factor {
                            for dx in 0..<factor {
                                let i = ((y * factor + dy) * file.width + x * factor + dx) * file.channels + (file.channels >= 3 ? c : 0)
                                sum += Double(file.samples[i])
                            }
                        }
                        sheet[((y0 + y) * width + x0 + x) * 3 + c] = UInt8(min(max((sum * scale).rounded(), 0), 255))
                    }
                }
            }
        }
        var message = [CChar](repeating: 0, count: 256)
        if lw_samplepng_write_srgb8(output.path, sheet, UInt32(width), UInt32(height), &message, message.count) != 0 {
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw LightWorkError.writeFailed("\(output.path): \(text)")
        }
        FileHandle.standardError.write(Data("wrote \(output.path) (\(width) x \(height), \(files.count) images)\n".utf8))
    }
}
