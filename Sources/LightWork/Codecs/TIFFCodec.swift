import CShims
import CTIFF
import Foundation

extension OutputFormat {
    /// 16-bit TIFF, the default: no precision lost after development.
    public static let tiff16 = OutputFormat("tiff16", codec: "tiff", depth: .sixteen, fileExtension: "tif")
    /// 8-bit TIFF.
    public static let tiff8 = OutputFormat("tiff8", codec: "tiff", depth: .eight, fileExtension: "tif")
}

/// TIFF: plain TIFFs decoded by `TIFFDecoder` (libtiff, to device RGB), written by `TIFFWriter` (strips, optional
/// lossless compression), read back through libtiff. A TIFF-structured camera RAW (DNG, CR2, NEF, KDC…) is not
/// claimed (`isPlainTIFF`): it goes to LibRaw (`RawCodec`, the fallback).
/// Signature "II*\0" / "MM\0*" (and BigTIFF's "II+\0" / "MM\0+").
public struct TIFFCodec: ImageCodec {
    public init() {}
    public var name: String { "tiff" }
    public var aliases: [String] { ["tif"] }
    /// Asked before `RawCodec`, whose containers include TIFF.
    public var priority: Int { 5 }
    public var inputExtensions: [String] { ["tif", "tiff"] }

    public func matches(_ file: FileBytes) -> Bool { TIFFCodec.isPlainTIFF(file) }

    /// Whether `file` is a TIFF holding an image rather than a camera RAW's container: BigTIFF (no camera writes it),
    /// or classic TIFF whose header is not CR2's and whose IFD0 is readable and full-size (no NewSubfileType
    /// reduced-resolution bit: NEF, KDC, DCR and ERF start with a thumbnail), has no SubIFDs, DNGVersion or
    /// DNGPrivateData (Sony's SR2) tag and sample sizes of plain images, and where no IFD of the chain is CFA or
    /// LinearRaw data or compressed by a scheme outside the TIFF/libtiff set (the makers' raw compressions).
    public static func isPlainTIFF(_ file: FileBytes) -> Bool {
        guard let head = file.read(0, 10) else { return false }
        if [[0x49, 0x49, 0x2b, 0x00], [0x4d, 0x4d, 0x00, 0x2b]].contains(Array(head[0..<4])) { return true }
        guard let t = file.tiff(), head[8] != 0x43 || head[9] != 0x52, // "CR": Canon CR2
              let ifd0 = t.directory(at: t.firstDirectory), ifd0.declaredCount > 0 else { return false }
        for tag: UInt16 in [330, 50706, 50740] where ifd0[tag] != nil { return false }
        if let sub = ifd0[254].flatMap(t.integer), sub & 1 != 0 { return false }
        if let bits = ifd0[258].map({ t.integers($0, limit: 16) }), bits.contains(where: { ![1, 2, 4, 8, 16, 32, 64].contains($0) }) { return false }
        var raw = false
        t.walk(from: [t.firstDirectory], limit: 16) { ifd in
            if let p = ifd[262].flatMap(t.integer), p == 32803 || p == 34892 { raw = true }
            if let c = ifd[259].flatMap(t.integer), !TIFFCodec.standardCompressions.contains(c) { raw = true }
            return raw ? [] : [ifd.next ?? 0]
        }
        return !raw
    }

    /// Compression schemes of image TIFFs (baseline, extensions and libtiff's own); cameras' raw schemes are not here.
    static let standardCompressions: Set<Int> = [1, 2, 3, 4, 5, 6, 7, 8, 32773, 32946, 34676, 34677, 34712, 34887, 34925, 50000, 50001, 50002]

    // MARK: Input

    public var decodes: Bool { true }
    public func decode(data: Data, url: URL, options: DecodeOptions, engine: EngineConfiguration) throws -> DecodedImage {
        try TIFFDecoder.decode(data: data, options: options)
    }

    /// Width × height of IFD0.
    public func pixelCount(_ file: FileBytes) -> Int? {
        guard let t = file.tiff(), let ifd0 = t.directory(at: t.firstDirectory) else { return nil }
        return ImageSizeProbe.product(ifd0[256].flatMap(t.integer), ifd0[257].flatMap(t.integer))
    }

    /// Make, model and DateTimeOriginal from IFD0 and the EXIF IFD, read as a RAW's are.
    public func captureInfo(_ file: FileBytes) -> ImageMetadata? { file.tiff().flatMap(RawCodec.captureInfo) }

    /// Whole when every IFD and every strip or tile lies inside the file (unknown for BigTIFF).
    public func completeness(_ file: FileBytes) -> FileCompleteness.Verdict { RawCodec.tiffCompleteness(file) }

    public var readsBack: Bool { true }
    public func readBack(data: Data, path: String) throws -> ImageFile { try TIFFCodec.read(path) }

    public var outputFormats: [OutputFormat] { [.tiff16, .tiff8] }
    public var options: [CodecOption] { [TIFFCodec.compression] }
    public func writer(engine: EngineConfiguration) -> (any ImageWriter)? { TIFFWriter(engine: engine) }

