import Foundation

/// The `-o` folder, checked once before any input is touched: a path that names a file, a folder that cannot be
/// made or one this user cannot write into is one usage error (one line, exit 2), not one failure per input.
public enum OutputDirectory {
    /// Makes `url` (and missing parents) and checks it is a folder this process can create files in.
    public static func prepare(_ url: URL) throws {
        let path = url.standardizedFileURL.path
        var built = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            built += "/" + component
            if mkdir(built, 0o777) == 0 { continue }
            let err = errno
            var st = stat()
            guard stat(built, &st) == 0 else { throw refusal(path, "cannot create \(built): \(reason(err))") }
            guard st.st_mode & S_IFMT == S_IFDIR else {
                throw refusal(path, built == path ? "is a file, not a folder" : "\(built) is a file, not a folder")
            }
        }
        guard access(path, W_OK | X_OK) == 0 else { throw refusal(path, "the folder is not writable (\(reason(errno)))") }
    }

    private static func refusal(_ path: String, _ why: String) -> LightWorkError { .usage("-o \(path): \(why)") }
    private static func reason(_ err: Int32) -> String { String(cString: strerror(err)).lowercased() }
}
