import CLibRaw
import CShims
import Foundation

/// What LightWork's own demosaics (`BayerDemosaic`, `XTransDemosaic`) take from a LibRaw handle after its unpack,
/// decided once for every layout: whether LightWork may demosaic the file at all, where the visible image starts in
/// `raw_image`, the black level of every site of the colour layout, and the scale that white-balances and
/// normalises each site as LibRaw's `dcraw_process` would (`scale_colors`), so the two layouts cannot drift apart.
struct LibRawMosaic {
    /// Visible pixel (0, 0) of the mosaic, its row length in elements and the visible size.
    let raw: UnsafePointer<UInt16>
    let pitch: Int
    let width: Int, height: Int
    /// Black level and scale ((raw − black) · scale is the balanced value, 1 at white) at each site of the layout,
    /// row by row over its period × period cell.
    let blacks: [Float]
    let scales: [Float]
    /// The white-balance multipliers applied (camera R, G, B), smallest 1.
    let multipliers: SIMD3<Double>

    /// The mosaic of the file unpacked in `lr`, or nil when LibRaw's own processing must handle it. `sites` gives,
    /// for each site of a `period` × `period` layout (row by row), LibRaw's colour index there (0 red, 1 green,
    /// 2 blue, 3 a Bayer file's second green): it picks the site's black offset and multiplier. `chosen` (camera
    /// R, G, B) replaces the file's balance (`--wb` other than camera).
    init?(libRaw lr: UnsafeMutablePointer<libraw_data_t>, period: Int, sites: [Int], chosen: SIMD3<Double>?) {
        let d = lr.pointee
        guard sites.count == period * period, d.idata.colors == 3, let raw = d.rawdata.raw_image,
              d.rawdata.ioparams.fuji_width == 0, d.rawdata.ioparams.zero_is_bad == 0, d.rawdata.ioparams.shrink == 0,
              d.rawdata.ph1_cblack == nil, d.rawdata.ph1_rblack == nil,
              d.color.as_shot_wb_applied == 0,
              chosen != nil || RawDecoder.whiteBalance(of: d) != .auto
        else { return nil }
        // The visible area must lie inside the stored rows (a damaged header must not send a kernel outside), and hold
        // at least one whole X-Trans period (a Bayer kernel mirrors any size).
        let (top, left, w, h) = (Int(d.sizes.top_margin), Int(d.sizes.left_margin), Int(d.sizes.width), Int(d.sizes.height))
        let least = period == 2 ? 1 : period
        guard w >= least, h >= least, top + h <= Int(d.sizes.raw_height), left + w <= Int(d.sizes.raw_width),
              Int(d.sizes.raw_pitch) >= 2 * Int(d.sizes.raw_width) else { return nil }

        // Black: the common level, the per-colour offsets and a pattern whose period divides the layout's.
        let cblack = (0..<(6 + period * period)).map { lw_libraw_cblack(lr, Int32($0)) }
        let (pr, pc) = (Int(cblack[4]), Int(cblack[5]))
        guard pr <= period, pc <= period, pr == 0 || period % pr == 0, pc == 0 || period % pc == 0 else { return nil }
        blacks = sites.indices.map { k in
            let (row, col) = (k / period, k % period)
            let pattern = pr > 0 && pc > 0 ? Float(cblack[6 + (row % pr) * pc + col % pc]) : 0
            return Float(d.color.black) + Float(cblack[sites[k]]) + pattern
        }
        // LibRaw scales (value − black) so that (maximum − common black) becomes white.
        let range = Float(d.color.maximum) - blacks.min()!
        guard range > 0 else { return nil }

        // As-shot balance when the camera recorded one, else LibRaw's daylight multipliers; the second green's
        // multiplier is the first's when the file gives none. Every multiplier a site uses must be usable.
        let cam = DNGColorModel.floats(d.color.cam_mul), pre = DNGColorModel.floats(d.color.pre_mul)
        var mul = RawDecoder.whiteBalance(of: d) == .asShot ? cam : pre
        if let chosen { mul = [chosen.x, chosen.y, chosen.z, chosen.y].map { Float($0) } }
        if mul[1] == 0 { mul[1] = 1 }
        if mul[3] == 0 { mul[3] = mul[1] }
        let used = sites.contains(3) || period == 2 ? mul : Array(mul.prefix(3))
        guard used.allSatisfy({ $0 > 0 && $0.isFinite }) else { return nil }
        let smallest = used.min()!
        scales = sites.map { mul[$0] / smallest / range }

        let pitch = Int(d.sizes.raw_pitch) / 2
        self.raw = UnsafePointer(raw + top * pitch + left)
        self.pitch = pitch
        (width, height) = (w, h)
        multipliers = SIMD3(Double(mul[0] / smallest), Double(mul[1] / smallest), Double(mul[2] / smallest))
    }
}
