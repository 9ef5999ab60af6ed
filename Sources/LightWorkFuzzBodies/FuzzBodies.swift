import CShims
import Foundation
import LightWork

/// The body of each fuzz target (Sources/LightWorkFuzz, `make fuzz`), in a target of their own that the fuzzer and
/// the tests link and the shipped `lightwork` does not, so that the tests replay the seed corpus and every crash
/// the fuzzer found through exactly the same code (FuzzRegressionTests). Errors thrown are the expected outcome for most inputs and are ignored; what
/// counts is that nothing traps (a Swift runtime error), overflows a buffer (AddressSanitizer) or hangs.
package enum FuzzBodies {
    /// A scratch folder for targets whose API reads a file (in /dev/shm when present: no disk traffic).
    package static let scratch: URL = {
        let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
        let dir = URL(fileURLWithPath: base).appendingPathComponent("lightwork-fuzz-\(getpid())")
        try? FileManager.default.createDirectory(at: dir.appendingPathComponent("luts"), withIntermediateDirectories: true)
        // A LUT a fuzzed recipe may name, and a lookup image a fuzzed catalog may name.
        let cube = "LUT_3D_SIZE 2\n0 0 0\n1 0 0\n0 1 0\n1 1 0\n0 0 1\n1 0 1\n0 1 1\n1 1 1\n"
        try? Data(cube.utf8).write(to: dir.appendingPathComponent("luts/look.cube"))
        try? Data(cube.utf8).write(to: dir.appendingPathComponent("look.cube"))
        atexit { try? FileManager.default.removeItem(atPath: "/dev/shm/lightwork-fuzz-\(getpid())") }
        return dir
    }()

    static let ranges = FilterRanges.standard

    static let catalog: FilmCatalog? = try? FilmCatalog.bundled()

    /// Writes `data` to a scratch file named `name` and returns its URL.
    static func file(_ data: Data, _ name: String) -> URL {
        let url = scratch.appendingPathComponent(name)
        try? data.write(to: url)
        return url
    }

    static func cube(_ data: Data) {
        guard let lut = try? CubeLUTReader.parse(data, file: "fuzz.cube") else { return }
        var r: [Float] = [0.5, -1, 2, .nan], g: [Float] = [0.25, 0, 1, 1], b: [Float] = [1.5, 1, 0.5, .infinity]
        lut.apply(r: &r, g: &g, b: &b, count: 4, interpolation: .tetrahedral)
        lut.apply(r: &r, g: &g, b: &b, count: 4, interpolation: .trilinear)
    }

    /// Decoded LUT-image pixels of any shape (width, height, channels, depth from the first bytes) through the
    /// layout guess and both readers.
    static func lutImage(_ data: Data) {
        let b = [UInt8](data)
        guard b.count >= 4 else { return }
        let sides = [0, 1, 8, 27, 64, 512, 125, 7]
        let width = sides[Int(b[0]) % sides.count], height = sides[Int(b[1]) % sides.count]
        let channels = Int(b[2] % 6), maxValue = b[3] & 1 == 0 ? 255 : 65535
        let count = width * height * channels
        var samples = [UInt16](repeating: 0, count: count)
        let body = b.dropFirst(4)
        if !body.isEmpty { for i in 0..<count { samples[i] = UInt16(body[body.startIndex + i % body.count]) * (maxValue == 255 ? 1 : 257) } }
        // A short body may also give the wrong number of samples, which the readers must refuse.
        if b[3] & 2 != 0, !samples.isEmpty { samples.removeLast() }
        let pixels = LUTImagePixels(width: width, height: height, channels: channels, samples: samples, maxValue: maxValue)
        _ = try? LUTFile.read(pixels, file: b[3] & 4 != 0 ? "hald.png" : "look.png")
        _ = try? HaldCLUTReader.read(pixels, file: "x")
        _ = try? LookupImageReader.read(pixels, file: "x")
    }

    /// A LUT file as `--lut` opens it: .cube text or a PNG, JPEG or TIFF image decoded by LightWork's reader.
    static func lutFile(_ data: Data) {
        let url = file(data, data.first == 0x89 || data.first == 0xFF || data.first == 0x49 || data.first == 0x4D ? "fuzz-lut.png" : "fuzz-lut.cube")
        _ = try? LUTFile.load(url: url, decodeImage: LookSetup.decodeLUTImage)
    }

    static func catalog(_ data: Data) {
        guard let catalog = try? FilmCatalog.decode(data, file: "catalog.json", folder: scratch) else { return }
        for entry in catalog.entries {
            _ = try? catalog.lookupImageURL(for: entry.film)
            _ = catalog.film(matching: entry.film.lookupId)
            _ = catalog.film(matching: entry.film.filterName)
            _ = try? catalog.requireAvailable(entry, entitlements: nil)
            _ = entry.pack.displayName
        }
        _ = try? catalog.jsonData()
    }

    static func recipe(_ data: Data) {
        guard let recipe = try? Recipe.parse(data, file: "recipe.json", baseDirectory: scratch, ranges: ranges) else { return }
        _ = try? recipe.resolve(ranges: ranges, catalog: catalog, entitlements: nil)
        _ = try? recipe.jsonData()
        _ = try? recipe.applying(sets: ["contrast=10", "strength=50"], ranges: ranges)
    }

    /// A manifest as merge and resume read it: decoded, merged alone and with itself, offered to a resume index.
    static func manifest(_ data: Data) {
        guard let m = try? Manifest.decode(data) else { return }
        _ = try? ManifestMerge.merge([("a", m)])
        _ = try? ManifestMerge.merge([("a", m), ("b", m)])
        var other = m
        other.shard = m.shard.map { Manifest.ShardInfo(index: $0.index &+ 1, count: $0.count) }
        _ = try? ManifestMerge.merge([("a", m), ("b", other)])
        _ = BatchPlanner.outputOwners(m)
        var copy = m
        copy.updateSummary()
        _ = try? copy.encoded()
        let url = file(data, "manifest.json")
        let index = ResumeIndex(manifestURLs: [url], settingsDigest: m.settingsDigest, toolVersion: m.tool.version)
        for e in m.entries.prefix(16) {
            let item = InputItem(url: scratch.appendingPathComponent("look.cube"), displayPath: e.input.path, relativePath: e.input.relativePath)
            if let previous = index.previous(for: item) {
                _ = ResumeIndex.reusableEntry(previous: previous, item: item, outputDirectory: scratch)
            }
        }
    }

    static func entitlements(_ data: Data) {
        let url = file(data, "entitlements.json")
        _ = try? Entitlements.load(from: url)
        var store = Entitlements(url: scratch.appendingPathComponent("store.json"))
        // The shipped catalog declares a publisher key, so signed entries reach the signature check.
        if let catalog { _ = try? store.merge(syncedFile: url, catalog: catalog) }
        try? FileManager.default.removeItem(at: scratch.appendingPathComponent("store.json"))
    }

    /// EXIF blocks (JPEG APP1, PNG eXIf, TIFF headers), the planner's capture-info probe and the memory
    /// budget's size probe, which both run in the batch parent on every input's first bytes.
    static func exif(_ data: Data) {
        _ = EXIFReader.read(data)
        _ = EXIFReader.readIFD0Ascii(data, tag: 0x010F)
        _ = CaptureInfoProbe.read(header: [UInt8](data))
        let url = file(data, "probe.bin")
        _ = CaptureInfoProbe.read(url)
        _ = ImageSizeProbe.pixels(at: url)
        _ = MemoryBudget.estimate(for: url)
        _ = CodecRegistry.decoder(for: data)
    }

    /// A DCP camera profile (or a DNG's IFD0 profile tags): read, then every step it holds run on awkward colours
    /// (negative, above 1, NaN, ±∞) at a white between and beyond its two illuminants.
    static func cameraProfile(_ data: Data) {
        guard let profile = try? CameraProfile.read([UInt8](data), file: "fuzz.dcp") else { return }
        _ = profile.summary
        let model = profile.colorModel(analogBalance: SIMD3(1, 1, 1))
        let colours: [SIMD3<Double>] = [SIMD3(0, 0, 0), SIMD3(0.2, 0.5, 0.9), SIMD3(-0.1, 2, 0.5), SIMD3(.nan, 0.5, 0.5),
                                        SIMD3(.infinity, -.infinity, 1), SIMD3(1, 1, 1)]
        for white in [SIMD2(0.4476, 0.4074), SIMD2(0.3457, 0.3585), SIMD2(0.25, 0.25)] {
            _ = model.cameraToXYZD50(neutral: model.neutral(at: white))
            let rendering = CameraProfileRendering(hueSatMap: profile.hueSatMap(at: white), exposureGain: 2,
                                                   lookTable: profile.lookTable, toneCurve: profile.toneCurve)
            for c in colours { _ = rendering.apply(c) }
        }
    }

    /// An embedded ICC profile as a JPEG or PNG carries it: opened, classified and linked for conversion.
    static func icc(_ data: Data) {
        for model in [ICCInput.Model.rgb, .gray, .cmyk] {
            let input = ICCInput.embedded(data, model: model, intent: .relative)
            let layout: DeviceRGBConverter.Layout = model == .rgb ? .rgb : model == .gray ? .gray : .cmyk(inverted: false)
            _ = try? input.converter(layout: layout, sixteenBit: false, intent: .perceptual)
        }
    }

    /// JPEG, PNG, TIFF, AVIF and JPEG XL bytes through the RGB decode path with a small pixel cap (a decompression bomb must be
    /// refused before allocation, not survive by luck).
    static func rgb(_ data: Data) {
        var options = DecodeOptions()
        options.maxPixels = 1 << 20
        _ = try? RGBDecoder.decode(data: data, options: options)
    }

    /// WebP and HEIF files: the header probes the batch parent runs on them (plain Swift over RIFF chunks and
    /// HEIF boxes), then the decode (libwebp, libheif) with the same pixel cap.
    static func container(_ data: Data) {
        let file = FileBytes(data)
        for codec in [WebPCodec(), HEIFCodec()] as [any ImageCodec] {
            _ = codec.matches(file)
            _ = codec.pixelCount(file)
            _ = codec.captureInfo(file)
            _ = codec.completeness(file)
        }
        rgb(data)
    }

    /// A file the long-lived watch process judges before converting (`FileCompleteness`, through pread), whole
    /// and cut in half as an upload in progress would be. A TIFF verdict must agree with the in-memory reading
    /// of the same bytes (`TIFFImageExtents` over a buffer), which the decoder uses.
    static func fileCompleteness(_ data: Data) {
        for bytes in [data, data.prefix(data.count / 2)] {
            let verdict = FileCompleteness.check(file(bytes, "upload.raw"))
            if case .incomplete(let reason) = verdict { precondition(!reason.isEmpty, "an incomplete verdict says why") }
            let head = [UInt8](bytes.prefix(4))
            guard head == [0x49, 0x49, 0x2A, 0x00] || head == [0x4D, 0x4D, 0x00, 0x2A] else { continue }
            let inMemory = bytes.withUnsafeBytes { TIFFImageExtents.read($0) }
            switch (verdict, inMemory) {
            case (.complete, let e?): precondition(e.dataEnd <= bytes.count, "complete, yet its structure reaches past the end")
            case (.incomplete, let e?): precondition(e.dataEnd > bytes.count, "incomplete, yet its structure lies inside")
            case (.unknown, nil): break
            default: preconditionFailure("FileCompleteness \(verdict) disagrees with the in-memory TIFF reading")
            }
        }
    }

    /// A line a worker sends its parent (a worker owned by a crafted file could send anything).
    static func workerReply(_ data: Data) {
        guard let reply = try? WorkerLine.decode(WorkerReply.self, from: data) else { return }
        _ = WorkerPool.acceptedRSS(reply.maxRSSKiB, previous: Int.max / 2)
        _ = WorkerPool.summedRSS([reply.maxRSSKiB, reply.maxRSSKiB, Int.max])
        var m = Manifest(tool: Manifest.ToolInfo(version: "fuzz", libraries: [:]), settings: ResolvedSettings(format: "tiff16", bitDepth: 16, colorSpace: "srgb", quality: nil, compression: nil, demosaic: "ahd", intent: "relative", background: "white", stripMetadata: false), host: "fuzz", startedAt: Date())
        m.entries = [reply.entry, reply.entry]
        m.updateSummary()
        _ = try? m.encoded()
    }

    /// A lossless-JPEG tile stream into LightWork's decoder (lw_ljpeg_decode) twice: as a 32 × 32 tile inside a
    /// 64 × 64 mosaic, and as a 64-wide band at its bottom (samples past it fall off). The guard cells around the
    /// targets must stay untouched; the decoder reads only `data`. The first status is returned (seeds: 0).
    package static func ljpeg(_ data: Data) -> Int32 {
        let guardValue: UInt16 = 0xA5A5
        var mosaic = [UInt16](repeating: guardValue, count: 64 * 64)
        var first: Int32 = -1
        data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            mosaic.withUnsafeMutableBufferPointer { m in
                for (x0, y0, wrap, rows, bottom) in [(16, 8, 32, 32, Int32(0)), (0, 48, 64, 16, Int32(1))] {
                    var target = lw_ljpeg_target(raw: m.baseAddress, pitch: 64, width: 64, x0: Int32(x0), y0: Int32(y0), wrap: Int32(wrap),
                                                 rows: Int32(rows), reaches_bottom: bottom, dng_1_1: 1)
                    var result = lw_ljpeg_result()
                    let status = lw_ljpeg_decode(bytes.baseAddress ?? UnsafePointer(bitPattern: 1)!, bytes.count, &target, &result)
                    if first < 0 { first = status }
                    precondition(result.end <= bytes.count, "the decoder reports reading past the stream")
                }
            }
        }
        // Outside both targets nothing may change.
        for y in 0..<64 { for x in 0..<64 where !((16..<48).contains(x) && (8..<40).contains(y)) && y < 48 {
            precondition(mosaic[y * 64 + x] == guardValue, "the decoder wrote outside its tile at \(x), \(y)")
        } }
        return first
    }
}
