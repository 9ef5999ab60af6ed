import Foundation

/// `--crop X,Y,W,H`: keeps the rectangle given as fractions of the frame after `rotate` (left, top, width,
/// height). Pixel edges are rounded to the nearest pixel (halves away from zero):
///
///     x0 = round(X·width), x1 = round((X+W)·width), output width = x1 − x0   (the same for y with the height)
///
/// so two crops that share an edge fraction share that pixel edge.
public enum Crop: GeometricDevelopModule {
    public enum Setting: DevelopSetting {
        case off
        case fractions(x: Double, y: Double, width: Double, height: Double)

        public init(parsing text: String) throws {
            let t = text.trimmingCharacters(in: .whitespaces).lowercased()
            if t == "off" { self = .off; return }
            let v = t.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
            let usage = "--crop \(text): give X,Y,W,H as fractions of the frame (left, top, width, height) inside 0…1, e.g. 0.1,0.05,0.8,0.9"
            guard v.count == 4, let x = v[0], let y = v[1], let w = v[2], let h = v[3], [x, y, w, h].allSatisfy(\.isFinite) else {
                throw LightWorkError.usage(usage)
            }
            guard x >= 0, y >= 0, w > 0, h > 0, x + w <= 1 + 1e-9, y + h <= 1 + 1e-9 else {
                throw LightWorkError.usage("--crop \(text): the rectangle reaches outside the frame (X+W and Y+H must be at most 1, W and H above 0)")
            }
            self = (x == 0 && y == 0 && w == 1 && h == 1) ? .off : .fractions(x: x, y: y, width: w, height: h)
        }

        public var text: String {
            switch self {
            case .off: return "off"
            case let .fractions(x, y, w, h): return [x, y, w, h].map(DevelopNumber.text).joined(separator: ",")
            }
        }

        public var isOff: Bool { self == .off }
    }

    public static let descriptor = DevelopDescriptor(
        name: "crop", flag: "crop", placeholder: "X,Y,W,H",
        help: "crop to a rectangle given as fractions of the frame after --rotate: left,top,width,height (default off)",
        placement: .scene)

    public static let defaultSetting = Setting.off

    /// The pixel rectangle of `setting` in a `width`×`height` frame (the rounding above).
    public static func rectangle(_ setting: Setting, width: Int, height: Int) -> (x: Int, y: Int, width: Int, height: Int) {
        guard case let .fractions(fx, fy, fw, fh) = setting else { return (0, 0, width, height) }
        let x0 = Int((fx * Double(width)).rounded()), x1 = min(width, Int(((fx + fw) * Double(width)).rounded()))
        let y0 = Int((fy * Double(height)).rounded()), y1 = min(height, Int(((fy + fh) * Double(height)).rounded()))
        return (x0, y0, x1 - x0, y1 - y0)
    }

    public static func compose(_ setting: Setting, onto geometry: inout DevelopGeometry, context: inout DevelopContext) throws {
        let W = geometry.width, H = geometry.height
        let rect = rectangle(setting, width: W, height: H)
        guard rect.width > 0, rect.height > 0 else {
            throw LightWorkError.blankImage("--crop \(setting.text) keeps no whole pixel of the \(W)×\(H) frame")
        }
        context.decisions["crop"] = "\(rect.width)×\(rect.height) at \(rect.x),\(rect.y) of \(W)×\(H)"
        geometry.crop(x: rect.x, y: rect.y, width: rect.width, height: rect.height)
    }
}

extension PlanarImage {
    /// The `width`×`height` rectangle at (`x`, `y`) as a new image (the rectangle must lie inside this one).
    func cropped(x: Int, y: Int, width cw: Int, height ch: Int, engine: EngineConfiguration) -> PlanarImage {
        precondition(x >= 0 && y >= 0 && cw > 0 && ch > 0 && x + cw <= width && y + ch <= height, "crop outside the image")
        if x == 0 && y == 0 && cw == width && ch == height { return self }
        let out = sameKind(width: cw, height: ch)
        let pairs = [(r, out.r), (g, out.g), (b, out.b)] + (alpha.map { [($0, out.alpha!)] } ?? [])
        let me = UncheckedSendable(pairs), w = width
        Parallel.forEach(ch, workers: engine.workers(for: ch)) { _, row in
            for (src, dst) in me.value { (dst + row * cw).update(from: src + (y + row) * w + x, count: cw) }
        }
        return out
    }
}

/// Numbers in develop settings' canonical text: the shortest form that reads back to the same value (`0.1`, `3`).
enum DevelopNumber {
    static func text(_ v: Double) -> String {
        if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        return "\(v)"
    }
}
