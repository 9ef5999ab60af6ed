/// What people wrote about a picture (credit, rights, caption, keywords, rating, colour label, place), as read from
/// an input's EXIF, IPTC-IIM and XMP and its XMP sidecar (`CarriedMetadata`) and written into every output: as XMP
/// (`EncodeSettings.xmpPacket`), IPTC-IIM where the format holds it (`EncodeSettings.iptc`) and EXIF Artist and
/// Copyright (`EXIFWriter`). Every field is optional; arrays are empty when unknown.
public struct DescriptiveMetadata: Sendable, Codable, Hashable {
    /// dc:creator (IIM By-line, EXIF Artist), in order.
    public var creators: [String] = []
    /// dc:rights (IIM CopyrightNotice, EXIF Copyright).
    public var rights: String?
    /// xmpRights:UsageTerms (XMP only).
    public var usageTerms: String?
    /// dc:description (IIM Caption/Abstract).
    public var caption: String?
    /// dc:subject (IIM Keywords), in order, without repeats.
    public var keywords: [String] = []
    /// xmp:Rating: -1 (rejected), 0 (unrated) … 5.
    public var rating: Int?
    /// xmp:Label, the colour label as the editor names it ("Red", "Blue", …).
    public var label: String?
    /// photoshop:City, photoshop:State, photoshop:Country and Iptc4xmpCore:Location (IIM City, Province/State,
    /// Country, Sub-location).
    public var city: String?
    public var state: String?
    public var country: String?
    public var sublocation: String?

    public init() {}

    public var isEmpty: Bool { self == DescriptiveMetadata() }

    /// The field names of lw_exiv2.h, with how each is read and set here.
    private static var textFields: [(name: String, path: WritableKeyPath<DescriptiveMetadata, String?>)] {
        [("rights", \.rights), ("usageTerms", \.usageTerms), ("description", \.caption), ("label", \.label),
         ("city", \.city), ("state", \.state), ("country", \.country), ("sublocation", \.sublocation)]
    }

    /// The fields exiv2 read from one source (`prefix` "xmp", "iptc" or "exif") of a field list.
    init(fields: [(key: String, value: String)], source prefix: String) {
        for (key, raw) in fields {
            guard key.hasPrefix(prefix + ".") else { continue }
            let name = String(key.dropFirst(prefix.count + 1))
            guard let value = Self.cleaned(raw) else { continue }
            switch name {
            case "creator": creators.append(value)
            case "subject": if !keywords.contains(value) { keywords.append(value) }
            case "rating":
                // XMP's Rating is a real in [-1, 5]; editors write whole stars.
                if let r = Double(value), r.isFinite, (-1...5).contains(r) { rating = Int(r.rounded()) }
            default:
                if let field = Self.textFields.first(where: { $0.name == name }) { self[keyPath: field.path] = value }
            }
        }
    }

    /// `raw` trimmed of surrounding whitespace and NULs; nil when nothing is left.
    public static func cleaned(_ raw: String?) -> String? {
        guard let s = raw?.replacingOccurrences(of: "\0", with: "").trimmingCharacters(in: .whitespacesAndNewlines), !s.isEmpty else { return nil }
        return s
    }

    /// This metadata with every field `other` states in place of this one's: an array is taken whole from the
    /// source that states it (a sidecar's keywords replace the embedded ones, they are not mixed).
    public func overlaid(by other: DescriptiveMetadata) -> DescriptiveMetadata {
        var m = self
        if !other.creators.isEmpty { m.creators = other.creators }
        if !other.keywords.isEmpty { m.keywords = other.keywords }
        if let r = other.rating { m.rating = r }
        for field in Self.textFields {
            if let v = other[keyPath: field.path] { m[keyPath: field.path] = v }
        }
        return m
    }

    /// The field list lw_exiv2.h writes from (unprefixed names, arrays one pair per element).
    var fieldList: [(key: String, value: String)] {
        var out: [(key: String, value: String)] = creators.map { ("creator", $0) }
        for field in Self.textFields { if let v = self[keyPath: field.path] { out.append((field.name, v)) } }
        out += keywords.map { ("subject", $0) }
        if let rating { out.append(("rating", String(rating))) }
        return out
    }
}
