import CShims
import CTIFF
import Foundation
import LightWork

/// Writes a CFA frame as a 16-bit DNG 1.4 (raw data in IFD 0, no preview) through libtiff: uncompressed strips,
/// or lossless-JPEG tiles (DNG Compression 7) coded by `LosslessJPEG`, with the CFA layout, Orientation and
/// DefaultScale of the mosaic's `DNGLayout`.
enum DNGWriter {
    static let rowsPerStrip = 16

    /// How the raw data is stored.
    enum Compression: String, CaseIterable {
        case none
        /// Lossless JPEG (Compression 7) in tiles, as camera makers' and Adobe's DNG writers store it.
        case ljpeg
    }

    /// How a lossless-JPEG DNG is laid out and coded (`--ljpeg`): the defaults are Adobe's (256-or-smaller square
    /// tiles that divide the frame, 16-bit precision, two components, predictor 1).
    struct LosslessLayout: Equatable {
        var coding = LosslessJPEG.Coding()
        /// JPEG precision P: 16, or 14 / 12 with the samples (and black and white levels) scaled to fit.
        var precision = 16
        /// Tile size; nil: `tileSide`'s square. Edge tiles may run past the frame (padded by repeating its edge).
        var tile: (width: Int, height: Int)?
        /// One strip (one JPEG stream) for the whole frame instead of tiles.
        var strip = false

        static func == (a: Self, b: Self) -> Bool {
            a.coding == b.coding && a.precision == b.precision && a.strip == b.strip && a.tile?.width == b.tile?.width && a.tile?.height == b.tile?.height
        }

        /// Parses `predictor=N,bits=16|14|12,tile=WxH,components=1|2,pt=N,strip`.
        init(spec: String) throws {
            for item in spec.split(separator: ",") {
                let kv = item.split(separator: "=", maxSplits: 1).map(String.init)
                let number = kv.count == 2 ? Int(kv[1]) : nil
                switch (kv[0], number) {
                case ("predictor", let n?) where (1...7).contains(n): coding.predictor = n
                case ("components", let n?) where n == 1 || n == 2: coding.components = n
                case ("pt", let n?) where (0...4).contains(n): coding.pointTransform = n
                case ("bits", let n?) where [12, 14, 16].contains(n): precision = n
                case ("strip", nil) where kv.count == 1: strip = true
                case ("tile", nil) where kv.count == 2:
                    let wh = kv[1].split(separator: "x").compactMap { Int($0) }
                    guard wh.count == 2, wh.allSatisfy({ $0 >= 2 && $0 <= 65535 }) else { throw LightWorkError.usage("--ljpeg tile expects WxH, not '\(kv[1])'") }
                    tile = (wh[0], wh[1])
                default: throw LightWorkError.usage("--ljpeg expects predictor=1…7,bits=16|14|12,tile=WxH,components=1|2,pt=0…4,strip; not '\(item)'")
                }
            }
        }

        init() {}

        /// Right shift that brings the synthetic camera's 14-bit samples into `precision` bits.
        var sampleShift: Int { max(0, 14 - precision) }
    }

    /// Writes `mosaic` with `camera`'s colour tags to `url`; on failure nothing is left under that name. `make` and
    /// `model` name another camera (a lens-corrected file names one lensfun knows) with the same colour tags.
    static func write(_ mosaic: CFAMosaic, camera: SyntheticCamera, to url: URL, compression: Compression = .none,
                      lossless: LosslessLayout = LosslessLayout(), make: String = SyntheticCamera.make, model: String = SyntheticCamera.model,
                      uniqueCameraModel: String = SyntheticCamera.uniqueCameraModel) throws {
        lw_tiff_quiet()
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).lwtmp")
        guard let tif = TIFFOpen(temporary.path, "w") else {
            throw LightWorkError.writeFailed("\(url.path): \(String(cString: lw_tiff_last_error()))")
        }
        var closed = false
        defer { if !closed { TIFFClose(tif) } }
        do {
            let shift = compression == .ljpeg ? lossless.sampleShift : 0
            try setTags(tif, mosaic: mosaic, camera: camera, make: make, model: model, uniqueCameraModel: uniqueCameraModel, shift: shift)
            switch compression {
            case .none: try writeStrips(tif, mosaic)
            case .ljpeg: try writeLosslessJPEGTiles(tif, mosaic, lossless)
            }
            TIFFClose(tif)
            closed = true
            if rename(temporary.path, url.path) != 0 {
                throw LightWorkError.writeFailed("\(url.path): \(String(cString: strerror(errno)))")
            }
        } catch {
            if !closed { TIFFClose(tif); closed = true }
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
    }

