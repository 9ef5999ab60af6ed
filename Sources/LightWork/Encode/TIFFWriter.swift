import CShims
import CTIFF
import Foundation

/// Writes 8- or 16-bit TIFF (grey, grey+alpha, RGB, RGBA with unassociated alpha), uncompressed or
/// Deflate/LZW with the horizontal predictor, with the ICC profile embedded. Whole strips go through
/// `TIFFWriteEncodedStrip` (libtiff only uses libdeflate for whole strips). DateTime is only ever the
/// photo's own DateTimeOriginal, so the same pixels and metadata always give the same bytes.
///
/// Metadata: the fields of `settings.exif` (as `EXIFReader` reads them) are written as TIFF and EXIF tags:
/// Make, Model, DateTime in IFD0 through libtiff, and the Exif and GPS IFDs built by `EXIFWriter` (the same
/// entries as the JPEG/PNG block), written just after the header with IFD0's ExifIFD/GPSIFD tags pointing at
/// them; the XMP packet (tag 700) and IPTC-IIM (33723) of `settings` as they are. libtiff's own EXIF directory API is not used because it stores EXIF rationals as 32-bit floats:
/// 1/250 s would be written as 8589935/2147483648. BigTIFF outputs (over ~3.9 GB) carry the IFD0 fields only.
public struct TIFFWriter: StreamingImageWriter {
    /// Target strip size. 256 KiB, 512 KiB and 1 MiB strips gave the same Deflate size and times within
    /// noise (24 MP 16-bit); 512 KiB keeps the strip buffer small.
    public static let targetStripBytes = 512 * 1024
    /// Deflate level. On a 24 MP 16-bit photo with realistic noise in the low bits, level 1 took 2.0-2.2 s,
    /// level 3 2.5-3.0 s and level 6 2.8-3.7 s, and level 1 was even the smallest (102 vs 105 MiB).
    public static let deflateLevel: UInt32 = 1
    /// Bytes of strips asked of the source at once when not compressing with Deflate: few enough that rows made on
    /// demand stay in the cache's reach, many enough that each run keeps every thread busy.
    public static let runBytes = 8 << 20
    /// The threads Deflate strips are compressed on (the bytes are the same for any count).
    public let engine: EngineConfiguration
    /// Whether a file of at least `TIFFFileSink.directWindowBytes` is written past the page cache (O_DIRECT, where
    /// the file system allows it). The bytes are the same either way.
    public let directIO: Bool

    public init(engine: EngineConfiguration = .detected, directIO: Bool = true) {
        self.engine = engine
        self.directIO = directIO
    }

    public func encode(_ pixels: EncodedPixels, settings: EncodeSettings, to output: AtomicFile.Output) throws {
        try pixels.validateForWriting(profile: settings.iccProfile)
        try encode(rows: pixels, settings: settings, to: output)
    }

