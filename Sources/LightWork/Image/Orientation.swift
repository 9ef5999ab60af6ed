/// EXIF orientation (1…8): how stored pixels must be turned to show the scene upright.
public enum Orientation: Int, Sendable, Codable, CaseIterable {
    case up = 1, upMirrored = 2, down = 3, downMirrored = 4
    case leftMirrored = 5, right = 6, rightMirrored = 7, left = 8

    /// LibRaw's `sizes.flip` as an EXIF orientation. The flip is dcraw's: to find the stored pixel of an upright
    /// one, bit 4 transposes, then bit 2 reverses the rows and bit 1 the columns; LibRaw reads only those bits.
    public init(libRawFlip flip: Int32) {
        self = Orientation.byLibRawFlip[Int(flip & 7)]
    }

    /// EXIF orientation of LibRaw flips 0…7 (LibRaw's own EXIF → flip table, inverted).
    static let byLibRawFlip: [Orientation] = [.up, .upMirrored, .downMirrored, .down, .leftMirrored, .left, .right, .rightMirrored]

    /// The orientation that turns the upright image back into the stored one: its `sourceCoordinate`, given stored
    /// (x, y) and the upright size, is the upright pixel that stored pixel becomes.
    public var inverse: Orientation { self == .right ? .left : self == .left ? .right : self }

    /// True when the upright image has width and height swapped relative to the stored one.
    public var swapsAxes: Bool { rawValue >= 5 }

    /// For upright pixel (x, y) of an upright image `w × h`, the stored pixel to read.
    /// `sw`, `sh` are the stored dimensions.
    @inline(__always)
    public func sourceCoordinate(x: Int, y: Int, storedWidth sw: Int, storedHeight sh: Int) -> (Int, Int) {
        switch self {
        case .up: return (x, y)
        case .upMirrored: return (sw - 1 - x, y)
        case .down: return (sw - 1 - x, sh - 1 - y)
        case .downMirrored: return (x, sh - 1 - y)
        case .leftMirrored: return (y, x)                     // transpose
        case .right: return (y, sh - 1 - x)                   // rotate 90 CW
        case .rightMirrored: return (sw - 1 - y, sh - 1 - x)  // transverse
        case .left: return (sw - 1 - y, x)                    // rotate 270 CW
        }
    }
}
