import Dispatch
import LightWork

/// A raw RGGB Bayer frame: one 16-bit sample per pixel, row-major.
struct CFAMosaic: Sendable {
    let width: Int
    let height: Int
    let samples: [UInt16]

    /// The DNG CFAPattern value for RGGB (0 = red, 1 = green, 2 = blue) over a 2 × 2 repeat.
    static let pattern: [UInt8] = [0, 1, 1, 2]

    /// Renders the scene as `camera` records it: raw response + black level + seeded noise, quantised and clipped.
    init(scene: SceneGenerator, camera: SyntheticCamera, seed: UInt64) {
        let w = scene.layout.width, h = scene.layout.height
        width = w
        height = h
        let palette = ScenePalette(scene.layout.materials.map(camera.rawResponse(lab:)))
        let black = Float(SyntheticCamera.blackLevel), white = Float(SyntheticCamera.whiteLevel)
        let sigma = SyntheticCamera.noiseSigma
        let bandRows = 64
        let bands = (h + bandRows - 1) / bandRows
        samples = [UInt16](unsafeUninitializedCapacity: w * h) { buffer, count in
            let out = SendablePointer(buffer.baseAddress!)
            DispatchQueue.concurrentPerform(iterations: bands) { band in
                let rows = UnsafeMutablePointer<Float>.allocate(capacity: 3 * w)
                defer { rows.deallocate() }
                let r = rows, g = rows + w, b = rows + 2 * w
                for y in band * bandRows..<min(h, (band + 1) * bandRows) {
                    scene.renderRow(y, palette: palette, r: r, g: g, b: b)
                    // RGGB: even rows alternate red/green, odd rows green/blue.
                    let first = y & 1 == 0 ? r : g, second = y & 1 == 0 ? g : b
                    var rng = SeededRandom(seed: seed, stream: UInt64(y))
                    let dst = out.pointer + y * w
                    var x = 0
                    while x < w {
                        let v = (x & 1 == 0 ? first[x] : second[x]) + black + sigma * rng.gaussian()
                        dst[x] = UInt16(min(max(v.rounded(), 0), white))
                        x += 1
                    }
                }
            }
            count = w * h
        }
    }
}

/// A raw pointer handed to concurrentPerform workers, each writing its own rows.
struct SendablePointer<T>: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<T>
    init(_ pointer: UnsafeMutablePointer<T>) { self.pointer = pointer }
}