    private static func setTags(_ tif: OpaquePointer, mosaic: CFAMosaic, camera: SyntheticCamera, make: String, model: String,
                                uniqueCameraModel: String, shift: Int = 0) throws {
        func check(_ ok: Int32, _ name: String) throws {
            if ok == 0 { throw LightWorkError.writeFailed("cannot set DNG tag \(name): \(String(cString: lw_tiff_last_error()))") }
        }
        try check(lw_tiff_set_u32(tif, UInt32(TIFFTAG_SUBFILETYPE), 0), "NewSubFileType")
        try check(lw_tiff_set_u32(tif, UInt32(TIFFTAG_IMAGEWIDTH), UInt32(mosaic.width)), "ImageWidth")
        try check(lw_tiff_set_u32(tif, UInt32(TIFFTAG_IMAGELENGTH), UInt32(mosaic.height)), "ImageLength")
        try check(lw_tiff_set_u16(tif, UInt32(TIFFTAG_BITSPERSAMPLE), 16), "BitsPerSample")
        try check(lw_tiff_set_u16(tif, UInt32(TIFFTAG_SAMPLESPERPIXEL), 1), "SamplesPerPixel")
        try check(lw_tiff_set_u16(tif, UInt32(TIFFTAG_COMPRESSION), UInt16(COMPRESSION_NONE)), "Compression")
        try check(lw_tiff_set_u16(tif, UInt32(TIFFTAG_PHOTOMETRIC), 32803), "PhotometricInterpretation (CFA)")
        try check(lw_tiff_set_u16(tif, UInt32(TIFFTAG_PLANARCONFIG), UInt16(PLANARCONFIG_CONTIG)), "PlanarConfiguration")
        try check(lw_tiff_set_u16(tif, UInt32(TIFFTAG_ORIENTATION), UInt16(mosaic.layout.orientation.rawValue)), "Orientation")
        try check(lw_tiff_set_u32(tif, UInt32(TIFFTAG_ROWSPERSTRIP), UInt32(rowsPerStrip)), "RowsPerStrip")
        try check(lw_tiff_set_string(tif, UInt32(TIFFTAG_MAKE), make), "Make")
        try check(lw_tiff_set_string(tif, UInt32(TIFFTAG_MODEL), model), "Model")
        try check(lw_tiff_set_string(tif, UInt32(TIFFTAG_SOFTWARE), "lightwork-tools"), "Software")

        // Fixed-count tags: libtiff takes a bare pointer to exactly `count` values.
        let repeatDim: [UInt16] = [UInt16(mosaic.layout.cfa.period), UInt16(mosaic.layout.cfa.period)]
        try check(lw_tiff_set_pointer(tif, UInt32(TIFFTAG_CFAREPEATPATTERNDIM), repeatDim), "CFARepeatPatternDim")
        let pattern = mosaic.layout.cfa.pattern
        try check(lw_tiff_set_bytes(tif, UInt32(TIFFTAG_CFAPATTERN), UInt32(pattern.count), pattern), "CFAPattern")
        let version: [UInt8] = [1, 4, 0, 0], backward: [UInt8] = [1, 1, 0, 0]
        try check(lw_tiff_set_pointer(tif, UInt32(TIFFTAG_DNGVERSION), version), "DNGVersion")
        try check(lw_tiff_set_pointer(tif, UInt32(TIFFTAG_DNGBACKWARDVERSION), backward), "DNGBackwardVersion")
        if !mosaic.layout.isSquare {
            let scale: [Float] = [Float(mosaic.layout.defaultScale.horizontal), Float(mosaic.layout.defaultScale.vertical)]
            try check(lw_tiff_set_pointer(tif, UInt32(TIFFTAG_DEFAULTSCALE), scale), "DefaultScale")
        }
        try check(lw_tiff_set_string(tif, UInt32(TIFFTAG_UNIQUECAMERAMODEL), uniqueCameraModel), "UniqueCameraModel")

        let blackDim: [UInt16] = [1, 1]
        try check(lw_tiff_set_pointer(tif, UInt32(TIFFTAG_BLACKLEVELREPEATDIM), blackDim), "BlackLevelRepeatDim")
        let black: [Float] = [Float(SyntheticCamera.blackLevel) / Float(1 << shift)]
        try check(lw_tiff_set_float_array(tif, UInt32(TIFFTAG_BLACKLEVEL), 1, black), "BlackLevel")
        let white: [UInt32] = [UInt32(SyntheticCamera.whiteLevel) >> shift]
        try check(lw_tiff_set_u32_array(tif, UInt32(TIFFTAG_WHITELEVEL), 1, white), "WhiteLevel")

        let matrix = SyntheticCamera.colorMatrix1.floats
        try check(lw_tiff_set_float_array(tif, UInt32(TIFFTAG_COLORMATRIX1), 9, matrix), "ColorMatrix1")
        try check(lw_tiff_set_u16(tif, UInt32(TIFFTAG_CALIBRATIONILLUMINANT1), SyntheticCamera.calibrationIlluminant1.exifLightSource),
                  "CalibrationIlluminant1")
        let neutral = [camera.asShotNeutral.x, camera.asShotNeutral.y, camera.asShotNeutral.z].map(Float.init)
        try check(lw_tiff_set_float_array(tif, UInt32(TIFFTAG_ASSHOTNEUTRAL), 3, neutral), "AsShotNeutral")
        try check(lw_tiff_set_double(tif, UInt32(TIFFTAG_BASELINEEXPOSURE), camera.baselineExposure), "BaselineExposure")
    }

