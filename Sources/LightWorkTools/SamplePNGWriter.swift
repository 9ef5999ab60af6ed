import CShims
import Foundation
import LightWork

/// The reference rendering of the scene as an 8-bit sRGB PNG (what the surfaces look like to a viewer adapted to
/// the scene light). Private to the tool; LightWork's own PNG writer replaces it once both exist.
enum SamplePNGWriter {
    static func write(scene: any ScenePainter, camera: SyntheticCamera, to url: URL) throws {
        let w = scene.width, h = scene.height
        let palette = ScenePalette(scene.materials.map(camera.linearSRGB(lab:)))
        let encode = FastCurve.encoder(.sRGB)
        var bytes = [UInt8](repeating: 0, count: w * h * 3)
        let rows = UnsafeMutablePointer<Float>.allocate(capacity: 3 * w)
        defer { rows.deallocate() }
        bytes.withUnsafeMutableBufferPointer { out in
            for y in 0..<h {
                scene.renderRow(y, palette: palette, r: rows, g: rows + w, b: rows + 2 * w)
                encode.apply(rows, count: 3 * w)
                let dst = out.baseAddress! + y * w * 3
                for x in 0..<w {
                    for c in 0..<3 {
                        let v = rows[c * w + x] * 255 + 0.5
                        dst[3 * x + c] = UInt8(min(max(v, 0), 255))
                    }
                }
            }
        }
        var message = [CChar](repeating: 0, count: 256)
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).lwtmp")
        if lw_samplepng_write_srgb8(temporary.path, bytes, UInt32(w), UInt32(h), &message, message.count) != 0 {
            try? FileManager.default.removeItem(at: temporary)
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw LightWorkError.writeFailed("\(url.path): \(text)")
        }
        if rename(temporary.path, url.path) != 0 {
            throw LightWorkError.writeFailed("\(url.path): \(String(cString: strerror(errno)))")
        }
    }
}
