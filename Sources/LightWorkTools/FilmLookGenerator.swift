import Foundation
import LightWork

/// `lightwork-tools make-films [DIR]`: writes the shipped film catalog and one 512×512 lookup image per look,
/// from the documented parameters in `FilmLookDesign` (nothing copied from anywhere).
enum FilmLookGenerator {
    static func run(directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try AtomicFile.write(data: try FilmLookDesign.catalogJSON(), to: directory.appendingPathComponent("catalog.json"))
        for look in FilmLookDesign.all {
            let image = FilmLookDesign.lookupImagePixels(for: look)
            var pixels = EncodedPixels(width: image.width, height: image.height, channels: 3, depth: .eight)
            pixels.samples8 = image.samples
            // Level 9: the images are committed once and read many times.
            let settings = EncodeSettings(format: .png, pngCompressionLevel: 9)
            try PNGWriter().write(pixels, settings: settings, to: directory.appendingPathComponent(look.imageName))
        }
        FileHandle.standardError.write(Data("wrote \(directory.path)/catalog.json and \(FilmLookDesign.all.count) lookup images\n".utf8))
    }
}
