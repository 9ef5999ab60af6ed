import Foundation

/// An input's XMP sidecar: `IMG_1.CR2.xmp` (darktable's style: it names the very file) or `IMG_1.xmp` (Lightroom's and
/// Capture One's: it names the stem, and a RAW+JPEG pair shares it). When both exist the full name wins and the other
/// is not read (a note says so): two editors' sidecars are never mixed. Extensions match `.xmp` and `.XMP`.
public enum XMPSidecar {
    /// Sidecars above this size are refused (darktable's, with long histories, stay well below 1 MiB).
    public static let maxBytes = 16 << 20

    /// The sidecar names for `input`, in precedence order.
    public static func candidates(for input: URL) -> [URL] {
        let folder = input.deletingLastPathComponent()
        let name = input.lastPathComponent, stem = input.deletingPathExtension().lastPathComponent
        return [name + ".xmp", name + ".XMP", stem + ".xmp", stem + ".XMP"].map { folder.appendingPathComponent($0) }
    }

    /// The sidecar `input` uses (nil: none), and those present but not read because it wins.
    public static func find(for input: URL) -> (used: URL?, ignored: [URL]) {
        var seen = Set<String>()
        let present = candidates(for: input).filter { url in
            var st = stat()
            // A case-insensitive file system answers for both spellings: count each file once (by inode).
            guard stat(url.path, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return false }
            return seen.insert("\(st.st_dev):\(st.st_ino)").inserted
        }
        return (present.first, Array(present.dropFirst()))
    }

    /// The descriptive fields of the sidecar at `url`. Throws `invalidDocument` naming it when it cannot be read, is
    /// too large or is not well-formed XMP.
    public static func read(_ url: URL) throws -> DescriptiveMetadata {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw LightWorkError.invalidDocument(file: url.path, path: "$", reason: "cannot read the XMP sidecar: \(FileConverter.describe(error))")
        }
        guard data.count <= maxBytes else {
            throw LightWorkError.invalidDocument(file: url.path, path: "$", reason: "XMP sidecar larger than \(maxBytes >> 20) MiB")
        }
        return try Exiv2Metadata.xmp(data, file: url.path)
    }
}

/// The descriptive metadata one output carries, and where it came from. Precedence, lowest first:
/// 1. the input's embedded EXIF Artist/Copyright/Rating, IPTC-IIM and XMP (XMP over IIM over EXIF, field by field);
/// 2. its XMP sidecar (`XMPSidecar`), field by field: what the sidecar states replaces the embedded value, what it does
///    not state keeps it (Lightroom and darktable keep a RAW's edits in the sidecar, never in the RAW);
/// 3. the spec's `MetadataOverrides` (`--artist`/`--copyright` replace, `--keywords` add).
///
/// A malformed sidecar fails its input (`invalidDocument`, naming the sidecar): converting without it would drop the
/// credit and rating it holds while reporting success. Embedded metadata exiv2 cannot read is a note, not a failure:
/// the picture decoded, and it is the file's own damage (the note says nothing was carried from it).
public struct CarriedMetadata: Sendable, Equatable {
    public var descriptive: DescriptiveMetadata
    /// The sidecar's file name, when one was read (the manifest's `input.decisions.sidecar`).
    public var sidecar: String?
    public var notes: [String]

    /// Reads `input`'s embedded metadata from `data` (its bytes) and its sidecar, and applies `overrides`.
    public static func resolve(input: URL, data: Data, overrides: MetadataOverrides?) throws -> CarriedMetadata {
        var notes: [String] = []
        var descriptive = DescriptiveMetadata()
        do {
            descriptive = try Exiv2Metadata.embedded(in: data)?.merged ?? DescriptiveMetadata()
        } catch let error as LightWorkError {
            notes.append("embedded XMP/IPTC/EXIF credit not read (\(error.description)); none carried from the file itself")
        }
        let (used, ignored) = XMPSidecar.find(for: input)
        if let used {
            descriptive = descriptive.overlaid(by: try XMPSidecar.read(used))
            for other in ignored {
                notes.append("XMP sidecar \(other.lastPathComponent) not read: \(used.lastPathComponent) takes precedence")
            }
        }
        if let overrides { descriptive = overrides.applied(to: descriptive) }
        return CarriedMetadata(descriptive: descriptive, sidecar: used?.lastPathComponent, notes: notes)
    }
}