    /// Writes `pixels` strip by strip as it makes them: a run of strips (about `runBytes`) at a time for the
    /// uncompressed and LZW layouts, a window of strips per Deflate batch. The bytes do not depend on the source.
    public func encode(rows pixels: some OutputRows, settings: EncodeSettings, to output: AtomicFile.Output) throws {
        try pixels.validateShape(profile: settings.iccProfile)
        lw_tiff_quiet()
        let rowBytes = pixels.rowBytes
        let imageBytes = rowBytes * pixels.height
        // Classic TIFF offsets are 32-bit: switch to BigTIFF well before 4 GiB.
        let mode = imageBytes + (settings.iccProfile?.count ?? 0) > 3_900_000_000 ? "w8" : "w"
        // Past the page cache once the file fills the direct writer's window; small files gain nothing from it.
        let sink = TIFFFileSink(fd: output.fileDescriptor, directIO: directIO && imageBytes >= TIFFFileSink.directWindowBytes)
        guard let tif = sink.open(name: output.finalPath, mode: mode) else { throw failure(sink, output, "cannot start the TIFF") }
        var handleOpen = true
        defer { if handleOpen { TIFFCleanup(tif) } }

        let compression = settings.tiffCompression
        let rowsPerStrip = max(1, min(pixels.height, Self.targetStripBytes / max(1, rowBytes)))
        var ok = true
        ok = ok && lw_tiff_set_u32(tif, UInt32(TIFFTAG_IMAGEWIDTH), UInt32(pixels.width)) != 0
        ok = ok && lw_tiff_set_u32(tif, UInt32(TIFFTAG_IMAGELENGTH), UInt32(pixels.height)) != 0
        ok = ok && lw_tiff_set_u16(tif, UInt32(TIFFTAG_BITSPERSAMPLE), UInt16(pixels.depth.rawValue)) != 0
        ok = ok && lw_tiff_set_u16(tif, UInt32(TIFFTAG_SAMPLESPERPIXEL), UInt16(pixels.channels)) != 0
        ok = ok && lw_tiff_set_u16(tif, UInt32(TIFFTAG_SAMPLEFORMAT), UInt16(SAMPLEFORMAT_UINT)) != 0
        let photometric = pixels.channels >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK
        ok = ok && lw_tiff_set_u16(tif, UInt32(TIFFTAG_PHOTOMETRIC), UInt16(photometric)) != 0
        ok = ok && lw_tiff_set_u16(tif, UInt32(TIFFTAG_PLANARCONFIG), UInt16(PLANARCONFIG_CONTIG)) != 0
        ok = ok && lw_tiff_set_u16(tif, UInt32(TIFFTAG_ORIENTATION), UInt16(ORIENTATION_TOPLEFT)) != 0
        ok = ok && lw_tiff_set_u32(tif, UInt32(TIFFTAG_ROWSPERSTRIP), UInt32(rowsPerStrip)) != 0
        ok = ok && lw_tiff_set_string(tif, UInt32(TIFFTAG_SOFTWARE), "LightWork") != 0
        ok = ok && lw_tiff_set_double(tif, UInt32(TIFFTAG_XRESOLUTION), Double(EXIFWriter.dotsPerInch)) != 0
        ok = ok && lw_tiff_set_double(tif, UInt32(TIFFTAG_YRESOLUTION), Double(EXIFWriter.dotsPerInch)) != 0
        ok = ok && lw_tiff_set_u16(tif, UInt32(TIFFTAG_RESOLUTIONUNIT), UInt16(RESUNIT_INCH)) != 0
        ok = ok && lw_tiff_set_u16(tif, UInt32(TIFFTAG_COMPRESSION), compression.tagValue) != 0
        if compression != .none {
            ok = ok && lw_tiff_set_u16(tif, UInt32(TIFFTAG_PREDICTOR), UInt16(PREDICTOR_HORIZONTAL)) != 0
        }
        if compression == .deflate {
            ok = ok && lw_tiff_set_u32(tif, UInt32(TIFFTAG_ZIPQUALITY), Self.deflateLevel) != 0
        }
        if pixels.hasAlpha {
            var extra = [UInt16(EXTRASAMPLE_UNASSALPHA)]
            ok = ok && lw_tiff_set_extrasamples(tif, 1, &extra) != 0
        }
        if let icc = settings.iccProfile, !icc.isEmpty {
            ok = ok && icc.withUnsafeBytes { lw_tiff_set_bytes(tif, UInt32(TIFFTAG_ICCPROFILE), UInt32($0.count), $0.baseAddress) } != 0
        }
        if let xmp = settings.xmpPacket, !xmp.isEmpty {
            ok = ok && xmp.withUnsafeBytes { lw_tiff_set_bytes(tif, UInt32(TIFFTAG_XMLPACKET), UInt32($0.count), $0.baseAddress) } != 0
        }
        if let iptc = settings.iptc, !iptc.isEmpty {
            ok = ok && iptc.withUnsafeBytes { lw_tiff_set_bytes(tif, UInt32(TIFFTAG_RICHTIFFIPTC), UInt32($0.count), $0.baseAddress) } != 0
        }
        if ok, let metadata = settings.exif.flatMap(EXIFReader.read) {
            ok = try writeMetadata(metadata, tif: tif, sink: sink, output: output, classic: mode == "w")
        }
        guard ok else { throw failure(sink, output, "cannot set TIFF tags") }
        if compression == .none, mode == "w", let stripsStart = sink.endOffset() {
            // libtiff appends the strips back to back, then IFD0 at the next even offset, which it patches into the
            // header's bytes 4–8 at the end: promised now, the file is hashed as it is written (a wrong guess only
            // costs reading it back).
            let ifd = UInt32(truncatingIfNeeded: (stripsStart + imageBytes + 1) & ~1)
            sink.expect(withUnsafeBytes(of: ifd) { Array($0) }, at: 4)
        }

        let stripCount = (pixels.height + rowsPerStrip - 1) / rowsPerStrip
        let stripBytes = rowsPerStrip * rowBytes
        // libtiff's predictor differences samples in place, so LZW strips go through a scratch copy.
        var scratch = [UInt8](repeating: 0, count: compression == .lzw ? stripBytes : 0)
        let written: Bool = try compression == .deflate ? writeDeflateStrips(pixels, tif: tif, rowsPerStrip: rowsPerStrip, stripCount: stripCount)
            : scratch.withUnsafeMutableBytes { tmp in
            let stripsPerRun = max(1, Self.runBytes / stripBytes)
            for first in stride(from: 0, to: stripCount, by: stripsPerRun) {
                let last = min(stripCount, first + stripsPerRun)
                let rows = (first * rowsPerStrip)..<min(pixels.height, last * rowsPerStrip)
                let ok = try pixels.withRows(rows) { base -> Bool in
                    for strip in first..<last {
                        let start = (strip - first) * stripBytes
                        let count = min(stripBytes, rows.count * rowBytes - start)
                        let data: UnsafeMutableRawPointer
                        if compression == .none {
                            data = UnsafeMutableRawPointer(mutating: base + start)
                        } else {
                            tmp.baseAddress!.copyMemory(from: base + start, byteCount: count)
                            data = tmp.baseAddress!
                        }
                        if TIFFWriteEncodedStrip(tif, UInt32(strip), data, tmsize_t(count)) < 0 { return false }
                    }
                    return true
                }
                if !ok { return false }
            }
            return true
        }
        guard written else { throw failure(sink, output, "cannot write TIFF strips") }
        guard TIFFFlush(tif) != 0 else { throw failure(sink, output, "cannot write the TIFF directory") }
        handleOpen = false
        TIFFClose(tif)
        guard sink.finish(), sink.errorCode == 0 else { throw AtomicFile.failure(sink.errorCode, path: output.finalPath, action: "write") }
        output.markWritten(direct: sink.wroteDirect, hashed: sink.hashed)
    }

