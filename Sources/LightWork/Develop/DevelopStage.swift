import CShims
import Foundation

/// RAW development between the decoder and the film chain, in scene-referred linear light (RAW: linear ProPhoto;
/// JPEG/PNG: their device RGB decoded to linear sRGB primaries). The modules, in order, declared once:
///
///     decode:  (inside RawDecoder)                                       → whiteBalance, highlights
///     scene:   denoise · lens · rotate · crop · aspect · sharpen · exposure · tone → before resizing
///     output:  outputSharpen                                             → after resizing
///
/// The geometry (lens, rotate, crop, aspect: `GeometricDevelopModule`s) is composed and resampled once, at the
/// final size; capture sharpening follows it, so it runs on the kept pixels only and needs no resampling between.
/// Recipes' `develop` section, the CLI's flags, the spec and the manifest all read `modules`. A module that is off
/// costs nothing; when every module of a placement is off the image is not even converted to float planes.
public enum DevelopStage {
    /// Every module in the order it runs.
    public static let modules: [any DevelopModule.Type] = [
        WhiteBalance.self,
        Highlights.self,
        Denoise.self,
        LensCorrection.self,
        Rotate.self,
        Crop.self,
        Aspect.self,
        Sharpen.self,
        Exposure.self,
        Tone.self,
        OutputSharpen.self,
    ]

    /// The modules' names, in order.
    public static let names: [String] = modules.map { $0.descriptor.name }

    /// The module called `name`.
    public static func module(named name: String) -> (any DevelopModule.Type)? {
        modules.first { $0.descriptor.name == name }
    }

    /// Runs the modules of `placement` that are on over `image` (nil-returning when none is, so the caller keeps
    /// its image untouched). On the RGB path, decode-placement modules run at the start of the scene stage, or
    /// are skipped with their note.
    public static func run(_ placement: DevelopPlacement, settings: DevelopSettings, image: WorkingImage,
                           context: inout DevelopContext) throws -> WorkingImage? {
        try run([placement], settings: settings, image: image, context: &context)
    }

    /// Runs the modules of several placements in one go, on one conversion to float planes and back (the scene
    /// and output placements when nothing is resized between them). With `overwriting` the caller gives `image` up,
    /// and a placement of per-pixel modules writes its result back into it (no second image).
    public static func run(_ placements: Set<DevelopPlacement>, settings: DevelopSettings, image: WorkingImage,
                           overwriting: Bool = false, context: inout DevelopContext) throws -> WorkingImage? {
        let active = activeModules(placements, settings: settings, context: &context)
        guard !active.isEmpty else { return nil }
        // Only per-pixel modules (the export default, the base tone, alone or with a fixed exposure): row by row.
        if let allPoints = pointOperations(of: active, settings: settings, context: &context) {
            return pointed(image, allPoints, into: overwriting ? image : nil, engine: context.engine)
        }
        return try runPlanar(active, settings: settings, image: image, context: &context)
    }

    /// The per-pixel operations of `placements`' modules, in order, when every module that runs there is per-pixel
    /// (the export default `tone standard`, alone or with a fixed exposure), recording their decisions and notes in
    /// `context`; nil (and `context` as it was) when none runs or one needs more than a pixel. A decoder that applies
    /// them to its rows (`DecodeOptions.developInDecode`) gives the bits `run` would.
    public static func pointOperations(_ placements: Set<DevelopPlacement>, settings: DevelopSettings,
                                       context: inout DevelopContext) -> [PointOperation]? {
        var trial = context
        let active = activeModules(placements, settings: settings, context: &trial)
        guard !active.isEmpty, let operations = pointOperations(of: active, settings: settings, context: &trial) else { return nil }
        context = trial
        return operations
    }

    private static func pointOperations(of active: [any DevelopModule.Type], settings: DevelopSettings,
                                        context: inout DevelopContext) -> [PointOperation]? {
        var trial = context
        let allPoints = active.compactMap { ($0 as? any PointDevelopModule.Type)?.pointOperation(settings, context: &trial) }
        guard allPoints.count == active.count else { return nil }
        context = trial
        return allPoints
    }

