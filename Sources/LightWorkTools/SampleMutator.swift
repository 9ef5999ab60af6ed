import Foundation
import LightWork

/// `mutate-samples`: turns real sample files into hostile ones for the end-to-end robustness campaign
/// (Tests/LightWorkTests/HostileFilesTests.swift, `make fuzz`). Every output is one source file with one
/// mutation, reproducible from the seed: bit flips, truncation, a duplicated chunk or segment (PNG chunks,
/// JPEG marker segments, TIFF IFD entries, or a raw byte range), a huge declared size (PNG IHDR with a valid
/// CRC, JPEG SOF, TIFF ImageWidth/Length and StripByteCounts, a PNG chunk length), interesting byte values
/// and zeroed ranges. Output names say which mutation made them: `m0007-hugesize-scene.dng`.
enum SampleMutator {
    /// One kind of damage.
    enum Mutation: String, CaseIterable {
        case bitflip, truncate, duplicate, hugesize, interesting, zeroes
    }

    /// Writes `count` mutants of `sources` (round robin) into `folder`; returns their URLs.
    static func run(sources: [URL], count: Int, seed: UInt64, into folder: URL) throws -> [URL] {
        guard !sources.isEmpty else { throw LightWorkError.usage("mutate-samples: no source files") }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let originals = try sources.map { try [UInt8](Data(contentsOf: $0)) }
        var rng = SeededRandom(seed: seed)
        var written: [URL] = []
        let width = String(count).count
        for i in 0..<count {
            let s = i % sources.count
            let mutation = Mutation.allCases[Int(rng.next() % UInt64(Mutation.allCases.count))]
            let bytes = mutate(originals[s], mutation, &rng)
            let stem = sources[s].deletingPathExtension().lastPathComponent
            let n = String(repeating: "0", count: max(0, width - String(i).count)) + String(i)
            let url = folder.appendingPathComponent("m\(n)-\(mutation.rawValue)-\(stem).\(sources[s].pathExtension)")
            try Data(bytes).write(to: url)
            written.append(url)
        }
        return written
    }

    static func mutate(_ original: [UInt8], _ mutation: Mutation, _ rng: inout SeededRandom) -> [UInt8] {
        var b = original
        guard !b.isEmpty else { return b }
        func random(_ n: Int) -> Int { n <= 0 ? 0 : Int(rng.next() % UInt64(n)) }
        switch mutation {
        case .bitflip:
            // Mostly in the headers (where parsers decide sizes), some anywhere.
            for _ in 0..<(1 + random(32)) {
                let i = rng.next() & 1 == 0 ? random(min(b.count, 4096)) : random(b.count)
                b[i] ^= UInt8(1) << UInt8(random(8))
            }
        case .truncate:
            b = Array(b.prefix(random(b.count)))
        case .duplicate:
            let units = structure(b)
            if let unit = units.isEmpty ? nil : units[random(units.count)] {
                b.insert(contentsOf: b[unit], at: rng.next() & 1 == 0 ? unit.upperBound : unit.lowerBound)
            } else {
                let start = random(b.count), length = 1 + random(min(4096, b.count - start))
                b.insert(contentsOf: b[start..<(start + length)], at: random(b.count))
            }
        case .hugesize:
            hugeSize(&b, &rng)
        case .interesting:
            let values: [UInt8] = [0x00, 0xFF, 0x7F, 0x80, 0x01, 0xFE]
            for _ in 0..<(1 + random(16)) { b[random(min(b.count, 8192))] = values[random(values.count)] }
        case .zeroes:
            let start = random(b.count), length = 1 + random(min(65536, b.count - start))
            for i in start..<(start + length) { b[i] = 0 }
        }
        return b
    }

    /// Byte ranges of the file's units: PNG chunks, JPEG marker segments before the scan, TIFF IFD0 entries.
    static func structure(_ b: [UInt8]) -> [Range<Int>] {
        var out: [Range<Int>] = []
        if b.starts(with: [0x89, 0x50, 0x4E, 0x47]) {
            var i = 8
            while i + 12 <= b.count {
                let length = Int(be32(b, i))
                guard length <= b.count - i - 12 else { break }
                out.append(i..<(i + 12 + length))
                i += 12 + length
            }
        } else if b.starts(with: [0xFF, 0xD8]) {
            var i = 2
            while i + 4 <= b.count, b[i] == 0xFF, b[i + 1] != 0xDA {
                let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
                guard length >= 2, i + 2 + length <= b.count else { break }
                out.append(i..<(i + 2 + length))
                i += 2 + length
            }
        } else if let t = TIFFLayout(b) {
            for e in 0..<t.entryCount { out.append((t.ifd + 2 + 12 * e)..<(t.ifd + 14 + 12 * e)) }
        }
        return out
    }

