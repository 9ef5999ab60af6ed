import Foundation

/// `--rotate DEGREES` (−45…45; positive turns the picture counter-clockwise): straightens the frame and keeps the
/// largest upright crop of the original aspect ratio, centred, resampled bicubically (Keys, a = −0.5) in linear
/// light.
///
/// The crop: a W×H frame turned by θ contains the centred axis-aligned w×h rectangle exactly when that rectangle,
/// turned back, fits in W×H: w·|cos θ| + h·|sin θ| ≤ W and w·|sin θ| + h·|cos θ| ≤ H. With w = k·W, h = k·H,
///
///     k = min(W / (W·|cos θ| + H·|sin θ|), H / (W·|sin θ| + H·|cos θ|))
///
/// and the output is ⌊k·W⌋ × ⌊k·H⌋ pixels (never a pixel outside the rotated frame). For a centrally symmetric
/// convex frame, the centred rectangle is the largest of its aspect.
public enum Rotate: DevelopModule {
    public enum Setting: DevelopSetting {
        case degrees(Double)

        public init(parsing text: String) throws {
            let t = text.trimmingCharacters(in: .whitespaces)
            guard let v = Double(t), v.isFinite, (-45...45).contains(v) else {
                throw LightWorkError.usage("--rotate \(text): give an angle in degrees between -45 and 45 (positive turns counter-clockwise), e.g. -1.5")
            }
            self = .degrees(v == 0 ? 0 : v)
        }

        public var text: String {
            switch self { case .degrees(let v): return String(format: "%+.2f", v) }
        }

        public var isOff: Bool {
            switch self { case .degrees(let v): return v == 0 }
        }

        var degrees: Double { switch self { case .degrees(let v): return v } }
    }

    public static let descriptor = DevelopDescriptor(
        name: "rotate", flag: "rotate", placeholder: "DEGREES",
        help: "straighten by -45…45 degrees (positive: counter-clockwise), keeping the largest upright crop of the frame's aspect (default 0)",
        placement: .scene)

    public static let defaultSetting = Setting.degrees(0)

    /// The size of the largest upright crop of a `width`×`height` frame turned by `degrees` (the formula above).
    public static func croppedSize(width: Int, height: Int, degrees: Double) -> (width: Int, height: Int) {
        let theta = degrees * .pi / 180
        let c = abs(cos(theta)), s = abs(sin(theta))
        let W = Double(width), H = Double(height)
        let k = min(W / (W * c + H * s), H / (W * s + H * c))
        // The 1e-9 keeps an exact fit (0°, or k·W a whole number) from losing a pixel to rounding.
        return (max(1, Int((k * W + 1e-9).rounded(.down))), max(1, Int((k * H + 1e-9).rounded(.down))))
    }

    /// Keys' cubic convolution weights (a = −0.5) of taps −1, 0, 1, 2 at fraction `t` (they reproduce linear
    /// ramps exactly, which the geometry tests rely on).
    @inline(__always) static func cubicWeights(_ t: Float) -> SIMD4<Float> {
        let t2 = t * t, t3 = t2 * t
        return SIMD4(-0.5 * t3 + t2 - 0.5 * t,
                     1.5 * t3 - 2.5 * t2 + 1,
                     -1.5 * t3 + 2 * t2 + 0.5 * t,
                     0.5 * t3 - 0.5 * t2)
    }

    public static func apply(_ setting: Setting, to image: PlanarImage, context: inout DevelopContext) throws -> PlanarImage {
        let degrees = setting.degrees
        let size = croppedSize(width: image.width, height: image.height, degrees: degrees)
        let out = image.sameKind(width: size.width, height: size.height)
        let theta = degrees * .pi / 180
        let c = cos(theta), s = sin(theta)
        let W = image.width, H = image.height, w = size.width
        // Output pixel (x, y) has its centre at offset (dx, dy) from the crop's centre; the content there comes
        // from offset (dx·c − dy·s, dx·s + dy·c) from the source's centre (y points down, so this turns the
        // picture counter-clockwise). Source index coordinates are continuous coordinates − 0.5.
        let sx0 = Double(W) / 2 - 0.5, sy0 = Double(H) / 2 - 0.5
        let planes = [(image.r, out.r), (image.g, out.g), (image.b, out.b)] + (image.alpha.map { [($0, out.alpha!)] } ?? [])
        let me = UncheckedSendable(planes)
        Parallel.forEach(size.height, workers: context.engine.workers(for: size.height)) { _, y in
            let dy = Double(y) + 0.5 - Double(size.height) / 2
            let planes = me.value
            for x in 0..<w {
                let dx = Double(x) + 0.5 - Double(w) / 2
                let fx = sx0 + dx * c - dy * s, fy = sy0 + dx * s + dy * c
                let ix = Int(fx.rounded(.down)), iy = Int(fy.rounded(.down))
                let wx = cubicWeights(Float(fx - Double(ix))), wy = cubicWeights(Float(fy - Double(iy)))
                let interior = ix >= 1 && ix + 2 < W && iy >= 1 && iy + 2 < H
                for (src, dst) in planes {
                    // The 4×4 taps, edge pixels replicated outside the frame; the same sums either way.
                    var t0, t1, t2, t3: SIMD4<Float>
                    if interior {
                        let p = UnsafeRawPointer(src + (iy - 1) * W + ix - 1), stride = W * MemoryLayout<Float>.stride
                        t0 = p.loadUnaligned(as: SIMD4<Float>.self)
                        t1 = p.loadUnaligned(fromByteOffset: stride, as: SIMD4<Float>.self)
                        t2 = p.loadUnaligned(fromByteOffset: 2 * stride, as: SIMD4<Float>.self)
                        t3 = p.loadUnaligned(fromByteOffset: 3 * stride, as: SIMD4<Float>.self)
                    } else {
                        func row(_ j: Int) -> SIMD4<Float> {
                            let r = src + min(H - 1, max(0, iy - 1 + j)) * W
                            return SIMD4(r[min(W - 1, max(0, ix - 1))], r[min(W - 1, max(0, ix))],
                                         r[min(W - 1, max(0, ix + 1))], r[min(W - 1, max(0, ix + 2))])
                        }
                        t0 = row(0); t1 = row(1); t2 = row(2); t3 = row(3)
                    }
                    var column: SIMD4<Float> = wy[0] * t0
                    column += wy[1] * t1
                    column += wy[2] * t2
                    column += wy[3] * t3
                    let v: SIMD4<Float> = column * wx
                    dst[y * w + x] = (v[0] + v[1]) + (v[2] + v[3])
                }
            }
        }
        // Cubic overshoot must not make coverage leave 0…1.
        if let a = out.alpha { for i in 0..<out.pixelCount { a[i] = min(1, max(0, a[i])) } }
        context.decisions["rotate"] = "\(setting.text)° bicubic, largest upright crop \(size.width)×\(size.height) of \(W)×\(H)"
        return out
    }
}
