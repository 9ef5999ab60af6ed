import CAVIF
import Foundation

/// Writes AVIF with libavif and aom: 8, 10 or 12-bit (`OutputFormat.bitDepth`; 16-bit pixels narrowed to
/// round(v·(2ⁿ−1)/65535)), RGB as 4:4:4 YUV with BT.601 matrix coefficients in full range (grey as 4:0:0), alpha as
/// its own AV1 plane at the same quantizer, the ICC profile in a 'colr' prof box and the code points in a 'colr'
/// nclx box (libavif writes both): Chrome and libavif-based viewers take the profile, others only read nclx, so
/// sRGB and Display P3 say themselves in both, Adobe RGB and ProPhoto (no H.273 code) by the profile alone.
/// EXIF as the Exif item. RGB→YUV by libavif's own C code (not libyuv) and aom's output are the same bytes at
/// any thread count (tested): aom's row multithreading is off, threads code the
/// tiles, whose layout follows the image's size alone.
public struct AVIFWriter: ImageWriter {
    /// Encoder threads (aom's `g_threads` through libavif's `maxThreads`).
    public let threads: Int
    /// H.273 matrix coefficients for the YUV coding (BT.601, libavif's own default).
    static let matrix: UInt16 = 6

    public init(threads: Int = 1) { self.threads = max(1, threads) }

