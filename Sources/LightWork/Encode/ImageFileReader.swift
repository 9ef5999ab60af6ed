import Foundation

/// Reads TIFF, JPEG and PNG files back into plain samples with their profile and EXIF: for tests, for
/// verifying outputs against references and for checking finished outputs when a batch resumes. The format is
/// found by content (`CodecRegistry.reader(for:)`) and read by its codec.
public enum ImageFileReader {
    /// Reads the whole image at `url`. Throws `missingInput`, `emptyFile`, `unsupportedFormat` or `decodeFailed`.
    public static func read(_ url: URL) throws -> ImageFile {
        let path = url.path
        guard FileManager.default.fileExists(atPath: path) else { throw LightWorkError.missingInput(path) }
        let data: Data
        do { data = try Data(contentsOf: url, options: .alwaysMapped) } catch {
            throw LightWorkError.decodeFailed("\(path): \(error.localizedDescription)")
        }
        guard !data.isEmpty else { throw LightWorkError.emptyFile }
        guard let codec = CodecRegistry.reader(for: data) else {
            let names = CodecRegistry.codecs.filter(\.readsBack).map { $0.name.uppercased() }
            throw LightWorkError.unsupportedFormat("\(path) is not \(names.dropLast().joined(separator: ", ")) or \(names.last ?? "")")
        }
        return try codec.readBack(data: data, path: path)
    }

    /// The format named by the first bytes, nil when no codec reads it back.
    public static func format(of data: Data) -> ImageFile.Format? {
        CodecRegistry.reader(for: data).map { ImageFile.Format(rawValue: $0.name) }
    }
}
