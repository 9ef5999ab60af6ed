import Foundation
import XCTest
@testable import LightWork

/// AVIF and JPEG XL in and out. Inputs are made by the libraries' own tools (avifenc, cjxl) from PNGs of known
/// pixels; outputs are decoded by them (avifdec, djxl) and compared with the TIFF render of the same input.
final class AVIFJXLTests: XCTestCase {
    static let width = 48, height = 32

    /// Known truth, sRGB-encoded 0…1: red rises along x, green along y (every pixel is unique), blue along the
    /// diagonal, alpha along x; kept within 0.1…0.9 so Display P3 values stay inside sRGB.
    static func truth(_ x: Int, _ y: Int) -> SIMD4<Double> {
        let fx = Double(x) / Double(width - 1), fy = Double(y) / Double(height - 1)
        return SIMD4(0.1 + 0.8 * fx, 0.1 + 0.8 * fy, 0.1 + 0.4 * (fx + fy), 0.3 + 0.7 * fx)
    }

    /// The truth as PNG pixels.
    static func truthPixels(depth: EncodedPixels.Depth, alpha: Bool) -> EncodedPixels {
        let c = alpha ? 4 : 3
        var p = EncodedPixels(width: width, height: height, channels: c, depth: depth)
        let top = depth == .eight ? 255.0 : 65535.0
        for y in 0..<height {
            for x in 0..<width {
                let t = truth(x, y)
                for k in 0..<c {
                    let v = (t[k] * top).rounded()
                    if depth == .eight { p.samples8[(y * width + x) * c + k] = UInt8(v) } else { p.samples16[(y * width + x) * c + k] = UInt16(v) }
                }
            }
        }
        return p
    }

    func writePNG(_ url: URL, depth: EncodedPixels.Depth = .sixteen, alpha: Bool = false, icc: Data? = nil, exif: Data? = nil) throws {
        let settings = EncodeSettings(format: depth == .eight ? .png : .png16, iccProfile: icc, exif: exif)
        try PNGWriter().write(Self.truthPixels(depth: depth, alpha: alpha), settings: settings, to: url)
    }

    @discardableResult
    func tool(_ name: String, _ args: [String]) throws -> String {
        let r = try CLIRunner.capture(URL(fileURLWithPath: "/usr/bin/\(name)"), args)
        let text = String(decoding: r.stdout + r.stderr, as: UTF8.self)
        XCTAssertEqual(r.status, 0, "\(name) \(args.joined(separator: " ")): \(text)")
        return text
    }

    /// CIELAB (D50) of sRGB-encoded RGB in a space of these primaries (sRGB transfer).
    static func lab(_ rgb: SIMD3<Double>, _ primaries: RGBPrimaries = .sRGB) -> SIMD3<Double> {
        let linear = SIMD3(TransferFunction.sRGB.decode(rgb.x), TransferFunction.sRGB.decode(rgb.y), TransferFunction.sRGB.decode(rgb.z))
        return CIE.xyzToLab(primaries.toXYZD50 * linear)
    }

    /// Mean and max ΔE00 of a decoded image against `expected` (sRGB-encoded, in `primaries`) at each displayed pixel,
    /// and the largest alpha error.
    func compare(_ d: DecodedImage, primaries: RGBPrimaries = .sRGB, _ expected: (Int, Int) -> SIMD4<Double> = truth)
        -> (mean: Double, max: Double, alpha: Double) {
        var sum = 0.0, worst = 0.0, alpha = 0.0, counted = 0
        // Colours of another space that lie outside sRGB are clipped on the way into device RGB: not compared.
        let toSRGB = RGBPrimaries.sRGB.toXYZD50.inverse * primaries.toXYZD50
        for y in 0..<d.image.height {
            for x in 0..<d.image.width {
                let p = d.image.pixel(x: x, y: y), e = expected(x, y)
                let linear = toSRGB * SIMD3(TransferFunction.sRGB.decode(e.x), TransferFunction.sRGB.decode(e.y), TransferFunction.sRGB.decode(e.z))
                guard linear.min() >= 0, linear.max() <= 1 else { continue }
                counted += 1
                let dE = CIE.deltaE2000(Self.lab(SIMD3(Double(p.x), Double(p.y), Double(p.z))), Self.lab(SIMD3(e.x, e.y, e.z), primaries))
                sum += dE; worst = max(worst, dE)
                if d.image.hasAlpha { alpha = max(alpha, abs(Double(p.w) - e.w)) }
            }
        }
        XCTAssertGreaterThan(counted, d.image.width * d.image.height / 3, "too few in-gamut pixels")
        return (sum / Double(counted), worst, alpha)
    }