    /// Deflate strips compressed on every engine thread, a few strips ahead, and written in order as raw strips:
    /// the same bytes as libtiff's own codec (predictor 2, libdeflate at `deflateLevel`, one zlib stream a strip),
    /// which compresses on the writing thread only.
    private func writeDeflateStrips(_ pixels: some OutputRows, tif: OpaquePointer, rowsPerStrip: Int, stripCount: Int) throws -> Bool {
        let bytesPerSample = pixels.depth == .eight ? 1 : 2
        let stripBytes = rowsPerStrip * pixels.rowBytes
        let capacity = lw_deflate_tiff_strip_bound(stripBytes)
        let workers = engine.threads
        // Every thread busy, and about `runBytes` of rows asked of the source at once.
        let window = max(2 * workers, Self.runBytes / stripBytes)
        let scratch = UncheckedSendable(UnsafeMutableRawPointer.allocate(byteCount: workers * stripBytes, alignment: 64))
        let packed = UncheckedSendable(UnsafeMutableRawPointer.allocate(byteCount: window * capacity, alignment: 64))
        let sizes = UncheckedSendable(UnsafeMutablePointer<Int>.allocate(capacity: window))
        defer { scratch.value.deallocate(); packed.value.deallocate(); sizes.value.deallocate() }
        for first in stride(from: 0, to: stripCount, by: window) {
            let count = min(window, stripCount - first)
            let rows = (first * rowsPerStrip)..<min(pixels.height, (first + count) * rowsPerStrip)
            let (width, height, channels) = (pixels.width, pixels.height, Int32(pixels.channels))
            try pixels.withRows(rows) { raw in
                let base = UncheckedSendable(raw)
                Parallel.forEach(count, workers: workers) { worker, k in
                    let strip = first + k
                    let stripRows = min(rowsPerStrip, height - strip * rowsPerStrip)
                    sizes.value[k] = lw_deflate_tiff_strip(base.value + k * stripBytes, stripRows, width, channels,
                                                           Int32(bytesPerSample), Int32(Self.deflateLevel), scratch.value + worker * stripBytes,
                                                           packed.value + k * capacity, capacity)
                }
            }
            for k in 0..<count {
                guard sizes.value[k] > 0,
                      TIFFWriteRawStrip(tif, UInt32(first + k), packed.value + k * capacity, tmsize_t(sizes.value[k])) >= 0 else { return false }
            }
        }
        return true
    }

