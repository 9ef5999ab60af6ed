extension EncodedPixels {
    /// Output samples written by `fill` instead of zero-filled first (the renderer writes every sample, and
    /// zeroing 24 MP of 16-bit RGB is a pass over 144 MB). `fill` receives the samples of `depth`.
    init(width: Int, height: Int, channels: Int, depth: Depth,
         fill8: (UnsafeMutablePointer<UInt8>) -> Void, fill16: (UnsafeMutablePointer<UInt16>) -> Void) {
        self.width = width
        self.height = height
        self.channels = channels
        self.depth = depth
        let n = width * height * channels
        switch depth {
        case .eight:
            samples8 = [UInt8](unsafeUninitializedCapacity: n) { buffer, count in
                fill8(buffer.baseAddress!)
                count = n
            }
            samples16 = []
        case .sixteen:
            samples16 = [UInt16](unsafeUninitializedCapacity: n) { buffer, count in
                fill16(buffer.baseAddress!)
                count = n
            }
            samples8 = []
        }
    }
}
