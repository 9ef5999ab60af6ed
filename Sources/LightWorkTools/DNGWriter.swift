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

    /// Writes `mosaic` with `camera`'s colour tags to `url`; on failure nothing is left under that name. `make` and
    /// `model` name another camera (a lens-corrected file names one lensfun knows) with the same colour tags.
    static func write(_ mosaic: CFAMosaic, camera: SyntheticCamera, to url: URL, compression: Compression = .none,
                      make: String = SyntheticCamera.make, model: String = SyntheticCamera.model,
                      uniqueCameraModel: String = SyntheticCamera.uniqueCameraModel) throws {
        lw_tiff_quiet()
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).lwtmp")
        guard let tif = TIFFOpen(temporary.path, "w") else {
            throw LightWorkError.writeFailed("\(url.path): \(String(cString: lw_tiff_last_error()))")
        }
        var closed = false
        defer { if !closed { TIFFClose(tif) } }
        do {
            try setTags(tif, mosaic: mosaic, camera: camera, make: make, model: model, uniqueCameraModel: uniqueCameraModel)
            switch compression {
            case .none: try writeStrips(tif, mosaic)
            case .ljpeg: try writeLosslessJPEGTiles(tif, mosaic)
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
                                uniqueCameraModel: String) throws {
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
        let repeatDim: [UInt16] = [2, 2]
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
        let black: [Float] = [Float(SyntheticCamera.blackLevel)]
        try check(lw_tiff_set_float_array(tif, UInt32(TIFFTAG_BLACKLEVEL), 1, black), "BlackLevel")
        let white: [UInt32] = [UInt32(SyntheticCamera.whiteLevel)]
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

    /// Replaces the strip layout with tiles and Compression 7, then writes each tile's JPEG stream as is.
    private static func writeLosslessJPEGTiles(_ tif: OpaquePointer, _ mosaic: CFAMosaic) throws {
        guard let side = tileSide(width: mosaic.width, height: mosaic.height) else {
            throw LightWorkError.usage("lossless-JPEG DNG: width and height must be multiples of 16 (\(mosaic.width) x \(mosaic.height))")
        }
        func check(_ ok: Int32, _ name: String) throws {
            if ok == 0 { throw LightWorkError.writeFailed("cannot set DNG tag \(name): \(String(cString: lw_tiff_last_error()))") }
        }
        try check(lw_tiff_set_u16(tif, UInt32(TIFFTAG_COMPRESSION), 7), "Compression (JPEG)")
        try check(lw_tiff_set_u32(tif, UInt32(TIFFTAG_TILEWIDTH), UInt32(side)), "TileWidth")
        try check(lw_tiff_set_u32(tif, UInt32(TIFFTAG_TILELENGTH), UInt32(side)), "TileLength")
        var tiles: [[UInt16]] = []
        for ty in stride(from: 0, to: mosaic.height, by: side) {
            for tx in stride(from: 0, to: mosaic.width, by: side) {
                var tile = [UInt16](repeating: 0, count: side * side)
                for y in 0..<side { for x in 0..<side { tile[y * side + x] = mosaic.samples[(ty + y) * mosaic.width + tx + x] } }
                tiles.append(tile)
            }
        }
        let coder = LosslessJPEG(fittedTo: tiles, width: side)
        for (index, tile) in tiles.enumerated() {
            var stream = coder.encode(tile, width: side, height: side)
            if TIFFWriteRawTile(tif, UInt32(index), &stream, tmsize_t(stream.count)) < 0 {
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
