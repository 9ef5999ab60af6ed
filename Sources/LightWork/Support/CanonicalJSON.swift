import Foundation

/// The one JSON form LightWork writes for its own documents (manifests, status, decode hashes): sorted keys,
/// pretty-printed, slashes unescaped, a final newline, so the same content is the same bytes and diffs cleanly.
public enum CanonicalJSON {
    public static func encode<T: Encodable>(_ value: T) throws -> Data {
        let e = JSONEncoder()
        e.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var data = try e.encode(value)
        data.append(0x0A)
        return data
    }
}
