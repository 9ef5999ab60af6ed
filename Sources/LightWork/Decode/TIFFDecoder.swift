import CShims
import CTIFF
import Foundation

/// Decodes plain TIFFs (camera RAWs are LibRaw's: `TIFFCodec.matches` leaves them to it) with libtiff into upright
/// device-RGB pixels, like PNG and JPEG inputs: 8/16-bit integer and 32-bit float samples, strips or tiles (chunky
/// planar configuration), grey (min-is-black or min-is-white), RGB, CMYK (ink set CMYK), JPEG-compressed YCbCr
/// (delivered as RGB by libjpeg) and 8-bit palette; alpha associated (un-premultiplied here) or unassociated; colour
/// from the embedded ICC profile (CMYK without one: the naive conversion with its note, as for JPEG); orientation
/// from the Orientation tag; metadata from IFD0 and the Exif IFD. Float samples are clipped to 0…1 and quantised to
/// 16 bits (the working image holds half floats of device RGB), with a note when any value lay outside.
public enum TIFFDecoder {
    /// Rows read and converted per step (strips are read a scanline at a time, tiles a row of tiles at a time).
    static let bandRows = 64

    public static func decode(data: Data, options: DecodeOptions) throws -> DecodedImage {
        guard !data.isEmpty else { throw LightWorkError.emptyFile }
        lw_tiff_quiet()
        lw_tiff_clear_error()
        return try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) throws -> DecodedImage in
            guard let tif = lw_tiff_open_memory(buffer.bindMemory(to: UInt8.self).baseAddress, buffer.count, "TIFF") else {
                throw failure("libtiff cannot read the header")
            }
            defer { TIFFClose(tif) }
            return try decode(tif, options: options)
        }
    }

    /// A decode failure with libtiff's last message.
    static func failure(_ what: String) -> LightWorkError {
        let detail = oneLine(String(cString: lw_tiff_last_error()))
        return .decodeFailed("TIFF: \(what)\(detail.isEmpty ? "" : " (\(detail))")")
    }

    static func unsupported(_ what: String) -> LightWorkError { .unsupportedFormat("TIFF: \(what)") }

    private static func decode(_ tif: OpaquePointer, options: DecodeOptions) throws -> DecodedImage {
        func u16(_ tag: Int32) -> UInt16? { var v: UInt16 = 0; return lw_tiff_get_u16(tif, UInt32(tag), &v) != 0 ? v : nil }
        func u32(_ tag: Int32) -> UInt32? { var v: UInt32 = 0; return lw_tiff_get_u32(tif, UInt32(tag), &v) != 0 ? v : nil }
        guard let w = u32(TIFFTAG_IMAGEWIDTH), let h = u32(TIFFTAG_IMAGELENGTH), w > 0, h > 0 else {
            throw failure("no image dimensions")
        }
        let width = Int(w), height = Int(h)
        try PixelLimit.check(width: width, height: height, format: "TIFF", options: options)
        let compression = Int32(u16(TIFFTAG_COMPRESSION) ?? UInt16(COMPRESSION_NONE))
        guard TIFFIsCODECConfigured(UInt16(compression)) != 0 else { throw unsupported("compression \(compression) is not one libtiff decodes") }
        var photometric = Int32(u16(TIFFTAG_PHOTOMETRIC) ?? UInt16.max)
        if photometric == PHOTOMETRIC_YCBCR {
            guard compression == COMPRESSION_JPEG, lw_tiff_jpeg_as_rgb(tif) != 0 else {
                throw unsupported("YCbCr samples without JPEG compression are not supported")
            }
            photometric = PHOTOMETRIC_RGB
        }
        var extraCount: UInt16 = 0
        var extraTypes: UnsafePointer<UInt16>?
        var extras: [UInt16] = []
        if lw_tiff_get_extrasamples(tif, &extraCount, &extraTypes) != 0, let extraTypes {
            extras = Array(UnsafeBufferPointer(start: extraTypes, count: Int(extraCount)))
        }
        var icc: Data?
        var iccCount: UInt32 = 0
        var iccBytes: UnsafeRawPointer?
        if lw_tiff_get_bytes(tif, UInt32(TIFFTAG_ICCPROFILE), &iccCount, &iccBytes) != 0, let iccBytes, iccCount > 0 {
            icc = Data(bytes: iccBytes, count: Int(iccCount))
        }
        var palette: [UInt16]?
        if photometric == PHOTOMETRIC_PALETTE {
            var r: UnsafePointer<UInt16>?, g: UnsafePointer<UInt16>?, b: UnsafePointer<UInt16>?
            guard u16(TIFFTAG_BITSPERSAMPLE) == 8, lw_tiff_get_colormap(tif, &r, &g, &b) != 0, let r, let g, let b else {
                throw unsupported("only 8-bit palette images with a colour map are supported")
            }
            palette = (0..<256).flatMap { [r[$0], g[$0], b[$0]] }
        }
        let format = try SampleFormat(bits: Int(u16(TIFFTAG_BITSPERSAMPLE) ?? 1), sampleFormat: Int32(u16(TIFFTAG_SAMPLEFORMAT) ?? UInt16(SAMPLEFORMAT_UINT)))
        let plan = try Plan(photometric: photometric, inkSet: u16(TIFFTAG_INKSET), samplesPerPixel: Int(u16(TIFFTAG_SAMPLESPERPIXEL) ?? 1),
                            extras: extras, format: format, palette: palette)
        guard Int32(u16(TIFFTAG_PLANARCONFIG) ?? UInt16(PLANARCONFIG_CONTIG)) == PLANARCONFIG_CONTIG else {
            throw unsupported("separate colour planes (PlanarConfiguration 2) are not supported")
        }

        let colour = ICCInput.embedded(icc, model: plan.model, intent: options.intent)
        let (converter, sourceProfile, colourNotes) = try colour.converter(layout: plan.layout, sixteenBit: plan.sixteenBit, intent: options.intent)
        var notes = colourNotes + plan.notes
        let stored = WorkingImage.unfilled(width: width, height: height, space: .deviceRGB, hasAlpha: plan.layout.hasAlpha)   // every row is read or the decode throws
        let kept = SourceSamples.kept(for: converter, width: width, height: height, colour: options.keepsColourSamples)
        let rows = try RowSource(tif, width: width, height: height, pixelBytes: plan.samplesPerPixel * format.bytes)
        let outRowBytes = width * plan.layout.channels * (plan.sixteenBit ? 2 : 1)
        var clipped = 0
        try BandPipeline(rowBytes: outRowBytes, bandRows: bandRows, converter: converter, image: stored, kept: kept).run { buffer, y, n in
            for r in 0..<n {
                let src = try rows.row(y + r)
                clipped += plan.repack(src, width: width, into: UnsafeMutableRawPointer(buffer + r * outRowBytes))
            }
        }
        if clipped > 0 { notes.append("\(clipped) float sample(s) outside 0…1 clipped") }

        // A multi-page file (a scanner's batch, a fax) is converted by its first page: said, never silent.
        let pages = Int(TIFFNumberOfDirectories(tif))
        if pages > 1 { notes.append("multi-page TIFF: page 1 of \(pages) converted, the other pages left out") }
        let metadata = TIFFCodec.tiffMetadata(tif) ?? ImageMetadata()   // after the pixels: it changes libtiff's directory
        let orientation = metadata.orientation.flatMap(Orientation.init(rawValue:)) ?? .up
        var result = DecodedImage(image: stored.uprighted(orientation), kind: .rgb, metadata: metadata, notes: notes,
                                  sourceProfile: sourceProfile, details: [
                                      "format": "TIFF",
                                      "samples": format.description,
                                      "photometric": plan.description,
                                      "alpha": plan.alphaDescription,
                                      "compression": String(compression),
                                      "layout": rows.description,
                                      "stored size": "\(width)×\(height)",
                                  ])
        result.samples = kept?.uprighted(orientation)
        return result
    }

    /// The sample type: 8 or 16-bit unsigned integers, or 32-bit IEEE floats.
    enum SampleFormat: CustomStringConvertible {
        case uint8, uint16, float32

        init(bits: Int, sampleFormat: Int32) throws {
            switch (bits, sampleFormat) {
            case (8, SAMPLEFORMAT_UINT): self = .uint8
            case (16, SAMPLEFORMAT_UINT): self = .uint16
            case (32, SAMPLEFORMAT_IEEEFP): self = .float32
            case (_, SAMPLEFORMAT_IEEEFP): throw TIFFDecoder.unsupported("\(bits)-bit floating-point samples are not supported (32-bit are)")
            case (_, SAMPLEFORMAT_INT): throw TIFFDecoder.unsupported("signed integer samples are not supported")
            case (8, _), (16, _): throw TIFFDecoder.unsupported("sample format \(sampleFormat) is not supported")
            default: throw TIFFDecoder.unsupported("\(bits)-bit samples are not supported (8 and 16-bit integer, 32-bit float are)")
            }
        }

        var bytes: Int { self == .uint8 ? 1 : self == .uint16 ? 2 : 4 }
        var description: String { self == .uint8 ? "8-bit integer" : self == .uint16 ? "16-bit integer" : "32-bit float" }
    }

    /// How a file's pixels become the converter's layout: which samples are colour and alpha, and what is done to
    /// them (min-is-white inverted, associated alpha divided out, floats quantised, palette looked up, extras dropped).
    struct Plan: CustomStringConvertible {
        let model: ICCInput.Model
        let layout: DeviceRGBConverter.Layout
        /// Whether the converter gets 16-bit samples (16-bit and float files, palettes, associated alpha).
        let sixteenBit: Bool
        let samplesPerPixel: Int
        let colourChannels: Int
        let alphaIndex: Int?
        let associated: Bool
        let minIsWhite: Bool
        let format: SampleFormat
        let palette: [UInt16]?
        /// Whether the file's samples are already the converter's (a copy).
        let isCopy: Bool
        let notes: [String]
        let description: String

        init(photometric: Int32, inkSet: UInt16?, samplesPerPixel spp: Int, extras: [UInt16], format: SampleFormat, palette: [UInt16]?) throws {
            var notes: [String] = []
            let model: ICCInput.Model, colourChannels: Int, description: String
            switch photometric {
            case PHOTOMETRIC_MINISBLACK, PHOTOMETRIC_MINISWHITE:
                model = .gray; colourChannels = 1
                description = photometric == PHOTOMETRIC_MINISWHITE ? "grey (min-is-white)" : "grey"
            case PHOTOMETRIC_RGB: model = .rgb; colourChannels = 3; description = "RGB"
            case PHOTOMETRIC_PALETTE:
                model = .rgb; colourChannels = 1; description = "palette"
                guard format == .uint8 else { throw TIFFDecoder.unsupported("only 8-bit palette images are supported") }
            case PHOTOMETRIC_SEPARATED:
                guard inkSet == nil || Int32(inkSet!) == INKSET_CMYK else { throw TIFFDecoder.unsupported("separated samples of an ink set other than CMYK") }
                model = .cmyk; colourChannels = 4; description = "CMYK"
            case PHOTOMETRIC_CIELAB, PHOTOMETRIC_ICCLAB, PHOTOMETRIC_ITULAB: throw TIFFDecoder.unsupported("Lab samples are not supported")
            case Int32(UInt16.max): throw TIFFDecoder.unsupported("no PhotometricInterpretation tag")
            default: throw TIFFDecoder.unsupported("photometric interpretation \(photometric) is not supported")
            }
            guard spp >= colourChannels, spp <= colourChannels + 16 else {
                throw TIFFDecoder.unsupported("\(spp) samples per pixel for \(description)")
            }
            // Alpha: the first extra sample that says it is alpha; others (and unspecified extras) are dropped.
            let extraTypes = (0..<(spp - colourChannels)).map { $0 < extras.count ? extras[$0] : UInt16(EXTRASAMPLE_UNSPECIFIED) }
            let alphaAt = extraTypes.firstIndex { $0 == EXTRASAMPLE_ASSOCALPHA || $0 == EXTRASAMPLE_UNASSALPHA }
            let alphaIndex = alphaAt.map { colourChannels + $0 }
            let associated = alphaAt.map { extraTypes[$0] == EXTRASAMPLE_ASSOCALPHA } ?? false
            let dropped = extraTypes.count - (alphaAt == nil ? 0 : 1)
            if dropped > 0 { notes.append("\(dropped) extra sample(s) that are not alpha ignored") }
            if model == .cmyk, alphaIndex != nil { throw TIFFDecoder.unsupported("CMYK with alpha is not supported") }
            if palette != nil, alphaIndex != nil { throw TIFFDecoder.unsupported("palette with alpha is not supported") }
            var map = palette
            if let p = palette, p.allSatisfy({ $0 < 256 }) {
                map = p.map { $0 &* 257 }
                notes.append("palette holds 8-bit values in its 16-bit entries: scaled by 257")
            }
            let minIsWhite = photometric == PHOTOMETRIC_MINISWHITE
            switch (colourChannels, alphaIndex != nil, model) {
            case (4, _, _): layout = .cmyk(inverted: false)
            case (1, false, .gray): layout = .gray
            case (1, true, _): layout = .grayAlpha
            case (_, true, _): layout = .rgba
            default: layout = .rgb
            }
            self.model = model
            self.colourChannels = colourChannels
            self.description = description
            self.alphaIndex = alphaIndex
            self.associated = associated
            self.minIsWhite = minIsWhite
            self.palette = map
            self.format = format
            samplesPerPixel = spp
            sixteenBit = format != .uint8 || palette != nil || associated
            isCopy = format != .float32 && !minIsWhite && palette == nil && !associated && dropped == 0
            self.notes = notes
        }

        var alphaDescription: String { alphaIndex == nil ? "none" : associated ? "associated (divided out)" : "unassociated" }

        /// Writes one row of `width` pixels from the file's samples `src` as the converter's layout into `dst`;
        /// returns how many float samples lay outside 0…1 (clipped).
        func repack(_ src: UnsafeRawPointer, width: Int, into dst: UnsafeMutableRawPointer) -> Int {
            if isCopy {
                dst.copyMemory(from: src, byteCount: width * samplesPerPixel * format.bytes)
                return 0
            }
            var clipped = 0
            // Sample i of the row as a 16-bit value (8-bit × 257; floats clipped and rounded), or as stored when 8-bit out.
            let value: (Int) -> UInt32
            switch format {
            case .uint8:
                let s = src.assumingMemoryBound(to: UInt8.self)
                value = sixteenBit ? { UInt32(s[$0]) * 257 } : { UInt32(s[$0]) }
            case .uint16:
                let s = src.assumingMemoryBound(to: UInt16.self)
                value = { UInt32(s[$0]) }
            case .float32:
                let s = src.assumingMemoryBound(to: Float.self)
                value = { i in
                    let v = s[i]
                    if !(v >= 0 && v <= 1) { clipped += 1 }
                    let c = v > 0 ? (v < 1 ? v : 1) : 0   // NaN → 0
                    return UInt32((c * 65535).rounded())
                }
            }
            let top: UInt32 = sixteenBit ? 65535 : 255
            let outChannels = layout.channels
            for x in 0..<width {
                let p = x * samplesPerPixel, q = x * outChannels
                var c = SIMD4<UInt32>(repeating: 0)
                if let palette {
                    let index = Int(src.load(fromByteOffset: p, as: UInt8.self))   // palettes are 8-bit (Plan's init)
                    c[0] = UInt32(palette[3 * index]); c[1] = UInt32(palette[3 * index + 1]); c[2] = UInt32(palette[3 * index + 2])
                } else {
                    for k in 0..<colourChannels { c[k] = minIsWhite ? top - value(p + k) : value(p + k) }
                }
                var a = top
                if let alphaIndex {
                    a = value(p + alphaIndex)
                    if associated {
                        for k in 0..<colourChannels { c[k] = a == 0 ? 0 : min(top, (c[k] * top + a / 2) / a) }
                    }
                }
                let n = palette != nil ? 3 : colourChannels
                if sixteenBit {
                    let d = dst.assumingMemoryBound(to: UInt16.self)
                    for k in 0..<n { d[q + k] = UInt16(c[k]) }
                    if alphaIndex != nil { d[q + n] = UInt16(a) }
                } else {
                    let d = dst.assumingMemoryBound(to: UInt8.self)
                    for k in 0..<n { d[q + k] = UInt8(c[k]) }
                    if alphaIndex != nil { d[q + n] = UInt8(a) }
                }
            }
            return clipped
        }
    }

    /// The file's rows in order: strips a scanline at a time, tiles a row of tiles at a time.
    final class RowSource: CustomStringConvertible {
        private let tif: OpaquePointer
        private let width: Int, height: Int, pixelBytes: Int
        private let tileWidth: Int, tileLength: Int
        /// One row (strips), or a row of tiles followed by one tile's scratch.
        private let band: UnsafeMutableRawPointer
        private var bandTop = -1
        let description: String

        init(_ tif: OpaquePointer, width: Int, height: Int, pixelBytes: Int) throws {
            self.tif = tif
            self.width = width
            self.height = height
            self.pixelBytes = pixelBytes
            let rowBytes = width * pixelBytes
            if TIFFIsTiled(tif) != 0 {
                var tw: UInt32 = 0, tl: UInt32 = 0
                guard lw_tiff_get_u32(tif, UInt32(TIFFTAG_TILEWIDTH), &tw) != 0, lw_tiff_get_u32(tif, UInt32(TIFFTAG_TILELENGTH), &tl) != 0,
                      tw > 0, tl > 0, tw <= 1 << 16, tl <= 1 << 16 else { throw TIFFDecoder.failure("tiles without a usable size") }
                tileWidth = Int(tw); tileLength = Int(tl)
                guard Int(TIFFTileSize(tif)) == tileWidth * tileLength * pixelBytes else { throw TIFFDecoder.failure("unexpected tile size") }
                band = .allocate(byteCount: rowBytes * tileLength + tileWidth * tileLength * pixelBytes, alignment: 16)
                description = "tiles \(tileWidth)×\(tileLength)"
            } else {
                tileWidth = 0; tileLength = 1
                guard Int(TIFFScanlineSize(tif)) == rowBytes else { throw TIFFDecoder.failure("unexpected row size") }
                band = .allocate(byteCount: rowBytes, alignment: 16)
                description = "strips"
            }
        }

        deinit { band.deallocate() }

        /// Row `y` (rows are asked for in order), valid until the next call.
        func row(_ y: Int) throws -> UnsafeRawPointer {
            let rowBytes = width * pixelBytes
            if tileWidth == 0 {
                guard TIFFReadScanline(tif, band, UInt32(y), 0) >= 0 else { throw TIFFDecoder.failure("cannot decode row \(y)") }
                return UnsafeRawPointer(band)
            }
            let top = y / tileLength * tileLength
            if top != bandTop {
                let rows = min(tileLength, height - top)
                let tile = band + rowBytes * tileLength
                for x0 in stride(from: 0, to: width, by: tileWidth) {
                    guard TIFFReadTile(tif, tile, UInt32(x0), UInt32(top), 0, 0) >= 0 else {
                        throw TIFFDecoder.failure("cannot decode the tile at \(x0), \(top)")
                    }
                    let columns = min(tileWidth, width - x0) * pixelBytes
                    for r in 0..<rows {
                        (band + r * rowBytes + x0 * pixelBytes).copyMemory(from: tile + r * tileWidth * pixelBytes, byteCount: columns)
                    }
                }
                bandTop = top
            }
            return UnsafeRawPointer(band + (y - top) * rowBytes)
        }
    }
}
