import CLibRaw
import CShims
import Foundation

/// One of LightWork's own demosaic kernels for a 2×2 Bayer mosaic (`CShims/lw_demosaic.h`).
public enum BayerKernel: String, Sendable, CaseIterable {
    /// Hirakawa–Parks adaptive homogeneity-directed (`CShims/demosaic.c`).
    case ahd
    /// Luis Sanz Rodríguez's ratio-corrected demosaic (`CShims/rcd.c`).
    case rcd
    /// RCD in smooth areas, a median colour-difference estimate in fine texture (`CShims/dual.c`).
    case dual

    /// Output pixels along a tile's edge.
    var tile: Int {
        switch self {
        case .ahd: return Int(LW_AHD_TILE)
        case .rcd: return Int(LW_RCD_TILE)
        case .dual: return Int(LW_DUAL_TILE)
        }
    }
    /// Scratch bytes one tile needs.
    var scratchBytes: Int {
        switch self {
        case .ahd: return lw_ahd_scratch_bytes()
        case .rcd: return lw_rcd_scratch_bytes()
        case .dual: return lw_dual_scratch_bytes()
        }
    }

    /// The C kernel (`lw_demosaic.h`'s tile contract).
    var kernel: @convention(c) @Sendable (UnsafePointer<lw_bayer>?, Int32, Int32, UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt16>?) -> Void {
        switch self {
        case .ahd: return lw_ahd_tile
        case .rcd: return lw_rcd_tile
        case .dual: return lw_dual_tile
        }
    }

    /// Demosaics every tile of `bayer` over the engine's threads into `out` (width × height × 4: balanced camera RGB,
    /// 0…65535, fourth channel 0). Tiles are independent, so any thread count gives the same bytes.
    public func demosaic(_ bayer: UnsafePointer<lw_bayer>, into out: UnsafeMutablePointer<UInt16>, engine: EngineConfiguration) {
        let kernel = self.kernel
        let tile = self.tile, scratchBytes = self.scratchBytes, width = Int(bayer.pointee.width)
        let across = (width + tile - 1) / tile, down = (Int(bayer.pointee.height) + tile - 1) / tile
        let workers = engine.workers(for: across * down)
        let scratch = UncheckedSendable(UnsafeMutableRawPointer.allocate(byteCount: workers * scratchBytes, alignment: 64))
        defer { scratch.value.deallocate() }
        let (mosaic, target) = (UncheckedSendable(bayer), UncheckedSendable(out))
        Parallel.forEach(across * down, workers: workers) { worker, index in
            let y0 = (index / across) * tile
            kernel(mosaic.value, Int32((index % across) * tile), Int32(y0), scratch.value + worker * scratchBytes, target.value + y0 * width * 4)
        }
    }
}

/// LightWork's own demosaic (AHD by default, or RCD) of the 2×2 Bayer mosaic LibRaw unpacked: black level, white
/// balance and highlight clipping as LibRaw's `dcraw_process` applies them, then the kernel on tiles over the
/// engine's threads. It replaces `dcraw_process` for the default demosaic on ordinary Bayer files
/// because LibRaw's takes about 1.7 s per 24 MP on two cores where this takes about 0.4 s; every other layout
/// (X-Trans, Foveon, linear DNG, four-colour, Fuji's rotated sensors, auto white balance) stays with LibRaw.
/// Non-square pixels are stretched afterwards by `PixelAspect`, as LibRaw's processing does.
struct BayerDemosaic {
    /// The mosaic, its black levels and scales (the homogeneity matrix is set per run).
    private(set) var bayer: lw_bayer
    /// The white-balance multipliers applied, smallest 1: LibRaw's `pre_mul` after `scale_colors`.
    let multipliers: SIMD3<Double>
    var width: Int { Int(bayer.width) }
    var height: Int { Int(bayer.height) }

