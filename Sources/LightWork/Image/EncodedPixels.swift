/// Output-ready pixels: interleaved integer samples in the output colour space, what writers consume.
public struct EncodedPixels: Sendable {
    public enum Depth: Int, Sendable, Codable { case eight = 8, sixteen = 16 }

    public let width: Int
    public let height: Int
    /// 1 (grey), 2 (grey+alpha), 3 (RGB) or 4 (RGBA).
    public let channels: Int
    public let depth: Depth
    /// Samples for `.eight` (`width * height * channels`), empty otherwise.
    public var samples8: [UInt8]
    /// Samples for `.sixteen` (native endianness), empty otherwise.
    public var samples16: [UInt16]

    public init(width: Int, height: Int, channels: Int, depth: Depth) {
        self.width = width
        self.height = height
        self.channels = channels
        self.depth = depth
        let n = width * height * channels
        samples8 = depth == .eight ? [UInt8](repeating: 0, count: n) : []
        samples16 = depth == .sixteen ? [UInt16](repeating: 0, count: n) : []
    }

    public var hasAlpha: Bool { channels == 2 || channels == 4 }
    public var samplesPerRow: Int { width * channels }
}
