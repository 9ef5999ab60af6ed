import Foundation

/// An input file's bytes, read once into memory of their own: hashed, searched for metadata and decoded from the
/// same bytes, and given back (`release`) as soon as the decoder holds what it needs, before the image is built.
/// A 96 MP DNG is 192 MB that would otherwise sit beside the mosaic and the working image until the file is done.
///
/// The memory is an anonymous mapping, not the allocator's: unmapping it returns it to the system at once, where a
/// worker's allocator keeps freed memory in its heap (`WorkerLaunch.allocatorTunables`). Readers (the hash thread)
/// hold the bytes with `readAsync`; `release` does not wait for them (the decode goes on while the hash finishes):
/// the last of them to finish gives the memory back. After `release` the `data` view must not be touched by the
/// caller: once the memory is gone, a stray read faults loudly instead of seeing other bytes.
public final class InputBytes: @unchecked Sendable {
    /// The file's bytes, as Data (no copy); valid until `release`.
    public let data: Data
    private let base: UnsafeMutableRawPointer?
    private let mapped: Int
    private let lock = NSLock()
    private var released = false
    /// Readers started by `readAsync` and not yet done (under `lock`).
    private var readers = 0

    /// Reads the regular file at `url` whole, refusing what is not one.
    public init(contentsOf url: URL) throws {
        let fd = open(url.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { throw LightWorkError.missingInput(url.path) }
            throw LightWorkError.decodeFailed("cannot read the file: \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw LightWorkError.decodeFailed("cannot read the file: \(String(cString: strerror(errno)))") }
        guard st.st_mode & S_IFMT == S_IFREG else { throw LightWorkError.unsupportedFormat("not a regular file") }
        guard st.st_size > 0 else { throw LightWorkError.emptyFile }
        let size = Int(st.st_size)
        guard let p = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), p != MAP_FAILED else {
            throw LightWorkError.decodeFailed("cannot read the file: no memory for its \(size) bytes")
        }
        // In pieces read at once (each faults in and fills its own pages): on one thread a 48 MB file took ~30 ms
        // here, most of it the first touch of the fresh memory, while the other core waited.
        let piece = InputBytes.pieceBytes, pieces = (size + piece - 1) / piece
        let results = UnsafeMutableBufferPointer<Int>.allocate(capacity: pieces)
        defer { results.deallocate() }
        let target = UncheckedSendable(p), counts = UncheckedSendable(results)
        DispatchQueue.concurrentPerform(iterations: pieces) { k in
            counts.value[k] = InputBytes.read(fd, into: target.value, from: k * piece, to: min(size, (k + 1) * piece))
        }
        // The bytes are those before the first piece that came short (the file shrank while it was read: what is
        // there is what is decoded and hashed), or the first error.
        var done = 0
        for k in 0..<pieces {
            let n = results[k]
            if n < 0 {
                let reason = String(cString: strerror(Int32(-n)))
                munmap(p, size)
                throw LightWorkError.decodeFailed("cannot read the file: \(reason)")
            }
            done += n
            if n < min(size, (k + 1) * piece) - k * piece { break }
        }
        guard done > 0 else {
            munmap(p, size)
            throw LightWorkError.emptyFile
        }
        base = p
        mapped = size
        data = Data(bytesNoCopy: p, count: done, deallocator: .none)
    }

    deinit { if !released, let base { munmap(base, mapped) } }

    /// The size of the pieces a file is read in, at once.
    static let pieceBytes = 8 << 20

    /// Reads bytes `start..<end` of `fd` into `base + start`: how many it read before the end of the file, or −errno.
    private static func read(_ fd: Int32, into base: UnsafeMutableRawPointer, from start: Int, to end: Int) -> Int {
        var at = start
        while at < end {
            let n = pread(fd, base + at, end - at, off_t(at))
            if n < 0, errno == EINTR { continue }
            if n < 0 { return -Int(errno) }
            if n == 0 { break }
            at += n
        }
        return at - start
    }

    /// Runs `body` on another thread while holding the bytes: they stay mapped until it returns, even past a
    /// `release`. The hold is taken here, before this returns, so a `release` that follows cannot overtake it.
    public func readAsync(_ body: @escaping @Sendable (Data) -> Void) {
        lock.lock()
        precondition(!released, "the input's bytes were read after they were given back")
        readers += 1
        lock.unlock()
        let data = self.data
        DispatchQueue.global().async {
            body(data)
            self.lock.lock()
            self.readers -= 1
            let last = self.released && self.readers == 0
            self.lock.unlock()
            if last { self.unmap() }
        }
    }

    /// Gives the memory back now, or when the last reader finishes; no reader may start after. Idempotent.
    public func release() {
        lock.lock()
        let now = !released && readers == 0
        released = true
        lock.unlock()
        if now { unmap() }
    }

    private func unmap() {
        if let base { munmap(base, mapped) }
    }
}
