import CJPEG
import Foundation
import XCTest
@testable import LightWork

final class JPEGDecoderTests: XCTestCase {
    private func sample(_ name: String) throws -> Data {
        try Data(contentsOf: TestPaths.sharedSamples("rgb").appendingPathComponent(name))
    }

    /// Upright sizes from SOURCES.md (orientations 5–8 are stored 1200×1800 and turn to 1800×1200).
    func testEverySampleDecodesUprightWithItsSize() throws {
        let expected: [String: (Int, Int)] = [
            "adobe-rgb-canon-eos-7d.jpg": (600, 900), "cmyk-swop-profile.jpg": (500, 333), "display-p3-iceland.jpg": (600, 400),
            "gray-gamma22-concert.jpg": (400, 267), "large-exif-olympus-pen-e-p3.jpg": (1280, 960),
            "progressive-big-icc.jpg": (425, 250), "gama-chrm-only-hopper.png": (128, 128), "iccp-srgb.png": (57, 57),
            "prophoto-1x1.png": (1, 1), "rgb16-flag-gama-chrm.png": (900, 600),
        ].merging((1...8).map { ("orientation-\($0).jpg", (1800, 1200)) }) { a, _ in a }
        let files = try TestPaths.sharedFiles("rgb")
        XCTAssertEqual(Set(files.map(\.lastPathComponent)), Set(expected.keys), "sample set changed: update this table")
        for url in files {
            let d = try RGBDecoder.decode(data: Data(contentsOf: url), options: DecodeOptions())
            let (w, h) = expected[url.lastPathComponent]!
            XCTAssertEqual(d.image.width, w, url.lastPathComponent)
            XCTAssertEqual(d.image.height, h, url.lastPathComponent)
            XCTAssertEqual(d.kind, .rgb)
            XCTAssertEqual(d.image.space, .deviceRGB)
            XCTAssertEqual(d.image.hasAlpha, url.lastPathComponent == "iccp-srgb.png", url.lastPathComponent)
        }
    }

    /// 16×16 block means of the RGB channels (averages away JPEG block noise of the re-encoded rotations).
    private func blockMeans(_ image: WorkingImage) -> [Float] {
        let f = image.floats(), bw = image.width / 16, bh = image.height / 16
        var out = [Float](repeating: 0, count: 3 * bw * bh)
        // Every other pixel each way (64 per block) keeps this fast in debug builds.
        f.withUnsafeBufferPointer { p in
            for y in stride(from: 0, to: bh * 16, by: 2) { for x in stride(from: 0, to: bw * 16, by: 2) {
                let o = 3 * ((y / 16) * bw + x / 16), i = 4 * (y * image.width + x)
                out[o] += p[i] / 64; out[o + 1] += p[i + 1] / 64; out[o + 2] += p[i + 2] / 64
            } }
        }
        return out
    }

    /// Mean absolute difference of block means, leaving out the centre where each sample prints its own number.
    private func meanDifference(_ a: [Float], _ b: [Float], width: Int, height: Int) -> Float {
        let bw = width / 16, bh = height / 16
        var sum: Float = 0, n = 0
        for by in 0..<bh { for bx in 0..<bw {
            if abs(bx * 16 + 8 - width / 2) < 160 && abs(by * 16 + 8 - height / 2) < 160 { continue }
            for c in 0..<3 { sum += abs(a[3 * (by * bw + bx) + c] - b[3 * (by * bw + bx) + c]); n += 1 }
        } }
        return sum / Float(n)
    }

    func testOrientationsTwoToEightComeOutLikeOrientationOne() throws {
        let reference = try JPEGDecoder.decode(data: sample("orientation-1.jpg"), options: DecodeOptions())
        XCTAssertEqual(reference.metadata.orientation, 1)
        let ref = blockMeans(reference.image)
        for n in 2...8 {
            let d = try JPEGDecoder.decode(data: sample("orientation-\(n).jpg"), options: DecodeOptions())
            XCTAssertEqual(d.metadata.orientation, n, "the declared orientation is recorded")
            XCTAssertEqual(d.image.width, 1800)
            XCTAssertEqual(d.image.height, 1200)
            let diff = meanDifference(ref, blockMeans(d.image), width: 1800, height: 1200)
            XCTAssertLessThan(diff, 2.0 / 255, "orientation \(n)")
        }
        // The comparison can fail: the picture is not symmetric, so a mirrored copy is far from the original.
        let mirrored = reference.image.uprighted(.upMirrored)
        XCTAssertGreaterThan(meanDifference(ref, blockMeans(mirrored), width: 1800, height: 1200), 10.0 / 255)
    }

