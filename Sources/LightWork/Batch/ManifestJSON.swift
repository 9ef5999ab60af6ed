import Foundation

/// Writes a manifest's JSON with its entries streamed one at a time: the bytes `Manifest.encoded()` would give,
/// without the whole document in memory at once. A 100,000-entry manifest is 110 MB of JSON, and encoding it in
/// one piece held several times that in Foundation's encoder: the run's peak memory grew with the batch.
///
/// Canonical JSON is pretty-printed with sorted keys, so the document is the header (the manifest without entries)
/// with each entry, encoded alone, indented two levels into the `entries` array.
public enum ManifestJSON {
    /// Writes `header` with the entries `entries` yields (in order, through the closure it is given) to `output`.
    /// `header.entries` is ignored; its summary is written as it is (the caller counts what it streams).
    public static func write(header: Manifest, to output: AtomicFile.Output,
                             entries: (_ emit: (Manifest.Entry) throws -> Void) throws -> Void) throws {
        var head = header
        head.entries = []
        let text = try head.encoded()
        // The empty array as the encoder writes it, at the top level (two spaces in; no other key is at that depth):
        // `[`, a newline, a blank line, two spaces, `]`.
        let marker = Data("\n  \"entries\" : [\n\n  ]".utf8)
        guard let range = text.range(of: marker) else { throw LightWorkError.writeFailed("manifest: unexpected JSON layout") }
        let afterOpen = range.upperBound - 4      // just after "[" and its newline
        let closing = range.upperBound - 3        // the two spaces before "]"
        var buffer = Data()
        buffer.reserveCapacity(1 << 20)
        buffer.append(text[text.startIndex..<afterOpen])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var count = 0
        try entries { entry in
            if count > 0 { buffer.append(contentsOf: Array(",\n".utf8)) }
            count += 1
            append(indented: try encoder.encode(entry), to: &buffer)
            if buffer.count >= 1 << 20 {
                try output.write(buffer)
                buffer.removeAll(keepingCapacity: true)
            }
        }
        if count == 0 {
            buffer.append(text[afterOpen..<text.endIndex])     // the blank line and "  ]": the empty array as encoded
        } else {
            buffer.append(0x0A)
            buffer.append(text[closing..<text.endIndex])
        }
        try output.write(buffer)
    }

    /// `json` (a pretty-printed entry) with four spaces before every line that is not empty, lines joined by
    /// newlines (none after the last).
    private static func append(indented json: Data, to buffer: inout Data) {
        json.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            var lineStart = 0
            for i in 0...bytes.count {
                guard i == bytes.count || bytes[i] == 0x0A else { continue }
                if lineStart > 0 { buffer.append(0x0A) }
                if i > lineStart { buffer.append(contentsOf: [0x20, 0x20, 0x20, 0x20]) }
                buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[lineStart..<i]))
                lineStart = i + 1
            }
        }
    }
}
