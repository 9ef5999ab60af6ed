import CJPEG
import CShims
import Foundation

/// Decodes baseline and progressive JPEGs (grey, YCbCr/RGB, CMYK/YCCK including Adobe-inverted) with
/// libjpeg-turbo into upright device-RGB pixels; the embedded ICC profile (however many APP2 chunks it
/// spans) is converted with LittleCMS, and EXIF (APP1) supplies the metadata and orientation.
public enum JPEGDecoder {
    /// Rows decoded and converted per step: bounds the 8-bit scratch buffer whatever the image size.
    static let bandRows = 64

    public static func decode(data: Data, options: DecodeOptions) throws -> DecodedImage {
        guard !data.isEmpty else { throw LightWorkError.emptyFile }
        return try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) throws -> DecodedImage in
            let bytes = buffer.bindMemory(to: UInt8.self)
            guard let d = lw_jpegdec_create(bytes.baseAddress, bytes.count) else {
                throw LightWorkError.decodeFailed("JPEG: libjpeg could not start")
            }
            defer { lw_jpegdec_destroy(d) }
            return try decode(d, options: options)
        }
    }

    /// Reads a JPEG back as stored (`ImageFileReader`): 8-bit grey or RGB samples through the same decompressor,
    /// its ICC profile and EXIF; CMYK is refused (LightWork never writes it).
    static func readBack(data: Data, path: String) throws -> ImageFile {
        try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) throws -> ImageFile in
            let bytes = buffer.bindMemory(to: UInt8.self)
            guard let d = lw_jpegdec_create(bytes.baseAddress, bytes.count) else {
                throw LightWorkError.decodeFailed("\(path): libjpeg: could not start")
            }
            defer { lw_jpegdec_destroy(d) }
            func fail(_ text: String) -> LightWorkError { .decodeFailed("\(path): libjpeg: \(text)") }
            guard lw_jpegdec_read_header(d) == 0 else { throw fail(String(cString: lw_jpegdec_message(d))) }
            let info = lw_jpegdec_info(d)!
            try PixelLimit.check(width: Int(info.pointee.image_width), height: Int(info.pointee.image_height), format: "\(path): JPEG", options: PixelLimit.readBack)
            guard info.pointee.jpeg_color_space != JCS_CMYK, info.pointee.jpeg_color_space != JCS_YCCK else {
                throw fail("CMYK JPEG is not supported")
            }
            info.pointee.out_color_space = info.pointee.num_components == 1 ? JCS_GRAYSCALE : JCS_RGB
            var iccBytes: UnsafeMutablePointer<UInt8>? = nil
            var iccLength: UInt32 = 0
            var icc: Data?
            if lw_jpegdec_read_icc(d, &iccBytes, &iccLength) == 1, let iccBytes {
                icc = Data(bytes: iccBytes, count: Int(iccLength))
                free(iccBytes)
            }
            let exif = SavedMarkers(info.pointee.marker_list).exifPayload
            guard lw_jpegdec_start(d) == 0 else { throw fail(String(cString: lw_jpegdec_message(d))) }
            let width = Int(info.pointee.output_width), height = Int(info.pointee.output_height)
            let components = Int(info.pointee.output_components)
            var pixels = [UInt8](repeating: 0, count: width * height * components)
            try pixels.withUnsafeMutableBufferPointer { px in
                var rows: [UnsafeMutablePointer<UInt8>?] = (0..<height).map { px.baseAddress! + $0 * width * components }
                var got: UInt32 = 0
                guard lw_jpegdec_read_rows(d, &rows, UInt32(height), &got) == 0 else { throw fail(String(cString: lw_jpegdec_message(d))) }
                guard got == height else { throw fail("image data ends at row \(got) of \(height)") }
            }
            guard lw_jpegdec_finish(d) == 0 else { throw fail(String(cString: lw_jpegdec_message(d))) }
            return ImageFile(format: .jpeg, width: width, height: height, channels: components, bitDepth: 8, iccProfile: icc,
                             exif: exif, samples: pixels.map(UInt16.init), metadata: exif.flatMap(EXIFReader.read))
        }
    }

    private static func failure(_ d: OpaquePointer) -> LightWorkError {
        .decodeFailed("JPEG: \(oneLine(String(cString: lw_jpegdec_message(d))))")
    }

    private static func decode(_ d: OpaquePointer, options: DecodeOptions) throws -> DecodedImage {
        guard lw_jpegdec_read_header(d) == 0 else { throw failure(d) }
        let info = lw_jpegdec_info(d)!
        let width = Int(info.pointee.image_width), height = Int(info.pointee.image_height)
        try PixelLimit.check(width: width, height: height, format: "JPEG", options: options)

        let markers = SavedMarkers(info.pointee.marker_list)
        var notes: [String] = []
        let model: ICCInput.Model
        switch info.pointee.jpeg_color_space {
        case JCS_GRAYSCALE: info.pointee.out_color_space = JCS_GRAYSCALE; model = .gray
        case JCS_CMYK, JCS_YCCK: info.pointee.out_color_space = JCS_CMYK; model = .cmyk
        case JCS_YCbCr, JCS_RGB: info.pointee.out_color_space = JCS_RGB; model = .rgb
        default:
            switch info.pointee.num_components {
            case 1: model = .gray
            case 3: model = .rgb
            case 4: model = .cmyk
            default: throw LightWorkError.decodeFailed("JPEG: \(info.pointee.num_components) colour components are not supported")
            }
            info.pointee.out_color_space = info.pointee.jpeg_color_space
        }
        let inverted = model == .cmyk && info.pointee.saw_Adobe_marker != 0

        var colour: ICCInput
        var iccBytes: UnsafeMutablePointer<UInt8>? = nil
        var iccLength: UInt32 = 0
        let found = lw_jpegdec_read_icc(d, &iccBytes, &iccLength)
        if found == 1, let iccBytes {
            let profile = Data(bytes: iccBytes, count: Int(iccLength))
            free(iccBytes)
            colour = ICCInput.embedded(profile, model: model, intent: options.intent)
        } else if found < 0 || markers.hasICCChunks {
            colour = ICCInput.corrupt(model)
        } else {
            colour = ICCInput.unspecified(model)
        }

        guard lw_jpegdec_start(d) == 0 else { throw failure(d) }
        let components = Int(info.pointee.output_components)
        let layout: DeviceRGBConverter.Layout
        switch (model, components) {
        case (.gray, 1): layout = .gray
        case (.rgb, 3): layout = .rgb
        case (.cmyk, 4): layout = .cmyk(inverted: inverted)
        default: throw LightWorkError.decodeFailed("JPEG: libjpeg delivered \(components) components for \(model.rawValue) data")
        }
        let (converter, sourceProfile, colourNotes) = try colour.converter(layout: layout, sixteenBit: false, intent: options.intent)
        notes += colourNotes

        let stored = WorkingImage.unfilled(width: width, height: height, space: .deviceRGB, hasAlpha: false)   // every row is read or the decode throws
        let kept = SourceSamples.kept(for: converter, width: width, height: height, colour: options.keepsColourSamples)
        let pipeline = BandPipeline(rowBytes: width * components, bandRows: bandRows, converter: converter, image: stored, kept: kept)
        try pipeline.run { buffer, y, want in
            var rows: [UnsafeMutablePointer<UInt8>?] = (0..<want).map { buffer + $0 * width * components }
            var got: UInt32 = 0
            guard lw_jpegdec_read_rows(d, &rows, UInt32(want), &got) == 0 else { throw failure(d) }
            guard got == want else { throw LightWorkError.decodeFailed("JPEG: image data ends at row \(y + Int(got)) of \(height)") }
        }
        if lw_jpegdec_finish(d) != 0 {
            notes.append("JPEG trailer damaged after the image data: \(oneLine(String(cString: lw_jpegdec_message(d))))")
        }
        let warnings = lw_jpegdec_warning_count(d)
        if warnings > 0 {
            notes.append("libjpeg recovered from \(warnings) corrupt-data warning(s): \(oneLine(String(cString: lw_jpegdec_first_warning(d))))")
        }

        var metadata = ImageMetadata()
        let exif = markers.exifTIFF
        if let exif, let m = EXIFReader.read(exif) { metadata = m }
        let orientation = metadata.orientation.flatMap(Orientation.init(rawValue:)) ?? .up
        var result = DecodedImage(image: stored.uprighted(orientation), kind: .rgb, metadata: metadata, notes: notes,
                                  sourceProfile: sourceProfile, details: [
                                      "format": "JPEG",
                                      "encoding": info.pointee.progressive_mode != 0 ? "progressive" : "baseline",
                                      "components": String(info.pointee.num_components),
                                      "colour model": inverted ? "cmyk (Adobe inverted)" : model.rawValue,
                                      "stored size": "\(width)×\(height)",
                                  ])
        result.exifBlob = exif
        result.samples = kept?.uprighted(orientation)
        return result
    }
}

