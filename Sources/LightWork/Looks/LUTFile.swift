import Foundation

/// How a LUT image lays out its cube.
public enum LUTImageLayout: String, Sendable, Hashable, Codable, CaseIterable {
    /// The app's 512×512 lookup image (8×8 tiles, blue picks the tile).
    case lookup
    /// A HaldCLUT of any level.
    case hald
}

/// Opens any LUT LightWork reads, choosing the reader by extension and content.
public enum LUTFile {
    /// Decodes an image file into samples; supplied by the caller so this module needs no image decoder.
    public typealias ImageDecoder = (URL) throws -> LUTImagePixels

    /// `.cube` (or text) → `CubeLUTReader`; an image (PNG/JPEG/TIFF by signature) → decoded with `decodeImage`, then
    /// read as `layout`, or guessed: a file name containing "hald" or a size other than 512×512 means HaldCLUT;
    /// otherwise the layout whose cube is smoother wins (512×512 fits both, and a real look is a smooth function).
    public static func load(url: URL, decodeImage: ImageDecoder?, layout: LUTImageLayout? = nil) throws -> LUT3D {
        let handle: FileHandle
        do { handle = try FileHandle(forReadingFrom: url) } catch { throw LightWorkError.missingInput(url.path) }
        let head = (try? handle.read(upToCount: 8)) ?? Data()
        try? handle.close()
        guard !head.isEmpty else { throw LightWorkError.emptyFile }
        let ext = url.pathExtension.lowercased()
        if !isImage(head) {
            guard ext == "cube" || ext.isEmpty || ext == "txt" else {
                throw LightWorkError.unsupportedFormat("\(url.lastPathComponent): a LUT is a .cube file, a HaldCLUT image or a 512×512 lookup image")
            }
            return try CubeLUTReader.read(url: url)
        }
        guard let decodeImage else {
            throw LightWorkError.unsupportedFormat("\(url.lastPathComponent): no image decoder available for LUT images")
        }
        let pixels = try decodeImage(url)
        return try read(pixels, file: url.path, layout: layout)
    }

    /// Reads decoded LUT-image pixels with the given or guessed layout (see `load`).
    public static func read(_ pixels: LUTImagePixels, file: String, layout: LUTImageLayout? = nil) throws -> LUT3D {
        switch layout ?? guessLayout(pixels, file: file) {
        case .lookup: return try LookupImageReader.read(pixels, file: file)
        case .hald: return try HaldCLUTReader.read(pixels, file: file)
        }
    }

    /// The layout a LUT image most likely uses.
    public static func guessLayout(_ pixels: LUTImagePixels, file: String) -> LUTImageLayout {
        if (file as NSString).lastPathComponent.lowercased().contains("hald") { return .hald }
        guard pixels.width == LookupImageReader.side, pixels.height == LookupImageReader.side,
              (try? pixels.validate(file: file)) != nil else { return .hald }
        guard let asLookup = try? LookupImageReader.read(pixels, file: file),
              let asHald = try? HaldCLUTReader.read(pixels, file: file) else { return .lookup }
        return roughness(asLookup) <= roughness(asHald) ? .lookup : .hald
    }

    /// Sum of absolute differences between neighbouring lattice points along all three axes.
    static func roughness(_ lut: LUT3D) -> Double {
        let n = lut.size
        var total = 0.0
        lut.table.withUnsafeBufferPointer { t in
            for b in 0..<n {
                for g in 0..<n {
                    for r in 0..<n {
                        let i = 3 * (r + n * (g + n * b))
                        if r + 1 < n { total += diff(t, i, 3) }
                        if g + 1 < n { total += diff(t, i, 3 * n) }
                        if b + 1 < n { total += diff(t, i, 3 * n * n) }
                    }
                }
            }
        }
        return total
    }

    @inline(__always)
    private static func diff(_ t: UnsafeBufferPointer<Float>, _ i: Int, _ step: Int) -> Double {
        Double(abs(t[i + step] - t[i]) + abs(t[i + step + 1] - t[i + 1]) + abs(t[i + step + 2] - t[i + 2]))
    }

    private static func isImage(_ head: Data) -> Bool {
        let b = [UInt8](head)
        if b.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return true }            // PNG
        if b.starts(with: [0xFF, 0xD8, 0xFF]) { return true }                  // JPEG
        if b.starts(with: [0x49, 0x49, 0x2A, 0x00]) || b.starts(with: [0x4D, 0x4D, 0x00, 0x2A]) { return true } // TIFF
        return false
    }
}
