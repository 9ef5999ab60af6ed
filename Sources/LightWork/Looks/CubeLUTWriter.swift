import Foundation

/// Writes a `LUT3D` as a `.cube` file that `CubeLUTReader` (and other tools) read back.
public enum CubeLUTWriter {
    /// The file's text: TITLE, LUT_3D_SIZE, DOMAIN_MIN/MAX, then the entries red fastest with 6 decimals.
    public static func string(_ lut: LUT3D) -> String {
        var out = "# Written by LightWork\n"
        if let title = lut.title { out += "TITLE \"\(title.replacingOccurrences(of: "\"", with: "'"))\"\n" }
        out += "LUT_3D_SIZE \(lut.size)\n"
        out += "DOMAIN_MIN \(fmt(lut.domainMin.x)) \(fmt(lut.domainMin.y)) \(fmt(lut.domainMin.z))\n"
        out += "DOMAIN_MAX \(fmt(lut.domainMax.x)) \(fmt(lut.domainMax.y)) \(fmt(lut.domainMax.z))\n"
        let t = lut.table
        out.reserveCapacity(out.utf8.count + t.count * 9)
        var i = 0
        while i < t.count {
            out += "\(fmt(t[i])) \(fmt(t[i + 1])) \(fmt(t[i + 2]))\n"
            i += 3
        }
        return out
    }

    /// Writes the file (replacing it atomically).
    public static func write(_ lut: LUT3D, to url: URL) throws {
        do { try Data(string(lut).utf8).write(to: url, options: .atomic) } catch {
            throw LightWorkError.writeFailed("\(url.path): \(error.localizedDescription)")
        }
    }

    private static func fmt(_ v: Float) -> String { String(format: "%.6f", Double(v)) }
}
