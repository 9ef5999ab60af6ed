import Dispatch

/// Reads an image band by band into two alternating buffers and converts each band to working pixels on
/// other threads while the next one is read: libjpeg and libpng decode on one core, the colour conversion
/// (the larger cost) spreads over the rest.
struct BandPipeline {
    let rowBytes: Int
    let bandRows: Int
    let converter: DeviceRGBConverter
    let image: WorkingImage
    /// Where the decoder's samples are also kept (`SourceSamples`), nil for nowhere.
    var kept: SourceSamples? = nil

    /// `read(buffer, firstRow, rows)` fills `rows` rows of `rowBytes` into `buffer`; it runs on the calling
    /// thread, in order. Rethrows its error after any conversion in flight has finished.
    func run(_ read: (UnsafeMutablePointer<UInt8>, Int, Int) throws -> Void) throws {
        let buffers = [UnsafeMutablePointer<UInt8>.allocate(capacity: rowBytes * bandRows),
                       UnsafeMutablePointer<UInt8>.allocate(capacity: rowBytes * bandRows)]
        defer { buffers.forEach { $0.deallocate() } }
        let group = DispatchGroup()
        defer { group.wait() }  // runs first: no conversion may still read a buffer being freed
        var y = 0, which = 0
        while y < image.height {
            let rows = min(bandRows, image.height - y)
            try read(buffers[which], y, rows)
            group.wait()
            let job = BandJob(samples: SendableRaw(buffers[which]), rowBytes: rowBytes, rows: rows, firstRow: y,
                              converter: converter, image: image, kept: kept)
            DispatchQueue.global().async(group: group) { job.convert() }
            which ^= 1
            y += rows
        }
    }
}

/// One band handed to a worker thread.
private struct BandJob: Sendable {
    let samples: SendableRaw
    let rowBytes: Int
    let rows: Int
    let firstRow: Int
    let converter: DeviceRGBConverter
    let image: WorkingImage
    let kept: SourceSamples?

    func convert() {
        converter.convert(samples.pointer, rowBytes: rowBytes, rows: rows, width: image.width, into: image, firstRow: firstRow, keeping: kept)
    }
}