    func testProgressiveWithICCSpreadOverSeveralAPP2Markers() throws {
        let data = try sample("progressive-big-icc.jpg")
        let app2Count = countICCChunks(data)
        XCTAssertGreaterThan(app2Count, 1, "the sample's profile spans several APP2 markers")
        let d = try JPEGDecoder.decode(data: data, options: DecodeOptions())
        XCTAssertEqual(d.details["encoding"], "progressive")
        let profile = ICCProfile(data: ReferenceReaders.jpegICC(data)!)!
        XCTAssertEqual(d.sourceProfile, profile.profileDescription)
        XCTAssertTrue(d.notes.isEmpty, "\(d.notes)")
    }

    private func countICCChunks(_ data: Data) -> Int {
        let b = [UInt8](data)
        var i = 2, n = 0
        while i + 4 <= b.count, b[i] == 0xFF, b[i + 1] != 0xDA {
            if b[i + 1] == 0xE2 && Array(b[(i + 4)..<(i + 15)]) == Array("ICC_PROFILE".utf8) { n += 1 }
            i += 2 + (Int(b[i + 2]) << 8 | Int(b[i + 3]))
        }
        return n
    }

    func testGreyJPEGWithoutProfileIsReplicatedAndAssumedSRGB() throws {
        let w = 16, h = 8
        let samples = (0..<(w * h)).map { UInt8(($0 * 7) % 256) }
        let data = JPEGBuilder.encode(width: w, height: h, components: 1, samples: samples, quality: 100)
        let d = try JPEGDecoder.decode(data: data, options: DecodeOptions())
        XCTAssertEqual(d.notes, [ICCInput.assumedSRGBNote])
        let stored = ReferenceReaders.jpegSamples(data)
        XCTAssertEqual(stored.components, 1)
        let f = d.image.floats()
        for i in 0..<(w * h) {
            let v = Float(stored.samples[i]) / 255
            for c in 0..<3 { XCTAssertEqual(f[4 * i + c], v, accuracy: 0.0005) }
            XCTAssertEqual(f[4 * i + 3], 1)
        }
    }

    /// CMYK without a profile: the documented naive conversion, for Adobe-inverted and plain CMYK.
    func testCMYKWithoutProfileUsesTheDocumentedNaiveConversion() throws {
        let w = 16, h = 16
        var ink: [UInt8] = []
        for i in 0..<(w * h) { ink += [UInt8(i % 256), UInt8((i * 3) % 256), UInt8(255 - i % 256), UInt8((i * 5) % 128)] }
        for adobe in [false, true] {
            let stored = adobe ? ink.map { 255 - $0 } : ink
            let data = JPEGBuilder.encode(width: w, height: h, components: 4, samples: stored, quality: 100, adobeMarker: adobe)
            let d = try JPEGDecoder.decode(data: data, options: DecodeOptions())
            XCTAssertEqual(d.notes, [ICCInput.naiveCMYKNote], "adobe \(adobe)")
            XCTAssertEqual(d.details["colour model"], adobe ? "cmyk (Adobe inverted)" : "cmyk")
            let ref = ReferenceReaders.jpegSamples(data)
            XCTAssertEqual(ref.adobeInverted, adobe)
            let f = d.image.floats()
            for i in stride(from: 0, to: w * h, by: 5) {
                let s = ref.samples[(4 * i)..<(4 * i + 4)].map { Double(adobe ? 255 - $0 : $0) / 255 }
                for c in 0..<3 {
                    XCTAssertEqual(Double(f[4 * i + c]), (1 - s[c]) * (1 - s[3]), accuracy: 0.001, "adobe \(adobe) pixel \(i)")
                }
            }
        }
    }

    func testCorruptICCChunksAreIgnoredWithANoteAndSRGBAssumed() throws {
        let original = try sample("display-p3-iceland.jpg")
        var bytes = [UInt8](original)
        let marker = try XCTUnwrap(firstICCChunk(bytes))
        // Case 1: chunk numbering broken (sequence number 0) — libjpeg refuses to reassemble the profile.
        var badSequence = bytes
        badSequence[marker + 4 + 12] = 0
        // Case 2: chunks intact but the profile header's 'acsp' signature destroyed — LittleCMS refuses it.
        bytes[marker + 4 + 14 + 36] = 0x58
        for data in [Data(badSequence), Data(bytes)] {
            let d = try JPEGDecoder.decode(data: data, options: DecodeOptions())
            XCTAssertEqual(d.sourceProfile, "sRGB (assumed)")
            XCTAssertTrue(d.notes.contains("embedded ICC profile is corrupt: ignored"), "\(d.notes)")
            XCTAssertTrue(d.notes.contains(ICCInput.assumedSRGBNote))
            let ref = ReferenceReaders.jpegSamples(data)
            let f = d.image.floats()
            for i in [0, 1234, 100_000, 239_999] { for c in 0..<3 {
                XCTAssertEqual(f[4 * i + c], Float(ref.samples[3 * i + c]) / 255, accuracy: 0.0005, "values used as they are")
            } }
        }
    }

