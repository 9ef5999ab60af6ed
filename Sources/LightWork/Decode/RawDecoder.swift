import CLibRaw
import CLibRawStream
import CShims
import Foundation

/// Decodes camera RAW files (every format LibRaw reads, DNG included) into linear half-float RGBA in the
/// RAW working space (linear ProPhoto/ROMM, D50). One LibRaw object per decode (`libraw_r` is re-entrant).
///
/// Settings follow the issue: as-shot white balance, no auto-brightening, `adjust_maximum_thr = 0`
/// (LibRaw otherwise brightens by up to ~0.15 EV when the data maximum exceeds 75 % of white), linear
/// 16-bit output, all eight orientations applied, non-square pixels stretched as LibRaw does (by LibRaw, or by
/// `PixelAspect` after LightWork's own AHD). `details` name what was decided (`DecodedImage.decisionKeys`).
///
/// Colour (`DecodeOptions.colorModel`): with `.dng`, LibRaw stops at white-balanced camera RGB (`output_color = 0`)
/// and LightWork applies `DNGColorModel`'s matrix for the multipliers LibRaw used, undoing them in the same matrix.
/// LibRaw still balances before demosaicing (its demosaics expect balanced data) and clips there (highlight mode 0:
/// every balanced channel at the level where the least-amplified one saturates), so blown highlights stay neutral
/// white rather than turning magenta. With `.libraw`, LibRaw converts to linear ProPhoto itself (`output_color = 4`).
public enum RawDecoder {
    /// Opens and decodes `url` on `engine.threads` threads. Throws a `LightWorkError` naming the reason on any failure.
    public static func decode(url: URL, options: DecodeOptions, engine: EngineConfiguration = .detected) throws -> DecodedImage {
        try decode(data: try read(url), url: url, options: options, engine: engine)
    }

    /// Decodes bytes already read (and hashed) by the caller; `url` names the file in messages. `inputDone`, when
    /// given, runs once the bytes will not be read again (after the unpack, when LightWork demosaics the mosaic
    /// itself), so the caller can give them back before the working image is allocated.
    public static func decode(data: Data, url: URL, options: DecodeOptions, engine: EngineConfiguration = .detected,
                              inputDone: (@Sendable () -> Void)? = nil) throws -> DecodedImage {
        try data.withUnsafeBytes { raw in
            let extents = TIFFImageExtents.read(raw)
            if let extents, extents.compressions.contains(TIFFImageExtents.vc5Compression), !gprSupported { throw gprUnsupported() }
            if let extents, extents.dataEnd > raw.count {
                throw LightWorkError.truncated(dataEnd: raw.count, needed: extents.dataEnd)
            }
            let session = try Session(url: url, data: raw, options: options, engine: engine)
            session.inputDone = inputDone
            return try session.decode()
        }
    }

    /// A RAW file's unpacked mosaic as LibRaw lays it out (`raw_image`: rawWidth × rawHeight, masked borders
    /// included), and which loader wrote it.
    public struct UnpackedMosaic: Sendable {
        public let rawWidth: Int, rawHeight: Int
        public let values: [UInt16]
        /// The `unpack` decision the decode records (DecodedImage.decisionKeys).
        public let unpacker: String
        /// One of LightWork's loaders (lossless JPEG, uncompressed) wrote the mosaic.
        public let own: Bool
        /// Wall-clock seconds of the unpack (LibRaw's unpack with whichever loader ran).
        public let seconds: Double
    }

    /// Unpacks `url` without developing it: with `lightWork` false, LibRaw's own loader always runs (the reference
    /// the tests and `lightwork-tools bench` hold LightWork's decoder against). Throws as `decode` does.
    public static func unpackMosaic(url: URL, lightWork: Bool = true, engine: EngineConfiguration = .detected) throws -> UnpackedMosaic {
        let data = try read(url)
        return try data.withUnsafeBytes { raw in
            let session = try Session(url: url, data: raw, options: DecodeOptions(), engine: engine)
            session.ownUnpack = lightWork
            let start = DispatchTime.now().uptimeNanoseconds
            let rc = session.unpack()
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            try session.checkDataPresent()
            guard rc == LIBRAW_SUCCESS.rawValue else { throw RawDecoder.error(rc, stage: "unpack", url: url) }
            if session.unpackReport.rejected != 0 { throw LightWorkError.decodeFailed("the raw data is corrupt: \(session.unpackReason)") }
            if session.dataError.pointee != 0 { throw LightWorkError.decodeFailed("the raw data is truncated or corrupt (LibRaw reported a data error)") }
            let d = session.lr.pointee
            guard let image = d.rawdata.raw_image else { throw LightWorkError.decodeFailed("LibRaw unpacked no flat mosaic") }
            let (w, h) = (Int(d.sizes.raw_width), Int(d.sizes.raw_height))
            return UnpackedMosaic(rawWidth: w, rawHeight: h, values: Array(UnsafeBufferPointer(start: image, count: w * h)),
                                  unpacker: session.unpackDecision, own: session.unpackReport.own != 0, seconds: seconds)
        }
    }

    /// Reads what the decoder sees without demosaicing (for `lightwork info`).
    public static func inspect(url: URL, options: DecodeOptions = DecodeOptions()) throws -> (metadata: ImageMetadata, details: [String: String]) {
        let session = try Session(url: url, data: nil, options: options)
        return (session.metadata(), session.details())
    }

    /// The DNG BaselineExposure (EV) the decode applies as a gain: 0 for other formats and implausible values.
    static func baselineExposure(_ lr: UnsafeMutablePointer<libraw_data_t>) -> Double {
        let ev = lr.pointee.idata.dng_version != 0 ? Double(lr.pointee.color.dng_levels.baseline_exposure) : 0
        return ev.isFinite && abs(ev) <= 10 ? ev : 0
    }

    /// `baselineExposure` of the file at `url` (opened, not decoded).
    static func baselineExposure(url: URL, options: DecodeOptions) throws -> Double {
        let session = try Session(url: url, data: nil, options: options)
        return withExtendedLifetime(session) { baselineExposure(session.lr) }
    }

