import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Moves an original out of the hot folder once it is handled (`--archive DIR`, `--failed DIR`), mirroring
/// its folder below the destination. Never deletes a file that is not safely elsewhere and never replaces
/// one: on the same file system a rename (atomic); across file systems a copy to a hidden temporary in the
/// destination, fsynced and renamed into place, and only then the original removed. A name already taken
/// by other content gets `-2`, `-3`…; one taken by the same content (a move a kill interrupted) is reused.
public enum OriginalMover {
    /// Moves `source` to `folder/relativePath` (or a free variant of it); returns where it went.
    @discardableResult
    public static func move(_ source: URL, to folder: URL, relativePath: String) throws -> URL {
        var destination = folder.appendingPathComponent(relativePath)
        try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        var n = 2
        while true {
            var st = stat()
            guard lstat(destination.path, &st) == 0 else { break }
            if st.st_mode & S_IFMT == S_IFREG, sameContent(source, destination) {
                guard unlink(source.path) == 0 || errno == ENOENT else { throw failure(errno, "remove", source.path) }
                return destination
            }
            let base = folder.appendingPathComponent(relativePath)
            let ext = base.pathExtension
            let stem = base.deletingPathExtension().lastPathComponent + "-\(n)"
            destination = base.deletingLastPathComponent().appendingPathComponent(ext.isEmpty ? stem : stem + "." + ext)
            n += 1
        }
        if rename(source.path, destination.path) == 0 { return destination }
        guard errno == EXDEV else { throw failure(errno, "move", source.path) }
        try copyDurably(source, to: destination)
        guard unlink(source.path) == 0 else { throw failure(errno, "remove (after copying it to \(destination.path))", source.path) }
        return destination
    }

    /// Writes `text` to `url` atomically (the `.error.txt` note beside a failed original).
    public static func writeNote(_ text: String, to url: URL) throws {
        try AtomicFile.write(data: Data(text.utf8), to: url)
    }

    private static func copyDurably(_ source: URL, to destination: URL) throws {
        let input = open(source.path, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw failure(errno, "read", source.path) }
        defer { close(input) }
        try AtomicFile.write(to: destination) { out in
            var buffer = [UInt8](repeating: 0, count: 1 << 20)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress!, $0.count) }
                if n < 0 && errno == EINTR { continue }
                guard n >= 0 else { throw failure(errno, "read", source.path) }
                if n == 0 { break }
                try buffer.withUnsafeBytes { try out.write(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            }
        }
    }

    private static func sameContent(_ a: URL, _ b: URL) -> Bool {
        guard let sa = FileSignature.of(a.path), let sb = FileSignature.of(b.path), sa.size == sb.size else { return false }
        return (try? SHA256.hex(fileAt: a)) == (try? SHA256.hex(fileAt: b))
    }

    private static func failure(_ code: Int32, _ action: String, _ path: String) -> WatchError {
        WatchError("cannot \(action) \(path): \(String(cString: strerror(code)))")
    }
}