    /// The side of the square lossless-JPEG tiles for a `width` × `height` frame: the largest of 256…16 that
    /// divides both (LibRaw's tile loop expects tiles inside the frame), nil when none does.
    static func tileSide(width: Int, height: Int) -> Int? {
        [256, 128, 64, 32, 16].first { width % $0 == 0 && height % $0 == 0 }
    }

    /// Replaces the strip layout with tiles (or one strip) and Compression 7, then writes each JPEG stream as is.
    private static func writeLosslessJPEGTiles(_ tif: OpaquePointer, _ mosaic: CFAMosaic, _ lossless: LosslessLayout) throws {
        func check(_ ok: Int32, _ name: String) throws {
            if ok == 0 { throw LightWorkError.writeFailed("cannot set DNG tag \(name): \(String(cString: lw_tiff_last_error()))") }
        }
        let (tw, th): (Int, Int)
        if lossless.strip {
            (tw, th) = (mosaic.width, mosaic.height)
        } else if let tile = lossless.tile {
            (tw, th) = tile
        } else {
            guard let side = tileSide(width: mosaic.width, height: mosaic.height) else {
                throw LightWorkError.usage("lossless-JPEG DNG: width and height must be multiples of 16 (\(mosaic.width) x \(mosaic.height)), or give --ljpeg tile=WxH")
            }
            (tw, th) = (side, side)
        }
        guard tw % lossless.coding.components == 0 else { throw LightWorkError.usage("--ljpeg: a tile \(tw) wide does not split into \(lossless.coding.components) components") }
        try check(lw_tiff_set_u16(tif, UInt32(TIFFTAG_COMPRESSION), 7), "Compression (JPEG)")
        if lossless.strip {
            try check(lw_tiff_set_u32(tif, UInt32(TIFFTAG_ROWSPERSTRIP), UInt32(mosaic.height)), "RowsPerStrip")
        } else {
            try check(lw_tiff_set_u32(tif, UInt32(TIFFTAG_TILEWIDTH), UInt32(tw)), "TileWidth")
            try check(lw_tiff_set_u32(tif, UInt32(TIFFTAG_TILELENGTH), UInt32(th)), "TileLength")
        }
        let shift = lossless.sampleShift
        var tiles: [[UInt16]] = []
        for ty in stride(from: 0, to: mosaic.height, by: th) {
            for tx in stride(from: 0, to: mosaic.width, by: tw) {
                var tile = [UInt16](repeating: 0, count: tw * th)
                // Edge tiles repeat the frame's last row and column, as DNG writers pad them.
                for y in 0..<th { for x in 0..<tw {
                    tile[y * tw + x] = mosaic.samples[min(ty + y, mosaic.height - 1) * mosaic.width + min(tx + x, mosaic.width - 1)] >> shift
                } }
                tiles.append(tile)
            }
        }
        let coder = LosslessJPEG(fittedTo: tiles, width: tw, precision: lossless.precision, coding: lossless.coding)
        for (index, tile) in tiles.enumerated() {
            var stream = coder.encode(tile, width: tw, height: th)
            let written = lossless.strip ? TIFFWriteRawStrip(tif, UInt32(index), &stream, tmsize_t(stream.count))
                : TIFFWriteRawTile(tif, UInt32(index), &stream, tmsize_t(stream.count))
            if written < 0 {
                throw LightWorkError.writeFailed("tile \(index): \(String(cString: lw_tiff_last_error()))")
            }
        }
    }

    private static func writeStrips(_ tif: OpaquePointer, _ mosaic: CFAMosaic) throws {
        let rowBytes = mosaic.width * 2
        try mosaic.samples.withUnsafeBytes { raw in
            var strip: UInt32 = 0
            var y = 0
            while y < mosaic.height {
                let rows = min(rowsPerStrip, mosaic.height - y)
                let start = UnsafeMutableRawPointer(mutating: raw.baseAddress! + y * rowBytes)
                if TIFFWriteEncodedStrip(tif, strip, start, tmsize_t(rows * rowBytes)) < 0 {
                    throw LightWorkError.writeFailed("strip \(strip): \(String(cString: lw_tiff_last_error()))")
                }
                strip += 1
                y += rows
            }
        }
    }
}