    /// IFD0's Make, Model and DateTime, and (classic TIFF) the Exif and GPS IFDs, placed at the end of the file
    /// as it stands (just after the header: libtiff appends strips and IFD0 after them).
    private func writeMetadata(_ m: ImageMetadata, tif: OpaquePointer, sink: TIFFFileSink, output: AtomicFile.Output,
                               classic: Bool) throws -> Bool {
        var ok = true
        if let make = EXIFWriter.text(m.make) { ok = ok && lw_tiff_set_string(tif, UInt32(TIFFTAG_MAKE), make) != 0 }
        if let model = EXIFWriter.text(m.model) { ok = ok && lw_tiff_set_string(tif, UInt32(TIFFTAG_MODEL), model) != 0 }
        if let date = EXIFWriter.exifDate(m.dateTimeOriginal) { ok = ok && lw_tiff_set_string(tif, UInt32(TIFFTAG_DATETIME), date) != 0 }
        if let artist = EXIFWriter.text(EXIFWriter.artist(m.descriptive)) { ok = ok && lw_tiff_set_string(tif, UInt32(TIFFTAG_ARTIST), artist) != 0 }
        if let rights = EXIFWriter.text(m.descriptive.rights) { ok = ok && lw_tiff_set_string(tif, UInt32(TIFFTAG_COPYRIGHT), rights) != 0 }
        guard ok, classic else { return ok }
        guard let end = sink.endOffset(), end >= 8 else { throw failure(sink, output, "the TIFF header is not written yet") }
        let sub = EXIFWriter.subDirectories(for: m, at: end)
        guard sink.write(sub.bytes, at: end) else { throw failure(sink, output, "cannot write the EXIF directory") }
        ok = ok && lw_tiff_set_u64(tif, UInt32(TIFFTAG_EXIFIFD), UInt64(sub.exifOffset)) != 0
        if let gps = sub.gpsOffset { ok = ok && lw_tiff_set_u64(tif, UInt32(TIFFTAG_GPSIFD), UInt64(gps)) != 0 }
        return ok
    }

    private func failure(_ sink: TIFFFileSink, _ output: AtomicFile.Output, _ what: String) -> LightWorkError {
        if sink.errorCode != 0 { return AtomicFile.failure(sink.errorCode, path: output.finalPath, action: "write") }
        let detail = String(cString: lw_tiff_last_error())
        return .writeFailed("\(output.finalPath): \(what)\(detail.isEmpty ? "" : ": \(detail)")")
    }
}

extension EncodedPixels {
    /// The samples as raw bytes (8-bit or native-endian 16-bit), whichever depth is in use.
    func withRawBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        depth == .eight ? try samples8.withUnsafeBytes(body) : try samples16.withUnsafeBytes(body)
    }
}
