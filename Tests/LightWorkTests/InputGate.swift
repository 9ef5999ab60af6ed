import Foundation
import XCTest

/// Holds the `lightwork worker` that opens one input inside open(2) until `release()`, so that file is surely in
/// flight however fast it would convert: a test can then crash that worker, keep it past `--timeout`, or signal or
/// kill the batch around it, all from outside (nothing in the shipped binary knows about it). A fanotify permission
/// watch (FAN_OPEN_PERM) makes the kernel ask the test before every open of the file, with the opener's pid; a
/// thread answers: every process but a worker at once (the batch parent reads each input's header before it
/// dispatches it), the first worker only when released. fanotify needs CAP_SYS_ADMIN, which the tests have as root
/// (the cluster test needs root too); without it the gate throws and the test fails.
final class InputGate: @unchecked Sendable {
    let url: URL
    private let fanotify: Int32
    private let lock = NSLock()
    private var held: (pid: pid_t, fd: Int32)?
    private var released = false, closed = false
    private let arrived = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    // <linux/fanotify.h>; glibc's wrappers are looked up at run time (Swift's Glibc module does not import them).
    private static let classContent: UInt32 = 0x4, cloexec: UInt32 = 0x1, nonblock: UInt32 = 0x2
    private static let markAdd: UInt32 = 0x1, openPermission: UInt64 = 0x10000, allow: UInt32 = 0x1
    private typealias Init = @convention(c) (UInt32, UInt32) -> Int32
    private typealias Mark = @convention(c) (Int32, UInt32, UInt64, Int32, UnsafePointer<CChar>) -> Int32

    init(_ url: URL) throws {
        self.url = url
        let libc = dlopen(nil, RTLD_NOW)
        guard let i = dlsym(libc, "fanotify_init"), let m = dlsym(libc, "fanotify_mark") else {
            throw LightWorkTestError("this C library has no fanotify")
        }
        let fd = unsafeBitCast(i, to: Init.self)(Self.classContent | Self.cloexec | Self.nonblock, UInt32(O_RDONLY | O_CLOEXEC))
        guard fd >= 0 else { throw LightWorkTestError("fanotify_init: \(String(cString: strerror(errno))) (the gate needs CAP_SYS_ADMIN)") }
        guard unsafeBitCast(m, to: Mark.self)(fd, Self.markAdd, Self.openPermission, AT_FDCWD, url.path) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw LightWorkTestError("fanotify_mark \(url.path): \(reason)")
        }
        fanotify = fd
        // The thread keeps the gate alive until `release()`, which every test calls (in a `defer`).
        Thread { [self] in serve() }.start()
    }

    /// Waits until a worker opens the file and returns its pid (it then waits inside open(2)); nil after `seconds`.
    func heldWorker(seconds: Double) -> pid_t? {
        if let pid = lock.withLock({ held?.pid }) { return pid }
        guard arrived.wait(timeout: .now() + seconds) == .success else { return nil }
        arrived.signal()
        return lock.withLock { held?.pid }
    }

    /// Lets the held open (and every later one) through, then stops watching.
    func release() {
        let (alreadyClosed, pending) = lock.withLock { () -> (Bool, (pid: pid_t, fd: Int32)?) in
            defer { released = true; held = nil }
            return (closed, released ? nil : held)
        }
        if let pending { answer(pending.fd) }
        if !alreadyClosed {
            lock.withLock { closed = true }
            finished.wait()
            close(fanotify)
        }
    }

    /// Answers each open: a worker's first is held, every other allowed at once.
    private func serve() {
        defer { finished.signal() }
        let size = 4096
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
        defer { buffer.deallocate() }
        while !lock.withLock({ closed }) {
            var p = pollfd(fd: fanotify, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 20) > 0 else { continue }
            let n = read(fanotify, buffer, size)
            guard n > 0 else { continue }
            var offset = 0
            // struct fanotify_event_metadata: event_len u32, vers u8, reserved u8, metadata_len u16, mask u64, fd s32, pid s32.
            while offset + 24 <= n {
                let length = Int(buffer.load(fromByteOffset: offset, as: UInt32.self))
                let fd = buffer.load(fromByteOffset: offset + 16, as: Int32.self)
                let pid = buffer.load(fromByteOffset: offset + 20, as: Int32.self)
                offset += max(length, 24)
                guard fd >= 0 else { continue }
                let hold = lock.withLock { () -> Bool in
                    guard !released, held == nil, ProcessTree.isWorker(pid) else { return false }
                    held = (pid, fd)
                    return true
                }
                if hold { arrived.signal() } else { answer(fd) }
            }
        }
    }

    /// Allows the open that `fd` (an event's descriptor) stands for, and closes it.
    private func answer(_ fd: Int32) {
        var response = (fd, Self.allow)
        _ = withUnsafeBytes(of: &response) { write(fanotify, $0.baseAddress, 8) }
        close(fd)
    }

}

/// Processes as /proc shows them.
enum ProcessTree {
    /// The command line of `pid` (empty once it is gone).
    static func argv(_ pid: pid_t) -> [String] {
        (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline")))?.split(separator: 0).map { String(decoding: $0, as: UTF8.self) } ?? []
    }

    /// Whether `pid` runs `lightwork worker` (after its exec, not the fork before it).
    static func isWorker(_ pid: pid_t) -> Bool { argv(pid).dropFirst().first == "worker" }

    /// Every process below `root` (each thread's `children` list, read from /proc).
    static func descendants(of root: pid_t) -> [pid_t] {
        var found: [pid_t] = [], queue = [root]
        while let pid = queue.popLast() {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
            for task in tasks {
                let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)) ?? ""
                let children = text.split(separator: " ").compactMap { pid_t($0) }
                found += children
                queue += children
            }
        }
        return found
    }
}

/// A set-up failure of a test helper, with its reason.
struct LightWorkTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
