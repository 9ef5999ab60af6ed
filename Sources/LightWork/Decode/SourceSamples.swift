import Dispatch
import Foundation

/// An RGB decoder's integer samples exactly as it handed them to `DeviceRGBConverter`, kept beside the half-float
/// working image (whose 11-bit precision cannot hold 16-bit values) for what must come out bit-exact: the alpha
/// channel always, and every channel when nothing in the spec may change the pixels (`LosslessPath`).
/// Upright once the decoder has called `uprighted` (as it does for the working image).
public final class SourceSamples: @unchecked Sendable {
    public let width: Int
    public let height: Int
    /// The decoder's layout (grey, grey+alpha, RGB, RGBA); what `storage` holds per pixel is `channels`.
    public let layout: DeviceRGBConverter.Layout
    /// Whether the colour channels are kept (else only alpha).
    public let keepsColour: Bool
    /// 8 or 16.
    public let bitDepth: Int
    /// What the colour values mean (the converter's source): sRGB as they are, or an ICC profile.
    public let colour: DeviceRGBConverter.Source
    /// Samples per pixel in `storage`: the layout's channels, or 1 (alpha only).
    public let channels: Int
    /// `channels × width × height` values (0…2^bitDepth − 1), row-major.
    public let storage: UnsafeMutablePointer<UInt16>

    private init(width: Int, height: Int, layout: DeviceRGBConverter.Layout, keepsColour: Bool, bitDepth: Int,
                 colour: DeviceRGBConverter.Source) {
        self.width = width
        self.height = height
        self.layout = layout
        self.keepsColour = keepsColour
        self.bitDepth = bitDepth
        self.colour = colour
        channels = keepsColour ? layout.channels : 1
        storage = .allocate(capacity: channels * width * height)   // every row is stored before anything reads it
    }

    deinit { storage.deallocate() }

    /// The samples a decoder of `layout` keeps for a `width × height` image: all channels when `colour` (grey or RGB
    /// layouts only: CMYK is always converted), else alpha only; nil when there is nothing to keep.
    public static func kept(for converter: DeviceRGBConverter, width: Int, height: Int, colour: Bool) -> SourceSamples? {
        let keepsColour: Bool
        switch converter.layout {
        case .cmyk: return nil
        case .gray, .rgb:
            guard colour else { return nil }
            keepsColour = true
        case .grayAlpha, .rgba: keepsColour = colour
        }
        return SourceSamples(width: width, height: height, layout: converter.layout, keepsColour: keepsColour,
                             bitDepth: converter.sixteenBit ? 16 : 8, colour: converter.source)
    }

    /// Stores row `y` from the decoder's interleaved samples (8 or 16-bit, native order).
    func store(row y: Int, from src: UnsafeRawPointer) {
        let ch = layout.channels, n = width
        let dst = storage + channels * width * y
        let first = keepsColour ? 0 : ch - 1
        if bitDepth == 16 {
            let s = src.assumingMemoryBound(to: UInt16.self)
            if keepsColour { dst.update(from: s, count: ch * n) } else { for x in 0..<n { dst[x] = s[ch * x + first] } }
        } else {
            let s = src.assumingMemoryBound(to: UInt8.self)
            if keepsColour { for i in 0..<(ch * n) { dst[i] = UInt16(s[i]) } } else { for x in 0..<n { dst[x] = UInt16(s[ch * x + first]) } }
        }
    }

    /// These samples turned upright for `orientation` (`self` for `.up`), as `WorkingImage.uprighted` turns the image.
    public func uprighted(_ orientation: Orientation) -> SourceSamples {
        if orientation == .up { return self }
        let out = SourceSamples(width: orientation.swapsAxes ? height : width, height: orientation.swapsAxes ? width : height,
                                layout: layout, keepsColour: keepsColour, bitDepth: bitDepth, colour: colour)
        let ch = channels, sw = width, sh = height, ow = out.width
        for y in 0..<out.height {
            for x in 0..<ow {
                let (sx, sy) = orientation.sourceCoordinate(x: x, y: y, storedWidth: sw, storedHeight: sh)
                (out.storage + ch * (y * ow + x)).update(from: storage + ch * (sy * sw + sx), count: ch)
            }
        }
        return out
    }

    /// Whether the layout has an alpha channel (whose values `storage` then holds, last of each pixel).
    public var hasAlpha: Bool { layout.hasAlpha }

    /// A value scaled from this depth to `depth` bits: exact upwards (8 → 16 is ×257), rounded to nearest downwards.
    @inline(__always) func scaled(_ v: UInt16, to depth: Int) -> UInt16 {
        if depth == bitDepth { return v }
        if depth == 16 { return v &* 257 }
        return UInt16((UInt32(v) * 255 + 32767) / 65535)
    }

    /// The alpha samples, scaled to `depth`, written over channel 4 of `pixels` (RGBA of the same size).
    public func writeAlpha(into pixels: inout EncodedPixels) {
        precondition(hasAlpha && pixels.channels == 4 && pixels.width == width && pixels.height == height)
        let ch = channels, last = channels - 1
        if pixels.depth == .sixteen {
            for i in 0..<(width * height) { pixels.samples16[4 * i + 3] = scaled(storage[ch * i + last], to: 16) }
        } else {
            for i in 0..<(width * height) { pixels.samples8[4 * i + 3] = UInt8(scaled(storage[ch * i + last], to: 8)) }
        }
    }

    /// The output samples these are, at `depth` bits (at least `bitDepth`): grey repeated into R, G and B, alpha
    /// kept when `keepAlpha`. Only for samples that keep their colour.
    public func encoded(depth: EncodedPixels.Depth, keepAlpha: Bool) -> EncodedPixels {
        precondition(keepsColour && depth.rawValue >= bitDepth)
        let withAlpha = hasAlpha && keepAlpha
        var out = EncodedPixels(width: width, height: height, channels: withAlpha ? 4 : 3, depth: depth)
        let ch = channels, grey = ch <= 2, oc = out.channels, bits = depth.rawValue
        func fill<T: FixedWidthInteger>(_ dst: UnsafeMutableBufferPointer<T>) {
            for i in 0..<(width * height) {
                let p = storage + ch * i, q = oc * i
                dst[q] = T(scaled(p[0], to: bits))
                dst[q + 1] = T(scaled(p[grey ? 0 : 1], to: bits))
                dst[q + 2] = T(scaled(p[grey ? 0 : 2], to: bits))
                if withAlpha { dst[q + 3] = T(scaled(p[ch - 1], to: bits)) }
            }
        }
        if depth == .sixteen { out.samples16.withUnsafeMutableBufferPointer { fill($0) } } else { out.samples8.withUnsafeMutableBufferPointer { fill($0) } }
        return out
    }
}
