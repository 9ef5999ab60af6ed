import Foundation
import LightWork

/// A lossless JPEG encoder (ITU T.81 process 14: SOF3, Huffman coding, predictors 1–7, point transform), the
/// compression DNG writers use for raw data (DNG Compression 7). A CFA tile is coded as DNG writers do: by default
/// two components, each sample the even and odd pixel of a row, so the JPEG frame is half the tile's width; with
/// one component the frame is the tile.
///
/// One Huffman table (built from the data's difference categories, T.81 Annex K.2) serves every component.
struct LosslessJPEG {
    /// Code length of each difference category 0…16 (0: the category does not occur).
    let lengths: [Int]
    /// Code of each category, the low `lengths[c]` bits.
    let codes: [UInt32]
    let precision: Int
    /// How the samples are coded (the defaults are what Adobe's DNG writers use).
    struct Coding: Equatable {
        /// T.81 predictor selection value 1…7.
        var predictor = 1
        /// Components per frame line: 2 (a CFA row as interleaved pairs) or 1.
        var components = 2
        /// Point transform Pt: the low bits dropped before coding (samples are stored as value >> Pt).
        var pointTransform = 0
    }
    let coding: Coding

    /// A table fitted to the samples of every tile that will be coded with it.
    init(fittedTo tiles: [[UInt16]], width: Int, precision: Int = 16, coding: Coding = Coding()) {
        self.coding = coding
        var counts = [Int](repeating: 0, count: 17)
        for tile in tiles { Self.forEachDifference(tile, width: width, precision: precision, coding: coding) { counts[Self.category($0)] += 1 } }
        lengths = Self.codeLengths(counts)
        var codes = [UInt32](repeating: 0, count: 17)
        // Canonical codes: shortest first, symbols in order within a length.
        var code: UInt32 = 0
        for length in 1...16 {
            for c in 0..<17 where lengths[c] == length { codes[c] = code; code += 1 }
            code <<= 1
        }
        self.codes = codes
        self.precision = precision
    }

