import Foundation

/// The credit a conversion writes into every output (`--artist`, `--copyright`, `--keywords`, or a recipe's
/// `metadata` section): part of the spec, since it changes the output bytes. What each does to the fields carried
/// from the input and its sidecar is `applied(to:)`'s.
public struct MetadataOverrides: Codable, Sendable, Hashable {
    /// Replaces the carried creators (dc:creator, IIM By-line, EXIF Artist) with this one.
    public var artist: String?
    /// Replaces the carried rights statement (dc:rights, IIM CopyrightNotice, EXIF Copyright).
    public var copyright: String?
    /// Added after the carried keywords (dc:subject, IIM Keywords), those already there not repeated.
    public var keywords: [String]?

    public init(artist: String? = nil, copyright: String? = nil, keywords: [String]? = nil) {
        self.artist = artist
        self.copyright = copyright
        self.keywords = keywords
    }

    /// Nothing set: the spec records no `metadata` (and keeps the digest conversions without it always had).
    public var isEmpty: Bool { artist == nil && copyright == nil && (keywords ?? []).isEmpty }

    /// `carried` with this credit applied: artist and copyright replace, keywords add.
    public func applied(to carried: DescriptiveMetadata) -> DescriptiveMetadata {
        var m = carried
        if let artist { m.creators = [artist] }
        if let copyright { m.rights = copyright }
        for k in keywords ?? [] where !m.keywords.contains(k) { m.keywords.append(k) }
        return m
    }

    /// This block with `other`'s fields where it sets them (the command line's over the recipe's).
    public func overlaid(by other: MetadataOverrides) -> MetadataOverrides {
        MetadataOverrides(artist: other.artist ?? artist, copyright: other.copyright ?? copyright, keywords: other.keywords ?? keywords)
    }

    /// Comma-separated keywords as `--keywords` and a recipe's string form take them: each trimmed, empty ones and
    /// repeats dropped.
    public static func keywords(_ list: String) -> [String] {
        var out: [String] = []
        for part in list.split(separator: ",") {
            let k = part.trimmingCharacters(in: .whitespacesAndNewlines)
            if !k.isEmpty && !out.contains(k) { out.append(k) }
        }
        return out
    }
}
