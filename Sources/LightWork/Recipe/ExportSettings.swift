import Foundation

/// A recipe's optional `export` block: how outputs are written unless the command line says otherwise.
public struct ExportSettings: Sendable, Hashable, Codable {
    public enum Format: String, Sendable, Hashable, Codable, CaseIterable { case tiff, jpeg, png }
    /// Compression names a recipe may give (TIFF uses all; PNG and JPEG ignore those they lack).
    public static let compressions = ["none", "deflate", "lzw", "packbits"]

    public var format: Format?
    public var colorspace: OutputColorSpace?
    /// JPEG quality 1…100.
    public var quality: Int?
    public var compression: String?
    /// Bits per sample, 8 or 16.
    public var bitDepth: Int?

    public init(format: Format? = nil, colorspace: OutputColorSpace? = nil, quality: Int? = nil,
                compression: String? = nil, bitDepth: Int? = nil) {
        self.format = format
        self.colorspace = colorspace
        self.quality = quality
        self.compression = compression
        self.bitDepth = bitDepth
    }

    /// Reads and validates the block at `node` (errors carry `$.export.…`).
    static func parse(_ node: JSONNode) throws -> ExportSettings {
        let o = try node.object(allowing: ["format", "colorspace", "quality", "compression", "bitDepth"])
        var e = ExportSettings()
        if let n = o["format"] {
            let s = try n.string()
            guard let f = Format(rawValue: s.lowercased() == "jpg" ? "jpeg" : s.lowercased()) else {
                throw n.fail("unknown format \"\(s)\" (tiff, jpeg or png)")
            }
            e.format = f
        }
        if let n = o["colorspace"] {
            let s = try n.string()
            guard let c = OutputColorSpace(rawValue: s.lowercased()) else {
                throw n.fail("unknown colour space \"\(s)\" (\(OutputColorSpace.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            e.colorspace = c
        }
        if let n = o["quality"] {
            let q = try n.int()
            guard (1...100).contains(q) else { throw n.fail("quality \(q) outside 1…100") }
            e.quality = q
        }
        if let n = o["compression"] {
            let s = try n.string().lowercased()
            guard compressions.contains(s) else { throw n.fail("unknown compression \"\(s)\" (\(compressions.joined(separator: ", ")))") }
            e.compression = s
        }
        if let n = o["bitDepth"] {
            let d = try n.int()
            guard d == 8 || d == 16 else { throw n.fail("bitDepth is 8 or 16, found \(d)") }
            e.bitDepth = d
        }
        return e
    }
}
