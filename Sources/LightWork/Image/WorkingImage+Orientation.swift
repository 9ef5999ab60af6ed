import Dispatch
import Foundation

extension WorkingImage {
    /// A new image holding these stored pixels turned upright for `orientation` (`self` for `.up`).
    /// Decoders call this exactly once, after decoding, so every later stage sees upright pixels.
    public func uprighted(_ orientation: Orientation) -> WorkingImage {
        if orientation == .up { return self }
        let sw = width, sh = height
        let out = WorkingImage.unfilled(width: orientation.swapsAxes ? sh : sw, height: orientation.swapsAxes ? sw : sh,
                                        space: space, hasAlpha: hasAlpha)   // the tiles below cover every pixel
        let src = UnsafeRawPointer(storage), dst = UnsafeMutableRawPointer(out.storage)
        let pointers = RawPair(src: src, dst: dst)
        let ow = out.width, oh = out.height
        let chunks = min(oh, 4 * ProcessInfo.activeCores)
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            // One pixel is four halves: moved as one 8-byte word. 64×64 tiles keep the rotated source
            // reads (a column walk) in cache.
            let top = oh * chunk / chunks, bottom = oh * (chunk + 1) / chunks
            for ty in stride(from: top, to: bottom, by: 64) {
                for tx in stride(from: 0, to: ow, by: 64) {
                    for y in ty..<min(ty + 64, bottom) {
                        for x in tx..<min(tx + 64, ow) {
                            let (sx, sy) = orientation.sourceCoordinate(x: x, y: y, storedWidth: sw, storedHeight: sh)
                            let v = pointers.src.loadUnaligned(fromByteOffset: 8 * (sy * sw + sx), as: UInt64.self)
                            pointers.dst.storeBytes(of: v, toByteOffset: 8 * (y * ow + x), as: UInt64.self)
                        }
                    }
                }
            }
        }
        return out
    }
}

/// Source and destination storage handed to `concurrentPerform` workers, which write disjoint rows.
private struct RawPair: @unchecked Sendable {
    let src: UnsafeRawPointer
    let dst: UnsafeMutableRawPointer
}
