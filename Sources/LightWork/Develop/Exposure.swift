import Foundation

/// `--exposure EV`: a gain of 2^EV in linear light, before the base tone and the film chain (the chain's own
/// `brightness` is a look control with a highlight shoulder; this is the photographer's exposure correction).
public enum Exposure: DevelopModule {
    public enum Setting: DevelopSetting {
        /// A fixed change in stops (0 = off).
        case ev(Double)

        public init(parsing text: String) throws {
            let t = text.trimmingCharacters(in: .whitespaces)
            guard let v = Double(t), v.isFinite, (-10...10).contains(v) else {
                throw LightWorkError.usage("--exposure \(text): give a change in stops between -10 and +10, e.g. +0.5")
            }
            self = .ev(v)
        }

        public var text: String {
            switch self { case .ev(let v): return String(format: "%+.2f", v) }
        }

        public var isOff: Bool {
            switch self { case .ev(let v): return v == 0 }
        }
    }

    public static let descriptor = DevelopDescriptor(
        name: "exposure", flag: "exposure", placeholder: "EV",
        help: "exposure change in stops, in linear light before the look (default 0)", placement: .scene)

    public static let defaultSetting = Setting.ev(0)

    public static func apply(_ setting: Setting, to image: PlanarImage, context: inout DevelopContext) throws -> PlanarImage {
        guard case .ev(let ev) = setting else { return image }
        let gain = Float(exp2(ev))
        let n = image.width, me = UncheckedSendable(image)
        Parallel.forEach(image.height, workers: context.engine.workers(for: image.height)) { _, y in
            for p in [me.value.r, me.value.g, me.value.b] {
                let row = p + y * n
                for x in 0..<n { row[x] *= gain }
            }
        }
        context.decisions["exposure"] = setting.text + " EV"
        return image
    }
}