    /// The largest difference, in 8-bit code values, between the decoded pixels rounded to 8 bits and the 8-bit truth
    /// at `source(x, y)` (colour and alpha): 0 for a lossless 8-bit file.
    func codeError8(_ d: DecodedImage, _ source: (Int, Int) -> (Int, Int) = { ($0, $1) }) -> Int {
        var worst = 0
        for y in 0..<d.image.height {
            for x in 0..<d.image.width {
                let p = d.image.pixel(x: x, y: y), (sx, sy) = source(x, y), t = Self.truth(sx, sy)
                for k in 0..<(d.image.hasAlpha ? 4 : 3) {
                    worst = max(worst, abs(Int((Double(p[k]) * 255).rounded()) - Int((t[k] * 255).rounded())))
                }
            }
        }
        return worst
    }

    func decode(_ url: URL) throws -> DecodedImage {
        let data = try Data(contentsOf: url)
        let codec = CodecRegistry.decoder(for: data)
        return try codec.decode(data: data, url: url, options: DecodeOptions(), engine: EngineConfiguration(threads: 2))
    }

    // MARK: AVIF input

    func testAVIFInputsOfEveryDepthAlphaAndColourSignal() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let png16 = dir.appendingPathComponent("t16.png"), png8a = dir.appendingPathComponent("t8a.png")
        let p3 = dir.appendingPathComponent("p3.png")
        try writePNG(png16)
        try writePNG(png8a, depth: .eight, alpha: true)
        try writePNG(p3, icc: ICCProfile.embedded(for: .displayP3))
        func avif(_ name: String, _ input: URL, _ args: [String]) throws -> URL {
            let out = dir.appendingPathComponent(name + ".avif")
            try tool("avifenc", args + ["-s", "10", input.path, out.path])
            XCTAssertTrue(CodecRegistry.decoder(for: try Data(contentsOf: out)) is AVIFCodec, name)
            XCTAssertEqual(AVIFCodec().pixelCount(FileBytes(out)!), Self.width * Self.height, name)
            return out
        }
        // 8-bit lossless with alpha: identity matrix, every sample exact.
        let lossless = try decode(try avif("lossless8a", png8a, ["-l", "-d", "8"]))
        print("AVIF 8-bit lossless + alpha: largest 8-bit code error \(codeError8(lossless))")
        XCTAssertEqual(codeError8(lossless), 0)
        XCTAssertEqual(lossless.details["bit depth"], "8")
        // 10 and 12 bits, quantizer 0, 4:4:4 BT.601, sRGB code points.
        for depth in ["10", "12"] {
            let d = try decode(try avif("q0-\(depth)", png16, ["-d", depth, "-y", "444", "--min", "0", "--max", "0", "--cicp", "1/13/6", "--ignore-icc"]))
            let r = compare(d)
            print("AVIF \(depth)-bit q0 4:4:4 (CICP 1/13/6): ΔE00 mean \(r.mean) max \(r.max)")
            XCTAssertEqual(d.details["bit depth"], depth)
            XCTAssertEqual(d.details["CICP"], "1/13/6")
            XCTAssertLessThan(r.max, 0.6)   // measured 0.30 (10-bit), 0.10 (12-bit)
        }
        // Display P3 said by the ICC profile, and by the code points alone: the same colours, converted to sRGB.
        for (name, args) in [("p3-icc", ["-l", "-d", "8"]), ("p3-cicp", ["-d", "12", "-y", "444", "--min", "0", "--max", "0", "--cicp", "12/13/6", "--ignore-icc"])] {
            let d = try decode(try avif(name, p3, args))
            let r = compare(d, primaries: .displayP3)
            print("AVIF Display P3 by \(name): ΔE00 mean \(r.mean) max \(r.max) (\(d.sourceProfile))")
            XCTAssertLessThan(r.max, name == "p3-icc" ? 1.5 : 0.5, name)   // measured 0.85 (8-bit samples), 0.18 (12-bit)
        }
        // BT.709 transfer: the inverse of its camera curve. HDR transfers are refused with a colour error.
        let bt709 = try decode(try avif("bt709", png16, ["-d", "12", "-y", "444", "--min", "0", "--max", "0", "--cicp", "1/1/6", "--ignore-icc"]))
        XCTAssertTrue(bt709.sourceProfile.contains("BT.709"), bt709.sourceProfile)
        let pq = try avif("pq", png16, ["-d", "10", "--cicp", "9/16/9", "--ignore-icc"])
        XCTAssertThrowsError(try decode(pq)) { e in
            XCTAssertEqual((e as? LightWorkError)?.kind, LightWorkError.colour("").kind)
            XCTAssertTrue("\(e)".contains("PQ"), "\(e)")
        }
    }

    func testAVIFRotationAndMirrorAreApplied() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let png = dir.appendingPathComponent("t.png")
        try writePNG(png, depth: .eight)
        let w = Self.width, h = Self.height
        // Display pixel (x, y) ← stored pixel, for irot (quarter turns anticlockwise) then imir.
        let cases: [(args: [String], swaps: Bool, source: (Int, Int) -> (Int, Int))] = [
            (["--irot", "1"], true, { x, y in (w - 1 - y, x) }),
            (["--irot", "3"], true, { x, y in (y, h - 1 - x) }),
            (["--imir", "1"], false, { x, y in (w - 1 - x, y) }),
            (["--imir", "0"], false, { x, y in (x, h - 1 - y) }),
            (["--irot", "1", "--imir", "1"], true, { x, y in (w - 1 - y, h - 1 - x) }),
        ]
        for (i, c) in cases.enumerated() {
            let out = dir.appendingPathComponent("r\(i).avif")
            try tool("avifenc", ["-l", "-d", "8", "-s", "10"] + c.args + [png.path, out.path])
            let d = try decode(out)
            XCTAssertEqual(d.image.width, c.swaps ? h : w, "\(c.args)")
            XCTAssertEqual(codeError8(d, c.source), 0, "\(c.args)")
        }
    }

    func testAVIFAndJXLEXIFIsReadByDecoderAndProbe() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        var m = ImageMetadata()
        m.make = "TestMake"
        m.model = "TestModel 1"
        m.dateTimeOriginal = "2026:11:30 10:20:30"
        let exif = try XCTUnwrap(EXIFWriter.blob(for: m, jpeg: false))
        let exifFile = dir.appendingPathComponent("exif.bin")
        try exif.write(to: exifFile)
        let png = dir.appendingPathComponent("t.png")
        try writePNG(png, depth: .eight, exif: exif)
        let avif = dir.appendingPathComponent("e.avif"), jxl = dir.appendingPathComponent("e.jxl")
        try tool("avifenc", ["-s", "10", "--exif", exifFile.path, png.path, avif.path])
        // cjxl 0.7 drops a PNG's eXIf: the container is put together here (ISO/IEC 18181-2: signature, ftyp, Exif,
        // jxlc) around the codestream cjxl wrote (bare, or in its own container's jxlc box).
        let plain = dir.appendingPathComponent("plain.jxl")
        try tool("cjxl", [png.path, plain.path, "-d", "1", "-e", "3"])
        func box(_ type: String, _ payload: Data) -> Data {
            withUnsafeBytes(of: UInt32(8 + payload.count).bigEndian) { Data($0) } + Data(type.utf8) + payload
        }
        let written = [UInt8](try Data(contentsOf: plain))
        let codestream = written.starts(with: [0xFF, 0x0A]) ? Data(written)
            : try XCTUnwrap(ISOBMFFProbe.boxes(in: 0..<written.count, of: written).first { $0.type == "jxlc" }.map { Data(written[$0.payload]) })
        try (Data(JXLCodec.containerSignature) + box("ftyp", Data("jxl \0\0\0\0jxl ".utf8)) + box("Exif", Data([0, 0, 0, 0]) + exif)
             + box("jxlc", codestream)).write(to: jxl)
        for url in [avif, jxl] {
            let d = try decode(url)
            XCTAssertEqual(d.metadata.make, "TestMake", url.lastPathComponent)
            XCTAssertEqual(d.metadata.model, "TestModel 1", url.lastPathComponent)
            let probed = CaptureInfoProbe.read(url)
            XCTAssertEqual(probed?.model, "TestModel 1", "capture-info probe of \(url.lastPathComponent)")
            XCTAssertEqual(probed?.dateTimeOriginal, "2026:11:30 10:20:30", url.lastPathComponent)
        }
    }

    // MARK: JPEG XL input

    func testJXLInputsLosslessLossyFloatAlphaAndICC() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let png8 = dir.appendingPathComponent("t8.png"), png16a = dir.appendingPathComponent("t16a.png"), p3 = dir.appendingPathComponent("p3.png")
        try writePNG(png8, depth: .eight)
        try writePNG(png16a, alpha: true)
        try writePNG(p3, icc: ICCProfile.embedded(for: .displayP3))
        func jxl(_ name: String, _ input: URL, _ args: [String]) throws -> DecodedImage {
            let out = dir.appendingPathComponent(name + ".jxl")
            try tool("cjxl", [input.path, out.path, "-e", "3"] + args)
            XCTAssertTrue(CodecRegistry.decoder(for: try Data(contentsOf: out)) is JXLCodec, name)
            XCTAssertEqual(JXLCodec().pixelCount(FileBytes(out)!), Self.width * Self.height, name)
            return try decode(out)
        }
        let q8 = { (x: Int, y: Int) -> SIMD4<Double> in (Self.truth(x, y) * 255).rounded(.toNearestOrAwayFromZero) / 255 }
        let q16 = { (x: Int, y: Int) -> SIMD4<Double> in (Self.truth(x, y) * 65535).rounded(.toNearestOrAwayFromZero) / 65535 }
        let lossless8 = try jxl("l8", png8, ["-d", "0"])
        print("JPEG XL 8-bit lossless: largest 8-bit code error \(codeError8(lossless8))")
        XCTAssertEqual(codeError8(lossless8), 0)
        let l16 = try jxl("l16a", png16a, ["-d", "0"])
        let lossless16 = compare(l16, q16)
        print("JPEG XL 16-bit lossless + alpha: ΔE00 mean \(lossless16.mean) max \(lossless16.max), alpha error \(lossless16.alpha)")
        XCTAssertEqual(l16.details["bit depth"], "16-bit")
        XCTAssertLessThan(lossless16.max, 0.2)   // measured 0.084: the working image's half floats
        XCTAssertLessThan(lossless16.alpha, 0.6 / 255)   // measured 0.0020: cjxl 0.7 stores the alpha of a 16-bit PNG at 8 bits
        let lossy = compare(try jxl("d1", png8, ["-d", "1"]), q8)
        print("JPEG XL lossy distance 1: ΔE00 mean \(lossy.mean) max \(lossy.max)")
        XCTAssertLessThan(lossy.mean, 2.0)   // measured 0.85
        XCTAssertLessThan(lossy.max, 10.0)   // measured 5.2, at the 48×32 frame's corners
        let iccLossless = compare(try jxl("p3", p3, ["-d", "0"]), primaries: .displayP3, q16)
        let iccLossy = compare(try jxl("p3d1", p3, ["-d", "1"]), primaries: .displayP3, q16)
        print("JPEG XL Display P3: lossless ΔE00 max \(iccLossless.max), lossy d1 mean \(iccLossy.mean) max \(iccLossy.max)")
        XCTAssertLessThan(iccLossless.max, 0.6)
        XCTAssertLessThan(iccLossy.mean, 2.0)
        XCTAssertLessThan(iccLossy.max, 10.0)

        // Float samples (PFM, which cjxl 0.7 takes as sRGB-encoded) come back through libjxl's ICC of its data.
        var pfm = Data("PF\n\(Self.width) \(Self.height)\n-1.0\n".utf8)
        for y in (0..<Self.height).reversed() {   // PFM rows run bottom to top
            for x in 0..<Self.width {
                let t = Self.truth(x, y)
                for k in 0..<3 { withUnsafeBytes(of: Float(t[k]).bitPattern.littleEndian) { pfm.append(contentsOf: $0) } }
            }
        }
        let pfmURL = dir.appendingPathComponent("t.pfm")
        try pfm.write(to: pfmURL)
        let f = try jxl("float", pfmURL, ["-d", "0"])
        let float = compare(f)
        print("JPEG XL 32-bit float lossless: ΔE00 mean \(float.mean) max \(float.max) (\(f.details["bit depth"] ?? ""), \(f.sourceProfile))")
        XCTAssertEqual(f.details["bit depth"], "32-bit float")
        XCTAssertLessThan(float.max, 0.3)
    }

    /// A JPEG whose EXIF says orientation 6, recompressed losslessly by cjxl (which puts 6 into the codestream and
    /// keeps the EXIF): the JXL decodes upright once, to the pixels libjpeg gives the JPEG (turned by its EXIF).
    func testJXLCodestreamOrientationIsAppliedOnce() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let jpg = dir.appendingPathComponent("t.jpg"), jxl = dir.appendingPathComponent("t.jxl")
        try JPEGWriter().write(Self.truthPixels(depth: .eight, alpha: false), settings: EncodeSettings(format: .jpeg), to: jpg)
        let exif = try CLIRunner.capture(URL(fileURLWithPath: "/usr/bin/exiftool"), ["-q", "-overwrite_original", "-n", "-Orientation=6", jpg.path])
        XCTAssertEqual(exif.status, 0)
        let info = try tool("cjxl", [jpg.path, jxl.path])
        XCTAssertTrue(try tool("jxlinfo", [jxl.path]).contains("Orientation: 6"), info)
        let fromJPEG = try decode(jpg), fromJXL = try decode(jxl)
        XCTAssertEqual(fromJXL.image.width, Self.height); XCTAssertEqual(fromJXL.image.height, Self.width)
        XCTAssertEqual(fromJPEG.image.width, Self.height)
        var worst = 0.0
        for y in 0..<fromJXL.image.height {
            for x in 0..<fromJXL.image.width {
                let a = fromJXL.image.pixel(x: x, y: y), b = fromJPEG.image.pixel(x: x, y: y)
                worst = max(worst, (0..<3).map { abs(Double(a[$0]) - Double(b[$0])) }.max()!)
            }
        }
        print("JPEG XL recompressed JPEG, orientation 6: largest difference from libjpeg's upright pixels \(worst * 255) codes")
        XCTAssertLessThan(worst * 255, 8)   // measured 3.1: libjxl's and libjpeg's decodes of the same coefficients
        // Turned once: the upright top-left pixel is the stored bottom-left one (red low, green high).
        let corner = fromJXL.image.pixel(x: 0, y: 0)
        XCTAssertGreaterThan(Double(corner.y), Double(corner.x) + 0.5, "orientation 6 applied once, not twice or never")
    }

    // MARK: Grey inputs

    /// A grey (one-channel) 8-bit PNG made into AVIF 4:0:0 and JPEG XL grey, each lossless: every pixel comes back
    /// as R = G = B = its grey value (the files carry no ICC; grey is sRGB-encoded, as both tools signal it).
    func testGreyAVIFAndJXLInputsComeBackAsTheirGreyValues() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let w = Self.width, h = Self.height
        var grey = EncodedPixels(width: w, height: h, channels: 1, depth: .eight)
        for i in 0..<(w * h) { grey.samples8[i] = UInt8(20 + (i * 7) % 216) }
        let png = dir.appendingPathComponent("grey.png")
        try PNGWriter().write(grey, settings: EncodeSettings(format: .png), to: png)
        let avif = dir.appendingPathComponent("grey.avif"), jxl = dir.appendingPathComponent("grey.jxl")
        try tool("avifenc", ["-l", "-d", "8", "-y", "400", "-s", "10", png.path, avif.path])
        try tool("cjxl", [png.path, jxl.path, "-d", "0", "-e", "3"])
        for url in [avif, jxl] {
            let d = try decode(url)
            XCTAssertEqual(d.image.width, w); XCTAssertEqual(d.image.height, h)
            var worst = 0, spread = 0
            for y in 0..<h {
                for x in 0..<w {
                    let p = d.image.pixel(x: x, y: y), v = Int(grey.samples8[y * w + x])
                    let codes = (0..<3).map { Int((Double(p[$0]) * 255).rounded()) }
                    worst = max(worst, codes.map { abs($0 - v) }.max()!)
                    spread = max(spread, codes.max()! - codes.min()!)
                }
            }
            print("\(url.lastPathComponent): largest 8-bit code error \(worst), largest R/G/B spread \(spread) (\(d.sourceProfile))")
            XCTAssertEqual(worst, 0, url.lastPathComponent)
            XCTAssertEqual(spread, 0, url.lastPathComponent)
        }
    }

    // MARK: Bad files

    func testBadAVIFAndJXLFilesFailAloneWithOneLine() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let input = dir.appendingPathComponent("in"), out = dir.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        let png = dir.appendingPathComponent("t.png")
        try writePNG(png, depth: .eight)
        try tool("avifenc", ["-s", "10", png.path, input.appendingPathComponent("good-a.avif").path])
        try tool("cjxl", [png.path, input.appendingPathComponent("good-j.jxl").path, "-e", "3"])
        let avif = try Data(contentsOf: input.appendingPathComponent("good-a.avif")), jxl = try Data(contentsOf: input.appendingPathComponent("good-j.jxl"))
        try avif.prefix(avif.count / 2).write(to: input.appendingPathComponent("cut-a.avif"))
        try jxl.prefix(jxl.count / 2).write(to: input.appendingPathComponent("cut-j.jxl"))
        var garbled = avif   // the meta box's size and first children overwritten: AV1 data has no checksum to catch
        for i in 36..<min(120, garbled.count) { garbled[i] = 0xFF }
        try garbled.write(to: input.appendingPathComponent("garbled-a.avif"))
        try (jxl.prefix(20) + Data(repeating: 0xAB, count: 200)).write(to: input.appendingPathComponent("garbled-j.jxl"))
        for name in ["cut-a.avif", "cut-j.jxl", "garbled-a.avif", "garbled-j.jxl"] {
            XCTAssertThrowsError(try decode(input.appendingPathComponent(name)), name) { e in
                XCTAssertFalse("\(e)".contains("\n"), "\(name): \(e)")
                print("\(name): \(e)")
            }
        }
        let r = try CLIRunner.run(["convert", input.path, "-o", out.path, "--format", "png"])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: out.appendingPathComponent("good-a.png").path) && FileManager.default.fileExists(atPath: out.appendingPathComponent("good-j.png").path), r.stderr)
        for name in ["cut-a.avif", "cut-j.jxl", "garbled-a.avif", "garbled-j.jxl"] {
            XCTAssertEqual(r.stderr.components(separatedBy: "\n").filter { $0.contains(name) }.count, 1, "\(name) in: \(r.stderr)")
        }
    }

    // MARK: Outputs

    /// Converts `input` to `format` with `extra` options, returning the output file.
    func convert(_ input: URL, _ format: String, _ extra: [String] = [], into dir: URL, threads: Int = 2) throws -> URL {
        let out = dir.appendingPathComponent("\(format)\(extra.joined())-t\(threads)")
        let r = try CLIRunner.run(["convert", input.path, "-o", out.path, "--format", format, "--threads", String(threads)] + extra)
        XCTAssertEqual(r.status, 0, r.stderr)
        let files = try FileManager.default.contentsOfDirectory(at: out, includingPropertiesForKeys: nil).filter { !$0.lastPathComponent.hasPrefix(".") && $0.pathExtension != "json" }
        XCTAssertEqual(files.count, 1, "\(files)")
        return files[0]
    }

    func testOutputsDecodedByAvifdecAndDjxlMatchTheTIFFRender() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let input = dir.appendingPathComponent("truth.png")
        var m = ImageMetadata()
        m.make = "TestMake"
        m.orientation = 6
        try writePNG(input, alpha: true, icc: ICCProfile.embedded(for: .srgb), exif: EXIFWriter.blob(for: m, jpeg: false))
        let tiff16 = try ImageFileReader.read(try convert(input, "tiff16", into: dir))
        let tiff8 = try ImageFileReader.read(try convert(input, "tiff8", into: dir))
        // (format, extra options, ΔE00 max limit; nil: samples exact, file depth).
        let cases: [(String, [String], Double?, Int)] = [
            // measured max: 2.89, 3.49, 1.26, 3.87, 4.27 (means 0.55, 0.39, 0.11, 0.56, 0.53)
            ("avif", [], 6, 8), ("avif10", [], 7, 10), ("avif12", ["--quality", "90"], 3, 12),
            ("jxl", [], 8, 8), ("jxl16", [], 8, 16), ("jxl", ["--lossless"], nil, 8), ("jxl16", ["--lossless"], nil, 16),
        ]
        for (format, extra, limit, depth) in cases {
            let out = try convert(input, format, extra, into: dir)
            let again = try convert(input, format, extra, into: dir, threads: 1)
            XCTAssertEqual(try Data(contentsOf: out), try Data(contentsOf: again), "\(format) \(extra): bytes differ between 1 and 2 threads")
            let png = dir.appendingPathComponent("\(format)\(extra.joined()).png")
            let info: String
            if format.hasPrefix("avif") {
                try tool("avifdec", ["-d", depth == 8 ? "8" : "16", out.path, png.path])
                info = try tool("avifdec", ["--info", out.path])
                XCTAssertTrue(info.contains("Bit Depth      : \(depth)"), info)
                XCTAssertTrue(info.contains("Color Primaries: 1") && info.contains("Transfer Char. : 13"), info)
                XCTAssertTrue(info.contains("ICC Profile    : Present"), info)
                XCTAssertTrue(info.contains("Exif Metadata  : Present"), info)
            } else {
                try tool("djxl", [out.path, png.path, "--bits_per_sample=\(depth)"])
                info = try tool("jxlinfo", [out.path])
                XCTAssertTrue(info.contains("\(depth)-bit"), info)
                // Lossy: libjxl stores the profile as its own encoding; lossless keeps the profile's bytes.
                XCTAssertTrue(info.contains(limit == nil ? "\(ICCProfile.embedded(for: .srgb).count)-byte ICC profile" : "sRGB primaries, sRGB transfer function"), info)
                XCTAssertTrue(info.contains("Exif metadata"), info)
            }
            let exif = try CLIRunner.capture(URL(fileURLWithPath: "/usr/bin/exiftool"), ["-s3", "-Make", "-Orientation#", out.path])
            XCTAssertEqual(String(decoding: exif.stdout, as: UTF8.self), "TestMake\n1\n", "\(format) EXIF")
            let decoded = try ImageFileReader.read(png)
            XCTAssertEqual(decoded.channels, 4, "\(format): alpha kept")
            let golden = depth == 8 ? tiff8 : tiff16
            let c = try PixelComparison(golden: golden, candidate: decoded, threshold: 1)
            let size = (try Data(contentsOf: out)).count
            print("\(format) \(extra.joined(separator: " ")): \(size) bytes, ΔE00 mean \(c.statistics.mean) p99 \(c.statistics.p99) max \(c.statistics.max), max sample difference \(c.maxSampleDifference)")
            let top = Double((1 << golden.bitDepth) - 1), decodedTop = Double((1 << decoded.bitDepth) - 1)
            var alphaError = 0.0
            for i in 0..<(golden.width * golden.height) {
                alphaError = max(alphaError, abs(Double(golden.samples[i * 4 + 3]) / top - Double(decoded.samples[i * 4 + 3]) / decodedTop))
            }
            print("  alpha: largest error \(alphaError)")
            if let limit {
                XCTAssertLessThan(c.statistics.max, limit, "\(format) \(extra)")
                XCTAssertLessThan(c.statistics.mean, 1.5, "\(format) \(extra)")
                XCTAssertLessThan(alphaError, 0.05, "\(format): alpha")
            } else if depth == 8 || depth == 16 {
                XCTAssertTrue(c.identicalSamples, "\(format) \(extra): lossless output differs by \(c.maxSampleDifference)")
            }
        }
    }

    func testOptionsAreDeclaredAndChecked() throws {
        XCTAssertEqual(CodecRegistry.outputFormat(named: "avif10")?.bitDepth, 10)
        XCTAssertEqual(CodecRegistry.outputFormat(named: "jxl16")?.depth, .sixteen)
        XCTAssertEqual(CodecRegistry.outputFormat(named: "jpegxl"), .jxl)
        var s = EncodeSettings(format: .avif)
        XCTAssertThrowsError(try s.setOptions(["speed": "11"], from: .commandLine))
        XCTAssertThrowsError(try s.setOptions(["lossless": "true"], from: .commandLine))
        try s.setOptions(["quality": "0", "speed": "3"], from: .commandLine)
        XCTAssertEqual(s.options.int(AVIFCodec.quality), 0)
        var j = EncodeSettings(format: .jxl16)
        try j.setOptions(["lossless": "true", "effort": "2"], from: .commandLine)
        XCTAssertTrue(j.options.flag(JXLCodec.lossless))
        XCTAssertEqual(JXLCodec.distance(quality: 90), 1.0, accuracy: 1e-6)
        let help = try CLIRunner.run(["convert", "--help"]).stdout
        for word in ["avif12", "jxl16", "--speed", "--effort", "--lossless", "AVIF quality 0-100", "JPEG XL quality 0-100"] {
            XCTAssertTrue(help.contains(word), "--help lacks \(word)")
        }
    }
}