    /// `--compression`, recipes' `export.compression`: `TIFFCompression`'s cases.
    public static let compression = CodecOption(name: "compression", values: .choice(TIFFCompression.allCases.map(\.rawValue)),
                                                defaultValue: TIFFCompression.none.rawValue, summary: "TIFF compression")

    // MARK: Reading back

    static func read(_ path: String) throws -> ImageFile {
        lw_tiff_quiet()
        guard let tif = TIFFOpen(path, "r") else { throw tiffError(path, "cannot open") }
        defer { TIFFClose(tif) }
        func u16(_ tag: Int32) -> UInt16? { var v: UInt16 = 0; return lw_tiff_get_u16(tif, UInt32(tag), &v) != 0 ? v : nil }
        func u32(_ tag: Int32) -> UInt32? { var v: UInt32 = 0; return lw_tiff_get_u32(tif, UInt32(tag), &v) != 0 ? v : nil }
        func string(_ tag: Int32) -> String? {
            var p: UnsafePointer<CChar>?
            guard lw_tiff_get_string(tif, UInt32(tag), &p) != 0, let p else { return nil }
            return String(decoding: UnsafeRawBufferPointer(start: p, count: strlen(p)), as: UTF8.self)
        }
        guard let width = u32(TIFFTAG_IMAGEWIDTH).map(Int.init), let height = u32(TIFFTAG_IMAGELENGTH).map(Int.init),
              width > 0, height > 0 else { throw tiffError(path, "no image dimensions") }
        try PixelLimit.check(width: width, height: height, format: "\(path): TIFF", options: PixelLimit.readBack)
        let bits = Int(u16(TIFFTAG_BITSPERSAMPLE) ?? 1)
        let spp = Int(u16(TIFFTAG_SAMPLESPERPIXEL) ?? 1)
        let photometric = Int32(u16(TIFFTAG_PHOTOMETRIC) ?? 0)
        let planar = Int32(u16(TIFFTAG_PLANARCONFIG) ?? UInt16(PLANARCONFIG_CONTIG))
        let sampleFormat = Int32(u16(TIFFTAG_SAMPLEFORMAT) ?? UInt16(SAMPLEFORMAT_UINT))
        var extraCount: UInt16 = 0
        var extraTypes: UnsafePointer<UInt16>?
        var extras: [UInt16] = []
        if lw_tiff_get_extrasamples(tif, &extraCount, &extraTypes) != 0, let extraTypes {
            extras = Array(UnsafeBufferPointer(start: extraTypes, count: Int(extraCount)))
        }
        var iccCount: UInt32 = 0
        var iccBytes: UnsafeRawPointer?
        var icc: Data?
        if lw_tiff_get_bytes(tif, UInt32(TIFFTAG_ICCPROFILE), &iccCount, &iccBytes) != 0, let iccBytes, iccCount > 0 {
            icc = Data(bytes: iccBytes, count: Int(iccCount))
        }
        let compression = u16(TIFFTAG_COMPRESSION) ?? 1
        var info = TIFFInfo(compression: compression, predictor: u16(TIFFTAG_PREDICTOR), rowsPerStrip: u32(TIFFTAG_ROWSPERSTRIP),
                            orientation: u16(TIFFTAG_ORIENTATION), software: string(TIFFTAG_SOFTWARE),
                            extraSamples: extras, hasDateTime: string(TIFFTAG_DATETIME) != nil, readAsRGBA: false)

        let direct = (bits == 8 || bits == 16) && (1...4).contains(spp) && planar == PLANARCONFIG_CONTIG
            && sampleFormat == SAMPLEFORMAT_UINT && TIFFIsTiled(tif) == 0
            && ((photometric == PHOTOMETRIC_MINISBLACK && spp <= 2) || (photometric == PHOTOMETRIC_RGB && spp >= 3))
        guard direct else {
            // Everything else (tiles, palette, CMYK, YCbCr, 1-bit…) through libtiff's 8-bit RGBA reader.
            guard sampleFormat != SAMPLEFORMAT_IEEEFP else { throw LightWorkError.unsupportedFormat("\(path): floating-point TIFF") }
            var raster = [UInt32](repeating: 0, count: width * height)
            guard TIFFReadRGBAImageOriented(tif, UInt32(width), UInt32(height), &raster, Int32(ORIENTATION_TOPLEFT), 0) != 0 else {
                throw tiffError(path, "cannot decode")
            }
            info.readAsRGBA = true
            let samples = raster.withUnsafeBytes { TIFFCodec.widen($0.baseAddress!, count: width * height * 4, bitDepth: 8) }
            return ImageFile(format: .tiff, width: width, height: height, channels: 4, bitDepth: 8, iccProfile: icc,
                             exif: nil, samples: samples, tiff: info, metadata: tiffMetadata(tif))
        }

        let rowBytes = width * spp * bits / 8
        let rowsPerStrip = min(height, Int(info.rowsPerStrip ?? UInt32(height)))
        var buffer = [UInt8](repeating: 0, count: rowBytes * height)
        try buffer.withUnsafeMutableBytes { out in
            for strip in 0..<Int(TIFFNumberOfStrips(tif)) {
                let start = strip * rowsPerStrip * rowBytes
                guard start < out.count else { break }
                let size = min(rowsPerStrip * rowBytes, out.count - start)
                guard TIFFReadEncodedStrip(tif, UInt32(strip), out.baseAddress! + start, tmsize_t(size)) >= 0 else {
                    throw tiffError(path, "cannot decode strip \(strip)")
                }
            }
        }
        let samples = buffer.withUnsafeBytes { TIFFCodec.widen($0.baseAddress!, count: width * height * spp, bitDepth: bits) }
        return ImageFile(format: .tiff, width: width, height: height, channels: spp, bitDepth: bits, iccProfile: icc,
                         exif: nil, samples: samples, tiff: info, metadata: tiffMetadata(tif))
    }