    /// The whole file (mapped when safe): LibRaw reads it through a stream that records how far it asked to read.
    static func read(_ url: URL) throws -> Data {
        do { return try Data(contentsOf: url, options: .mappedIfSafe) } catch {
            throw LightWorkError.decodeFailed("cannot read the file: \((error as NSError).localizedDescription)")
        }
    }

    /// Bytes past the end of a complete file that a loader may ask for without needing them: LibRaw's bit reader
    /// fills up to 32 bits ahead of the code it decodes, so a scan that ends at the end of the file, without a
    /// marker, can ask for up to 4 bytes more. Measured (TruncationTests) on the shared CRW, KDC and lossy-DNG
    /// samples and generated uncompressed and lossless-JPEG DNGs: none asked for a byte past its end (the KDC
    /// loader stops exactly at it). TIFF-structured files keep the exact strip/tile check, so a cut of even one
    /// byte is still caught there.
    static let readAheadAllowance = 4

    /// Loaders that read whole blocks whatever the data needs: Panasonic's reads 16 KiB (0x4000) at a time, so a
    /// complete RW2 whose last block is partly empty asks past its end. RW2 files are TIFF-structured, so their
    /// strip extents still catch a cut of one byte exactly.
    static let blockReadAllowance: [String: Int] = ["panasonic_load_raw": 0x4000]

    /// The read-ahead a complete file's `loader` (LibRaw's unpack function name) may ask for past the end.
    static func readAhead(loader: String) -> Int {
        let name = loader.hasSuffix("()") ? String(loader.dropLast(2)) : loader
        return max(readAheadAllowance, blockReadAllowance[name] ?? 0)
    }

    /// `lw_parallel_for` on LightWork's threads: `context` carries the thread count (each index writes its own tile).
    static let parallelFor: lw_parallel_for = { context, count, body, job in
        guard let body else { return }
        Parallel.forEach(Int(count), workers: max(1, Int(bitPattern: context))) { _, i in body(job, Int32(i)) }
    }

    /// Version of the linked LibRaw.
    public static var libraryVersion: String { String(cString: libraw_version()) }

    /// One open LibRaw handle; closed when the session ends.
    final class Session {
        let lr: UnsafeMutablePointer<libraw_data_t>
        let url: URL
        let options: DecodeOptions
        /// The threads of LightWork's demosaic and conversions, and of LibRaw's (OpenMP).
        let engine: EngineConfiguration
        /// The camera's calibration when LightWork does colour (`.dng` and LibRaw knows a three-colour matrix).
        var colorModel: (model: DNGColorModel, source: DNGColorModel.Source)?
        /// The camera profile chosen by `DecodeOptions.cameraProfile` (nil: the matrices alone, as LibRaw read them).
        var cameraProfile: ChosenCameraProfile?
        /// What `auto` decided when it found no profile (recorded in the decisions).
        var cameraProfileNote: String?
        /// Set by LibRaw's data-error callback (truncated or corrupt data that LibRaw would otherwise zero-fill).
        let dataError = UnsafeMutablePointer<Int32>.allocate(capacity: 1)

        /// The file's bytes as LibRaw reads them; freed after LibRaw is closed (LibRaw does not own it).
        let stream: OpaquePointer
        /// The file's size.
        let size: Int
        /// A copy of the file when the session read it itself (`data` nil).
        let ownedBytes: UnsafeMutableRawBufferPointer?

        /// Opens `data`, the bytes of `url` (LibRaw reads them in place: they must outlive the session), or reads
        /// `url` itself when `data` is nil.
        init(url: URL, data: UnsafeRawBufferPointer?, options: DecodeOptions, engine: EngineConfiguration = .detected) throws {
            var owned: UnsafeMutableRawBufferPointer?
            if data == nil {
                let file = try RawDecoder.read(url)
                owned = UnsafeMutableRawBufferPointer.allocate(byteCount: file.count, alignment: 16)
                file.withUnsafeBytes { owned!.copyMemory(from: $0) }
            }
            let bytes = data ?? UnsafeRawBufferPointer(owned!)
            guard let lr = lw_raw_init()?.assumingMemoryBound(to: libraw_data_t.self) else {
                owned?.deallocate()
                throw LightWorkError.decodeFailed("LibRaw could not be initialised")
            }
            guard let stream = lw_raw_stream_create(bytes.baseAddress, bytes.count) else {
                libraw_close(lr)
                owned?.deallocate()
                throw LightWorkError.decodeFailed("out of memory opening the file")
            }
            self.lr = lr
            self.stream = stream
            ownedBytes = owned
            size = bytes.count
            self.url = url
            self.options = options
            self.engine = engine
            dataError.pointee = 0
            libraw_set_dataerror_handler(lr, { data, _, _ in
                data?.assumingMemoryBound(to: Int32.self).pointee = 1
            }, dataError)
            lr.pointee.params.use_camera_wb = 1
            lr.pointee.params.no_auto_bright = 1
            lr.pointee.params.adjust_maximum_thr = 0
            lr.pointee.params.gamm.0 = 1
            lr.pointee.params.gamm.1 = 1
            lr.pointee.params.output_bps = 16
            lr.pointee.params.output_color = 4          // ProPhoto (ROMM) primaries, linear (LibRaw's colour)
            lr.pointee.params.user_qual = options.demosaic.libRawQuality
            // A worker's share of the cores: LibRaw's OpenMP stages (its demosaics) use the same share.
            omp_set_num_threads(Int32(engine.threads))

            // Failures below throw after every property is set, so deinit closes the handle.
            let rc = lw_raw_stream_open(lr, stream)
            guard rc == LIBRAW_SUCCESS.rawValue else {
                throw RawDecoder.openError(rc, url: url)
            }
            lw_raw_stream_reset(stream)     // identifying may probe anywhere; only the image data's reads count
            guard lr.pointee.sizes.width > 0, lr.pointee.sizes.height > 0 else {
                throw LightWorkError.decodeFailed("LibRaw found no image size")
            }
            // The limits hold for the picture once its pixels are square (LibRaw's stretch can double a side).
            let aspect = Double(lr.pointee.sizes.pixel_aspect)
            guard let (w, h) = PixelAspect.stretchedSize(width: Int(lr.pointee.sizes.width), height: Int(lr.pointee.sizes.height), aspect: aspect) else {
                throw LightWorkError.decodeFailed("the pixel aspect \(aspect) of this \(lr.pointee.sizes.width)x\(lr.pointee.sizes.height) image cannot be made square within LibRaw's \(PixelAspect.largestDimension) pixels a side")
            }
            if w * h > options.maxPixels {
                throw LightWorkError.tooManyPixels(width: w, height: h, limit: options.maxPixels)
            }
            try PixelLimit.checkMemory(width: w, height: h, options: options)
            if options.colorModel == .dng, let found = DNGColorModel.read(libRaw: lr) {
                colorModel = found
                lr.pointee.params.output_color = 0      // raw colour: balanced camera RGB, no matrix
                if let setting = options.cameraProfile, setting.source != .matrix {
                    try chooseCameraProfile(setting, bytes: bytes)
                    // A DCP's matrices replace the file's (white balance and the white point then use them too).
                    if let chosen = cameraProfile, chosen.isFile {
                        colorModel = (chosen.profile.colorModel(analogBalance: found.model.analogBalance), found.source)
                    }
                }
            } else if let setting = options.cameraProfile, setting.source != .matrix, setting.source != .auto {
                throw LightWorkError.colour("--camera-profile applies to the DNG colour model of a three-colour camera; this file has none")
            }
        }

