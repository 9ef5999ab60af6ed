import CLibRaw
import CShims
import Foundation

/// LightWork's own demosaic of Fujifilm's 6 × 6 X-Trans mosaic (`CShims/xtrans.c`, in the manner of Markesteijn's
/// one pass): black level, white balance and clipping as `BayerDemosaic` applies them, then the kernel on tiles over
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
        let d = lr.pointee
        guard d.idata.filters == 9, d.idata.colors == 3, let raw = d.rawdata.raw_image,
              d.rawdata.ioparams.fuji_width == 0, d.rawdata.ioparams.zero_is_bad == 0, d.rawdata.ioparams.shrink == 0,
              d.rawdata.ph1_cblack == nil, d.rawdata.ph1_rblack == nil,
              d.color.as_shot_wb_applied == 0,
              chosen != nil || RawDecoder.whiteBalance(of: d) != .auto
        else { return nil }
        let (top, left, w, h) = (Int(d.sizes.top_margin), Int(d.sizes.left_margin), Int(d.sizes.width), Int(d.sizes.height))
        guard w >= 6, h >= 6, top + h <= Int(d.sizes.raw_height), left + w <= Int(d.sizes.raw_width),
              Int(d.sizes.raw_pitch) >= 2 * Int(d.sizes.raw_width) else { return nil }
        // LibRaw's xtrans[][] is the layout of the visible image (its xtrans_abs shifted by the margins).
        let colours = (0..<36).map { Int(lw_libraw_xtrans(lr, Int32($0))) }
        guard colours.allSatisfy({ (0...2).contains($0) }) else { return nil }

        // Black: the common level, the per-colour offsets and a pattern whose period divides the layout's.
        let cblack = (0..<(6 + 36)).map { lw_libraw_cblack(lr, Int32($0)) }
        let (pr, pc) = (Int(cblack[4]), Int(cblack[5]))
        guard pr <= 6, pc <= 6, pr == 0 || 6 % pr == 0, pc == 0 || 6 % pc == 0 else { return nil }
        let blacks: [Float] = (0..<36).map { k in
            let (row, col) = (k / 6, k % 6)
            let pattern = pr > 0 && pc > 0 ? Float(cblack[6 + (row % pr) * pc + col % pc]) : 0
            return Float(d.color.black) + Float(cblack[colours[k]]) + pattern
        }
        let range = Float(d.color.maximum) - blacks.min()!
        guard range > 0 else { return nil }

        let cam = DNGColorModel.floats(d.color.cam_mul), pre = DNGColorModel.floats(d.color.pre_mul)
        var mul = Array((RawDecoder.whiteBalance(of: d) == .asShot ? cam : pre).prefix(3))
        if let chosen { mul = [chosen.x, chosen.y, chosen.z].map { Float($0) } }
        if mul[1] == 0 { mul[1] = 1 }
        guard mul.allSatisfy({ $0 > 0 && $0.isFinite }) else { return nil }
        let smallest = mul.min()!

        var x = lw_xtrans()
        let pitch = Int(d.sizes.raw_pitch) / 2
        x.raw = UnsafePointer(raw + top * pitch + left)
        x.pitch = pitch
        x.width = Int32(w)
        x.height = Int32(h)
        _ = withUnsafeMutableBytes(of: &x.colour) { $0.bindMemory(to: Int32.self).update(from: colours.map { Int32($0) }) }
        _ = withUnsafeMutableBytes(of: &x.black) { $0.bindMemory(to: Float.self).update(from: blacks) }
        _ = withUnsafeMutableBytes(of: &x.scale) { $0.bindMemory(to: Float.self).update(from: colours.map { mul[$0] / smallest / range }) }
        // A layout the kernel cannot plan (a red or blue site without a green beside it) stays with LibRaw.
        let plan = UnsafeMutableRawPointer.allocate(byteCount: lw_xtrans_plan_bytes(), alignment: 64)
        defer { plan.deallocate() }
        guard lw_xtrans_plan(&x, plan) != 0 else { return nil }
        mosaic = x
        multipliers = SIMD3(Double(mul[0] / smallest), Double(mul[1] / smallest), Double(mul[2] / smallest))
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