    public func encode(_ pixels: EncodedPixels, settings: EncodeSettings, to output: AtomicFile.Output) throws {
        try pixels.validateForWriting(profile: settings.iccProfile)
        let bitDepth = settings.format.codecName == "avif" ? settings.format.bitDepth : pixels.depth.rawValue
        guard (pixels.depth == .eight && bitDepth == 8) || (pixels.depth == .sixteen && (bitDepth == 10 || bitDepth == 12)) else {
            throw LightWorkError.writeFailed("\(output.finalPath): AVIF is written at 8 bits from 8-bit pixels or 10/12 bits from 16-bit pixels, not \(bitDepth) from \(pixels.depth.rawValue)")
        }
        let grey = pixels.channels <= 2
        guard let image = avifImageCreate(UInt32(pixels.width), UInt32(pixels.height), UInt32(bitDepth),
                                          grey ? AVIF_PIXEL_FORMAT_YUV400 : AVIF_PIXEL_FORMAT_YUV444) else {
            throw LightWorkError.writeFailed("\(output.finalPath): libavif could not create an image")
        }
        defer { avifImageDestroy(image) }
        let cicp = CICP.outputSpace(ofProfile: settings.iccProfile).map { CICP.output($0, matrix: Self.matrix) }
            ?? CICP(primaries: CICP.unspecified, transfer: CICP.unspecified, matrix: Self.matrix)
        image.pointee.colorPrimaries = avifColorPrimaries(cicp.primaries)
        image.pointee.transferCharacteristics = avifTransferCharacteristics(cicp.transfer)
        image.pointee.matrixCoefficients = avifMatrixCoefficients(cicp.matrix)
        image.pointee.yuvRange = AVIF_RANGE_FULL
        withOptionalBytes(settings.iccProfile) { p, n in if let p { avifImageSetProfileICC(image, p, n) } }
        withOptionalBytes(settings.exif) { p, n in if let p { avifImageSetMetadataExif(image, p, n) } }
        withOptionalBytes(settings.xmpPacket) { p, n in if let p { avifImageSetMetadataXMP(image, p, n) } }

        // libavif takes RGB or RGBA only: grey is spread over three channels (4:0:0 keeps only Y).
        let outChannels = pixels.hasAlpha ? 4 : 3
        let count = pixels.width * pixels.height
        var rgb = avifRGBImage()
        avifRGBImageSetDefaults(&rgb, image)
        rgb.format = pixels.hasAlpha ? AVIF_RGB_FORMAT_RGBA : AVIF_RGB_FORMAT_RGB
        rgb.depth = UInt32(bitDepth)
        rgb.avoidLibYUV = AVIF_TRUE
        let status: avifResult
        if bitDepth == 8 {
            var buffer = Self.expand(pixels.samples8, channels: pixels.channels, to: outChannels, count: count)
            status = buffer.withUnsafeMutableBytes { raw in
                rgb.pixels = raw.bindMemory(to: UInt8.self).baseAddress
                rgb.rowBytes = UInt32(pixels.width * outChannels)
                return avifImageRGBToYUV(image, &rgb)
            }
        } else {
            let top = UInt32((1 << bitDepth) - 1)
            let narrowed = pixels.samples16.map { UInt16((UInt32($0) * top + 32767) / 65535) }
            var buffer = Self.expand(narrowed, channels: pixels.channels, to: outChannels, count: count)
            status = buffer.withUnsafeMutableBytes { raw in
                rgb.pixels = raw.bindMemory(to: UInt8.self).baseAddress
                rgb.rowBytes = UInt32(pixels.width * outChannels * 2)
                return avifImageRGBToYUV(image, &rgb)
            }
        }
        guard status == AVIF_RESULT_OK else {
            throw LightWorkError.writeFailed("\(output.finalPath): libavif RGB to YUV: \(String(cString: avifResultToString(status)))")
        }

        guard let encoder = avifEncoderCreate() else { throw LightWorkError.writeFailed("\(output.finalPath): libavif could not create an encoder") }
        defer { avifEncoderDestroy(encoder) }
        let quantizer = Int32((100 - settings.options.int(AVIFCodec.quality)) * 63 + 50) / 100
        encoder.pointee.codecChoice = AVIF_CODEC_CHOICE_AOM
        encoder.pointee.maxThreads = Int32(threads)
        encoder.pointee.speed = Int32(settings.options.int(AVIFCodec.speed))
        encoder.pointee.minQuantizer = quantizer
        encoder.pointee.maxQuantizer = quantizer
        encoder.pointee.minQuantizerAlpha = quantizer
        encoder.pointee.maxQuantizerAlpha = quantizer
        // aom's row multithreading gives other bytes at other thread counts (measured: 68 669 vs 68 742 bytes at
        // 1 and 2 threads); tiles fixed by the image's size are coded independently, so threads split them alone.
        avifEncoderSetCodecSpecificOption(encoder, "row-mt", "0")
        encoder.pointee.tileColsLog2 = Self.tilesLog2(pixels.width)
        encoder.pointee.tileRowsLog2 = Self.tilesLog2(pixels.height)
        var encoded = avifRWData(data: nil, size: 0)
        defer { avifRWDataFree(&encoded) }
        let written = avifEncoderWrite(encoder, image, &encoded)
        guard written == AVIF_RESULT_OK, let data = encoded.data else {
            let detail = withUnsafeBytes(of: encoder.pointee.diag.error) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            throw LightWorkError.writeFailed("\(output.finalPath): libavif: \(String(cString: avifResultToString(written)))\(detail.isEmpty ? "" : " (\(detail))")")
        }
        try output.write(UnsafeRawBufferPointer(start: data, count: encoded.size))
    }

    /// log2 of the tile count along a side of `length` pixels: tiles of at least 1024 pixels, at most 8 (24 MP is 4×2).
    static func tilesLog2(_ length: Int) -> Int32 {
        var log = 0
        while log < 3 && length >> (log + 1) >= 1024 { log += 1 }
        return Int32(log)
    }

    /// Interleaved samples with `channels` per pixel as RGB(A): grey repeated into R, G and B, alpha kept.
    static func expand<T: FixedWidthInteger>(_ samples: [T], channels: Int, to out: Int, count: Int) -> [T] {
        guard channels != out else { return samples }
        var result = [T](repeating: 0, count: count * out)
        for i in 0..<count {
            let g = samples[i * channels]
            result[i * out] = g; result[i * out + 1] = g; result[i * out + 2] = g
            if out == 4 { result[i * out + 3] = samples[i * channels + 1] }
        }
        return result
    }
}