        deinit {
            libraw_close(lr)
            lw_raw_stream_free(stream)
            ownedBytes?.deallocate()
            dataError.deallocate()
        }

        /// Whether `unpack` lets LightWork's loaders (lossless JPEG, uncompressed) stand in for LibRaw's (tests and the bench turn it off).
        var ownUnpack = true
        /// Told when the file's bytes will not be read again (`decode(data:…inputDone:)`).
        var inputDone: (@Sendable () -> Void)?
        /// What the last `unpack` did (which loader wrote the mosaic, and why).
        var unpackReport = lw_raw_unpack_report()

        /// LibRaw's unpack, with LightWork's tile-parallel lossless-JPEG decoder or its parallel uncompressed copy in
        /// place of LibRaw's DNG loader where it reads the file exactly as LibRaw does (lw_raw_unpack); LibRaw's return code.
        func unpack() -> Int32 {
            var report = lw_raw_unpack_report()
            let rc = lw_raw_unpack(lr, ownUnpack ? RawDecoder.parallelFor : nil, UnsafeMutableRawPointer(bitPattern: max(1, engine.threads)), &report)
            unpackReport = report
            return rc
        }

        /// The report's reason as text.
        var unpackReason: String { withUnsafeBytes(of: unpackReport.reason) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) } }

        /// The `unpack` decision: whose loader wrote the mosaic, and why LibRaw's when LightWork's declined.
        var unpackDecision: String {
            let r = unpackReport
            if r.own != 0, r.loader == LW_RAW_LOADER_UNCOMPRESSED { return "LightWork uncompressed (16-bit, rows in parallel)" }
            if r.own != 0 {
                return "LightWork lossless JPEG (\(r.streams) \(r.streams == 1 ? "stream" : "tiles"), \(r.precision)-bit, predictor \(r.predictor), "
                    + "\(r.components) component\(r.components == 1 ? "" : "s")\(r.point_transform != 0 ? ", point transform \(r.point_transform)" : ""))"
            }
            let loader = "LibRaw \(loaderName.hasSuffix("()") ? String(loaderName.dropLast(2)) : loaderName)"
            if r.handled != 0 {
                let ours = r.loader == LW_RAW_LOADER_UNCOMPRESSED ? "uncompressed loader" : "lossless-JPEG decoder"
                return loader + " (LightWork's \(ours) declined: \(unpackReason))"
            }
            return loader
        }

        /// LibRaw's name for the loader it chose; empty when it chose none (the name is then a null pointer).
        var loaderName: String { libraw_unpack_function_name(lr).map { String(cString: $0) } ?? "" }

        /// One past the furthest byte LibRaw's loader asked for since the file was identified.
        var furthestRead: Int { Int(clamping: lw_raw_stream_furthest(stream)) }

        /// Fails when the loader asked for bytes past the end: it then decoded what its buffers held, not the image.
        func checkDataPresent() throws {
            let allowance = RawDecoder.readAhead(loader: loaderName)
            if furthestRead > size + allowance { throw LightWorkError.truncated(dataEnd: size, needed: furthestRead) }
        }

        func decode() throws -> DecodedImage {
            var rc = unpack()
            try checkDataPresent()
            guard rc == LIBRAW_SUCCESS.rawValue else { throw RawDecoder.error(rc, stage: "unpack", url: url) }
            if unpackReport.rejected != 0 { throw LightWorkError.decodeFailed("the raw data is corrupt: \(unpackReason)") }
            if dataError.pointee != 0 { throw LightWorkError.decodeFailed("the raw data is truncated or corrupt (LibRaw reported a data error)") }
            let d = lr.pointee
            // What LibRaw's processing will do, read before it runs: its fuji_rotate and stretch change the size.
            let (sensorWidth, sensorHeight) = (Int(d.sizes.width), Int(d.sizes.height))
            let aspect = Double(d.sizes.pixel_aspect), fujiRotated = d.rawdata.ioparams.fuji_width != 0
            let balance = RawDecoder.whiteBalance(of: d)
            guard Int(d.sizes.iwidth) == sensorWidth, Int(d.sizes.iheight) == sensorHeight,
                  let square = PixelAspect.stretchedSize(width: sensorWidth, height: sensorHeight, aspect: aspect) else {
                throw LightWorkError.decodeFailed("LibRaw's image size \(d.sizes.iwidth)x\(d.sizes.iheight) (sensor \(sensorWidth)x\(sensorHeight), pixel aspect \(aspect)) is not one LightWork can read")
            }
            // Dual (the default), AHD and RCD on an ordinary Bayer mosaic are LightWork's own (BayerDemosaic), and so is
            // the demosaic of an ordinary X-Trans mosaic for any of them (XTransDemosaic); LibRaw does the rest.
            // --wb other than camera: its multipliers replace the file's balance (LibRaw's through user_mul).
            let chosenBalance = options.develop[LightWork.WhiteBalance.self]
            let chosen = chosenBalance.isOff ? nil
                : try LightWork.WhiteBalance.rawMultipliers(chosenBalance, libRaw: lr, model: colorModel?.model ?? DNGColorModel.read(libRaw: lr)?.model)
            let kernel = options.demosaic.ownKernel
            let reconstruct = options.develop[Highlights.self] == .reconstruct
            let mosaic = kernel != nil ? BayerDemosaic(libRaw: lr, multipliers: chosen?.multipliers) : nil
            // LightWork's highlight rebuild reads a 2×2 mosaic: an X-Trans file that asks for one keeps LibRaw's.
            let xtrans = kernel != nil && mosaic == nil && !reconstruct ? XTransDemosaic(libRaw: lr, multipliers: chosen?.multipliers) : nil
            let own = mosaic != nil || xtrans != nil
            // The mosaic is all LightWork reads from here: the file's bytes can go back before the working image is
            // allocated (LibRaw's stream now refuses to read them).
            if own, let inputDone {
                lw_raw_stream_detach(stream)
                inputDone()
            }
            var multipliers: SIMD3<Double>
            if let applied = mosaic?.multipliers ?? xtrans?.multipliers {
                multipliers = applied
            } else {
                if let m = chosen?.multipliers {
                    // scale_colors lets the camera's balance override user_mul: turn it off.
                    lr.pointee.params.use_camera_wb = 0
                    lr.pointee.params.user_mul = (Float(m.x), Float(m.y), Float(m.z), Float(m.y))
                }
                // LibRaw's own rebuild; it then normalises the multipliers to a largest of 1 (headroom kept below).
                if reconstruct { lr.pointee.params.highlight = Highlights.libRawMode }
                rc = libraw_dcraw_process(lr)
                try checkDataPresent()
                guard rc == LIBRAW_SUCCESS.rawValue else { throw RawDecoder.error(rc, stage: "process", url: url) }
                if dataError.pointee != 0 { throw LightWorkError.decodeFailed("the raw data is truncated or corrupt (LibRaw reported a data error)") }
                // scale_colors leaves the multipliers it applied in pre_mul, normalised to a smallest of 1.
                let applied = DNGColorModel.floats(lr.pointee.color.pre_mul)
                multipliers = SIMD3(Double(applied[0]), Double(applied[1]), Double(applied[2]))
            }
            if multipliers.min() <= 0 || !multipliers.x.isFinite || !multipliers.y.isFinite || !multipliers.z.isFinite { multipliers = SIMD3(1, 1, 1) }
            // LightWork stretches its own demosaic's output below; LibRaw's processed image has the size it records
            // in sizes.width/height (iwidth/iheight keep the sensor's), which must be the square-pixel size.
            let (sw, sh) = own ? square : (Int(lr.pointee.sizes.width), Int(lr.pointee.sizes.height))
            if !own, !fujiRotated, (sw, sh) != square {
                throw LightWorkError.decodeFailed("LibRaw's processed image is \(sw)x\(sh) where pixel aspect \(aspect) makes the \(sensorWidth)x\(sensorHeight) sensor \(square.width)x\(square.height)")
            }
            let orientation = Orientation(libRawFlip: lr.pointee.sizes.flip)
            let (w, h) = orientation.swapsAxes ? (sh, sw) : (sw, sh)
            var details = details()
            details["unpack"] = unpackDecision
            // What was decided for this file, named in the manifest (DecodedImage.decisionKeys).
            details["whiteBalance"] = chosen?.decision
                ?? "\(balance.rawValue), multipliers " + [multipliers.x, multipliers.y, multipliers.z].map { String(format: "%.4f", $0) }.joined(separator: " ")
            if reconstruct, !own { details["highlights"] = "reconstruct (LibRaw highlight mode \(Highlights.libRawMode))" }
            // RCD and dual are LightWork's alone: where their kernel cannot run, the record says what LibRaw ran instead,
            // and why when the reason is the request itself (reconstruction on X-Trans) rather than the file.
            let libRawRan = RawDecoder.libRawDemosaic(quality: options.demosaic.libRawQuality, filters: d.idata.filters, colors: Int(d.idata.colors))
            details["demosaic"] = mosaic != nil ? "\(options.demosaic.rawValue) (LightWork)"
                : xtrans != nil ? "xtrans (LightWork)"
                : kernel != nil && reconstruct && d.idata.filters == 9
                    ? "\(libRawRan) (LibRaw, in place of \(kernel!.rawValue): --highlights reconstruct is LightWork's on 2×2 Bayer mosaics only)"
                : "\(libRawRan) (LibRaw"
                  + (kernel != nil && kernel != .ahd ? ", in place of \(kernel!.rawValue), which LightWork runs on ordinary Bayer and X-Trans files only)" : ")")
            let stretcher = own ? "LightWork" : "LibRaw"
            details["pixelAspect"] = aspect == 1 ? "1 (square)"
                : String(format: "%.4f, stretched %dx%d to %dx%d by %@", aspect, sensorWidth, sensorHeight, square.width, square.height, stretcher)
            if fujiRotated { details["pixelAspect", default: ""] += "; Fuji rotated sensor turned upright by LibRaw" }
            details["orientation"] = "\(orientation.rawValue) (\(orientation)), LibRaw flip \(lr.pointee.sizes.flip & 7)"
            var notes: [String] = []
            var matrix: Matrix3?
            let libRawMatrix = lr.pointee.idata.dng_version != 0 ? "DNG ColorMatrix" : "built-in matrix"
            var sourceProfile = "camera (LibRaw \(libRawMatrix))"
            details["colour"] = own ? "LibRaw rgb_cam (\(libRawMatrix)) by LightWork" : "LibRaw (\(libRawMatrix))"
            // Balanced camera RGB → working space before any exposure gain (also the homogeneity test's colour).
            var cameraMatrix: Matrix3?
            var cameraColour: (matrix: Matrix3, neutral: SIMD3<Double>, white: SIMD2<Double>, temperature: ColorTemperature)?
            if let (model, source) = colorModel {
                let colour = cameraToWorking(model, multipliers: multipliers)
                cameraColour = colour
                cameraMatrix = colour.matrix
                matrix = colour.matrix
                sourceProfile = "camera (DNG colour model, \(source.rawValue))"
                details["colorModel"] = "dng (\(source.rawValue))"
                details["colour"] = "DNG colour model (\(source.rawValue))"
                details["cameraNeutral"] = [colour.neutral.x, colour.neutral.y, colour.neutral.z].map { String(format: "%.4f", $0) }.joined(separator: " ")
                details["whitePoint"] = String(format: "x %.4f y %.4f, %.0f K tint %+.1f", colour.white.x, colour.white.y,
                                               colour.temperature.kelvin, colour.temperature.tint)
                details["cameraToWorking"] = (0..<3).map { r in (0..<3).map { String(format: "%.4f", colour.matrix[r, $0]) }.joined(separator: " ") }.joined(separator: "; ")
            } else {
                details["colorModel"] = "libraw"
                if options.colorModel == .dng {
                    notes.append("no three-colour camera matrix for the DNG colour model: LibRaw's colour conversion used")
                }
                // LibRaw's dcraw_process converted to ProPhoto itself; LightWork's demosaic leaves camera RGB, which
                // LibRaw's rgb_cam (balanced camera → linear sRGB) and an sRGB → ProPhoto conversion take there.
                if own {
                    let rgbCam = DNGColorModel.matrix(lr.pointee.color.rgb_cam, stride: 4) ?? .identity
                    cameraMatrix = RGBPrimaries.sRGB.conversion(to: WorkingSpace.rawLinear.primaries) * rgbCam
                    matrix = cameraMatrix
                }
            }
            // DNG BaselineExposure: the file's own statement of where its normal exposure lies (ACR honours it;
            // dcraw and LibRaw ignore it). Applied in both colour models, as a gain in linear light.
            if reconstruct, !own, colorModel == nil {
                // LibRaw's own colour conversion keeps the darker scale of its highlight modes: restore the exposure.
                matrix = Matrix3.diagonal(SIMD3(repeating: 1 / multipliers.min())) * (matrix ?? .identity)
            }
            let baseline = RawDecoder.baselineExposure(lr)
            var rendering: CameraProfileRendering?
            if let chosen = cameraProfile, let colour = cameraColour {
                details["cameraProfile"] = chosen.description
                if chosen.profile.hasRenderingSteps {
                    let setting = options.cameraProfile ?? CameraProfileSetting()
                    let exposure = baseline + chosen.profile.baselineExposureOffset
                    rendering = CameraProfileRendering(hueSatMap: chosen.profile.hueSatMap(at: colour.white), exposureGain: pow(2, exposure),
                                                       lookTable: setting.look ? chosen.profile.lookTable : nil,
                                                       toneCurve: setting.tone ? chosen.profile.toneCurve : nil)
                    if exposure != 0 { details["baselineExposure"] = String(format: "%+.3f EV (profile steps)", exposure) }
                }
            } else if let note = cameraProfileNote {
                details["cameraProfile"] = note
            }
            if baseline != 0, rendering == nil {
                let gain = Matrix3.diagonal(SIMD3(repeating: pow(2, baseline)))
                matrix = gain * (matrix ?? .identity)
                details["baselineExposure"] = String(format: "%+.3f EV", baseline)
            }
            let image = WorkingImage.unfilled(width: w, height: h, space: .rawLinear)   // convert writes every pixel
            let peak: UInt16
            var developed: DevelopContext?
            if own {
                let toXYZ = Matrix3.diagonal(1 / CIE.d50) * WorkingSpace.rawLinear.primaries.toXYZD50 * (cameraMatrix ?? .identity)
                let tiles = if let mosaic, let kernel { mosaic.tiles(kernel, cameraToXYZ: toXYZ) } else { xtrans!.tiles(cameraToXYZ: toXYZ) }
                // Square pixels with nothing to rebuild: demosaic and colour in one pass over bands of tile rows, and the
                // develop stage's per-pixel modules on each row too when asked and nothing comes between (no profile steps).
                if aspect == 1, !reconstruct {
                    var operations: [PointOperation] = []
                    if rendering == nil, let placements = options.developInDecode {
                        var meta = metadata()
                        meta.orientation = orientation.rawValue
                        var context = DevelopContext(kind: .raw, metadata: meta, details: details, engine: engine)
                        if let planned = DevelopStage.pointOperations(placements, settings: options.develop, context: &context) {
                            operations = planned
                            developed = context
                        }
                    }
                    peak = RawDecoder.convertBands(tiles, orientation: orientation, matrix: matrix ?? .identity, into: image, engine: engine,
                                                   operations: operations)
                } else {
                    var pixels = tiles.run(engine: engine)
                    var highlights: HighlightReconstruction?
                    if let mosaic, reconstruct, aspect == 1 {
                        var r = HighlightReconstruction(bayer: mosaic.bayer, white: Float(d.color.maximum))
                        r.analyse(ahd: pixels, engine: engine)
                        details["highlights"] = "reconstruct (LightWork): \(r.rebuilt) pixels past the clip, \(r.saturated) with saturated channels"
                            + (r.saturated > 0 && !r.hasReference ? "; no unsaturated pixel to take a hue from, saturated channels kept at the clip" : "")
                        highlights = r
                    } else if reconstruct {
                        details["highlights"] = "clip (reconstruct is not done on non-square pixels)"
                        notes.append("highlights: reconstruct is not done on non-square pixels (pixel aspect \(aspect)); clipped")
                    }
                    if aspect != 1 {
                        let square = PixelAspect.stretch(pixels, width: sensorWidth, height: sensorHeight, aspect: aspect, engine: engine)
                        pixels.deallocate()
                        guard let square, (square.width, square.height) == (sw, sh) else {
                            square?.pixels.deallocate()
                            throw LightWorkError.decodeFailed("pixel aspect \(aspect): the stretched image is not \(sw)x\(sh)")
                        }
                        pixels = square.pixels
                    }
                    defer { pixels.deallocate() }
                    let rgbx = UnsafeMutableRawPointer(pixels).assumingMemoryBound(to: (UInt16, UInt16, UInt16, UInt16).self)
                    peak = RawDecoder.convert(rgbx, storedWidth: sw, storedHeight: sh, orientation: orientation, matrix: matrix ?? .identity, into: image, engine: engine)
                    highlights?.write(ahd: pixels, matrix: matrix ?? .identity, orientation: orientation, into: image, engine: engine)
                }
            } else {
                guard let src = lr.pointee.image else { throw LightWorkError.decodeFailed("LibRaw produced no image") }
                peak = RawDecoder.convert(src, storedWidth: sw, storedHeight: sh, orientation: orientation, matrix: matrix, into: image, engine: engine)
            }
            guard peak > 0 else {
                throw LightWorkError.blankImage("every pixel is black (a DNG without image data, or data LibRaw could not read)")
            }
            // The profile's steps after camera → PCS (DNG 1.6 order), on the linear ProPhoto working image.
            rendering?.apply(to: image, engine: engine)
            var meta = metadata()
            meta.orientation = orientation.rawValue
            if chosen == nil, balance != .asShot && balance != .asShotApplied {
                notes.append("no as-shot white balance in the file: \(balance.rawValue) used")
            }
            var decoded = DecodedImage(image: image, kind: .raw, metadata: meta, notes: notes, sourceProfile: sourceProfile, details: details)
            decoded.developContext = developed
            return decoded
        }

        /// The matrix from balanced camera RGB (0…1) to the working space. `multipliers` are the white-balance
        /// multipliers applied, smallest 1: their inverse is the camera neutral (the DNG AsShotNeutral, or the
        /// camera's as-shot or auto balance), and dividing by them restores camera RGB.
        func cameraToWorking(_ model: DNGColorModel, multipliers: SIMD3<Double>) -> (matrix: Matrix3, neutral: SIMD3<Double>, white: SIMD2<Double>, temperature: ColorTemperature) {
            let neutral = (1 / multipliers) / (1 / multipliers).max()
            let white = model.whitePoint(neutral: neutral)
            let matrix = model.cameraToRGB(neutral: neutral, primaries: WorkingSpace.rawLinear.primaries) * Matrix3.diagonal(1 / multipliers)
            return (matrix, neutral, white, ColorTemperature(xy: white))
        }

        func metadata() -> ImageMetadata {
            var m = ImageMetadata()
            let d = lr.pointee
            m.make = nonEmpty(stringFromCTuple(d.idata.make))
            m.model = nonEmpty(stringFromCTuple(d.idata.model))
            m.lens = nonEmpty(stringFromCTuple(d.lens.Lens))
            if d.other.shutter > 0 { m.exposureTime = Double(d.other.shutter) }
            if d.other.aperture > 0 { m.fNumber = Double(d.other.aperture) }
            if d.other.iso_speed > 0 { m.iso = Double(d.other.iso_speed) }
            if d.other.focal_len > 0 { m.focalLength = Double(d.other.focal_len) }
            m.dateTimeOriginal = ImageMetadata.exifDateTime(utcSeconds: Int(d.other.timestamp))
            let gps = d.other.parsed_gps
            if gps.gpsparsed != 0 {
                func deg(_ v: (Float, Float, Float)) -> Double { Double(v.0) + Double(v.1) / 60 + Double(v.2) / 3600 }
                m.gpsLatitude = deg(gps.latitude) * (gps.latref == CChar(UInt8(ascii: "S")) ? -1 : 1)
                m.gpsLongitude = deg(gps.longitude) * (gps.longref == CChar(UInt8(ascii: "W")) ? -1 : 1)
                m.gpsAltitude = Double(gps.altitude)
            }
            m.orientation = Orientation(libRawFlip: d.sizes.flip).rawValue
            return m
        }

        func details() -> [String: String] {
            let d = lr.pointee
            var out: [String: String] = [:]
            out["rawSize"] = "\(d.sizes.raw_width)x\(d.sizes.raw_height)"
            out["imageSize"] = "\(d.sizes.width)x\(d.sizes.height)"
            out["flip"] = "\(d.sizes.flip)"
            out["pixelAspect"] = String(format: "%.4f", d.sizes.pixel_aspect)
            out["colors"] = "\(d.idata.colors)"
            if d.idata.filters != 0 {
                let desc = Array(stringFromCTuple(d.idata.cdesc))
                // Bayer: the 2 × 2 cell ("RGGB"); X-Trans: the six rows of its 6 × 6 layout, "/" between them.
                let period = d.idata.filters == 9 ? 6 : 2
                let rows = (0..<period).map { row in
                    String((0..<period).map { col -> Character in
                        let c = Int(libraw_COLOR(lr, Int32(row), Int32(col)))
                        return c < desc.count ? desc[c] : "?"
                    })
                }
                out["cfa"] = rows.joined(separator: period == 6 ? "/" : "")
            } else {
                out["cfa"] = "none (linear raw)"
            }
            out["blackLevel"] = "\(d.color.black)"
            out["whiteLevel"] = "\(d.color.maximum)"
            let wb = withUnsafeBytes(of: d.color.cam_mul) { Array($0.bindMemory(to: Float.self)) }
            out["asShotWB"] = wb.map { String(format: "%.4f", $0) }.joined(separator: " ")
            let cm = withUnsafeBytes(of: d.color.rgb_cam) { Array($0.bindMemory(to: Float.self)) }
            out["rgbCam"] = (0..<3).map { r in (0..<3).map { String(format: "%.4f", cm[r * 4 + $0]) }.joined(separator: " ") }.joined(separator: "; ")
            if d.idata.dng_version != 0 {
                let v = d.idata.dng_version
                out["dngVersion"] = "\(v >> 24).\((v >> 16) & 0xff).\((v >> 8) & 0xff).\(v & 0xff)"
            }
            out["decoder"] = loaderName
            return out
        }

        private func nonEmpty(_ s: String) -> String? { s.isEmpty ? nil : s }
    }

    /// Copies LibRaw's 16-bit RGB(x) image into upright half-float RGBA (alpha 1), through `matrix` (3 × 3 on values
    /// scaled to 0…1) when given; returns the largest input value seen. Rows are gathered into planes, so the matrix
    /// loop is plain Float arithmetic the compiler vectorises.
    static func convert(_ src: UnsafeMutablePointer<(UInt16, UInt16, UInt16, UInt16)>, storedWidth sw: Int, storedHeight sh: Int,
                        orientation: Orientation, matrix: Matrix3? = nil, into image: WorkingImage, engine: EngineConfiguration) -> UInt16 {
        let w = image.width, h = image.height
        let base = UncheckedSendable(UnsafeRawPointer(src).assumingMemoryBound(to: UInt16.self))
        let peaks = UncheckedSendable(UnsafeMutablePointer<UInt16>.allocate(capacity: h))
        defer { peaks.value.deallocate() }
        let workers = engine.workers(for: h)
        let rows = RowConversion(width: w, workers: workers, matrix: matrix)
        Parallel.forEach(h, workers: workers) { worker, y in
            // An upright row is a straight line through the stored image: its first pixel and the step between
            // neighbours (±1 or ± a stored row), so the loop below has no per-pixel orientation switch.
            let (sx0, sy0) = orientation.sourceCoordinate(x: 0, y: y, storedWidth: sw, storedHeight: sh)
            let (sx1, sy1) = orientation.sourceCoordinate(x: 1, y: y, storedWidth: sw, storedHeight: sh)
            let first = base.value + 4 * (sy0 * sw + sx0)
            let step = 4 * ((sy1 - sy0) * sw + (sx1 - sx0))
            peaks.value[y] = rows.convert(first, step: step, worker: worker, into: image.row(y))
        }
        return (0..<h).reduce(0) { max($0, peaks.value[$1]) }
    }

    /// The fused path: demosaics `tiles` band by band and turns each band into upright half-float RGBA (alpha 1)
    /// through `matrix` while it is in the cache, with `convert`'s arithmetic (the same bits), so no whole-image
    /// 16-bit buffer exists between the demosaic and the working image; returns the largest demosaicked value.
    /// The working image is upright: each stored row becomes a line of it (a row, reversed or not, or a column).
    static func convertBands(_ tiles: DemosaicTiles, orientation: Orientation, matrix: Matrix3?, into image: WorkingImage,
                             engine: EngineConfiguration, operations: [PointOperation] = []) -> UInt16 {
        let sw = tiles.width, w = image.width, h = image.height
        let workers = engine.workers(for: tiles.bandCount)
        let rows = RowConversion(width: sw, workers: workers, matrix: matrix, operations: operations)
        let peaks = UncheckedSendable(UnsafeMutablePointer<UInt16>.allocate(capacity: tiles.bandCount))
        defer { peaks.value.deallocate() }
        let inverse = orientation.inverse, storage = UncheckedSendable(UnsafeMutableRawPointer(image.storage))
        tiles.runBands(engine: engine, workers: workers) { worker, band, y0, count in
            var peak: UInt16 = 0
            for j in 0..<count {
                let (ux0, uy0) = inverse.sourceCoordinate(x: 0, y: y0 + j, storedWidth: w, storedHeight: h)
                let (ux1, uy1) = inverse.sourceCoordinate(x: 1, y: y0 + j, storedWidth: w, storedHeight: h)
                let start = uy0 * w + ux0, step = (uy1 - uy0) * w + (ux1 - ux0)
                let stored = UnsafePointer(band + j * sw * 4)
                if step == 1 {
                    peak = max(peak, rows.convert(stored, step: 4, worker: worker, into: image.storage + 4 * start))
                } else {
                    // Converted into the worker's row, then each 8-byte pixel moved to its upright place.
                    let line = rows.halfRow(worker)
                    peak = max(peak, rows.convert(stored, step: 4, worker: worker, into: line))
                    let from = UnsafeRawPointer(line), to = storage.value
                    for x in 0..<sw {
                        to.storeBytes(of: from.load(fromByteOffset: 8 * x, as: UInt64.self), toByteOffset: 8 * (start + step * x), as: UInt64.self)
                    }
                }
            }
            peaks.value[y0 / tiles.tile] = peak
        }
        return (0..<tiles.bandCount).reduce(0) { max($0, peaks.value[$1]) }
    }

    /// Where the white balance of a RAW comes from, as LibRaw's `scale_colors` decides with `use_camera_wb`.
    public enum WhiteBalance: String, Sendable {
        /// The camera's recorded balance (`cam_mul`; a DNG's AsShotNeutral).
        case asShot = "as-shot"
        /// The data was balanced in the file already (`as_shot_wb_applied`): LibRaw applies none.
        case asShotApplied = "as-shot (applied in the file)"
        /// No usable recorded balance: LibRaw's daylight multipliers for the camera (`pre_mul`).
        case daylight = "camera daylight (pre_mul)"
        /// The loader marked the balance unknown (`cam_mul[0] == -1`): LibRaw averages the whole image (grey world).
        case auto = "LibRaw auto (grey world)"
    }

    /// The balance LibRaw's processing (and BayerDemosaic, which follows it) applies to the file unpacked in `d`.
    static func whiteBalance(of d: libraw_data_t) -> WhiteBalance {
        if d.color.cam_mul.0 == -1 { return .auto }
        if d.color.as_shot_wb_applied != 0 { return .asShotApplied }
        return d.color.cam_mul.0 > 0 && d.color.cam_mul.2 > 0 ? .asShot : .daylight
    }

    /// The algorithm LibRaw's `dcraw_process` runs for `user_qual` `quality` on this layout (it overrides the
    /// request for four-colour sensors and X-Trans, and runs none on full-colour data).
    static func libRawDemosaic(quality: Int32, filters: UInt32, colors: Int) -> String {
        if filters == 0 { return "none (not a mosaic)" }
        switch quality {
        case 0: return "linear"
        case 1: return "vng"
        case _ where colors > 3: return "vng"
        case 2 where filters > 1000: return "ppg"
        case _ where filters == 9: return quality > 2 ? "xtrans (3 passes)" : "xtrans (1 pass)"
        case 3: return "ahd"
        case 11: return "dht"
        case 12: return "aahd"
        default: return "ahd"
        }
    }

    static func openError(_ rc: Int32, url: URL) -> LightWorkError {
        let ext = url.pathExtension.lowercased()
        guard RawCodec.extensions.contains(ext) else {
            let others = CodecRegistry.codecs.filter { $0.decodes && !($0 is RawCodec) }.map { "a \($0.name.uppercased()), " }
            return .unsupportedFormat("not \(others.joined())nor a RAW format LibRaw \(libraryVersion) reads")
        }
        if ext == "gpr" { return gprUnsupported() }
        return .decodeFailed("LibRaw cannot identify this .\(ext) file (\(String(cString: libraw_strerror(rc)))): truncated or corrupt, or a camera LibRaw \(libraryVersion) does not know")
    }

    /// Whether the linked LibRaw decodes VC-5 (GoPro's SDK built in); Debian's does not.
    static let gprSupported = libraw_capabilities() & UInt32(LIBRAW_CAPS_GPRSDK.rawValue) != 0

    static func gprUnsupported(_ detail: String? = nil) -> LightWorkError {
        .unsupportedFormat("GoPro GPR (VC-5 compressed DNG) is not supported by this LibRaw build" + (detail.map { " (\($0))" } ?? ""))
    }

    static func error(_ rc: Int32, stage: String, url: URL) -> LightWorkError {
        let text = String(cString: libraw_strerror(rc))
        if url.pathExtension.lowercased() == "gpr" { return gprUnsupported(text) }
        switch rc {
        case LIBRAW_FILE_UNSUPPORTED.rawValue:
            return .unsupportedFormat("LibRaw \(libraryVersion) cannot \(stage) this file's data: \(text)")
        case LIBRAW_IO_ERROR.rawValue, LIBRAW_DATA_ERROR.rawValue, LIBRAW_REQUEST_FOR_NONEXISTENT_IMAGE.rawValue:
            return .decodeFailed("LibRaw \(stage) failed: \(text) (truncated or corrupt file?)")
        default:
            return .decodeFailed("LibRaw \(stage) failed: \(text)")
        }
    }
}