    /// IFD0's Make, Model, Orientation and the Exif and GPS IFDs' fields, as `EXIFReader` reads them from a block.
    /// Must come after the pixels: reading a sub-IFD makes it libtiff's current directory.
    static func tiffMetadata(_ tif: OpaquePointer) -> ImageMetadata? {
        var m = ImageMetadata()
        func string(_ tag: Int32) -> String? {
            var p: UnsafePointer<CChar>?
            guard lw_tiff_get_string(tif, UInt32(tag), &p) != 0, let p else { return nil }
            let s = String(decoding: UnsafeRawBufferPointer(start: p, count: strlen(p)), as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            return s.isEmpty ? nil : s
        }
        func numbers(_ tag: Int32, max: Int = 3) -> [Double] {
            var out = [Double](repeating: 0, count: max)
            let n = Int(lw_tiff_get_numbers(tif, UInt32(tag), &out, Int32(max)))
            return Array(out.prefix(min(n, max)))
        }
        func positive(_ tag: Int32) -> Double? { numbers(tag).first.flatMap { $0 > 0 && $0.isFinite ? $0 : nil } }
        m.make = string(TIFFTAG_MAKE)
        m.model = string(TIFFTAG_MODEL)
        if let o = numbers(TIFFTAG_ORIENTATION).first, (1...8).contains(o) { m.orientation = Int(o) }
        let exifOffset = numbers(TIFFTAG_EXIFIFD).first.map(UInt64.init)
        let gpsOffset = numbers(TIFFTAG_GPSIFD).first.map(UInt64.init)
        if let exifOffset, TIFFReadEXIFDirectory(tif, exifOffset) != 0 {
            m.exposureTime = positive(EXIFTAG_EXPOSURETIME)
            m.fNumber = positive(EXIFTAG_FNUMBER)
            m.iso = positive(EXIFTAG_ISOSPEEDRATINGS)
            m.focalLength = positive(EXIFTAG_FOCALLENGTH)
            m.dateTimeOriginal = string(EXIFTAG_DATETIMEORIGINAL)
            m.lens = string(EXIFTAG_LENSMODEL)
        }
        if let gpsOffset, TIFFReadGPSDirectory(tif, gpsOffset) != 0 {
            func degrees(_ tag: Int32) -> Double? {
                let v = numbers(tag)
                guard !v.isEmpty else { return nil }
                return v[0] + (v.count > 1 ? v[1] / 60 : 0) + (v.count > 2 ? v[2] / 3600 : 0)
            }
            if let lat = degrees(GPSTAG_LATITUDE), lat <= 90 { m.gpsLatitude = string(GPSTAG_LATITUDEREF)?.uppercased() == "S" ? -lat : lat }
            if let lon = degrees(GPSTAG_LONGITUDE), lon <= 180 { m.gpsLongitude = string(GPSTAG_LONGITUDEREF)?.uppercased() == "W" ? -lon : lon }
            if let alt = numbers(GPSTAG_ALTITUDE).first { m.gpsAltitude = numbers(GPSTAG_ALTITUDEREF).first == 1 ? -alt : alt }
        }
        return m == ImageMetadata() ? nil : m
    }

    private static func tiffError(_ path: String, _ what: String) -> LightWorkError {
        let detail = String(cString: lw_tiff_last_error())
        return .decodeFailed("\(path): \(what)\(detail.isEmpty ? "" : ": \(detail)")")
    }

    /// 8-bit samples widened to UInt16 without scaling; 16-bit ones copied (already native-endian).
    static func widen(_ p: UnsafeRawPointer, count: Int, bitDepth: Int) -> [UInt16] {
        if bitDepth == 16 { return Array(UnsafeBufferPointer(start: p.assumingMemoryBound(to: UInt16.self), count: count)) }
        let src = p.assumingMemoryBound(to: UInt8.self)
        return [UInt16](unsafeUninitializedCapacity: count) { dst, initialised in
            for i in 0..<count { dst[i] = UInt16(src[i]) }
            initialised = count
        }
    }
}
