import Dispatch
import Foundation

extension WorkingImage {
    /// A new image holding these stored pixels turned upright for `orientation` (`self` for `.up`).
    /// Decoders call this exactly once, after decoding, so every later stage sees upright pixels.
    public func uprighted(_ orientation: Orientation) -> WorkingImage {
        if orientation == .up { return self }
        let sw = width, sh = height
        let out = WorkingImage(width: orientation.swapsAxes ? sh : sw, height: orientation.swapsAxes ? sw : sh,
                               space: space, hasAlpha: hasAlpha)
        let src = UnsafeRawPointer(storage), dst = UnsafeMutableRawPointer(out.storage)
        let pointers = RawPair(src: src, dst: dst)
        let ow = out.width, oh = out.height
        let chunks = min(oh, 4 * ProcessInfo.activeCores)
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            // One pixel is four halves: moved as one 8-byte word.
            for y in (oh * chunk / chunks)..<(oh * (chunk + 1) / chunks) {
                for x in 0..<ow {
                    let (sx, sy) = orientation.sourceCoordinate(x: x, y: y, storedWidth: sw, storedHeight: sh)
                    let v = pointers.src.loadUnaligned(fromByteOffset: 8 * (sy * sw + sx), as: UInt64.self)
                    pointers.dst.storeBytes(of: v, toByteOffset: 8 * (y * ow + x), as: UInt64.self)
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