extension AVIFJXLTests {
    /// A frame wide and tall enough for several AVIF tiles (2 × 2 at 2048 × 2048 … here 2 × 1) and several libjxl groups:
    /// the bytes must not depend on the thread count.
    func testEncodersGiveTheSameBytesAtOneAndTwoThreads() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let w = 2048, h = 160
        var p = EncodedPixels(width: w, height: h, channels: 3, depth: .sixteen)
        for y in 0..<h { for x in 0..<w { for k in 0..<3 {
            p.samples16[(y * w + x) * 3 + k] = UInt16(truncatingIfNeeded: (x * 31 + y * 17 * (k + 1) + (x * y) % 251) * 40)
        } } }
        XCTAssertEqual(AVIFWriter.tilesLog2(w), 1)
        for (format, options) in [(OutputFormat.avif10, ["speed": "9"]), (.jxl16, ["effort": "3"]), (.jxl16, ["lossless": "true", "effort": "2"])] {
            var settings = EncodeSettings(format: format, iccProfile: ICCProfile.embedded(for: .srgb))
            try settings.setOptions(options, from: .commandLine)
            var outputs: [Data] = []
            for threads in [1, 2] {
                let url = dir.appendingPathComponent("\(format)-\(threads).\(format.fileExtension)")
                try format.writer(engine: EngineConfiguration(threads: threads)).write(p, settings: settings, to: url)
                outputs.append(try Data(contentsOf: url))
            }
            XCTAssertEqual(outputs[0], outputs[1], "\(format) \(options): bytes differ between 1 and 2 threads")
            print("\(format) \(options) 2048×160 at 1 and 2 threads: \(outputs[0].count) bytes, identical: \(outputs[0] == outputs[1])")
        }
    }
}
