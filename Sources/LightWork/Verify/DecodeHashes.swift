import Foundation

/// The decode-hash file (versioned JSON): one `DecodeFingerprint` per RAW input, and the library versions that
/// recorded them. `check` decodes every file again and reports each one whose decode changed.
///
/// ```json
/// {"version": 1, "recordedWith": {"libraw": "0.21.1-Release", "lightwork": "0.1.0"},
///  "files": [{"file": "../Samples/scene.dng", "size": 3146618, "fileSHA256": "…", "decoder": {…},
///             "decodedSize": "1536x1024", "rawSHA256": "…", "decodedSHA256": "…"}]}
/// ```
public struct DecodeHashes: Sendable, Codable, Equatable {
    public static let currentVersion = 1

    public var version: Int
    /// What recorded the hashes (LibRaw's version first: a new one is the usual reason for a change).
    public var recordedWith: [String: String]
    public var files: [DecodeFingerprint]

    public init(files: [DecodeFingerprint]) {
        version = Self.currentVersion
        recordedWith = ["libraw": RawDecoder.libraryVersion, "lightwork": LightWorkVersion.current]
        self.files = files
    }

    /// One file's outcome.
    public struct FileResult: Sendable, Codable, Equatable {
        public enum Status: String, Sendable, Codable { case passed, failed, skipped }
        public var file: String
        public var status: Status
        /// What changed (failed), or why it was skipped.
        public var messages: [String]
    }

    public static func load(from url: URL) throws -> DecodeHashes {
        let data: Data
        do { data = try Data(contentsOf: url) } catch { throw LightWorkError.missingInput(url.path) }
        let hashes: DecodeHashes
        do { hashes = try JSONDecoder().decode(DecodeHashes.self, from: data) } catch {
            throw LightWorkError.invalidDocument(file: url.path, path: VerifySuite.jsonPath(error), reason: VerifySuite.reason(error))
        }
        guard hashes.version == currentVersion else {
            throw LightWorkError.invalidDocument(file: url.path, path: "$.version", reason: "unsupported decode-hash version \(hashes.version) (this LightWork reads \(currentVersion))")
        }
        return hashes
    }

    /// Sorted keys and pretty printing, so a re-recorded file diffs cleanly in review.
    public func encoded() throws -> Data { try CanonicalJSON.encode(self) }

    /// A file path from the hash file's folder.
    static func resolve(_ file: String, from directory: URL) -> URL {
        file.hasPrefix("/") ? URL(fileURLWithPath: file) : directory.appendingPathComponent(file).standardizedFileURL
    }

    /// Decodes every listed file again (from `directory`, the hash file's folder) and compares. An optional file
    /// that is absent is skipped with a note; a required one that is absent fails.
    public func check(directory: URL) -> [FileResult] {
        files.map { recorded in
            let url = Self.resolve(recorded.file, from: directory)
            guard FileManager.default.fileExists(atPath: url.path) else {
                if recorded.optional == true {
                    return FileResult(file: recorded.file, status: .skipped, messages: ["not found at \(url.path) (optional sample absent on this machine)"])
                }
                return FileResult(file: recorded.file, status: .failed, messages: ["not found at \(url.path)"])
            }
            do {
                let now = try DecodeFingerprint.measure(url, name: recorded.file, optional: recorded.optional)
                let changes = recorded.differences(from: now)
                return FileResult(file: recorded.file, status: changes.isEmpty ? .passed : .failed, messages: changes)
            } catch {
                return FileResult(file: recorded.file, status: .failed, messages: ["cannot decode any more: \(error)"])
            }
        }
    }

    /// Records the same files again (what `--update` writes), keeping each one's `optional` flag; optional files
    /// absent here keep their old record.
    public func rerecorded(directory: URL) throws -> DecodeHashes {
        var out = DecodeHashes(files: [])
        for recorded in files {
            let url = Self.resolve(recorded.file, from: directory)
            if !FileManager.default.fileExists(atPath: url.path), recorded.optional == true {
                out.files.append(recorded)
                continue
            }
            out.files.append(try DecodeFingerprint.measure(url, name: recorded.file, optional: recorded.optional))
        }
        return out
    }
}