    /// The modules that run at `placements` under `settings`, in order (notes for those the RGB path skips go to `context`).
    private static func activeModules(_ placements: Set<DevelopPlacement>, settings: DevelopSettings,
                                      context: inout DevelopContext) -> [any DevelopModule.Type] {
        var active: [any DevelopModule.Type] = []
        for module in modules where !settings.isOff(module.descriptor.name) {
            let d = module.descriptor
            var runsHere = placements.contains(d.placement)
            if context.kind == .rgb, d.placement == .decode { runsHere = placements.contains(.scene) }
            guard runsHere else { continue }
            if context.kind == .rgb, let note = d.rgbSkipNote {
                if !settings.isExportDefault(d.name) { context.notes.append("\(d.name): \(note)") }
                continue
            }
            active.append(module)
        }
        return active
    }

    /// `active` on float planes: geometry composed and resampled, per-pixel runs in one pass, the rest in turn.
    private static func runPlanar(_ active: [any DevelopModule.Type], settings: DevelopSettings, image: WorkingImage,
                                  context: inout DevelopContext) throws -> WorkingImage? {
        var planes = PlanarImage(image, engine: context.engine)
        // Consecutive geometric modules compose into one geometry, resampled when a pixel module or the end needs it;
        // consecutive per-pixel modules run as one pass over the rows, and when they come last, inside the
        // conversion back to half floats (no pass of their own).
        var geometry: DevelopGeometry?
        var points: [PointOperation] = []
        for module in active {
            if let geometric = module as? any GeometricDevelopModule.Type {
                if !points.isEmpty { planes = PointOperation.run(points, on: planes, engine: context.engine); points = [] }
                var g = geometry ?? DevelopGeometry(source: planes)
                try geometric.compose(settings, onto: &g, context: &context)
                geometry = g
                continue
            }
            if let g = geometry { planes = g.render(engine: context.engine); geometry = nil }
            if let point = module as? any PointDevelopModule.Type, let operation = point.pointOperation(settings, context: &context) {
                points.append(operation)
                continue
            }
            if !points.isEmpty { planes = PointOperation.run(points, on: planes, engine: context.engine); points = [] }
            planes = try module.run(settings, on: planes, context: &context)
        }
        if let g = geometry { planes = g.render(engine: context.engine) }
        return planes.workingImage(space: image.space, applying: points, engine: context.engine)
    }

    /// `image` with `operations` applied to every pixel in turn, a row at a time: each row is decoded to floats
    /// exactly as `PlanarImage(image)` decodes it and encoded back as `PlanarImage.workingImage` encodes it, so the
    /// result has the bits of the planar path without its three plane-sized buffers.
    /// `target` may be `image` itself: each row is read whole before it is written.
    static func pointed(_ image: WorkingImage, _ operations: [PointOperation], into target: WorkingImage? = nil,
                        engine: EngineConfiguration) -> WorkingImage {
        let w = image.width, h = image.height
        let out = target ?? WorkingImage.unfilled(width: w, height: h, space: image.space, hasAlpha: image.hasAlpha)
        precondition(out.width == w && out.height == h && out.space == image.space && out.hasAlpha == image.hasAlpha)
        let decoder = image.space.encoding == .sRGBCurve ? FastCurve.decoder(.sRGB).halfTable() : nil
        let encoder = image.space.encoding == .sRGBCurve ? FastCurve.encoder(.sRGB) : nil
        let workers = engine.workers(for: h)
        let scratch = UncheckedSendable(UnsafeMutablePointer<Float>.allocate(capacity: 5 * w * workers))
        defer { scratch.value.deallocate() }
        Parallel.forEach(h, workers: workers) { worker, y in
            let base = scratch.value + worker * 5 * w
            let r = base, g = base + w, b = base + 2 * w, a = base + 3 * w, ones = base + 4 * w
            if let decoder {
                decoder.withUnsafeBufferPointer { lw_rgba_half_to_planar_mapped(image.row(y), $0.baseAddress, r, g, b, a, w) }
            } else {
                lw_rgba_half_to_planar(image.row(y), r, g, b, a, w)
            }
            for operation in operations { operation.apply(r, g, b, w) }
            if let encoder { encoder.apply(r, count: w); encoder.apply(g, count: w); encoder.apply(b, count: w) }
            if !image.hasAlpha { ones.initialize(repeating: 1, count: w) }
            lw_planar_to_rgba_half(r, g, b, image.hasAlpha ? UnsafePointer(a) : UnsafePointer(ones), out.row(y), w)
        }
        return out
    }
}
