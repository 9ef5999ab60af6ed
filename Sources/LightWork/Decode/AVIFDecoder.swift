import CAVIF
import Foundation

/// Decodes AVIF (8/10/12-bit, 4:4:4 to 4:0:0, alpha) with libavif into upright device-RGB pixels: YUV to RGB by
/// libavif's own C code with the file's matrix coefficients and range (never libyuv, whose SIMD paths need not
/// give the same bits everywhere), 10 and 12-bit samples widened to 16 bits. Colour: the ICC profile when there is
/// one, else the nclx code points (`CICP`; PQ and HLG refused). Orientation: the 'irot' and 'imir' properties (the
/// EXIF orientation of a HEIF file is informative only).
public enum AVIFDecoder {
    public static func decode(data: Data, options: DecodeOptions) throws -> DecodedImage {
        guard !data.isEmpty else { throw LightWorkError.emptyFile }
        guard let decoder = avifDecoderCreate() else { throw LightWorkError.decodeFailed("AVIF: libavif could not start") }
        defer { avifDecoderDestroy(decoder) }
        decoder.pointee.maxThreads = 1
        decoder.pointee.imageSizeLimit = UInt32(clamping: options.maxPixels)
        return try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) throws -> DecodedImage in
            let bytes = buffer.bindMemory(to: UInt8.self)
            try check(avifDecoderSetIOMemory(decoder, bytes.baseAddress, bytes.count), decoder, "reading")
            try check(avifDecoderParse(decoder), decoder, "parsing")
            let image = decoder.pointee.image!
            let width = Int(image.pointee.width), height = Int(image.pointee.height)
            try PixelLimit.check(width: width, height: height, format: "AVIF", options: options)
            try check(avifDecoderNextImage(decoder), decoder, "decoding")
            return try convert(decoder.pointee.image!, options: options)
        }
    }

    /// Reads an AVIF back as stored (`ImageFileReader`): RGB(A) at the file's own depth (8, 10 or 12 bits: values
    /// 0…2ⁿ−1, `bitDepth` n), converted from YUV by libavif, with the ICC profile and EXIF; 'irot'/'imir' not applied.
    static func readBack(data: Data, path: String) throws -> ImageFile {
        guard let decoder = avifDecoderCreate() else { throw LightWorkError.decodeFailed("\(path): libavif could not start") }
        defer { avifDecoderDestroy(decoder) }
        decoder.pointee.maxThreads = 1
        decoder.pointee.imageSizeLimit = UInt32(clamping: PixelLimit.readBack.maxPixels)
        return try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) throws -> ImageFile in
            let bytes = buffer.bindMemory(to: UInt8.self)
            do {
                try check(avifDecoderSetIOMemory(decoder, bytes.baseAddress, bytes.count), decoder, "reading")
                try check(avifDecoderParse(decoder), decoder, "parsing")
                try check(avifDecoderNextImage(decoder), decoder, "decoding")
            } catch let e as LightWorkError { throw LightWorkError.decodeFailed("\(path): \(e)") }
            let image = decoder.pointee.image!, im = image.pointee
            let channels = im.alphaPlane != nil ? 4 : 3
            var rgb = avifRGBImage()
            avifRGBImageSetDefaults(&rgb, image)
            rgb.format = channels == 4 ? AVIF_RGB_FORMAT_RGBA : AVIF_RGB_FORMAT_RGB
            rgb.avoidLibYUV = AVIF_TRUE
            avifRGBImageAllocatePixels(&rgb)
            defer { avifRGBImageFreePixels(&rgb) }
            guard rgb.pixels != nil, avifImageYUVToRGB(image, &rgb) == AVIF_RESULT_OK else { throw LightWorkError.decodeFailed("\(path): libavif cannot convert its YUV to RGB") }
            let count = Int(im.width) * Int(im.height) * channels
            let samples: [UInt16] = rgb.depth > 8
                ? Array(UnsafeBufferPointer(start: UnsafeRawPointer(rgb.pixels).assumingMemoryBound(to: UInt16.self), count: count))
                : UnsafeBufferPointer(start: rgb.pixels, count: count).map(UInt16.init)
            let icc = im.icc.size > 0 ? Data(bytes: im.icc.data, count: im.icc.size) : nil
            let exif = im.exif.size > 0 ? EXIFReader.tiffBlock(Data(bytes: im.exif.data, count: im.exif.size)) : nil
            return ImageFile(format: ImageFile.Format(rawValue: "avif"), width: Int(im.width), height: Int(im.height), channels: channels,
                             bitDepth: Int(im.depth), iccProfile: icc, exif: exif, samples: samples, metadata: exif.flatMap(EXIFReader.read))
        }
    }

    private static func check(_ result: avifResult, _ decoder: UnsafeMutablePointer<avifDecoder>, _ step: String) throws {
        guard result != AVIF_RESULT_OK else { return }
        let detail = withUnsafeBytes(of: decoder.pointee.diag.error) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        let reason = String(cString: avifResultToString(result)) + (detail.isEmpty ? "" : " (\(oneLine(detail)))")
        if result == AVIF_RESULT_TRUNCATED_DATA { throw LightWorkError.decodeFailed("AVIF truncated while \(step): libavif: \(reason)") }
        throw LightWorkError.decodeFailed("AVIF: libavif failed \(step): \(reason)")
    }

    private static func convert(_ image: UnsafeMutablePointer<avifImage>, options: DecodeOptions) throws -> DecodedImage {
        let im = image.pointee
        let width = Int(im.width), height = Int(im.height), depth = Int(im.depth)
        let hasAlpha = im.alphaPlane != nil
        let sixteen = depth > 8
        var rgb = avifRGBImage()
        avifRGBImageSetDefaults(&rgb, image)
        rgb.format = hasAlpha ? AVIF_RGB_FORMAT_RGBA : AVIF_RGB_FORMAT_RGB
        rgb.depth = sixteen ? 16 : 8
        rgb.avoidLibYUV = AVIF_TRUE
        rgb.chromaUpsampling = AVIF_CHROMA_UPSAMPLING_BILINEAR
        avifRGBImageAllocatePixels(&rgb)
        defer { avifRGBImageFreePixels(&rgb) }
        guard rgb.pixels != nil else { throw LightWorkError.decodeFailed("AVIF: out of memory for \(width)×\(height) RGB pixels") }
        let converted = avifImageYUVToRGB(image, &rgb)
        guard converted == AVIF_RESULT_OK else {
            throw LightWorkError.decodeFailed("AVIF: libavif cannot convert its YUV to RGB (matrix coefficients \(im.matrixCoefficients)): \(String(cString: avifResultToString(converted)))")
        }

        let cicp = CICP(primaries: UInt16(im.colorPrimaries), transfer: UInt16(im.transferCharacteristics),
                        matrix: UInt16(im.matrixCoefficients), fullRange: im.yuvRange == AVIF_RANGE_FULL)
        let icc = im.icc.size > 0 ? Data(bytes: im.icc.data, count: im.icc.size) : nil
        // A profile wins over the code points (HEIF allows both; the profile is the precise one). HDR is refused either way.
        if icc != nil, let refusal = cicp.refusal, cicp.transfer == 16 || cicp.transfer == 18 {
            throw LightWorkError.colour("CICP \(cicp.description): \(refusal)")
        }
        let colour = try icc.map { ICCInput.embedded($0, model: .rgb, intent: options.intent) } ?? cicp.input(model: .rgb, intent: options.intent)
        let layout: DeviceRGBConverter.Layout = hasAlpha ? .rgba : .rgb
        let (converter, sourceProfile, notes) = try colour.converter(layout: layout, sixteenBit: sixteen, intent: options.intent)
        let stored = WorkingImage.unfilled(width: width, height: height, space: .deviceRGB, hasAlpha: hasAlpha)   // every row is converted below
        let rowBytes = Int(rgb.rowBytes)
        var y = 0
        while y < height {
            let n = min(64, height - y)
            converter.convert(rgb.pixels + y * rowBytes, rowBytes: rowBytes, rows: n, width: width, into: stored, firstRow: y)
            y += n
        }

        var metadata = ImageMetadata()
        var exif: Data?
        if im.exif.size > 0 {
            exif = EXIFReader.tiffBlock(Data(bytes: im.exif.data, count: im.exif.size))
            if let exif, let m = EXIFReader.read(exif) { metadata = m }
        }
        let orientation = transformOrientation(im)
        metadata.orientation = Int(orientation.rawValue)
        // avifPixelFormat's values in order: none, 4:4:4, 4:2:2, 4:2:0, 4:0:0.
        let yuv = ["none", "4:4:4", "4:2:2", "4:2:0", "4:0:0"][min(4, Int(im.yuvFormat.rawValue))]
        var result = DecodedImage(image: stored.uprighted(orientation), kind: .rgb, metadata: metadata, notes: notes,
                                  sourceProfile: sourceProfile, details: [
                                      "format": "AVIF",
                                      "bit depth": String(depth),
                                      "chroma": yuv + (im.yuvRange == AVIF_RANGE_FULL ? ", full range" : ", limited range"),
                                      "alpha": hasAlpha ? (im.alphaPremultiplied == AVIF_TRUE ? "yes (premultiplied)" : "yes") : "no",
                                      "CICP": cicp.description,
                                      "stored size": "\(width)×\(height)",
                                  ])
        result.exifBlob = exif
        return result
    }

    /// The display transform of 'irot' (anticlockwise quarter turns) then 'imir' (mode 0 exchanges top and bottom,
    /// 1 left and right), as the EXIF orientation that does the same.
    static func transformOrientation(_ im: avifImage) -> Orientation {
        let rotation = im.transformFlags & AVIF_TRANSFORM_IROT.rawValue != 0 ? Int(im.irot.angle & 3) : 0
        let mirror: Int? = im.transformFlags & AVIF_TRANSFORM_IMIR.rawValue != 0 ? Int(im.imir.mode & 1) : nil
        return orientation(anticlockwiseTurns: rotation, mirror: mirror)
    }

    /// `rotation` quarter turns anticlockwise, then a mirror (0: top↔bottom, 1: left↔right, nil: none).
    static func orientation(anticlockwiseTurns rotation: Int, mirror: Int?) -> Orientation {
        switch (mirror, rotation) {
        case (nil, 1): return .left
        case (nil, 2): return .down
        case (nil, 3): return .right
        case (1, 0), (0, 2): return .upMirrored
        case (1, 1), (0, 3): return .rightMirrored
        case (1, 2), (0, 0): return .downMirrored
        case (1, 3), (0, 1): return .leftMirrored
        default: return .up
        }
    }
}
