import CShims
import Foundation

/// The studio monitor's picture of a converted file: the rendered pixels (already in memory, in the output's colour
/// space) averaged down to at most `longEdge` pixels, written as an 8-bit JPEG with the output's ICC profile, and
/// beside it `NAME.json` with the capture facts the page shows. Never decoded from the output again.
public enum PreviewImage {
    /// The preview's longest side in pixels.
    public static let longEdge = 1280

    /// What the page shows under the picture; written by the worker beside the preview.
    public struct Facts: Codable, Sendable, Equatable {
        public var width: Int
        public var height: Int
        public var camera: String?
        public var lens: String?
        /// "1/125 s · f/8 · ISO 200 · 50 mm", the parts known.
        public var exposure: String?
        public var taken: String?
    }

    /// The "before" picture beside a preview (`NNNNNN-before.jpg`): the same file developed the same way, without
    /// the look (filters and film), so the page can show what the look did. Made only when there is a look.
    public static func beforeURL(for preview: URL) -> URL {
        preview.deletingLastPathComponent().appendingPathComponent(preview.deletingPathExtension().lastPathComponent + beforeSuffix + ".jpg")
    }
    /// What a before picture's name adds to its preview's stem.
    public static let beforeSuffix = "-before"

    /// The size a preview of a width × height render has (`reduce`'s whole-factor block means), so a before picture
    /// made another way lines up with it.
    public static func size(width: Int, height: Int) -> (width: Int, height: Int) {
        let k = factor(width, height, longEdge: longEdge)
        return (max(1, width / k), max(1, height / k))
    }

    /// The smallest whole factor that brings the long edge to `longEdge` or under.
    static func factor(_ width: Int, _ height: Int, longEdge: Int) -> Int { max(1, (max(width, height) + longEdge - 1) / longEdge) }

    /// Writes the before picture of `developed` (the working image the look would be applied to) for a render of
    /// `renderWidth` × `renderHeight`: resized to the preview's size in linear light (`Resize`), then converted to
    /// the output's space with no look (`Renderer` with an empty chain), as 8-bit with the output's profile.
    public static func writeBefore(_ developed: WorkingImage, renderWidth: Int, renderHeight: Int, output: OutputSpec,
                                   engine: EngineConfiguration, to url: URL) throws {
        let (w, h) = size(width: renderWidth, height: renderHeight)
        let small = Resize.apply(developed, width: w, height: h, engine: engine)
        let plain = OutputSpec(space: output.space, depth: .eight, keepAlpha: false, background: output.background)
        let pixels = Renderer(chain: [], engine: engine).render(small, context: RenderContext(width: w, height: h, seed: 0), output: plain)
        try write(pixels, space: output.space, metadata: nil, to: url)
    }

    /// Writes the preview JPEG (atomically) and, given `metadata`, its facts.
    public static func write(_ pixels: EncodedPixels, space: OutputColorSpace, metadata: ImageMetadata?, to url: URL) throws {
        let small = try reduce(pixels, longEdge: longEdge)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        var settings = EncodeSettings(format: .jpeg, jpegQuality: 82, jpegOptimizeCoding: false)
        settings.iccProfile = small.channels == 3 ? ICCProfile.embedded(for: space) : nil
        try small.validateForWriting(profile: settings.iccProfile)
        // Renamed into place whole, but not synced: a preview lost to a power cut costs nothing, an fsync per file
        // would cost the watch's rate.
        let temporary = url.deletingLastPathComponent().appendingPathComponent(AtomicFile.temporaryName(for: url.lastPathComponent)).path
        let fd = AtomicFile.openExclusive(temporary)
        guard fd >= 0 else { throw AtomicFile.failure(errno, path: url.path, action: "create") }
        do {
            try JPEGWriter().encode(small, settings: settings, to: AtomicFile.Output(fileDescriptor: fd, temporaryPath: temporary, finalPath: url.path))
        } catch {
            close(fd)
            unlink(temporary)
            throw error
        }
        close(fd)
        guard rename(temporary, url.path) == 0 else {
            let code = errno
            unlink(temporary)
            throw AtomicFile.failure(code, path: url.path, action: "rename")
        }
        guard let metadata else { return }
        let facts = Facts(width: small.width, height: small.height, camera: camera(metadata), lens: metadata.lens,
                          exposure: exposure(metadata), taken: metadata.dateTimeOriginal)
        try CanonicalJSON.encode(facts).write(to: factsURL(for: url), options: .atomic)
    }

    /// The facts file beside a preview.
    public static func factsURL(for preview: URL) -> URL { preview.deletingPathExtension().appendingPathExtension("json") }

    static func camera(_ m: ImageMetadata) -> String? {
        let make = m.make?.trimmingCharacters(in: .whitespaces) ?? ""
        let model = m.model?.trimmingCharacters(in: .whitespaces) ?? ""
        if make.isEmpty && model.isEmpty { return nil }
        // Many models repeat the make ("Canon EOS R5" after "Canon").
        if model.lowercased().hasPrefix(make.lowercased()) { return model }
        return [make, model].filter { !$0.isEmpty }.joined(separator: " ")
    }

    static func exposure(_ m: ImageMetadata) -> String? {
        var parts: [String] = []
        if let t = m.exposureTime, t > 0 {
            parts.append(t >= 1 ? String(format: "%g s", t) : "1/\(Int((1 / t).rounded())) s")
        }
        if let f = m.fNumber, f > 0 { parts.append(String(format: "f/%g", (f * 10).rounded() / 10)) }
        if let iso = m.iso, iso > 0 { parts.append("ISO \(Int(iso.rounded()))") }
        if let mm = m.focalLength, mm > 0 { parts.append("\(Int(mm.rounded())) mm") }
        return parts.isEmpty ? nil : parts.joined(separator: " · ")
    }

    /// `pixels` as 8-bit grey or RGB (alpha dropped), each output pixel the mean of a k×k block (k the smallest
    /// whole factor that brings the long edge to `longEdge` or under).
    static func reduce(_ pixels: EncodedPixels, longEdge: Int) throws -> EncodedPixels {
        let k = factor(pixels.width, pixels.height, longEdge: longEdge)
        let (w, h) = (max(1, pixels.width / k), max(1, pixels.height / k))
        let inChannels = pixels.channels
        let colour = inChannels >= 3
        let outChannels = colour ? 3 : 1
        // Already small, 8-bit and without alpha (a resized export): the render's own pixels, not a copy.
        if k == 1, pixels.depth == .eight, inChannels == outChannels { return pixels }
        var out = EncodedPixels(width: w, height: h, channels: outChannels, depth: .eight)
        // Integer sums, one division per sample (`lw_reduce.h`); 16-bit samples are brought to 8 bits at the end.
        let (rowStride, k32, w32, h32) = (pixels.width * inChannels, Int32(k), Int32(w), Int32(h))
        let (inC, outC) = (Int32(inChannels), Int32(outChannels))
        let done = out.samples8.withUnsafeMutableBufferPointer { dst in
            if pixels.depth == .eight {
                pixels.samples8.withUnsafeBufferPointer {
                    lw_block_mean_u8($0.baseAddress, rowStride, inC, outC, k32, w32, 0, h32, dst.baseAddress)
                }
            } else {
                pixels.samples16.withUnsafeBufferPointer {
                    lw_block_mean_u16($0.baseAddress, rowStride, inC, outC, k32, w32, 0, h32, dst.baseAddress)
                }
            }
        }
        // A preview of unwritten samples would be a black picture shown as this file's.
        guard done == 1 else { throw LightWorkError.writeFailed("no memory to reduce the preview") }
        return out
    }
}
