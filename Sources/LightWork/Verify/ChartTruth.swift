import Foundation

/// A chart's patch-truth file, as `lightwork-tools make-sample-dng --truth` writes it (Samples/scene*.truth.json):
/// the image size it describes and, per patch, its reference CIELAB (D50) and a safe area to sample.
/// Only what chart mode needs is read; other keys are ignored.
public struct ChartTruth: Sendable, Codable {
    /// A rectangle in the truth's pixel grid.
    public struct Rect: Sendable, Codable, Equatable {
        public var x: Int, y: Int, w: Int, h: Int
        public init(x: Int, y: Int, w: Int, h: Int) { self.x = x; self.y = y; self.w = w; self.h = h }
    }

    /// One reference patch.
    public struct Patch: Sendable, Codable {
        public var index: Int?
        public var name: String
        /// Reference CIELAB, D50.
        public var labD50: [Double]
        /// The area to average (uniform after demosaicing).
        public var centre: Rect
    }

    /// A neutral step of the grey ramp (its brightest step anchors `exposure: match-white`).
    public struct RampStep: Sendable, Codable {
        public var labD50: [Double]
        public var centre: Rect
    }

    public var width: Int
    public var height: Int
    public var sceneIlluminant: String?
    public var patches: [Patch]
    public var greyRamp: [RampStep]?

    /// Reads and checks a truth file (patches inside the image, three Lab values each).
    public static func load(from url: URL) throws -> ChartTruth {
        let data: Data
        do { data = try Data(contentsOf: url) } catch { throw LightWorkError.missingInput(url.path) }
        let truth: ChartTruth
        do { truth = try JSONDecoder().decode(ChartTruth.self, from: data) } catch {
            throw LightWorkError.invalidDocument(file: url.path, path: VerifySuite.jsonPath(error), reason: VerifySuite.reason(error))
        }
        guard truth.width > 0, truth.height > 0, !truth.patches.isEmpty else {
            throw LightWorkError.invalidDocument(file: url.path, path: "$", reason: "a truth file needs width, height and at least one patch")
        }
        for (i, p) in truth.patches.enumerated() {
            guard p.labD50.count == 3 else {
                throw LightWorkError.invalidDocument(file: url.path, path: "$.patches[\(i)].labD50", reason: "three values L, a, b")
            }
            let r = p.centre
            guard r.w > 0, r.h > 0, r.x >= 0, r.y >= 0, r.x + r.w <= truth.width, r.y + r.h <= truth.height else {
                throw LightWorkError.invalidDocument(file: url.path, path: "$.patches[\(i)].centre", reason: "outside the \(truth.width)×\(truth.height) image")
            }
        }
        return truth
    }
}
