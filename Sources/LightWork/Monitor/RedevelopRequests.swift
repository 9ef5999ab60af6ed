import Foundation

/// A re-develop asked for from the monitor page: convert frame `frame`'s input again with `look` laid over the
/// watch's current look, as an extra output (`POST /api/redevelop`, `{"frame": N, "recipe"…, "film"…, "strength"…}`).
public struct RedevelopRequest: Codable, Sendable, Equatable {
    /// The file's number in the journal (a frame's `index`).
    public var frame: Int
    public var look: LookChange

    public init(frame: Int, look: LookChange) {
        self.frame = frame
        self.look = look
    }

    private enum CodingKeys: String, CodingKey { case frame }

    /// The look's fields sit beside `frame` in one object.
    public init(from decoder: Decoder) throws {
        frame = try decoder.container(keyedBy: CodingKeys.self).decode(Int.self, forKey: .frame)
        look = try LookChange(from: decoder)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(frame, forKey: .frame)
        try look.encode(to: encoder)
    }
}

/// Where the monitor's server threads leave re-develop requests for the watch loop. The watch publishes the frames
/// that may be re-developed (the latest `framesKept` files the journal finished: status, where the input is now, its
/// size), so a request is answered at once (202, or why not); the watch checks again, against the journal and the
/// input's SHA-256, when it takes the request. A byte on a pipe wakes the loop.
public final class RedevelopRequests: @unchecked Sendable {
    /// A finished file as a re-develop needs it.
    public struct Source: Sendable, Equatable {
        public var input: String
        public var status: Manifest.Status
        public var reason: String?
        /// Where the original is now: in the inbox, or where `--archive` moved it.
        public var location: String
        public var size: Int?
    }

    /// Why a request was not queued.
    public enum Refusal: Error, Equatable, Sendable {
        /// No such frame among those kept (404).
        case unknownFrame(String)
        /// The frame failed or was skipped: there is nothing developed to develop again (409).
        case notConverted(String)
        /// Its input is gone or changed (422).
        case inputGone(String)
        /// Too many re-develops wait already, or the request could not be handed over (503).
        case busy(String)
        /// No watch runs to take it (`lightwork serve` beside a stopped watch: 409).
        case notRunning(String)

        /// The sentence for the user.
        public var reason: String {
            switch self {
            case .unknownFrame(let why), .notConverted(let why), .inputGone(let why), .busy(let why), .notRunning(let why): why
            }
        }
    }

    /// Frames kept for re-developing, and requests that may wait at once.
    public static let framesKept = 200
    public static let queueLimit = 8

    private let state = LockedBox<(frames: [Int: Source], queue: [RedevelopRequest])>(([:], []))
    private let pipe = WakePipe()

    public init() {}

    /// Readable when a request waits.
    var wakeFD: Int32 { pipe.readFD }

    /// The watch's record of frame `seq` (nil forgets it); frames older than the latest `framesKept` are forgotten.
    func publish(_ seq: Int, _ source: Source?) {
        state.withLock { s in
            s.frames[seq] = source
            if s.frames.count > RedevelopRequests.framesKept, let oldest = s.frames.keys.min() { s.frames[oldest] = nil }
        }
    }

    /// Queues `request` (from any thread) when its frame is one converted whose input is still there at the size recorded.
    public func submit(_ request: RedevelopRequest) throws(Refusal) {
        let known = state.withLock { $0.frames[request.frame] }
        guard let source = known else {
            throw .unknownFrame("no frame \(request.frame) among the latest \(RedevelopRequests.framesKept) files the watch finished")
        }
        guard source.status == .converted else {
            throw .notConverted("frame \(request.frame) (\(source.input)) \(source.status.rawValue): \(source.reason ?? "nothing was developed")")
        }
        guard let now = FileSignature.of(source.location) else {
            throw .inputGone("the input of frame \(request.frame) is gone: no file at \(source.location)")
        }
        if let size = source.size, now.size != size {
            throw .inputGone("the input of frame \(request.frame) (\(source.location)) changed since it was converted (\(now.size) bytes, not \(size))")
        }
        let queued = state.withLock { s -> Bool in
            guard s.queue.count < RedevelopRequests.queueLimit else { return false }
            s.queue.append(request)
            return true
        }
        guard queued else { throw .busy("\(RedevelopRequests.queueLimit) re-develops wait already; try again once they are done") }
        pipe.wake()
    }

    /// The oldest request waiting, if any (empties the pipe).
    func take() -> RedevelopRequest? {
        pipe.drain()
        return state.withLock { s in s.queue.isEmpty ? nil : s.queue.removeFirst() }
    }

    /// Requests waiting.
    var waiting: Int { state.withLock { $0.queue.count } }

    /// Every request waiting, removed (the watch stops).
    func takeAll() -> [RedevelopRequest] {
        state.withLock { s in defer { s.queue.removeAll() }; return s.queue }
    }
}
