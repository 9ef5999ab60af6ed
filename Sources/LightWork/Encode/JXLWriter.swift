import CJXL
import Foundation

/// Writes JPEG XL with libjxl: 8 or 16-bit grey, grey+alpha, RGB or RGBA; lossy (XYB VarDCT at the distance of
/// `quality`, cjxl's mapping) or lossless (`lossless`, or quality 100: modular, the samples exactly, in the
/// original colour space). The ICC profile is handed to libjxl: a lossless file keeps its bytes; a lossy (XYB) one
/// stores libjxl's compact colour encoding when the profile is one (sRGB, Display P3…), the bytes otherwise.
/// EXIF in an 'Exif' box of the container (offset 0), orientation identity in the codestream. The thread runner
/// only splits work: output bytes are the same at any thread count (tested).
public struct JXLWriter: ImageWriter {
    public let threads: Int

    public init(threads: Int = 1) { self.threads = max(1, threads) }

    public func encode(_ pixels: EncodedPixels, settings: EncodeSettings, to output: AtomicFile.Output) throws {
        try pixels.validateForWriting(profile: settings.iccProfile)
        func fail(_ what: String) -> LightWorkError { .writeFailed("\(output.finalPath): libjxl: \(what)") }
        guard let enc = JxlEncoderCreate(nil) else { throw fail("could not create an encoder") }
        defer { JxlEncoderDestroy(enc) }
        let runner = JxlThreadParallelRunnerCreate(nil, threads)
        defer { JxlThreadParallelRunnerDestroy(runner) }
        guard JxlEncoderSetParallelRunner(enc, JxlThreadParallelRunner, runner) == JXL_ENC_SUCCESS else { throw fail("refused its thread runner") }

        let quality = settings.options.int(JXLCodec.quality)
        let lossless = settings.options.flag(JXLCodec.lossless) || quality >= 100
        let bits = UInt32(pixels.depth.rawValue)
        let grey = pixels.channels <= 2
        var info = JxlBasicInfo()
        JxlEncoderInitBasicInfo(&info)
        info.xsize = UInt32(pixels.width)
        info.ysize = UInt32(pixels.height)
        info.bits_per_sample = bits
        info.exponent_bits_per_sample = 0
        info.num_color_channels = grey ? 1 : 3
        info.num_extra_channels = pixels.hasAlpha ? 1 : 0
        info.alpha_bits = pixels.hasAlpha ? bits : 0
        info.alpha_exponent_bits = 0
        info.uses_original_profile = lossless ? 1 : 0
        info.orientation = JXL_ORIENT_IDENTITY
        let exif = settings.exif.map { Data([0, 0, 0, 0]) + $0 }   // the box starts with the TIFF header's offset
        // EXIF and XMP go in boxes of the container ("Exif", "xml ").
        let boxes: [(type: String, bytes: Data)] = [exif.map { ("Exif", $0) }, settings.xmpPacket.map { ("xml ", $0) }].compactMap { $0 }
        if !boxes.isEmpty {
            guard JxlEncoderUseContainer(enc, 1) == JXL_ENC_SUCCESS, JxlEncoderUseBoxes(enc) == JXL_ENC_SUCCESS else { throw fail("refused boxes") }
        }
        guard JxlEncoderSetBasicInfo(enc, &info) == JXL_ENC_SUCCESS else { throw fail("refused the image header") }
        let colourSet: Bool = withOptionalBytes(settings.iccProfile) { p, n in
            if let p { return JxlEncoderSetICCProfile(enc, p, n) == JXL_ENC_SUCCESS }
            var srgb = JxlColorEncoding()
            JxlColorEncodingSetToSRGB(&srgb, grey ? 1 : 0)
            return JxlEncoderSetColorEncoding(enc, &srgb) == JXL_ENC_SUCCESS
        }
        guard colourSet else { throw fail("refused the ICC profile") }
        for box in boxes {
            let added: Bool = box.bytes.withUnsafeBytes { raw in
                JxlEncoderAddBox(enc, box.type, raw.bindMemory(to: UInt8.self).baseAddress, raw.count, 0) == JXL_ENC_SUCCESS
            }
            guard added else { throw fail("refused the \(box.type) box") }
        }
        if !boxes.isEmpty { JxlEncoderCloseBoxes(enc) }

        guard let frame = JxlEncoderFrameSettingsCreate(enc, nil) else { throw fail("could not create frame settings") }
        guard JxlEncoderFrameSettingsSetOption(frame, JXL_ENC_FRAME_SETTING_EFFORT, Int64(settings.options.int(JXLCodec.effort))) == JXL_ENC_SUCCESS,
              JxlEncoderSetFrameLossless(frame, lossless ? 1 : 0) == JXL_ENC_SUCCESS,
              lossless || JxlEncoderSetFrameDistance(frame, JXLCodec.distance(quality: quality)) == JXL_ENC_SUCCESS else {
            throw fail("refused the frame settings")
        }
        var format = JxlPixelFormat(num_channels: UInt32(pixels.channels), data_type: pixels.depth == .eight ? JXL_TYPE_UINT8 : JXL_TYPE_UINT16,
                                    endianness: JXL_NATIVE_ENDIAN, align: 0)
        let added: Bool = pixels.withRawBytes { px in
            JxlEncoderAddImageFrame(frame, &format, px.baseAddress, px.count) == JXL_ENC_SUCCESS
        }
        guard added else { throw fail("refused the pixels") }
        JxlEncoderCloseInput(enc)

        var encoded = [UInt8](repeating: 0, count: max(1 << 16, pixels.width * pixels.height))
        var used = 0
        while true {
            var status = JXL_ENC_ERROR
            encoded.withUnsafeMutableBufferPointer { buffer in
                var next: UnsafeMutablePointer<UInt8>? = buffer.baseAddress! + used
                var available = buffer.count - used
                status = JxlEncoderProcessOutput(enc, &next, &available)
                used = buffer.count - available
            }
            if status == JXL_ENC_SUCCESS { break }
            guard status == JXL_ENC_NEED_MORE_OUTPUT else { throw fail("encoding failed") }
            encoded += [UInt8](repeating: 0, count: encoded.count)
        }
        try output.write(Data(encoded.prefix(used)))
    }
}
