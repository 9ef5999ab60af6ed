import Foundation

/// Reads HaldCLUT images: level L is an L³×L³ image holding an L²-point cube, read pixel by pixel in row order
/// with red varying fastest, then green, then blue.
public enum HaldCLUTReader {
    /// The level L whose image is `width`×`height` (square, side L³), or nil.
    public static func level(width: Int, height: Int) -> Int? {
        guard width == height, width >= 8 else { return nil }
        var level = 2
        while level * level * level < width { level += 1 }
        return level * level * level == width && level * level <= LUT3D.sizeRange.upperBound ? level : nil
    }

    public static func read(_ pixels: LUTImagePixels, file: String) throws -> LUT3D {
        try pixels.validate(file: file)
        guard let level = level(width: pixels.width, height: pixels.height) else {
            throw LightWorkError.invalidDocument(file: file, path: "image",
                                                 reason: "\(pixels.width)×\(pixels.height) is not a HaldCLUT (a square of side L³ with L² ≤ 256, e.g. 512×512 for level 8)")
        }
        let n = level * level
        var table = [Float](repeating: 0, count: 3 * n * n * n)
        // Pixel index i (row-major) is lattice entry i: exactly the table's red-fastest order.
        for y in 0..<pixels.height {
            for x in 0..<pixels.width {
                let i = 3 * (y * pixels.width + x)
                let (r, g, b) = pixels.rgb(x: x, y: y)
                table[i] = r; table[i + 1] = g; table[i + 2] = b
            }
        }
        return try LUT3D(size: n, table: table, title: (file as NSString).lastPathComponent)
    }
}