    private func firstICCChunk(_ b: [UInt8]) -> Int? {
        var i = 2
        while i + 4 <= b.count, b[i] == 0xFF, b[i + 1] != 0xDA {
            if b[i + 1] == 0xE2 && Array(b[(i + 4)..<(i + 15)]) == Array("ICC_PROFILE".utf8) { return i }
            i += 2 + (Int(b[i + 2]) << 8 | Int(b[i + 3]))
        }
        return nil
    }

    func testProfileForAnotherColourModelIsIgnoredWithANote() throws {
        let adobe = try Data(contentsOf: TestPaths.sharedSamples("icc").appendingPathComponent("adobergb1998-colord.icc"))
        let data = JPEGBuilder.encode(width: 8, height: 8, components: 1, samples: [UInt8](repeating: 90, count: 64), icc: adobe)
        let d = try JPEGDecoder.decode(data: data, options: DecodeOptions())
        XCTAssertEqual(d.sourceProfile, "sRGB (assumed)")
        XCTAssertEqual(d.notes.count, 2)
        XCTAssertTrue(d.notes[0].contains("does not describe gray pixels"), "\(d.notes)")
        XCTAssertEqual(d.notes[1], ICCInput.assumedSRGBNote)
        XCTAssertEqual(d.image.pixel(x: 3, y: 3).y, Float(Float16(Float(ReferenceReaders.jpegSamples(data).samples[27]) / 255)))
    }

    func testTruncatedJPEGFailsWithOneLine() throws {
        let data = try sample("orientation-1.jpg")
        for keep in [data.count / 2, 1000, 20] {
            assertLightWorkError(try JPEGDecoder.decode(data: data.prefix(keep), options: DecodeOptions())) {
                if case .decodeFailed(let m) = $0 { return m.hasPrefix("JPEG: ") } else { return false }
            }
        }
        assertLightWorkError(try JPEGDecoder.decode(data: data.prefix(data.count / 2), options: DecodeOptions())) {
            $0.description.contains("truncated")
        }
    }

    func testZeroSizedHeaderIsRefused() throws {
        var bytes = [UInt8](JPEGBuilder.encode(width: 8, height: 8, components: 3, samples: [UInt8](repeating: 128, count: 192)))
        let o = try XCTUnwrap(JPEGBuilder.sofDimensionOffset(Data(bytes)))
        for k in 0..<4 { bytes[o + k] = 0 }
        assertLightWorkError(try JPEGDecoder.decode(data: Data(bytes), options: DecodeOptions())) {
            if case .decodeFailed = $0 { return true } else { return false }
        }
    }

    /// 65000×65000 (near the 65500 libjpeg accepts) is refused by the pixel limit right after the
    /// header: the file holds data for 8×8 pixels only, so a decoder that allocated or decoded would fail otherwise.
    func testHugeHeaderIsRefusedByThePixelLimitBeforeDecoding() throws {
        var bytes = [UInt8](JPEGBuilder.encode(width: 8, height: 8, components: 3, samples: [UInt8](repeating: 128, count: 192)))
        let o = try XCTUnwrap(JPEGBuilder.sofDimensionOffset(Data(bytes)))
        for k in [0, 2] { bytes[o + k] = 0xFD; bytes[o + k + 1] = 0xE8 }  // 65000
        assertLightWorkError(try JPEGDecoder.decode(data: Data(bytes), options: DecodeOptions())) {
            $0 == .tooManyPixels(width: 65000, height: 65000, limit: 200_000_000)
        }
        var small = DecodeOptions()
        small.maxPixels = 63
        let ok = JPEGBuilder.encode(width: 8, height: 8, components: 3, samples: [UInt8](repeating: 128, count: 192))
        assertLightWorkError(try JPEGDecoder.decode(data: ok, options: small)) { $0 == .tooManyPixels(width: 8, height: 8, limit: 63) }
        small.maxPixels = 64
        XCTAssertEqual(try JPEGDecoder.decode(data: ok, options: small).image.width, 8)
    }

    func testEXIFFromAPP1IsReadAndKept() throws {
        let data = try sample("display-p3-iceland.jpg")
        let d = try JPEGDecoder.decode(data: data, options: DecodeOptions())
        XCTAssertEqual(d.metadata.make, "NIKON CORPORATION")
        XCTAssertEqual(d.metadata.model, "NIKON D800E")
        XCTAssertEqual(d.metadata.orientation, 1)
        let blob = try XCTUnwrap(d.exifBlob)
        XCTAssertEqual(EXIFReader.read(blob), d.metadata)
        XCTAssertTrue(data.range(of: blob) != nil, "the blob is the file's own TIFF block")
    }
}
