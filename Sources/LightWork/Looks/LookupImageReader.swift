import Foundation

/// Reads the app's 512×512 lookup images: an 8×8 grid of 64×64 tiles holding a 64-point cube. The tile is
/// chosen by blue (tile column = b % 8, tile row = b / 8); inside a tile x is red and y is green.
/// This is not the HaldCLUT layout, although both are 512×512.
public enum LookupImageReader {
    public static let side = 512
    public static let tile = 64
    public static let tilesPerRow = 8

    public static func read(_ pixels: LUTImagePixels, file: String) throws -> LUT3D {
        try pixels.validate(file: file)
        guard pixels.width == side, pixels.height == side else {
            throw LightWorkError.invalidDocument(file: file, path: "image",
                                                 reason: "a lookup image is 512×512 (8×8 tiles of 64×64), found \(pixels.width)×\(pixels.height)")
        }
        let n = tile
        var table = [Float](repeating: 0, count: 3 * n * n * n)
        for b in 0..<n {
            let x0 = (b % tilesPerRow) * tile, y0 = (b / tilesPerRow) * tile
            for g in 0..<n {
                for r in 0..<n {
                    let (vr, vg, vb) = pixels.rgb(x: x0 + r, y: y0 + g)
                    let i = 3 * (r + n * (g + n * b))
                    table[i] = vr; table[i + 1] = vg; table[i + 2] = vb
                }
            }
        }
        return try LUT3D(size: n, table: table, title: (file as NSString).lastPathComponent)
    }
}
