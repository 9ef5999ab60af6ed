import Foundation

/// Writes PNG files byte by byte for tests (stored, uncompressed deflate blocks), so every chunk, CRC and
/// header field can be chosen, including wrong ones.
struct PNGBuilder {
    var width: UInt32
    var height: UInt32
    var bitDepth: UInt8 = 8
    /// 0 grey, 2 RGB, 3 palette, 4 grey+alpha, 6 RGBA.
    var colourType: UInt8
    var interlaced = false
    /// Chunks written between IHDR and IDAT, in order.
    var before: [(String, [UInt8])] = []
    /// Chunks written between IDAT and IEND.
    var after: [(String, [UInt8])] = []

    /// Samples per pixel for the colour type.
    var channels: Int { [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][Int(colourType)]! }

    /// Bytes of one row of `w` pixels (bit-packed below 8 bits).
    func rowBytes(_ w: Int) -> Int { (w * channels * Int(bitDepth) + 7) / 8 }

    /// The file for `rows` (one packed row of `width` pixels each, big-endian 16-bit samples).
    func build(rows: [[UInt8]]) -> Data {
        var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var ihdr = PNGBuilder.be32(width) + PNGBuilder.be32(height)
        ihdr += [bitDepth, colourType, 0, 0, interlaced ? 1 : 0]
        out += PNGBuilder.chunk("IHDR", ihdr)
        for (t, d) in before { out += PNGBuilder.chunk(t, d) }
        out += PNGBuilder.chunk("IDAT", PNGBuilder.zlibStored(interlaced ? adam7(rows) : rows.flatMap { [0] + $0 }))
        for (t, d) in after { out += PNGBuilder.chunk(t, d) }
        out += PNGBuilder.chunk("IEND", [])
        return Data(out)
    }

    /// Adam7 passes for 8 and 16-bit images: each pass a sub-image whose rows start with filter byte 0.
    private func adam7(_ rows: [[UInt8]]) -> [UInt8] {
        let passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
        let bpp = channels * Int(bitDepth) / 8
        var out: [UInt8] = []
        for (x0, y0, dx, dy) in passes {
            guard x0 < Int(width), y0 < Int(height) else { continue }
            for y in stride(from: y0, to: Int(height), by: dy) {
                out.append(0)
                for x in stride(from: x0, to: Int(width), by: dx) { out += rows[y][(x * bpp)..<((x + 1) * bpp)] }
            }
        }
        return out
    }

    static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xff), UInt8(v >> 8 & 0xff), UInt8(v & 0xff)] }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let t = Array(type.utf8)
        return be32(UInt32(data.count)) + t + data + be32(crc32(t + data))
    }

    /// zlib stream of stored (uncompressed) deflate blocks.
    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var i = 0
        repeat {
            let n = min(65535, data.count - i)
            let last: UInt8 = i + n == data.count ? 1 : 0
            out += [last, UInt8(n & 0xff), UInt8(n >> 8), UInt8(~n & 0xff), UInt8((~n >> 8) & 0xff)]
            out += data[i..<(i + n)]
            i += n
        } while i < data.count
        var a: UInt32 = 1, b: UInt32 = 0
        for v in data { a = (a + UInt32(v)) % 65521; b = (b + a) % 65521 }
        return out + be32(b << 16 | a)
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for v in bytes {
            c ^= UInt32(v)
            for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        }
        return ~c
    }

    /// iCCP payload: name, NUL, compression method 0, zlib data.
    static func iCCP(_ profile: Data, name: String = "icc") -> [UInt8] { Array(name.utf8) + [0, 0] + zlibStored([UInt8](profile)) }
    /// gAMA payload for an encoding exponent such as 1/2.2.
    static func gAMA(_ gamma: Double) -> [UInt8] { be32(UInt32((gamma * 100_000).rounded())) }
    /// cHRM payload: white, red, green, blue xy.
    static func cHRM(_ xy: [Double]) -> [UInt8] { xy.flatMap { be32(UInt32(($0 * 100_000).rounded())) } }
}
