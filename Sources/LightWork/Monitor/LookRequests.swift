import CShims
import Foundation

/// A look the studio asks for from the monitor page: the recipe (one of the catalog's, by name), the film (lookup
/// id, or nil for none) and its strength. It applies to files that start after the files in flight are done,
/// as a SIGHUP reload does.
public struct LookChange: Codable, Sendable, Equatable {
    /// A recipe name from `MonitorCatalog.recipes`; nil keeps the watch's own `--recipe`.
    public var recipe: String?
    /// A film lookup id from the catalog; "" for none; nil keeps the film in use.
    public var film: String?
    /// Percent 0…100; nil keeps the strength in use.
    public var strength: Double?

    public init(recipe: String? = nil, film: String? = nil, strength: Double? = nil) {
        self.recipe = recipe
        self.film = film
        self.strength = strength
    }

    /// `later` laid over this change: what it names replaces, what it leaves out stays (two partial changes
    /// made before the watch takes them are both kept).
    public mutating func overlay(_ later: LookChange) {
        recipe = later.recipe ?? recipe
        film = later.film ?? film
        strength = later.strength ?? strength
    }

    /// One line for the manifest's notes and the events.
    public var summary: String {
        var parts: [String] = []
        if let recipe { parts.append("recipe \(recipe)") }
        if let film { parts.append(film.isEmpty ? "no film" : "film \(film)") }
        if let strength { parts.append(String(format: "strength %g %%", strength)) }
        return parts.isEmpty ? "the watch's own look" : parts.joined(separator: ", ")
    }
}

/// Where the monitor's server threads leave look changes for the watch loop: each is laid over the one still waiting
/// (`LookChange.overlay`), and a byte on a pipe wakes the loop (its descriptor is one of the scheduler's wake descriptors).
public final class LookRequests: @unchecked Sendable {
    private let box = LockedBox<LookChange?>(nil)
    private let pipe = WakePipe()

    public init() {}

    /// Readable when a change waits.
    var wakeFD: Int32 { pipe.readFD }

    /// Called from any thread.
    public func submit(_ change: LookChange) {
        box.withLock { waiting in
            if waiting == nil { waiting = change } else { waiting!.overlay(change) }
        }
        pipe.wake()
    }

    /// The change waiting, if any (empties the pipe).
    func take() -> LookChange? {
        pipe.drain()
        return box.withLock { value in defer { value = nil }; return value }
    }
}

/// A non-blocking pipe by which a server thread wakes the watch loop: `wake` writes a byte, the loop polls `readFD`
/// (one of the scheduler's wake descriptors) and `drain`s it before it looks at what waits.
final class WakePipe: @unchecked Sendable {
    let readFD: Int32
    private let writeFD: Int32

    init() {
        var fds: [Int32] = [-1, -1]
        if lw_batch_pipe(&fds, O_CLOEXEC | O_NONBLOCK) != 0 { fds = [-1, -1] }
        readFD = fds[0]
        writeFD = fds[1]
    }

    deinit {
        if readFD >= 0 { close(readFD) }
        if writeFD >= 0 { close(writeFD) }
    }

    func wake() {
        var byte: UInt8 = 1
        _ = write(writeFD, &byte, 1)
    }

    func drain() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while readFD >= 0, read(readFD, &buffer, buffer.count) > 0 {}
    }
}