/// The APP1/APP2 markers libjpeg kept while reading the header.
private struct SavedMarkers {
    /// The TIFF block of the first `Exif\0\0` APP1 marker.
    var exifTIFF: Data?
    /// That marker's payload after `Exif\0\0`, as stored (nil when it holds nothing more).
    var exifPayload: Data?
    /// Whether any APP2 marker claims to carry an ICC profile chunk.
    var hasICCChunks = false

    init(_ list: jpeg_saved_marker_ptr?) {
        let iccTag = Array("ICC_PROFILE".utf8) + [0]
        var m = list
        while let marker = m {
            let length = Int(marker.pointee.data_length)
            if let data = marker.pointee.data, length > 0 {
                let payload = Data(bytes: data, count: length)
                if marker.pointee.marker == UInt8(JPEG_APP0 + 1), exifTIFF == nil,
                   [UInt8](payload.prefix(6)) == EXIFReader.app1Prefix {
                    exifTIFF = EXIFReader.tiffBlock(payload)
                    if length > 6, exifPayload == nil { exifPayload = Data(payload.dropFirst(6)) }
                } else if marker.pointee.marker == UInt8(JPEG_APP0 + 2), [UInt8](payload.prefix(12)) == iccTag {
                    hasICCChunks = true
                }
            }
            m = marker.pointee.next
        }
    }
}

/// Library messages as one line (they never should span more, but files choose some of their text).
func oneLine(_ s: String) -> String {
    s.split(whereSeparator: \.isNewline).joined(separator: " ").trimmingCharacters(in: .whitespaces)
}
