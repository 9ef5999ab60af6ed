import CJXL
import Foundation

/// Decodes JPEG XL (lossy and lossless, 1–16-bit integer and float samples, grey or RGB, alpha) with libjxl into
/// upright device-RGB pixels. libjxl returns 8-bit samples for 8-bit-or-less images and 16-bit otherwise (float
/// samples clipped to 0…1), and gives the ICC profile of exactly the pixels it returns (`TARGET_DATA`: the file's
/// own encoding, or the one it chose for an XYB image), which LittleCMS converts from; PQ and HLG are refused.
/// Orientation is the codestream's (libjxl is told to keep the pixels as stored; `uprighted` turns them).
public enum JXLDecoder {
    public static func decode(data: Data, options: DecodeOptions, threads: Int) throws -> DecodedImage {
        let raw = try run(data, options: options, threads: threads)
        return try raw.pixels.withUnsafeBytes { px in
            try convert(UnsafeMutableRawPointer(mutating: px.baseAddress!), info: raw.info, format: raw.format, icc: raw.icc,
                        encoding: raw.encoding, exif: raw.exif, options: options)
        }
    }

    /// Reads a JPEG XL back as libjxl returns it (`ImageFileReader`): 8-bit samples for files of 8 bits or fewer,
    /// 16-bit otherwise, with the ICC profile of those samples and the EXIF.
    static func readBack(data: Data, path: String) throws -> ImageFile {
        let raw: Raw
        do { raw = try run(data, options: PixelLimit.readBack, threads: 1) } catch let e as LightWorkError { throw LightWorkError.decodeFailed("\(path): \(e)") }
        let sixteen = raw.format.data_type == JXL_TYPE_UINT16
        let samples: [UInt16] = raw.pixels.withUnsafeBytes { px in
            sixteen ? Array(px.bindMemory(to: UInt16.self)) : px.bindMemory(to: UInt8.self).map(UInt16.init)
        }
        let exif = raw.exif.flatMap(exifBlock)
        return ImageFile(format: ImageFile.Format(rawValue: "jxl"), width: Int(raw.info.xsize), height: Int(raw.info.ysize),
                         channels: Int(raw.format.num_channels), bitDepth: sixteen ? 16 : 8, iccProfile: raw.icc, exif: exif,
                         samples: samples, metadata: exif.flatMap(EXIFReader.read))
    }

    /// What libjxl returned: the pixels as stored (not oriented), their format and profile, the Exif box.
    struct Raw {
        var pixels: [UInt8]
        var info: JxlBasicInfo
        var format: JxlPixelFormat
        var icc: Data?
        var encoding: JxlColorEncoding?
        var exif: [UInt8]?
    }

    /// The TIFF block of an Exif box (after its 4-byte TIFF header offset).
    static func exifBlock(_ box: [UInt8]) -> Data? {
        guard box.count > 4 else { return nil }
        let skip = 4 + BigEndian.u32(box, 0)
        return skip < box.count ? EXIFReader.tiffBlock(Data(box[skip...])) : nil
    }

