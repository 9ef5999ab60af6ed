import Foundation

/// Whether a file's structure is whole, read from a few bytes at its ends and the offsets its header
/// declares: a file still being uploaded ends early, and its declared pieces lie past its end. Each codec judges
/// its own format in plain bounds-checked Swift (the watch parent never runs a decoder on what it is given):
///
/// - JPEG: ends with the EOI marker (FF D9), trailing zero or FF padding allowed;
/// - PNG: ends with the IEND chunk;
/// - TIFF-based RAW (DNG, NEF, CR2, ARW…): every IFD (chain, SubIFDs, EXIF) and every strip or tile lies
///   inside the file;
/// - CR3 and other ISO boxes: the top-level boxes end exactly at the end of the file;
/// - RAF: the JPEG, CFA header and CFA blocks its header points at lie inside the file.
///
/// Other formats cannot be judged and count as whole (only signature stability then protects them).
public enum FileCompleteness {
    public enum Verdict: Sendable, Equatable {
        case complete
        case incomplete(String)
        /// The format is not one this probe reads.
        case unknown

        /// Whether a watch may convert the file now.
        public var allowsConversion: Bool { if case .incomplete = self { return false }; return true }
    }

    /// The verdict of the file's codec (`ImageCodec.completeness`).
    public static func check(_ url: URL) -> Verdict {
        guard let file = FileBytes(url) else { return .incomplete("cannot be opened") }
        guard file.size > 0 else { return .incomplete("empty") }
        guard file.size >= 4 else { return .incomplete("shorter than any image header") }
        return CodecRegistry.decoder(for: file).completeness(file)
    }
}
