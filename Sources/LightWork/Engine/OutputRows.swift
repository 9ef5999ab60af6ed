import CShims
import Foundation

/// Output samples a writer reads top to bottom, a run of rows at a time: a finished `EncodedPixels`, or rows the
/// renderer makes as they are asked for (`RenderedRows`), so that a large output never has to exist whole.
public protocol OutputRows {
    var width: Int { get }
    var height: Int { get }
    /// 1 (grey), 2 (grey+alpha), 3 (RGB) or 4 (RGBA).
    var channels: Int { get }
    var depth: EncodedPixels.Depth { get }
    /// Calls `body` with rows `range` as interleaved samples (8-bit, or native-endian 16-bit), `range.count` rows
    /// of `width × channels` samples. Ranges come in order, each starting where the last ended; the pointer is only
    /// valid inside `body`.
    func withRows<R>(_ range: Range<Int>, _ body: (UnsafeRawPointer) throws -> R) throws -> R
}

extension OutputRows {
    public var hasAlpha: Bool { channels == 2 || channels == 4 }
    /// Bytes of one row of samples.
    public var rowBytes: Int { width * channels * (depth == .eight ? 1 : 2) }

    /// Throws `writeFailed` when the size or channel count cannot be written, or when the profile's colour space
    /// ('RGB ' or 'GRAY' in its header) does not match the channels.
    func validateShape(profile: Data?) throws {
        guard width > 0, height > 0 else { throw LightWorkError.writeFailed("image is empty (\(width)×\(height))") }
        guard (1...4).contains(channels) else { throw LightWorkError.writeFailed("\(channels) channels per pixel (1 to 4 are written)") }
        if let profile, profile.count >= 20 {
            let space = String(decoding: profile[profile.startIndex + 16..<profile.startIndex + 20], as: UTF8.self)
            let grey = channels <= 2
            if (grey && space == "RGB ") || (!grey && space == "GRAY") {
                throw LightWorkError.writeFailed("the ICC profile is for '\(space.trimmingCharacters(in: .whitespaces))' but the image is \(grey ? "grey" : "RGB")")
            }
        }
    }
}

extension EncodedPixels: OutputRows {
    public func withRows<R>(_ range: Range<Int>, _ body: (UnsafeRawPointer) throws -> R) throws -> R {
        let offset = range.lowerBound * rowBytes
        return try withRawBytes { try body($0.baseAddress! + offset) }
    }
}

/// Output rows made on demand: the renderer's chain and output transform run over just the rows a writer asks for,
/// into buffers reused for every run, with the bytes `Renderer.render` gives (filters depend on coordinates,
/// never on how rows are grouped). A 96 MP 16-bit output is then a few megabytes in flight instead of 576 MB.
///
/// While the writer works on one run (copying it into its file, waiting for the window before to be hashed and
/// written), the next run (the same number of rows after it: writers ask in order) is already being rendered into
/// a second buffer with scratch of its own; measured on one 24 MP TIFF, the cores otherwise sat idle a third of
/// the time the write took. A run asked for other than the one rendered ahead is rendered then; the bytes are the same.
public final class RenderedRows: OutputRows, @unchecked Sendable {
    public let width: Int, height: Int, channels: Int
    public let depth: EncodedPixels.Depth
    private let renderer: Renderer
    private let image: WorkingImage
    private let context: RenderContext
    private let output: OutputTransform
    /// One sweep per buffer: each has its own scratch, so the two can run at once.
    private let sweeps: [Renderer.Sweep]
    private var buffers: [UnsafeMutableRawPointer?] = [nil, nil]
    private var capacities = [0, 0]
    /// The run being rendered ahead, into which buffer, and when it is done.
    private var ahead: (rows: Range<Int>, slot: Int, done: DispatchGroup)?

    init(renderer: Renderer, image: WorkingImage, context: RenderContext, output spec: OutputSpec) {
        self.renderer = renderer
        self.image = image
        self.context = context
        output = OutputTransform(input: renderer.finalSpace(storage: image.space), space: spec.space, depth: spec.depth,
                                 hasAlpha: image.hasAlpha, keepAlpha: spec.keepAlpha, background: spec.background)
        (width, height, channels, depth) = (image.width, image.height, output.channels, output.depth)
        let sweep = renderer.prepare(image, context, keepsLastDomain: true)
        sweeps = [sweep, sweep.withOwnScratch()]
    }

    deinit {
        ahead?.done.wait()
        buffers.forEach { $0?.deallocate() }
    }

    public func withRows<R>(_ range: Range<Int>, _ body: (UnsafeRawPointer) throws -> R) throws -> R {
        precondition(range.lowerBound >= 0 && range.upperBound <= height)
        let slot: Int
        if let pending = ahead {
            pending.done.wait()
            ahead = nil
            slot = pending.slot
            if pending.rows != range { render(range, slot: slot) }
        } else {
            slot = 0
            render(range, slot: slot)
        }
        let next = range.upperBound..<min(height, range.upperBound + range.count)
        if !next.isEmpty {
            let done = DispatchGroup()
            let target = buffer(slot ^ 1, rows: next.count)
            ahead = (next, slot ^ 1, done)
            DispatchQueue.global().async(group: done) { self.render(next, into: target.value, sweep: self.sweeps[slot ^ 1]) }
        }
        return try body(UnsafeRawPointer(buffers[slot]!))
    }

    /// Buffer `slot`, large enough for `rows` rows (not in use by a render ahead when called).
    private func buffer(_ slot: Int, rows: Int) -> UncheckedSendable<UnsafeMutableRawPointer> {
        let bytes = rows * rowBytes
        if bytes > capacities[slot] {
            buffers[slot]?.deallocate()
            buffers[slot] = .allocate(byteCount: bytes, alignment: 64)
            capacities[slot] = bytes
        }
        return UncheckedSendable(buffers[slot]!)
    }

    private func render(_ range: Range<Int>, slot: Int) {
        render(range, into: buffer(slot, rows: range.count).value, sweep: sweeps[slot])
    }

    private func render(_ range: Range<Int>, into out: UnsafeMutableRawPointer, sweep: Renderer.Sweep) {
        let first = range.lowerBound, output = self.output
        if depth == .eight {
            let p = out.assumingMemoryBound(to: UInt8.self)
            renderer.sweep(sweep, image, context, rows: range) { output.encode($0, into: p, firstRow: first) }
        } else {
            let p = out.assumingMemoryBound(to: UInt16.self)
            renderer.sweep(sweep, image, context, rows: range) { output.encode($0, into: p, firstRow: first) }
        }
    }
}

extension Renderer {
    /// The chain and output transform over `image`, rendered as a writer asks for rows (`RenderedRows`).
    public func rows(_ image: WorkingImage, context: RenderContext, output: OutputSpec) -> RenderedRows {
        RenderedRows(renderer: self, image: image, context: context, output: output)
    }
}