    private static func run(_ data: Data, options: DecodeOptions, threads: Int) throws -> Raw {
        guard !data.isEmpty else { throw LightWorkError.emptyFile }
        guard let dec = JxlDecoderCreate(nil) else { throw LightWorkError.decodeFailed("JPEG XL: libjxl could not start") }
        defer { JxlDecoderDestroy(dec) }
        let runner = JxlThreadParallelRunnerCreate(nil, max(1, threads))
        defer { JxlThreadParallelRunnerDestroy(runner) }
        func fail(_ what: String) -> LightWorkError { .decodeFailed("JPEG XL: libjxl: \(what)") }
        guard JxlDecoderSetParallelRunner(dec, JxlThreadParallelRunner, runner) == JXL_DEC_SUCCESS,
              JxlDecoderSubscribeEvents(dec, Int32(JXL_DEC_BASIC_INFO.rawValue | JXL_DEC_COLOR_ENCODING.rawValue
                                                   | JXL_DEC_FULL_IMAGE.rawValue | JXL_DEC_BOX.rawValue)) == JXL_DEC_SUCCESS,
              JxlDecoderSetKeepOrientation(dec, 1) == JXL_DEC_SUCCESS,
              JxlDecoderSetUnpremultiplyAlpha(dec, 1) == JXL_DEC_SUCCESS,
              JxlDecoderSetDecompressBoxes(dec, 1) == JXL_DEC_SUCCESS else { throw fail("cannot be set up") }

        return try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) throws -> Raw in
            let bytes = buffer.bindMemory(to: UInt8.self)
            guard JxlDecoderSetInput(dec, bytes.baseAddress, bytes.count) == JXL_DEC_SUCCESS else { throw fail("refused the input") }
            JxlDecoderCloseInput(dec)
            var info = JxlBasicInfo()
            var format = JxlPixelFormat()
            var pixels: UnsafeMutableRawPointer?
            var pixelBytes = 0
            defer { pixels?.deallocate() }
            var icc: Data?
            var colourEncoding: JxlColorEncoding?
            var exif: [UInt8]?
            // libjxl keeps the box buffer's address between calls, so it is allocated, not a Swift array.
            var boxBuffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 1 << 16)
            defer { boxBuffer.deallocate() }
            var inExifBox = false
            var gotImage = false
            func finishBox() {
                guard inExifBox else { return }
                let left = JxlDecoderReleaseBoxBuffer(dec)
                exif = Array(boxBuffer.prefix(boxBuffer.count - left))
                inExifBox = false
            }
            loop: while true {
                let status = JxlDecoderProcessInput(dec)
                switch status {
                case JXL_DEC_ERROR:
                    throw fail(gotImage ? "damaged after the image data" : "the file is not valid JPEG XL (or is damaged)")
                case JXL_DEC_NEED_MORE_INPUT:
                    if gotImage { finishBox(); break loop }   // the image is whole; what follows is cut
                    throw LightWorkError.decodeFailed("JPEG XL truncated: libjxl needs more data than the file holds")
                case JXL_DEC_BASIC_INFO:
                    guard JxlDecoderGetBasicInfo(dec, &info) == JXL_DEC_SUCCESS else { throw fail("unreadable basic info") }
                    try PixelLimit.check(width: Int(info.xsize), height: Int(info.ysize), format: "JPEG XL", options: options)
                    let channels = Int(info.num_color_channels) + (info.alpha_bits > 0 ? 1 : 0)
                    let sixteen = info.bits_per_sample > 8 || info.exponent_bits_per_sample > 0
                    format = JxlPixelFormat(num_channels: UInt32(channels), data_type: sixteen ? JXL_TYPE_UINT16 : JXL_TYPE_UINT8,
                                            endianness: JXL_NATIVE_ENDIAN, align: 0)
                case JXL_DEC_COLOR_ENCODING:
                    var encoding = JxlColorEncoding()
                    if JxlDecoderGetColorAsEncodedProfile(dec, nil, JXL_COLOR_PROFILE_TARGET_DATA, &encoding) == JXL_DEC_SUCCESS {
                        colourEncoding = encoding
                        if encoding.transfer_function == JXL_TRANSFER_FUNCTION_PQ || encoding.transfer_function == JXL_TRANSFER_FUNCTION_HLG {
                            let name = encoding.transfer_function == JXL_TRANSFER_FUNCTION_PQ ? "PQ (SMPTE ST 2084)" : "HLG (ARIB STD-B67)"
                            throw LightWorkError.colour("JPEG XL with the \(name) HDR transfer: HDR is not rendered (no tone mapping), refused")
                        }
                    }
                    var size = 0
                    if JxlDecoderGetICCProfileSize(dec, nil, JXL_COLOR_PROFILE_TARGET_DATA, &size) == JXL_DEC_SUCCESS, size > 0 {
                        var profile = [UInt8](repeating: 0, count: size)
                        if JxlDecoderGetColorAsICCProfile(dec, nil, JXL_COLOR_PROFILE_TARGET_DATA, &profile, size) == JXL_DEC_SUCCESS {
                            icc = Data(profile)
                        }
                    }
                case JXL_DEC_NEED_IMAGE_OUT_BUFFER:
                    guard JxlDecoderImageOutBufferSize(dec, &format, &pixelBytes) == JXL_DEC_SUCCESS else { throw fail("no output size") }
                    pixels = UnsafeMutableRawPointer.allocate(byteCount: max(1, pixelBytes), alignment: 16)
                    guard JxlDecoderSetImageOutBuffer(dec, &format, pixels, pixelBytes) == JXL_DEC_SUCCESS else { throw fail("refused the output buffer") }
                case JXL_DEC_FULL_IMAGE:
                    gotImage = true
                case JXL_DEC_BOX:
                    finishBox()
                    var type: JxlBoxType = (0, 0, 0, 0)
                    let typed = withUnsafeMutableBytes(of: &type) { JxlDecoderGetBoxType(dec, $0.baseAddress!.assumingMemoryBound(to: CChar.self), 1) }
                    guard typed == JXL_DEC_SUCCESS else { continue }
                    if type == (0x45, 0x78, 0x69, 0x66) {   // "Exif"
                        inExifBox = true
                        _ = JxlDecoderSetBoxBuffer(dec, boxBuffer.baseAddress, boxBuffer.count)
                    }
                case JXL_DEC_BOX_NEED_MORE_OUTPUT:
                    let left = JxlDecoderReleaseBoxBuffer(dec)
                    let used = boxBuffer.count - left
                    guard boxBuffer.count < 1 << 24 else { throw fail("an Exif box larger than 16 MB") }
                    let grown = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: boxBuffer.count * 2)
                    _ = grown.initialize(from: boxBuffer)
                    boxBuffer.deallocate()
                    boxBuffer = grown
                    _ = JxlDecoderSetBoxBuffer(dec, boxBuffer.baseAddress! + used, boxBuffer.count - used)
                case JXL_DEC_SUCCESS:
                    finishBox()
                    break loop
                default:
                    continue
                }
            }
            guard gotImage, let pixels else { throw LightWorkError.decodeFailed("JPEG XL: libjxl returned no image") }
            return Raw(pixels: [UInt8](UnsafeRawBufferPointer(start: pixels, count: pixelBytes)), info: info, format: format, icc: icc,
                       encoding: colourEncoding, exif: exif)
        }
    }

    private static func convert(_ pixels: UnsafeMutableRawPointer, info: JxlBasicInfo, format: JxlPixelFormat, icc: Data?,
                                encoding: JxlColorEncoding?, exif exifBox: [UInt8]?, options: DecodeOptions) throws -> DecodedImage {
        let width = Int(info.xsize), height = Int(info.ysize)
        let grey = info.num_color_channels == 1, alpha = info.alpha_bits > 0
        let sixteen = format.data_type == JXL_TYPE_UINT16
        let layout: DeviceRGBConverter.Layout = grey ? (alpha ? .grayAlpha : .gray) : (alpha ? .rgba : .rgb)
        let colour = ICCInput.embedded(icc, model: grey ? .gray : .rgb, intent: options.intent)
        let (converter, sourceProfile, notes) = try colour.converter(layout: layout, sixteenBit: sixteen, intent: options.intent)
        let stored = WorkingImage.unfilled(width: width, height: height, space: .deviceRGB, hasAlpha: alpha)   // every row is converted below
        let rowBytes = width * Int(format.num_channels) * (sixteen ? 2 : 1)
        var y = 0
        while y < height {
            let n = min(64, height - y)
            converter.convert(pixels + y * rowBytes, rowBytes: rowBytes, rows: n, width: width, into: stored, firstRow: y)
            y += n
        }

        var metadata = ImageMetadata()
        var exif: Data?
        if let exifBox {
            exif = exifBlock(exifBox)
            if let exif, let m = EXIFReader.read(exif) { metadata = m }
        }
        let orientation = Orientation(rawValue: Int(info.orientation.rawValue)) ?? .up
        metadata.orientation = orientation.rawValue
        let sampleKind = info.exponent_bits_per_sample > 0 ? "\(info.bits_per_sample)-bit float" : "\(info.bits_per_sample)-bit"
        var result = DecodedImage(image: stored.uprighted(orientation), kind: .rgb, metadata: metadata, notes: notes,
                                  sourceProfile: sourceProfile, details: [
                                      "format": "JPEG XL",
                                      "bit depth": sampleKind,
                                      "coding": info.uses_original_profile != 0 ? "original colour space (lossless or modular)" : "XYB (lossy)",
                                      "channels": (grey ? "grey" : "RGB") + (alpha ? " + alpha (\(info.alpha_bits)-bit)" : ""),
                                      "colour encoding": encoding == nil ? "ICC profile" : "JPEG XL colour encoding",
                                      "stored size": "\(width)×\(height)",
                                  ])
        result.exifBlob = exif
        return result
    }
}
