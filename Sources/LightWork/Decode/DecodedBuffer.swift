import Foundation

/// A whole image a library decoded into one interleaved buffer (libwebp, libheif), turned into device-RGB
/// working pixels band by band on every core.
enum DecodedBuffer {
    /// Rows converted per step.
    static let bandRows = 64

    /// `height` rows of `width` pixels, `stride` bytes apart at `samples`, in `layout` at 8 or 16 bits, with the
    /// colours `colour` says. Returns the image, the source profile's description and the colour notes.
    static func working(_ samples: UnsafeRawPointer, stride: Int, width: Int, height: Int, layout: DeviceRGBConverter.Layout,
                        sixteenBit: Bool, colour: ICCInput, intent: DecodeOptions.RenderingIntent) throws
        -> (image: WorkingImage, sourceProfile: String, notes: [String]) {
        let (converter, sourceProfile, notes) = try colour.converter(layout: layout, sixteenBit: sixteenBit, intent: intent)
        let image = WorkingImage.unfilled(width: width, height: height, space: .deviceRGB, hasAlpha: layout.hasAlpha)   // every row is converted below
        var y = 0
        while y < height {
            let n = min(bandRows, height - y)
            converter.convert(samples + y * stride, rowBytes: stride, rows: n, width: width, into: image, firstRow: y)
            y += n
        }
        return (image, sourceProfile, notes)
    }
}