    /// Declares an absurd size where the format keeps one.
    static func hugeSize(_ b: inout [UInt8], _ rng: inout SeededRandom) {
        let huge: [UInt32] = [0x7FFF_FFFF, 0xFFFF_FFFF, 0x0001_0000, 65_500, 0x4000_0000]
        let value = huge[Int(rng.next() % UInt64(huge.count))]
        if b.starts(with: [0x89, 0x50, 0x4E, 0x47]), b.count >= 33 {
            if rng.next() & 1 == 0 {
                // IHDR width or height, with the chunk's CRC recomputed so libpng reads the declared size.
                putBE32(&b, rng.next() & 1 == 0 ? 16 : 20, min(value, 0x7FFF_FFFF))
                putBE32(&b, 29, crc32(b[12..<29]))
            } else {
                // A chunk's length field.
                let chunks = structure(b)
                if let c = chunks.randomElement(using: &rng) { putBE32(&b, c.lowerBound, value) }
            }
        } else if b.starts(with: [0xFF, 0xD8]) {
            // The frame header's height and width (16 bits each).
            if let sof = structure(b).first(where: { (0xC0...0xC2).contains(b[$0.lowerBound + 1]) }), sof.count >= 9 {
                let v = UInt16(truncatingIfNeeded: max(value & 0xFFFF, 0xFFDC))
                for o in [5, 7] { b[sof.lowerBound + o] = UInt8(v >> 8); b[sof.lowerBound + o + 1] = UInt8(v & 0xFF) }
            }
        } else if let t = TIFFLayout(b) {
            // ImageWidth, ImageLength, StripByteCounts, or any entry's count.
            let sizeTags: Set<UInt16> = [256, 257, 279, 325]
            var touched = false
            for e in 0..<t.entryCount {
                let o = t.ifd + 2 + 12 * e
                if sizeTags.contains(t.u16(b, o)), rng.next() & 1 == 0 {
                    t.put32(&b, o + 8, value)
                    touched = true
                }
            }
            if !touched, t.entryCount > 0 { t.put32(&b, t.ifd + 2 + 12 * Int(rng.next() % UInt64(t.entryCount)) + 4, value) }
        } else if b.count >= 8 {
            putBE32(&b, Int(rng.next() % UInt64(b.count - 4)), value)
        }
    }

    /// IFD0 of a TIFF-structured file (DNG and most RAWs).
    struct TIFFLayout {
        let little: Bool
        let ifd: Int
        let entryCount: Int

        init?(_ b: [UInt8]) {
            guard b.count >= 8 else { return nil }
            if b[0] == 0x49, b[1] == 0x49 { little = true } else if b[0] == 0x4D, b[1] == 0x4D { little = false } else { return nil }
            let offset = little ? Int(b[4]) | Int(b[5]) << 8 | Int(b[6]) << 16 | Int(b[7]) << 24 : Int(be32(b, 4))
            guard offset >= 8, offset + 2 <= b.count else { return nil }
            let n = little ? Int(b[offset]) | Int(b[offset + 1]) << 8 : Int(b[offset]) << 8 | Int(b[offset + 1])
            ifd = offset
            entryCount = min(n, (b.count - offset - 2) / 12)
        }

        /// The 16-bit value at `o` in the file's byte order.
        func u16(_ b: [UInt8], _ o: Int) -> UInt16 {
            little ? UInt16(b[o]) | UInt16(b[o + 1]) << 8 : UInt16(b[o]) << 8 | UInt16(b[o + 1])
        }

        func put32(_ b: inout [UInt8], _ o: Int, _ v: UInt32) {
            guard o + 4 <= b.count else { return }
            for k in 0..<4 { b[o + k] = UInt8((v >> (little ? 8 * UInt32(k) : 8 * UInt32(3 - k))) & 0xFF) }
        }
    }

    static func be32(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
    }

    static func putBE32(_ b: inout [UInt8], _ i: Int, _ v: UInt32) {
        guard i >= 0, i + 4 <= b.count else { return }
        for k in 0..<4 { b[i + k] = UInt8((v >> (24 - 8 * UInt32(k))) & 0xFF) }
    }

    /// CRC-32 (PNG's, ISO 3309).
    static func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            c ^= UInt32(byte)
            for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        }
        return ~c
    }
}
