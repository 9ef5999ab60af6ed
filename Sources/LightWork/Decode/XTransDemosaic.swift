import CLibRaw
import CShims
import Foundation

/// LightWork's own demosaic of Fujifilm's 6 × 6 X-Trans mosaic (`CShims/xtrans.c`, in the manner of Markesteijn's
/// one pass): black level, white balance and clipping as `LibRawMosaic` decides them for every layout, then the kernel on tiles over
/// the engine's threads. It replaces LibRaw's `xtrans_interpolate` (three passes at LibRaw's default quality) on
/// ordinary X-Trans files; Fuji's rotated sensors, auto white balance, other 6 × 6 layouts the kernel's plan
/// refuses, and highlight reconstruction stay with LibRaw.
struct XTransDemosaic {
    /// The mosaic, its black levels and scales (the homogeneity matrix is set per run).
    private(set) var mosaic: lw_xtrans
    /// The white-balance multipliers applied, smallest 1, as `BayerDemosaic.multipliers`.
    let multipliers: SIMD3<Double>
    var width: Int { Int(mosaic.width) }
    var height: Int { Int(mosaic.height) }

    /// The mosaic of the X-Trans file unpacked in `lr`, or nil when LibRaw's own processing must handle it.
    /// `multipliers` (camera R, G, B) replace the file's balance when given (`--wb` other than camera).
    init?(libRaw lr: UnsafeMutablePointer<libraw_data_t>, multipliers chosen: SIMD3<Double>? = nil) {
        guard lr.pointee.idata.filters == 9 else { return nil }
        // LibRaw's xtrans[][] is the layout of the visible image (its xtrans_abs shifted by the margins).
        let colours = (0..<36).map { Int(lw_libraw_xtrans(lr, Int32($0))) }
        guard colours.allSatisfy({ (0...2).contains($0) }),
              let m = LibRawMosaic(libRaw: lr, period: 6, sites: colours, chosen: chosen) else { return nil }

        var x = lw_xtrans()
        x.raw = m.raw
        x.pitch = m.pitch
        x.width = Int32(m.width)
        x.height = Int32(m.height)
        _ = withUnsafeMutableBytes(of: &x.colour) { $0.bindMemory(to: Int32.self).update(from: colours.map { Int32($0) }) }
        _ = withUnsafeMutableBytes(of: &x.black) { $0.bindMemory(to: Float.self).update(from: m.blacks) }
        _ = withUnsafeMutableBytes(of: &x.scale) { $0.bindMemory(to: Float.self).update(from: m.scales) }
        // A layout the kernel cannot plan (a red or blue site without a green beside it) stays with LibRaw.
        let plan = UnsafeMutableRawPointer.allocate(byteCount: lw_xtrans_plan_bytes(), alignment: 64)
        defer { plan.deallocate() }
        guard lw_xtrans_plan(&x, plan) != 0 else { return nil }
        mosaic = x
        multipliers = m.multipliers
    }

    /// The kernel over this mosaic, ready to run whole or band by band; `cameraToXYZ` maps balanced camera RGB to
    /// XYZ for the homogeneity test.
    func tiles(cameraToXYZ: Matrix3) -> DemosaicTiles {
        let x = UnsafeMutablePointer<lw_xtrans>.allocate(capacity: 1)
        x.initialize(to: mosaic)
        _ = withUnsafeMutableBytes(of: &x.pointee.to_xyz) { $0.bindMemory(to: Float.self).update(from: cameraToXYZ.m.map { Float($0) }) }
        let plan = UnsafeMutableRawPointer.allocate(byteCount: lw_xtrans_plan_bytes(), alignment: 64)
        _ = lw_xtrans_plan(x, plan)   // accepted in init
        let (layout, weights) = (UncheckedSendable(x), UncheckedSendable(UnsafeRawPointer(plan)))
        return DemosaicTiles(width: width, height: height, tile: Int(LW_XTRANS_TILE), scratchBytes: lw_xtrans_scratch_bytes(),
                             kernel: { x0, y0, scratch, out in lw_xtrans_tile(layout.value, weights.value, x0, y0, scratch, out) },
                             release: { layout.value.deallocate(); UnsafeMutableRawPointer(mutating: weights.value).deallocate() })
    }

    /// Demosaics into a new width × height × 4 buffer of balanced camera RGB (0…65535, fourth channel 0), the
    /// layout of LibRaw's `image`. The caller deallocates the buffer.
    func run(cameraToXYZ: Matrix3, engine: EngineConfiguration) -> UnsafeMutablePointer<UInt16> {
        tiles(cameraToXYZ: cameraToXYZ).run(engine: engine)
    }
}
