import Foundation

/// The overlay `lightwork chart --overlay` writes: the render in sRGB with each sampling square outlined (green
/// under ΔE00 2, yellow under 5, red above) and labelled with its patch number and ΔE00, so a reader sees exactly
/// what was measured.
public enum ChartOverlay {
    public static let maxEdge = 1600

    public static func png(_ file: ImageFile, _ m: ChartMeasurement) throws -> Data {
        var (rgb, w, h, step) = try Thumbnail.sRGB8(file, maxEdge: maxEdge)
        let s = 1 / Double(step)
        func plot(_ x: Int, _ y: Int, _ c: SIMD3<UInt8>) {
            guard x >= 0, y >= 0, x < w, y < h else { return }
            let i = 3 * (y * w + x)
            rgb[i] = c.x; rgb[i + 1] = c.y; rgb[i + 2] = c.z
        }
        func line(_ a: SIMD2<Double>, _ b: SIMD2<Double>, _ c: SIMD3<UInt8>, width: Int) {
            let n = Int(max(abs(b.x - a.x), abs(b.y - a.y)).rounded(.up)) + 1
            for k in 0...n {
                let p = a + (b - a) * (Double(k) / Double(n))
                for dy in -(width / 2)...(width / 2) { for dx in -(width / 2)...(width / 2) { plot(Int(p.x) + dx, Int(p.y) + dy, c) } }
            }
        }
        for p in m.patches {
            let colour: SIMD3<UInt8> = p.deltaE < 2 ? SIMD3(40, 220, 60) : p.deltaE < 5 ? SIMD3(250, 210, 0) : SIMD3(240, 30, 30)
            let q = p.square.map { SIMD2($0[0], $0[1]) * s }
            let side = ((q[1] - q[0]) * (q[1] - q[0])).sum().squareRoot()
            let width = max(1, Int((side / 20).rounded()))
            for k in 0..<4 { line(q[k], q[(k + 1) % 4], SIMD3(0, 0, 0), width: width + 2) }
            for k in 0..<4 { line(q[k], q[(k + 1) % 4], colour, width: width) }
            // The label goes under the square, inside the patch (the square is 0.4 of a pitch, the patch about 0.85).
            let label = String(format: "%d %.1f", p.index, p.deltaE)
            let pitch = side / ChartMeasurement.sampleSide
            let scale = max(1, min(4, Int(0.8 * pitch / Double(label.count * 4))))
            let centreX = q.map(\.x).reduce(0, +) / 4, bottom = q.map(\.y).max()!
            let x0 = Int(centreX) - label.count * 2 * scale, y0 = Int(bottom) + 2 + width
            for y in (y0 - 1)..<(y0 + 5 * scale + 1) { for x in (x0 - 1)..<(x0 + label.count * 4 * scale) { plot(x, y, SIMD3(0, 0, 0)) } }
            draw(label, x: x0, y: y0, scale: scale, colour: colour, plot: plot)
        }
        return try Thumbnail.png(rgb: rgb, width: w, height: h)
    }

    /// 3 × 5 pixel glyphs for the label's characters (rows top to bottom, 3 bits each, high bit left).
    static let glyphs: [Character: [UInt8]] = [
        "0": [7, 5, 5, 5, 7], "1": [2, 6, 2, 2, 7], "2": [7, 1, 7, 4, 7], "3": [7, 1, 7, 1, 7], "4": [5, 5, 7, 1, 1],
        "5": [7, 4, 7, 1, 7], "6": [7, 4, 7, 5, 7], "7": [7, 1, 1, 1, 1], "8": [7, 5, 7, 5, 7], "9": [7, 5, 7, 1, 7],
        ".": [0, 0, 0, 0, 2], " ": [0, 0, 0, 0, 0],
    ]

    static func draw(_ text: String, x: Int, y: Int, scale: Int, colour: SIMD3<UInt8>, plot: (Int, Int, SIMD3<UInt8>) -> Void) {
        for (n, ch) in text.enumerated() {
            guard let rows = glyphs[ch] else { continue }
            for (r, bits) in rows.enumerated() {
                for b in 0..<3 where bits & (4 >> b) != 0 {
                    for dy in 0..<scale { for dx in 0..<scale { plot(x + (n * 4 + b) * scale + dx, y + r * scale + dy, colour) } }
                }
            }
        }
    }
}