    /// The JPEG stream (SOI … EOI) of one tile of `width` × `height` CFA samples (`width` even).
    func encode(_ samples: [UInt16], width: Int, height: Int) -> [UInt8] {
        var out: [UInt8] = [0xFF, 0xD8]
        func segment(_ marker: UInt8, _ body: [UInt8]) {
            out += [0xFF, marker, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 0xFF)] + body
        }
        let nc = coding.components, columns = width / nc
        // DHT: class 0 (DC / lossless), table 0: counts per length 1…16, then the symbols by length.
        var dht: [UInt8] = [0x00]
        for length in 1...16 { dht.append(UInt8((0..<17).filter { lengths[$0] == length }.count)) }
        for length in 1...16 { for c in 0..<17 where lengths[c] == length { dht.append(UInt8(c)) } }
        segment(0xC4, dht)
        // SOF3: precision, lines, samples per line, the components (ids 1…), 1 × 1 sampling, no quantisation table.
        segment(0xC3, [UInt8(precision), UInt8(height >> 8), UInt8(height & 0xFF), UInt8(columns >> 8), UInt8(columns & 0xFF), UInt8(nc)]
                + (1...nc).flatMap { [UInt8($0), 0x11, 0] })
        // SOS: every component on table 0, the predictor (Ss), Se 0, Ah 0, Al the point transform.
        segment(0xDA, [UInt8(nc)] + (1...nc).flatMap { [UInt8($0), 0x00] } + [UInt8(coding.predictor), 0, UInt8(coding.pointTransform)])
        var bits = BitWriter()
        Self.forEachDifference(samples, width: width, precision: precision, coding: coding) { difference in
            let c = Self.category(difference)
            bits.write(codes[c], count: lengths[c])
            // Category 16 (difference 32768) has no extra bits; otherwise negative differences are sent as value - 1.
            if c > 0 && c < 16 { bits.write(UInt32(bitPattern: Int32(difference < 0 ? difference - 1 : difference)) & ((1 << c) - 1), count: c) }
        }
        out += bits.finish()
        out += [0xFF, 0xD9]
        return out
    }

    /// The prediction differences in scan order (row by row, the components alternating), of the samples shifted
    /// down by the point transform: the first line predicts from the sample to the left in the same component (Ra),
    /// a line's first samples from the one above (Rb), the very first from 2^(P-Pt-1), and every other sample by
    /// the predictor from Ra, Rb and Rc (T.81 Table H.1). Differences are taken modulo 2^16 into -32768…32767 (H.1.2.1).
    static func forEachDifference(_ samples: [UInt16], width: Int, precision: Int, coding: Coding, _ body: (Int) -> Void) {
        let height = samples.count / width, nc = coding.components, pt = coding.pointTransform
        func at(_ y: Int, _ x: Int) -> Int { Int(samples[y * width + x]) >> pt }
        for y in 0..<height {
            for x in 0..<width {
                let value = at(y, x)
                let prediction: Int
                if x < nc {
                    prediction = y > 0 ? at(y - 1, x) : 1 << (precision - pt - 1)
                } else if y == 0 {
                    prediction = at(y, x - nc)
                } else {
                    let a = at(y, x - nc), b = at(y - 1, x), c = at(y - 1, x - nc)
                    switch coding.predictor {
                    case 1: prediction = a
                    case 2: prediction = b
                    case 3: prediction = c
                    case 4: prediction = a + b - c
                    case 5: prediction = a + ((b - c) >> 1)
                    case 6: prediction = b + ((a - c) >> 1)
                    default: prediction = (a + b) >> 1
                    }
                }
                var d = (value - prediction) & 0xFFFF
                if d >= 0x8000 { d -= 0x10000 }
                body(d)
            }
        }
    }

    /// The difference's category SSSS: the bits of its magnitude (16 only for -32768).
    static func category(_ difference: Int) -> Int {
        difference == -32768 ? 16 : (Int.bitWidth - abs(difference).leadingZeroBitCount)
    }

    /// Huffman code lengths for symbol `counts`, at most 16 bits, no code of all ones (T.81 Annex K.2, K.3).
    static func codeLengths(_ counts: [Int]) -> [Int] {
        let n = counts.count
        var freq = counts + [1]                 // the reserved symbol: keeps every real code off the all-ones pattern
        var size = [Int](repeating: 0, count: n + 1)
        var others = [Int](repeating: -1, count: n + 1)
        while true {
            // The two least frequent live symbols (the larger index on ties, as K.2 does).
            var v1 = -1, v2 = -1
            for i in 0...n where freq[i] > 0 && (v1 < 0 || freq[i] <= freq[v1]) { v1 = i }
            for i in 0...n where freq[i] > 0 && i != v1 && (v2 < 0 || freq[i] <= freq[v2]) { v2 = i }
            if v2 < 0 { break }
            freq[v1] += freq[v2]
            freq[v2] = 0
            size[v1] += 1
            while others[v1] >= 0 { v1 = others[v1]; size[v1] += 1 }
            others[v1] = v2
            size[v2] += 1
            while others[v2] >= 0 { v2 = others[v2]; size[v2] += 1 }
        }
        var bits = [Int](repeating: 0, count: 33)
        for i in 0...n where size[i] > 0 { bits[size[i]] += 1 }
        // K.3: move codes longer than 16 bits up the tree.
        var i = 32
        while i > 16 {
            while bits[i] > 0 {
                var j = i - 2
                while bits[j] == 0 { j -= 1 }
                bits[i] -= 2
                bits[i - 1] += 1
                bits[j + 1] += 2
                bits[j] -= 1
            }
            i -= 1
        }
        var longest = 16
        while bits[longest] == 0 { longest -= 1 }
        bits[longest] -= 1                      // drop the reserved symbol (it has the longest code)
        // Hand the lengths out again, most frequent symbols first (the order K.2's sizes give).
        let order = (0..<n).filter { counts[$0] > 0 }.sorted { (size[$0], $0) < (size[$1], $1) }
        var lengths = [Int](repeating: 0, count: n)
        var k = 0
        for length in 1...16 { for _ in 0..<bits[length] { lengths[order[k]] = length; k += 1 } }
        return lengths
    }

    /// Bits most significant first, 0xFF bytes followed by a stuffed 0x00, padded with ones.
    struct BitWriter {
        var bytes: [UInt8] = []
        var buffer: UInt64 = 0
        var count = 0

        mutating func write(_ value: UInt32, count n: Int) {
            guard n > 0 else { return }
            buffer = buffer << UInt64(n) | UInt64(value & UInt32((1 << UInt64(n)) - 1))
            count += n
            while count >= 8 {
                count -= 8
                let byte = UInt8((buffer >> UInt64(count)) & 0xFF)
                bytes.append(byte)
                if byte == 0xFF { bytes.append(0) }
            }
            buffer &= (1 << UInt64(count)) - 1
        }

        mutating func finish() -> [UInt8] {
            if count > 0 { write((1 << UInt32(8 - count)) - 1, count: 8 - count) }
            return bytes
        }
    }
}
