import Foundation

/// Reads a file's capture date and camera from its header, in Swift, without a decoder: what the `{date}`
/// and `{camera}` name tokens need before any file is converted.
///
/// Names are decided while planning, before conversion, so that collisions are found (and suffixes given)
/// in input order whatever the number of jobs, and so that no decoder runs in the planning process (a
/// crafted file must not be able to crash the batch there). Only headers are read (the first 256 KB, and a TIFF's
/// IFD entries and CRW's heap directories where they lie). Understood:
/// TIFF-based RAWs (DNG, CR2, NEF, ARW, PEF, SRW, ERF, 3FR, ORF, RW2…), CR3 (its CMT1/CMT2 boxes), RAF (its
/// embedded JPEG's EXIF), CRW (its CIFF make/model and capture-time records), JPEG (APP1) and PNG (eXIf).
/// Anything else (MRW, X3F…) has no date or camera here, so its name uses "nodate"/"nocamera" even where LibRaw
/// later finds them (the manifest records those).
public enum CaptureInfoProbe {
    /// Bytes read from the start of each file.
    static let prefixLength = 256 * 1024

    /// Make, model and DateTimeOriginal of the file at `url`, or nil when none can be read from its header
    /// (its codec reads them: `ImageCodec.captureInfo`).
    public static func read(_ url: URL) -> ImageMetadata? {
        guard let file = FileBytes(url), file.size >= 16 else { return nil }
        return CodecRegistry.decoder(for: file).captureInfo(file)
    }

    /// The same from the first bytes of a file.
    public static func read(header b: [UInt8]) -> ImageMetadata? {
        guard b.count >= 16 else { return nil }
        let file = FileBytes(Data(b))
        return CodecRegistry.decoder(for: file).captureInfo(file)
    }

    /// "YYYY-MM-DD" from EXIF's "YYYY:MM:DD HH:MM:SS", or nil for a missing, blank or zero date.
    public static func isoDate(_ exif: String?) -> String? {
        guard let s = exif, s.count >= 10 else { return nil }
        let chars = Array(s.prefix(10))
        let digits = [0, 1, 2, 3, 5, 6, 8, 9]
        guard digits.allSatisfy({ chars[$0].isASCII && chars[$0].isNumber }), ":-".contains(chars[4]), ":-".contains(chars[7]) else { return nil }
        let year = String(chars[0..<4]), month = String(chars[5..<7]), day = String(chars[8..<10])
        guard year != "0000", let m = Int(month), (1...12).contains(m), let d = Int(day), (1...31).contains(d) else { return nil }
        return "\(year)-\(month)-\(day)"
    }
}