    /// The mosaic of the file unpacked in `lr`, or nil when LibRaw's own processing must handle its layout.
    /// `multipliers` (camera R, G, B) replace the file's balance when given (`--wb` other than camera).
    init?(libRaw lr: UnsafeMutablePointer<libraw_data_t>, multipliers chosen: SIMD3<Double>? = nil) {
        let d = lr.pointee
        let filters = d.idata.filters
        guard filters > 1000, d.idata.colors == 3, let raw = d.rawdata.raw_image,
              d.rawdata.ioparams.fuji_width == 0, d.rawdata.ioparams.zero_is_bad == 0, d.rawdata.ioparams.shrink == 0,
              d.rawdata.ph1_cblack == nil, d.rawdata.ph1_rblack == nil,
              d.color.as_shot_wb_applied == 0,
              chosen != nil || RawDecoder.whiteBalance(of: d) != .auto
        else { return nil }
        // The visible area must lie inside the stored rows (a damaged header must not send the kernel outside).
        let (top, left, w, h) = (Int(d.sizes.top_margin), Int(d.sizes.left_margin), Int(d.sizes.width), Int(d.sizes.height))
        guard w > 0, h > 0, top + h <= Int(d.sizes.raw_height), left + w <= Int(d.sizes.raw_width),
              Int(d.sizes.raw_pitch) >= 2 * Int(d.sizes.raw_width) else { return nil }
        // LibRaw's filter word: two bits of colour per (row mod 8, column mod 2); 3 is the second green.
        func fc(_ row: Int, _ col: Int) -> Int { Int(filters >> UInt32((((row << 1) & 14) | (col & 1)) << 1) & 3) }
        for row in 0..<8 { for col in 0..<2 where fc(row, col) != fc(row & 1, col) { return nil } }
        let raw4 = (0..<4).map { fc($0 >> 1, $0 & 1) }
        let colours = raw4.map { $0 == 3 ? 1 : $0 }
        guard colours.sorted() == [0, 1, 1, 2] else { return nil }

        // Black: the common level, the per-colour offsets and a pattern of at most 2 × 2.
        let cblack = (0..<10).map { lw_libraw_cblack(lr, Int32($0)) }
        let (pr, pc) = (Int(cblack[4]), Int(cblack[5]))
        guard pr <= 2, pc <= 2 else { return nil }
        let blacks: [Float] = (0..<4).map { k in
            let (row, col) = (k >> 1, k & 1)
            let pattern = pr > 0 && pc > 0 ? Float(cblack[6 + (row % pr) * pc + col % pc]) : 0
            return Float(d.color.black) + Float(cblack[raw4[k]]) + pattern
        }
        // LibRaw scales (value − black) so that (maximum − common black) becomes white.
        let range = Float(d.color.maximum) - blacks.min()!
        guard range > 0 else { return nil }

        // As-shot balance when the camera recorded one, else LibRaw's daylight multipliers.
        let cam = DNGColorModel.floats(d.color.cam_mul), pre = DNGColorModel.floats(d.color.pre_mul)
        var mul = RawDecoder.whiteBalance(of: d) == .asShot ? cam : pre
        if let chosen { mul = [chosen.x, chosen.y, chosen.z, chosen.y].map { Float($0) } }
        if mul[1] == 0 { mul[1] = 1 }
        if mul[3] == 0 { mul[3] = mul[1] }
        guard mul.allSatisfy({ $0 > 0 && $0.isFinite }) else { return nil }
        let smallest = mul.min()!
        let scales: [Float] = (0..<4).map { mul[raw4[$0]] / smallest / range }

        let pitch = Int(d.sizes.raw_pitch) / 2
        let origin = raw + Int(d.sizes.top_margin) * pitch + Int(d.sizes.left_margin)
        var b = lw_bayer()
        b.raw = UnsafePointer(origin)
        b.pitch = pitch
        b.width = Int32(d.sizes.width)
        b.height = Int32(d.sizes.height)
        withUnsafeMutableBytes(of: &b.colour) { $0.bindMemory(to: Int32.self).update(from: colours.map { Int32($0) }) }
        withUnsafeMutableBytes(of: &b.black) { $0.bindMemory(to: Float.self).update(from: blacks) }
        withUnsafeMutableBytes(of: &b.scale) { $0.bindMemory(to: Float.self).update(from: scales) }
        bayer = b
        multipliers = SIMD3(Double(mul[0] / smallest), Double(mul[1] / smallest), Double(mul[2] / smallest))
    }

    /// `kernel` over this mosaic, ready to run whole or band by band; `cameraToXYZ` maps balanced camera RGB to XYZ
    /// for AHD's homogeneity test.
    func tiles(_ kernel: BayerKernel, cameraToXYZ: Matrix3) -> DemosaicTiles {
        let b = UnsafeMutablePointer<lw_bayer>.allocate(capacity: 1)
        b.initialize(to: bayer)
        _ = withUnsafeMutableBytes(of: &b.pointee.to_xyz) { $0.bindMemory(to: Float.self).update(from: cameraToXYZ.m.map { Float($0) }) }
        let (mosaic, tile) = (UncheckedSendable(b), kernel.kernel)
        return DemosaicTiles(width: width, height: height, tile: kernel.tile, scratchBytes: kernel.scratchBytes,
                             kernel: { x0, y0, scratch, out in tile(mosaic.value, x0, y0, scratch, out) },
                             release: { mosaic.value.deallocate() })
    }

    /// Demosaics with `kernel` into a new width × height × 4 buffer of balanced camera RGB (0…65535, fourth channel
    /// 0), the layout of LibRaw's `image`. The caller deallocates the buffer.
    func run(_ kernel: BayerKernel, cameraToXYZ: Matrix3, engine: EngineConfiguration) -> UnsafeMutablePointer<UInt16> {
        tiles(kernel, cameraToXYZ: cameraToXYZ).run(engine: engine)
    }
}
