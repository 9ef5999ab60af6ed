import CPNG
import CShims
import Foundation

/// Decodes PNGs (1–16-bit grey, grey+alpha, RGB, RGBA, palette with tRNS, interlaced or not) with libpng
/// into upright device-RGB pixels, colour from iCCP / sRGB / gAMA+cHRM (see `PNGColourChunks`), metadata
/// and orientation from eXIf. 16-bit samples stay 16-bit until they become half floats.
public enum PNGDecoder {
    /// Rows read and converted per step for non-interlaced images.
    static let bandRows = 64

    public static func decode(data: Data, options: DecodeOptions) throws -> DecodedImage {
        guard !data.isEmpty else { throw LightWorkError.emptyFile }
        return try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) throws -> DecodedImage in
            let bytes = buffer.bindMemory(to: UInt8.self)
            guard let d = lw_pngdec_create(bytes.baseAddress, bytes.count) else {
                throw LightWorkError.decodeFailed("PNG: libpng could not start")
            }
            defer { lw_pngdec_destroy(d) }
            return try decode(d, options: options)
        }
    }

    /// Reads a PNG back as stored (`ImageFileReader`): palette and low bit depths expanded to 8 bits, tRNS to
    /// alpha, 16-bit samples as they are, with its ICC profile and EXIF. Damage after the image data is an error here.
    static func readBack(data: Data, path: String) throws -> ImageFile {
        try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) throws -> ImageFile in
            let bytes = buffer.bindMemory(to: UInt8.self)
            guard let d = lw_pngdec_create(bytes.baseAddress, bytes.count) else { throw LightWorkError.decodeFailed("\(path): libpng: out of memory") }
            defer { lw_pngdec_destroy(d) }
            func fail() -> LightWorkError { .decodeFailed("\(path): libpng: \(String(cString: lw_pngdec_message(d)))") }
            guard lw_pngdec_read_info(d) == 0 else { throw fail() }
            let png = lw_pngdec_png(d)!, info = lw_pngdec_info(d)!
            var passes: Int32 = 1
            guard lw_pngdec_expand(d, &passes) == 0 else { throw fail() }
            var icc: Data?
            var name: png_charp? = nil, compression: Int32 = 0, profile: png_bytep? = nil, profileLength: png_uint_32 = 0
            if png_get_iCCP(png, info, &name, &compression, &profile, &profileLength) != 0, let profile, profileLength > 0 {
                icc = Data(bytes: profile, count: Int(profileLength))
            }
            let width = Int(png_get_image_width(png, info)), height = Int(png_get_image_height(png, info))
            try PixelLimit.check(width: width, height: height, format: "\(path): PNG", options: PixelLimit.readBack)
            let channels = Int(png_get_channels(png, info)), depth = Int(png_get_bit_depth(png, info))
            let rowBytes = Int(png_get_rowbytes(png, info))
            let buffer = UnsafeMutableRawPointer.allocate(byteCount: max(1, rowBytes * height), alignment: 2)
            defer { buffer.deallocate() }
            var rows: [UnsafeMutablePointer<UInt8>?] = (0..<height).map { buffer.assumingMemoryBound(to: UInt8.self) + $0 * rowBytes }
            for _ in 0..<passes {
                guard lw_pngdec_read_rows(d, &rows, UInt32(height)) == 0 else { throw fail() }
            }
            guard lw_pngdec_read_end(d) == 0 else { throw fail() }
            var exif: Data?
            var exifLength: png_uint_32 = 0
            var exifBytes: png_bytep? = nil
            if png_get_eXIf_1(png, info, &exifLength, &exifBytes) != 0, let exifBytes {
                exif = Data(bytes: exifBytes, count: Int(exifLength))
            }
            let count = width * height * channels
            let samples: [UInt16] = depth == 16
                ? Array(UnsafeBufferPointer(start: buffer.assumingMemoryBound(to: UInt16.self), count: count))
                : UnsafeBufferPointer(start: buffer.assumingMemoryBound(to: UInt8.self), count: count).map(UInt16.init)
            return ImageFile(format: .png, width: width, height: height, channels: channels, bitDepth: depth, iccProfile: icc,
                             exif: exif?.isEmpty == false ? exif : nil, samples: samples, metadata: exif.flatMap(EXIFReader.read))
        }
    }

    private static func failure(_ d: OpaquePointer) -> LightWorkError {
        .decodeFailed("PNG: \(oneLine(String(cString: lw_pngdec_message(d))))")
    }

    private static func decode(_ d: OpaquePointer, options: DecodeOptions) throws -> DecodedImage {
        guard lw_pngdec_read_info(d) == 0 else { throw failure(d) }
        let png = lw_pngdec_png(d)!, info = lw_pngdec_info(d)!
        let width = Int(png_get_image_width(png, info)), height = Int(png_get_image_height(png, info))
        try PixelLimit.check(width: width, height: height, format: "PNG", options: options)
        let colourType = Int32(png_get_color_type(png, info)), fileDepth = Int(png_get_bit_depth(png, info))
        let interlaced = png_get_interlace_type(png, info) != PNG_INTERLACE_NONE
        let model: ICCInput.Model = colourType & PNG_COLOR_MASK_COLOR != 0 ? .rgb : .gray
        let colour = PNGColourChunks.resolve(png, info, model: model, intent: options.intent)

        var passes: Int32 = 1
        guard lw_pngdec_expand(d, &passes) == 0 else { throw failure(d) }
        let channels = Int(png_get_channels(png, info)), depth = Int(png_get_bit_depth(png, info))
        let layout: DeviceRGBConverter.Layout
        switch channels {
        case 1: layout = .gray
        case 2: layout = .grayAlpha
        case 3: layout = .rgb
        case 4: layout = .rgba
        default: throw LightWorkError.decodeFailed("PNG: libpng delivered \(channels) channels")
        }
        guard depth == 8 || depth == 16 else { throw LightWorkError.decodeFailed("PNG: libpng delivered \(depth)-bit samples") }
        let (converter, sourceProfile, colourNotes) = try colour.converter(layout: layout, sixteenBit: depth == 16, intent: options.intent)
        var notes = colourNotes

        let stored = WorkingImage.unfilled(width: width, height: height, space: .deviceRGB, hasAlpha: layout.hasAlpha)   // every row is read or the decode throws
        let kept = SourceSamples.kept(for: converter, width: width, height: height, colour: options.keepsColourSamples)
        let rowBytes = Int(png_get_rowbytes(png, info))
        guard rowBytes == width * channels * depth / 8 else { throw LightWorkError.decodeFailed("PNG: unexpected row size") }
        if interlaced {
            // Interlaced images arrive in passes over the whole picture, so they need it all in memory at once.
            let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: rowBytes * height)
            defer { buffer.deallocate() }
            buffer.initialize(repeating: 0, count: rowBytes * height)
            var rows: [UnsafeMutablePointer<UInt8>?] = (0..<height).map { buffer + $0 * rowBytes }
            for _ in 0..<passes {
                guard lw_pngdec_read_rows(d, &rows, UInt32(height)) == 0 else { throw failure(d) }
            }
            var y = 0
            while y < height {
                let n = min(bandRows, height - y)
                converter.convert(buffer + y * rowBytes, rowBytes: rowBytes, rows: n, width: width, into: stored, firstRow: y, keeping: kept)
                y += n
            }
        } else {
            try BandPipeline(rowBytes: rowBytes, bandRows: bandRows, converter: converter, image: stored, kept: kept).run { buffer, _, n in
                var rows: [UnsafeMutablePointer<UInt8>?] = (0..<n).map { buffer + $0 * rowBytes }
                guard lw_pngdec_read_rows(d, &rows, UInt32(n)) == 0 else { throw failure(d) }
            }
        }
        if lw_pngdec_read_end(d) != 0 {
            notes.append("PNG damaged after the image data: \(oneLine(String(cString: lw_pngdec_message(d))))")
        }

        var metadata = ImageMetadata()
        var exif: Data? = nil
        var exifLength: png_uint_32 = 0
        var exifBytes: png_bytep? = nil
        if png_get_eXIf_1(png, info, &exifLength, &exifBytes) != 0, let exifBytes, exifLength > 0 {
            exif = EXIFReader.tiffBlock(Data(bytes: exifBytes, count: Int(exifLength)))
            if let exif, let m = EXIFReader.read(exif) { metadata = m }
        }
        let orientation = metadata.orientation.flatMap(Orientation.init(rawValue:)) ?? .up
        let typeName: String
        switch colourType {
        case PNG_COLOR_TYPE_GRAY: typeName = "grey"
        case PNG_COLOR_TYPE_GRAY_ALPHA: typeName = "grey+alpha"
        case PNG_COLOR_TYPE_PALETTE: typeName = "palette"
        case PNG_COLOR_TYPE_RGB: typeName = "RGB"
        default: typeName = "RGBA"
        }
        var result = DecodedImage(image: stored.uprighted(orientation), kind: .rgb, metadata: metadata, notes: notes,
                                  sourceProfile: sourceProfile, details: [
                                      "format": "PNG",
                                      "colour type": typeName + (png_get_valid(png, info, PNG_INFO_tRNS) != 0 ? " + tRNS" : ""),
                                      "bit depth": String(fileDepth),
                                      "interlaced": interlaced ? "yes (Adam7)" : "no",
                                      "stored size": "\(width)×\(height)",
                                  ])
        result.exifBlob = exif
        result.samples = kept?.uprighted(orientation)
        return result
    }
}