/// One row of 16-bit RGB(x) pixels (`step` samples apart) into half-float RGBA with alpha 1, through a 3 × 3 matrix
/// on values scaled to 0…1 when given: gathered into float planes so the matrix loop (`SpaceConversion.multiply`)
/// vectorises. Per-worker planes and a half-float row are allocated once for a whole conversion
/// (`RawDecoder.convert`, `convertBands`); each worker touches only its own.
final class RowConversion: @unchecked Sendable {
    let width: Int
    private let planes: UnsafeMutablePointer<Float>
    private let halves: UnsafeMutablePointer<UInt16>
    private let m: [Float]
    private let transform: Bool
    /// Develop modules applied to each converted row (`DecodeOptions.developInDecode`).
    private let operations: [PointOperation]

    init(width: Int, workers: Int, matrix: Matrix3?, operations: [PointOperation] = []) {
        self.width = width
        self.operations = operations
        // Per worker: three planes transformed in place and one alpha plane of ones.
        planes = .allocate(capacity: workers * 4 * width)
        halves = .allocate(capacity: workers * 4 * width)
        for k in 0..<workers { (planes + (k * 4 + 3) * width).initialize(repeating: 1, count: width) }
        let scale: Float = 1 / 65535
        m = (matrix ?? .identity).floats.map { $0 * scale }
        transform = matrix != nil
    }

