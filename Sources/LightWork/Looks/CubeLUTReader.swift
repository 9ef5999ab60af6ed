import Foundation

/// Reads Adobe/Resolve `.cube` 3D LUTs: `TITLE`, `LUT_3D_SIZE` 2–256, `DOMAIN_MIN`/`DOMAIN_MAX` (or Resolve's
/// `LUT_3D_INPUT_RANGE`), `#` comments and blank lines, then N³ lines of three numbers, red fastest.
///
/// Strict on structure (every error names its line); tolerant of output values outside 0…1 (film looks may
/// overshoot). 1D LUTs and 1D+3D (shaper) files are refused with a message that says so.
public enum CubeLUTReader {
    public static func read(url: URL) throws -> LUT3D {
        let data: Data
        do { data = try Data(contentsOf: url) } catch { throw LightWorkError.missingInput(url.path) }
        return try parse(data, file: url.path)
    }

    /// Parses the file's bytes; `file` names it in errors (`path` is `line N`).
    public static func parse(_ data: Data, file: String) throws -> LUT3D {
        guard let text = String(data: data, encoding: .utf8) ?? String(data: data, encoding: .isoLatin1) else {
            throw LightWorkError.invalidDocument(file: file, path: "line 1", reason: "not a text file")
        }
        func fail(_ line: Int, _ reason: String) -> LightWorkError {
            .invalidDocument(file: file, path: "line \(line)", reason: reason)
        }
        var title: String?
        var size: Int?
        var sizeLine = 0
        var domainMin = SIMD3<Float>(0, 0, 0), domainMax = SIMD3<Float>(1, 1, 1)
        var table: [Float] = []
        var expected = 0
        var lineNumber = 0
        var lastLine = 0

        // Split on bytes: as Characters, "\r\n" is one grapheme and would not match "\n".
        for rawBytes in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            var line = Substring(rawBytes)
            if let hash = line.firstIndex(of: "#") { line = line[..<hash] }
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
            guard let first = fields.first else { continue }
            lastLine = lineNumber

            if let c = first.utf8.first, c == UInt8(ascii: "-") || c == UInt8(ascii: "+") || c == UInt8(ascii: ".")
                || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) {
                // A data line.
                guard let n = size else {
                    throw fail(lineNumber, "data before LUT_3D_SIZE (a 3D .cube declares its size first)")
                }
                if expected == 0 { expected = 3 * n * n * n; table.reserveCapacity(expected) }
                guard fields.count == 3 else {
                    throw fail(lineNumber, "expected three numbers (R G B), found \(fields.count) fields")
                }
                guard table.count < expected else {
                    throw fail(lineNumber, "more than the \(n)³ = \(n * n * n) entries LUT_3D_SIZE \(n) declares")
                }
                for f in fields {
                    guard let v = Float(f), v.isFinite else { throw fail(lineNumber, "\"\(f)\" is not a number") }
                    table.append(v)
                }
                continue
            }

            // A keyword line: only before the data.
            guard table.isEmpty else {
                throw fail(lineNumber, "keyword \(first) after the table data (keywords come first)")
            }
            func numbers(_ count: Int) throws -> [Float] {
                guard fields.count == count + 1 else {
                    throw fail(lineNumber, "\(first) takes \(count) number\(count == 1 ? "" : "s"), found \(fields.count - 1)")
                }
                return try fields.dropFirst().map { f in
                    guard let v = Float(f), v.isFinite else { throw fail(lineNumber, "\"\(f)\" is not a number") }
                    return v
                }
            }
            switch first {
            case "TITLE":
                let rest = line.drop(while: { $0 == " " || $0 == "\t" }).dropFirst("TITLE".count)
                    .trimmingCharacters(in: .whitespacesAndNewlines)
                title = rest.count >= 2 && rest.hasPrefix("\"") && rest.hasSuffix("\"") ? String(rest.dropFirst().dropLast()) : rest
            case "LUT_3D_SIZE":
                guard size == nil else { throw fail(lineNumber, "LUT_3D_SIZE given twice (first on line \(sizeLine))") }
                guard fields.count == 2, let n = Int(fields[1]) else {
                    throw fail(lineNumber, "LUT_3D_SIZE takes one whole number")
                }
                guard LUT3D.sizeRange.contains(n) else { throw fail(lineNumber, "LUT_3D_SIZE \(n) outside 2…256") }
                size = n
                sizeLine = lineNumber
            case "LUT_1D_SIZE":
                throw fail(lineNumber, "this is a 1D LUT (LUT_1D_SIZE); LightWork applies 3D LUTs only — convert it to a 3D .cube")
            case "LUT_1D_INPUT_RANGE":
                throw fail(lineNumber, "1D shaper sections (LUT_1D_INPUT_RANGE) are not supported; use a plain 3D .cube")
            case "DOMAIN_MIN":
                let v = try numbers(3); domainMin = SIMD3(v[0], v[1], v[2])
            case "DOMAIN_MAX":
                let v = try numbers(3); domainMax = SIMD3(v[0], v[1], v[2])
            case "LUT_3D_INPUT_RANGE":
                let v = try numbers(2)
                domainMin = SIMD3(repeating: v[0]); domainMax = SIMD3(repeating: v[1])
            default:
                throw fail(lineNumber, "unknown keyword \"\(first)\" (expected TITLE, LUT_3D_SIZE, DOMAIN_MIN, DOMAIN_MAX or data)")
            }
        }

        guard let n = size else {
            throw fail(max(lastLine, 1), "no LUT_3D_SIZE: not a 3D .cube file")
        }
        guard table.count == 3 * n * n * n else {
            throw fail(max(lastLine, sizeLine), "the table ends after \(table.count / 3) entries; LUT_3D_SIZE \(n) needs \(n * n * n)")
        }
        for c in 0..<3 where !(domainMax[c] > domainMin[c]) {
            throw fail(sizeLine, "DOMAIN_MAX must exceed DOMAIN_MIN on every channel (got \(domainMin) … \(domainMax))")
        }
        return try LUT3D(size: n, table: table, domainMin: domainMin, domainMax: domainMax, title: title)
    }
}
