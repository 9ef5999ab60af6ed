import Foundation

/// Removes the temporary files (`.<name>.lwtmp-<pid>-<n>`, see `AtomicFile`) that a killed run or a crashed
/// worker left beside outputs. Only temporaries of the given final names are touched, so shards of another
/// run writing into the same folder at the same time keep theirs.
public enum TemporaryFileSweeper {
    /// Removes temporaries of every file in `finals` (only those written by process `pid`, when given);
    /// returns how many were removed.
    @discardableResult
    public static func sweep(finals: [URL], pid: pid_t? = nil) -> Int {
        var byFolder: [String: Set<String>] = [:]
        for url in finals { byFolder[url.deletingLastPathComponent().path, default: []].insert(url.lastPathComponent) }
        var removed = 0
        for (folder, names) in byFolder {
            guard let entries = try? FileManager.default.contentsOfDirectory(atPath: folder) else { continue }
            for entry in entries where entry.hasPrefix(".") {
                guard let owner = finalName(ofTemporary: entry, pid: pid), names.contains(where: { matches(owner, $0, temporary: entry) }) else { continue }
                let path = folder + "/" + entry
                var st = stat()
                if lstat(path, &st) == 0, st.st_mode & S_IFMT == S_IFREG, unlink(path) == 0 { removed += 1 }
            }
        }
        return removed
    }

    /// Removes the temporaries of the outputs `outputs` (paths relative to `directory`) names; returns how many were
    /// removed. Only the folders are gathered first and the outputs are read once more for the temporaries found, so a
    /// 100,000-file plan costs no copy of its names.
    @discardableResult
    public static func sweep<Outputs: Sequence<String>>(outputs: Outputs, in directory: URL) -> Int {
        var folders = Set<Substring>()
        for output in outputs { folders.insert(output[..<(output.lastIndex(of: "/") ?? output.startIndex)]) }
        // The folders holding a temporary of any name: only their outputs are looked at again.
        var holding = Set<Substring>()
        for folder in folders {
            let dir = folder.isEmpty ? directory.path : directory.path + "/" + folder
            guard let entries = try? FileManager.default.contentsOfDirectory(atPath: dir) else { continue }
            if entries.contains(where: { $0.hasPrefix(".") && finalName(ofTemporary: $0, pid: nil) != nil }) { holding.insert(folder) }
        }
        guard !holding.isEmpty else { return 0 }
        let finals = outputs.lazy.filter { holding.contains($0[..<($0.lastIndex(of: "/") ?? $0.startIndex)]) }.map { directory.appendingPathComponent($0) }
        return sweep(finals: Array(finals))
    }

    /// The `<name>` part of `.<name>.lwtmp-<pid>-<n>`, nil for other files (or another process's when `pid` is given).
    static func finalName(ofTemporary entry: String, pid: pid_t?) -> String? {
        guard let marker = entry.range(of: ".lwtmp-", options: .backwards) else { return nil }
        let tail = entry[marker.upperBound...].split(separator: "-")
        guard tail.count == 2, let owner = Int32(tail[0]), UInt64(tail[1]) != nil else { return nil }
        if let pid, owner != pid { return nil }
        return String(entry[entry.index(after: entry.startIndex)..<marker.lowerBound])
    }

    /// AtomicFile shortens the name part when the whole would pass 255 bytes.
    private static func matches(_ stem: String, _ name: String, temporary: String) -> Bool {
        stem == name || (temporary.utf8.count >= 240 && !stem.isEmpty && name.hasPrefix(stem))
    }
}
