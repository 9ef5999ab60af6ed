import Foundation

/// An image's pixel count from its header alone, read in the batch parent before a file is dispatched so
/// the memory budget can be kept. The file's codec reads it (`ImageCodec.pixelCount`: JPEG's SOF, PNG's IHDR,
/// the largest IFD or SubIFD of a TIFF-based RAW), in plain bounds-checked Swift: the parent never runs a
/// decoder (a crafted file must not be able to crash it). nil for anything else.
package enum ImageSizeProbe {
    package static func pixels(at url: URL) -> Int? {
        guard let file = FileBytes(url), file.size >= 24 else { return nil }
        return CodecRegistry.decoder(for: file).pixelCount(file)
    }

    /// width × height, capped at 2^40 (an overflow counts as that); nil for a missing or zero side.
    static func product(_ w: Int?, _ h: Int?) -> Int? {
        guard let w, let h, w > 0, h > 0 else { return nil }
        let (px, overflow) = w.multipliedReportingOverflow(by: h)
        return overflow ? 1 << 40 : min(px, 1 << 40)
    }
}
