import CShims
import Foundation

/// One of LightWork's tile demosaics (`lw_demosaic.h`) ready to run over one mosaic: the kernel, its tile edge and
/// scratch size, and the mosaic description the kernel reads, owned here so its pointers outlive every run.
///
/// It runs two ways. `run` fills a whole width × height × 4 buffer, which highlight reconstruction and pixel-aspect
/// stretching read. `runBands` demosaics one band of tile rows at a time into a per-thread buffer and hands it on
/// while it is still in the cache (`RawDecoder.convertBands` turns it into half floats), so a conversion never holds
/// the 8-bytes-a-pixel buffer between the demosaic and the working image. Tiles and bands are independent: any
/// thread count gives the same bytes either way.
final class DemosaicTiles: @unchecked Sendable {
    /// The mosaic's visible size, in output pixels.
    let width: Int, height: Int
    /// Output pixels along a tile's edge; also the rows of one band.
    let tile: Int
    /// Scratch bytes one tile needs.
    let scratchBytes: Int
    /// `kernel(x0, y0, scratch, out)`: the tile at (x0, y0), written from `out` (its first row; rows `width` apart).
    private let kernel: @Sendable (Int32, Int32, UnsafeMutableRawPointer, UnsafeMutablePointer<UInt16>) -> Void
    private let release: @Sendable () -> Void

    /// `release` frees what `kernel` reads; it runs when the last run is over.
    init(width: Int, height: Int, tile: Int, scratchBytes: Int,
         kernel: @escaping @Sendable (Int32, Int32, UnsafeMutableRawPointer, UnsafeMutablePointer<UInt16>) -> Void,
         release: @escaping @Sendable () -> Void) {
        (self.width, self.height, self.tile, self.scratchBytes) = (width, height, tile, scratchBytes)
        self.kernel = kernel
        self.release = release
    }

    deinit { release() }

    /// Bands of `tile` rows (the last may be shorter).
    var bandCount: Int { (height + tile - 1) / tile }

    /// Demosaics every tile into a new width × height × 4 buffer of balanced camera RGB (0…65535, fourth channel
    /// 0), the layout of LibRaw's `image`. The caller deallocates it.
    func run(engine: EngineConfiguration) -> UnsafeMutablePointer<UInt16> {
        let out = UnsafeMutablePointer<UInt16>.allocate(capacity: width * height * 4)
        run(into: out, engine: engine)
        return out
    }

    /// Demosaics every tile into `out` (width × height × 4, as `run(engine:)` lays it out).
    func run(into out: UnsafeMutablePointer<UInt16>, engine: EngineConfiguration) {
        let across = (width + tile - 1) / tile
        let workers = engine.workers(for: across * bandCount)
        let scratch = UncheckedSendable(UnsafeMutableRawPointer.allocate(byteCount: workers * scratchBytes, alignment: 64))
        defer { scratch.value.deallocate() }
        let target = UncheckedSendable(out)
        let (tile, width, scratchBytes, kernel) = (self.tile, self.width, self.scratchBytes, self.kernel)
        Parallel.forEach(across * bandCount, workers: workers) { worker, index in
            let x0 = (index % across) * tile, y0 = (index / across) * tile
            kernel(Int32(x0), Int32(y0), scratch.value + worker * scratchBytes, target.value + y0 * width * 4)
        }
    }

    /// Demosaics band by band: `body(worker, band, firstRow, rows)` gets each band (width × rows × 4, as `run`
    /// writes it) on the thread that made it, which may overwrite the band; `worker` < the workers used, so the body
    /// can keep per-thread scratch. Returns the workers used.
    @discardableResult
    func runBands(engine: EngineConfiguration, workers requested: Int? = nil,
                  body: @Sendable (_ worker: Int, _ band: UnsafeMutablePointer<UInt16>, _ firstRow: Int, _ rows: Int) -> Void) -> Int {
        let across = (width + tile - 1) / tile
        let workers = requested ?? engine.workers(for: bandCount)
        let bandSamples = width * tile * 4
        let scratch = UncheckedSendable(UnsafeMutableRawPointer.allocate(byteCount: workers * scratchBytes, alignment: 64))
        let bands = UncheckedSendable(UnsafeMutablePointer<UInt16>.allocate(capacity: workers * bandSamples))
        defer { scratch.value.deallocate(); bands.value.deallocate() }
        let (tile, height, scratchBytes, kernel) = (self.tile, self.height, self.scratchBytes, self.kernel)
        Parallel.forEach(bandCount, workers: workers) { worker, index in
            let y0 = index * tile, band = bands.value + worker * bandSamples
            for t in 0..<across {
                kernel(Int32(t * tile), Int32(y0), scratch.value + worker * scratchBytes, band)
            }
            body(worker, band, y0, min(tile, height - y0))
        }
        return workers
    }
}