    deinit { planes.deallocate(); halves.deallocate() }

    /// The worker's half-float row (width × 4), for a row that is not stored left to right.
    func halfRow(_ worker: Int) -> UnsafeMutablePointer<UInt16> { halves + worker * 4 * width }

    /// Converts `width` pixels from `first` (`step` samples apart) into `dst`; returns their largest RGB value.
    func convert(_ first: UnsafePointer<UInt16>, step: Int, worker: Int, into dst: UnsafeMutablePointer<UInt16>) -> UInt16 {
        let w = width, scale: Float = 1 / 65535
        let r = planes + worker * 4 * w, g = r + w, b = r + 2 * w, alpha = r + 3 * w
        var peak: UInt16 = 0
        @inline(__always) func gather(_ p: UnsafePointer<UInt16>, _ x: Int) {
            let p0 = p[0], p1 = p[1], p2 = p[2]
            let m01 = p0 > p1 ? p0 : p1, mx = m01 > p2 ? m01 : p2
            peak = peak > mx ? peak : mx
            r[x] = Float(p0)
            g[x] = Float(p1)
            b[x] = Float(p2)
        }
        if step == 4 {
            for x in 0..<w { gather(first + 4 * x, x) }
        } else {
            for x in 0..<w { gather(first + step * x, x) }
        }
        if transform {
            SpaceConversion.multiply(m, r, g, b, w)
        } else {
            for x in 0..<w {
                r[x] *= scale
                g[x] *= scale
                b[x] *= scale
            }
        }
        lw_planar_to_rgba_half(r, g, b, alpha, dst, w)
        if !operations.isEmpty {
            // As DevelopStage.pointed would: the stored half floats read back, the modules, stored again.
            lw_rgba_half_to_planar(dst, r, g, b, alpha, w)
            for operation in operations { operation.apply(r, g, b, w) }
            lw_planar_to_rgba_half(r, g, b, alpha, dst, w)
        }
        return peak
    }
}
