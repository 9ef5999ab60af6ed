/// EXIF orientation (1…8): how stored pixels must be turned to show the scene upright.
public enum Orientation: Int, Sendable, Codable, CaseIterable {
    case up = 1, upMirrored = 2, down = 3, downMirrored = 4
    case leftMirrored = 5, right = 6, rightMirrored = 7, left = 8

    /// LibRaw's `sizes.flip` (0, 3, 5, 6) as an EXIF orientation.
    public init(libRawFlip flip: Int32) {
        switch flip {
        case 3: self = .down
        case 5: self = .left        // LibRaw 5 = rotate 270 CW
        case 6: self = .right       // LibRaw 6 = rotate 90 CW
        default: self = .up
        }
    }

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
