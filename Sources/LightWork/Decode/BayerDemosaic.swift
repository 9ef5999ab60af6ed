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

    /// This kernel over `bayer`, which the caller keeps alive and unchanged while the tiles run.
    func tiles(over bayer: UnsafePointer<lw_bayer>) -> DemosaicTiles {
        let (mosaic, kernel) = (UncheckedSendable(bayer), self.kernel)
        return DemosaicTiles(width: Int(bayer.pointee.width), height: Int(bayer.pointee.height), tile: tile, scratchBytes: scratchBytes,
                             kernel: { x0, y0, scratch, out in kernel(mosaic.value, x0, y0, scratch, out) }, release: {})
    }

    /// Demosaics every tile of `bayer` over the engine's threads into `out` (width × height × 4: balanced camera RGB,
    /// 0…65535, fourth channel 0). Tiles are independent, so any thread count gives the same bytes.
    public func demosaic(_ bayer: UnsafePointer<lw_bayer>, into out: UnsafeMutablePointer<UInt16>, engine: EngineConfiguration) {
        tiles(over: bayer).run(into: out, engine: engine)
    }
}

/// LightWork's own demosaic (AHD by default, RCD or dual) of the 2×2 Bayer mosaic LibRaw unpacked: black level, white
/// balance and highlight clipping as LibRaw's `dcraw_process` applies them (`LibRawMosaic`), then the kernel on tiles over the
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
        let filters = lr.pointee.idata.filters
        guard filters > 1000 else { return nil }
        // LibRaw's filter word: two bits of colour per (row mod 8, column mod 2); 3 is the second green.
        func fc(_ row: Int, _ col: Int) -> Int { Int(filters >> UInt32((((row << 1) & 14) | (col & 1)) << 1) & 3) }
        for row in 0..<8 { for col in 0..<2 where fc(row, col) != fc(row & 1, col) { return nil } }
        let raw4 = (0..<4).map { fc($0 >> 1, $0 & 1) }
        let colours = raw4.map { $0 == 3 ? 1 : $0 }
        guard colours.sorted() == [0, 1, 1, 2],
              let m = LibRawMosaic(libRaw: lr, period: 2, sites: raw4, chosen: chosen) else { return nil }

        var b = lw_bayer()
        b.raw = m.raw
        b.pitch = m.pitch
        b.width = Int32(m.width)
        b.height = Int32(m.height)
        _ = withUnsafeMutableBytes(of: &b.colour) { $0.bindMemory(to: Int32.self).update(from: colours.map { Int32($0) }) }
        _ = withUnsafeMutableBytes(of: &b.black) { $0.bindMemory(to: Float.self).update(from: m.blacks) }
        _ = withUnsafeMutableBytes(of: &b.scale) { $0.bindMemory(to: Float.self).update(from: m.scales) }
        bayer = b
        multipliers = m.multipliers
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
