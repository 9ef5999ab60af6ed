import Foundation

/// Makes outside strings (file stems, film and camera names, recipe names) safe inside an output file name,
/// on Linux and on the macOS/Windows disks outputs are often copied to.
public enum FileNameSafety {
    /// Characters no output name may contain: the path separator, NUL, and what Windows and SMB shares refuse.
    static let forbidden: Set<Character> = ["/", "\\", ":", "*", "?", "\"", "<", ">", "|", "\0"]

    /// `s` with forbidden and control characters replaced by `_`; case, spaces and letters of any script kept
    /// (a file's own stem is the photographer's name for it).
    public static func sanitized(_ s: String) -> String {
        String(s.map { c -> Character in
            if forbidden.contains(c) { return "_" }
            if c.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) { return "_" }
            return c
        })
    }

    /// A lowercase ASCII slug: accents folded ("Präzisa" → "prazisa"), every run of other characters one `-`,
    /// no `-` at either end. `fallback` when nothing is left.
    public static func slug(_ s: String, fallback: String) -> String {
        let folded = s.folding(options: [.diacriticInsensitive, .caseInsensitive, .widthInsensitive], locale: Locale(identifier: "en_US_POSIX"))
        var out = ""
        var pendingDash = false
        for u in folded.unicodeScalars {
            if u.isASCII, CharacterSet.alphanumerics.contains(u) {
                if pendingDash && !out.isEmpty { out.append("-") }
                pendingDash = false
                out.unicodeScalars.append(u)
            } else {
                pendingDash = true
            }
        }
        return out.isEmpty ? fallback : out.lowercased()
    }

    /// The camera as one slug: the make's first word (makers write "NIKON CORPORATION", "OLYMPUS IMAGING
    /// CORP.") and the model, without repeating the make when the model starts with it ("Canon" + "Canon EOS R5"
    /// → "canon-eos-r5", "NIKON CORPORATION" + "NIKON D850" → "nikon-d850", "SONY" + "ILCE-7M3" → "sony-ilce-7m3").
    public static func cameraSlug(make: String?, model: String?, fallback: String) -> String {
        let model = model?.trimmingCharacters(in: .whitespaces) ?? ""
        let firstWord = make?.split(whereSeparator: { $0 == " " || $0 == "," }).first.map(String.init) ?? ""
        let joined = !firstWord.isEmpty && model.lowercased().hasPrefix(firstWord.lowercased()) ? model : firstWord + " " + model
        return slug(joined, fallback: fallback)
    }

    /// Why `name` cannot be a file name (empty, `.`, `..`, longer than 255 bytes), or nil when it can.
    public static func problem(with name: String) -> String? {
        if name.isEmpty { return "the output name is empty" }
        if name == "." || name == ".." { return "the output name '\(name)' is not a file name" }
        if name.contains("/") { return "the output name '\(name)' contains '/'" }
        if name.utf8.count > 255 { return "the output name is longer than 255 bytes" }
        return nil
    }
}
