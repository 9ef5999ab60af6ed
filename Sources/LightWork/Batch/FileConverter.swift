import Foundation

/// Converts one input file into one output file and describes what happened: the single
/// `convert(file, settings) -> ManifestEntry` function that batch, watch and verify are clients of.
public struct FileConverter: Sendable {
    /// What this converter does to every file.
    public let spec: ConvertSpec
    /// The threads (and CPU features) of every stage: decode, resize, render, encode.
    public let engine: EngineConfiguration
    private let renderer: Renderer
    private let decodeOptions: DecodeOptions
    /// The digest of the look alone (filters, film, strength): grain and dust are seeded from it, so the same
    /// recipe gives the same grain in every format, colour space and size, and in every release.
    private let seedDigest: String

    /// Loads the spec's film or LUT (refusing bytes other than those the spec names: `lookupChanged`) and builds
    /// its chain. `engine` (threads, CPU features) and `memoryLimit` (bytes one conversion may take, nil for none)
    /// belong to the process converting, not to the spec: they change no output byte.
    public init(spec: ConvertSpec, engine: EngineConfiguration = .detected, memoryLimit: Int? = nil) throws {
        self.spec = spec
        self.engine = engine
        renderer = Renderer(chain: try spec.look.chain(), engine: engine)
        var decode = DecodeOptions()
        decode.demosaic = spec.decode.demosaic
        decode.colorModel = spec.decode.colorModel
        decode.cameraProfile = spec.decode.cameraProfile
        decode.intent = spec.decode.intent
        decode.maxPixels = spec.decode.maxPixels
        decode.develop = spec.develop
        decode.memoryLimit = memoryLimit
        decode.keepsColourSamples = LosslessPath.mayPassThrough(renderer: renderer, develop: spec.develop)
        decodeOptions = decode
        seedDigest = FileConverter.lookDigest(spec.settings)
    }

    /// The output folder.
    public var outputDirectory: URL { spec.output.directory }
    /// The manifest's record of the spec (see `ConvertSpec.settings`).
    public var settings: ResolvedSettings { spec.settings }

    /// Where `item`'s output goes, relative to the output folder: the input's relative folder mirrored,
    /// its stem, the format's extension.
    public func relativeOutputPath(for item: InputItem) -> String {
        let rel = item.relativePath as NSString
        let dir = rel.deletingLastPathComponent
        let name = (rel.lastPathComponent as NSString).deletingPathExtension + "." + spec.export.format.fileExtension
        return dir.isEmpty ? name : dir + "/" + name
    }

    /// Decodes, renders and writes `item` under its default name; never throws: failures become a `failed`
    /// entry with a one-line reason.
    public func convert(_ item: InputItem) -> Manifest.Entry {
        convert(item, to: relativeOutputPath(for: item))
    }

    /// Converts a planned job: its output path, and its notes added to the entry's.
    public func convert(_ job: PlannedJob) -> Manifest.Entry {
        guard let output = job.outputPath else { return job.entry! }
        var entry = convert(job.item, to: output)
        entry.notes += job.notes
        return entry
    }

    /// Decodes, renders and writes `item` to `relative` (a path under the output folder, as the planner named it);
    /// with `preview`, also a small JPEG of the same pixels there (`PreviewImage`; a failed preview is a note only).
    public func convert(_ item: InputItem, to relative: String, preview: URL? = nil) -> Manifest.Entry {
        var entry = Manifest.Entry(input: Manifest.Input(path: item.displayPath, relativePath: item.relativePath), status: .failed)
        let clock = StageClock()
        do {
            // Taken before the read: a file rewritten while it converts has another signature by the next run.
            let signature = FileSignature.of(item.url.path).flatMap { $0.isSettled(at: Date()) ? $0 : nil }
            let input = try InputBytes(contentsOf: item.url)
            defer { input.release() }   // and kept until the conversion ends: views of its bytes live in it
            let data = input.data
            entry.input.size = data.count
            if signature?.size == data.count { entry.input.signature = signature }
            // Hashed on another core while LibRaw's single-threaded stages (unpack, scaling) run.
            let inputDigest = LockedBox<String?>(nil)
            let hashed = DispatchSemaphore(value: 0)
            input.readAsync { data in
                let hex = SHA256.hex(data)
                inputDigest.withLock { $0 = hex }
                hashed.signal()
            }
            // The credit, caption, rating and place the output carries (none under --strip-metadata), read from the
            // bytes before the decoder may give them back; a malformed sidecar fails the file after the decode's facts
            // are recorded (CarriedMetadata).
            let carriedOrError = Result { spec.export.stripMetadata ? nil
                : try CarriedMetadata.resolve(input: item.url, data: data, overrides: spec.export.metadata) }
            // From here `data` is not read: a RAW decode gives the bytes back after its unpack (`InputBytes`).
            // Without a resize between them, the output placement joins the scene's (one conversion to planes and back),
            // and a RAW decode may run them on its rows when they are per-pixel (DecodeOptions.developInDecode).
            let outputToo = spec.export.resize == nil
            var options = decodeOptions
            options.developInDecode = outputToo ? [.scene, .output] : [.scene]
            let decodedOrError = Result {
                try CodecRegistry.decoder(for: data).decode(data: data, url: item.url, options: options, engine: engine, inputDone: { input.release() })
            }
            hashed.wait()
            entry.input.sha256 = inputDigest.withLock { $0 }
            var decoded = try decodedOrError.get()
            entry.timings["decode"] = clock.lap()
            entry.input.kind = decoded.kind.rawValue
            entry.input.make = decoded.metadata.make
            entry.input.model = decoded.metadata.model
            entry.input.width = decoded.image.width
            entry.input.height = decoded.image.height
            entry.input.sourceProfile = decoded.sourceProfile
            entry.input.decisions = decoded.decisions
            entry.notes = decoded.notes
            let carried = try carriedOrError.get()
            if let sidecar = carried?.sidecar { entry.input.decisions = (entry.input.decisions ?? [:]).merging(["sidecar": sidecar]) { $1 } }
            entry.notes += carried?.notes ?? []

            // What changed the pixels after decoding (LosslessPath writes the decoder's samples when nothing did).
            var changes: [LosslessPath.Change] = renderer.filters.isEmpty ? [] : [.look]
            // The develop stage on the scene-referred image, before resizing (DevelopStage; nothing when all is off).
            var develop = DevelopContext(kind: decoded.kind, metadata: decoded.metadata, details: decoded.details, engine: engine)
            if let done = decoded.developContext {
                // The decode ran these placements' per-pixel modules on its rows: what they decided is this stage's.
                develop.decisions.merge(done.decisions) { $1 }
                develop.notes += done.notes
                changes.append(.develop)
            } else if let developed = try DevelopStage.run(outputToo ? [.scene, .output] : [.scene], settings: spec.develop, image: decoded.image,
                                                            overwriting: true, context: &develop) {
                decoded.image = developed
                changes.append(.develop)
                entry.timings["develop"] = clock.lap()
            }

            // Resized before the chain, so grain and dust sizes are relative to the output frame; the
            // full-size image is released as soon as the smaller one exists.
            if let resize = spec.export.resize {
                let image = decoded.image
                if let size = resize.targetSize(width: image.width, height: image.height) {
                    decoded.image = Resize.apply(image, width: size.width, height: size.height, engine: engine)
                    changes.append(.resize)
                    entry.timings["resize"] = clock.lap()
                } else {
                    entry.notes.append(resize.keptNote(width: image.width, height: image.height))
                }
            }

            if !outputToo, let sharpened = try DevelopStage.run([.output], settings: spec.develop, image: decoded.image, overwriting: true, context: &develop) {
                decoded.image = sharpened
                changes.append(.develop)
                entry.timings["develop-output"] = clock.lap()
            }
            if !develop.decisions.isEmpty { entry.input.decisions = (entry.input.decisions ?? [:]).merging(develop.decisions) { $1 } }
            entry.notes += develop.notes

            let export = spec.export
            let format = export.format
            let output = OutputSpec(space: export.colorSpace, depth: format.depth, keepAlpha: format.supportsAlpha, background: export.background)
            let image = decoded.image
            let context = RenderContext(width: image.width, height: image.height,
                                        seed: FileConverter.seed(inputSHA256: entry.input.sha256 ?? "", settingsDigest: seedDigest))
            let path = LosslessPath.decide(samples: decoded.samples, changes: changes, space: export.colorSpace, format: format,
                                           intent: spec.decode.intent)
            let writer = format.writer(engine: engine)
            // The output's pixels: the decoder's samples unchanged; rows a streaming writer has rendered as it writes
            // them (when nothing else needs them whole: no preview, no alpha carried from the decoder); or a finished
            // render.
            let produced: OutputPixels
            if case .passThrough = path, let samples = decoded.samples {
                produced = .finished(samples.encoded(depth: format.depth, keepAlpha: format.supportsAlpha))
            } else if preview == nil, !(decoded.samples?.hasAlpha ?? false), let streaming = writer as? any StreamingImageWriter {
                produced = .streamed(renderer.rows(image, context: context, output: output), streaming)
            } else {
                var rendered = renderer.render(image, context: context, output: output)
                // Alpha is carried exactly from the decoder's samples while the pixels keep their places.
                if let samples = decoded.samples, samples.hasAlpha, rendered.channels == 4, changes.allSatisfy(\.keepsPlaces) {
                    samples.writeAlpha(into: &rendered)
                }
                produced = .finished(rendered)
                entry.timings["render"] = clock.lap()
            }
            let pixels = produced.rows
            if decoded.kind == .rgb { entry.input.decisions = (entry.input.decisions ?? [:]).merging(["pixels": path.record]) { $1 } }

            var encode = export.encodeSettings
            encode.iccProfile = ICCProfile.embedded(for: export.colorSpace)
            var metadata = decoded.metadata
            metadata.pixelWidth = pixels.width
            metadata.pixelHeight = pixels.height
            metadata.colorSpaceIsSRGB = export.colorSpace == .srgb
            if let carried {
                metadata.descriptive = carried.descriptive
                encode.xmpPacket = try Exiv2Metadata.xmpPacket(for: carried.descriptive)
                encode.iptc = try Exiv2Metadata.iptc(for: carried.descriptive)
            }
            encode.exif = export.stripMetadata ? nil : EXIFWriter.blob(for: metadata, jpeg: format == .jpeg)
            let url: URL
            do { url = try ContainedPath.outputFile(relative, inside: outputDirectory) } catch {
                throw LightWorkError.writeFailed(error.reason)
            }
            let written = switch produced {
            case .finished(let finished): try writer.write(finished, settings: encode, to: url)
            case .streamed(let rows, let streaming): try streaming.write(rows: rows, settings: encode, to: url)
            }
            // Streamed, the render ran inside the write: "encode" then holds both.
            entry.timings["encode"] = clock.lap()
            if let preview, case .finished(let finished) = produced {
                do {
                    try PreviewImage.write(finished, space: export.colorSpace, metadata: decoded.metadata, to: preview)
                    // With a look, the monitor's before/after shows the same development without it.
                    if !renderer.filters.isEmpty {
                        try PreviewImage.writeBefore(image, renderWidth: pixels.width, renderHeight: pixels.height, output: output,
                                                     engine: engine, to: PreviewImage.beforeURL(for: preview))
                    }
                } catch {
                    entry.notes.append("no preview for the monitor: \(error)")
                }
            }

            entry.output = Manifest.Output(path: relative, sha256: written.sha256, size: written.size, format: format.rawValue,
                                           bitDepth: format.bitDepth, channels: pixels.channels, colorSpace: export.colorSpace.rawValue,
                                           width: pixels.width, height: pixels.height,
                                           signature: FileSignature.of(url.path).flatMap { $0.size == written.size ? $0 : nil })
            entry.status = .converted
        } catch let error as LightWorkError {
            entry.reason = error.description
            entry.failureKind = error.kind
        } catch {
            entry.reason = FileConverter.describe(error)
            entry.failureKind = .other
        }
        entry.timings["total"] = clock.total()
        return entry
    }

    /// Decodes by content: the codec whose signature matches (JPEG and PNG through the RGB path), anything else
    /// through LibRaw (`CodecRegistry.decoder(for:)`).
    public func decode(data: Data, url: URL) throws -> DecodedImage {
        try CodecRegistry.decoder(for: data).decode(data: data, url: url, options: decodeOptions, engine: engine)
    }

    /// `decode`, with `inputDone` run once the decoder will not read `data` again (`ImageCodec`).
    func decode(data: Data, url: URL, inputDone: @escaping @Sendable () -> Void) throws -> DecodedImage {
        try CodecRegistry.decoder(for: data).decode(data: data, url: url, options: decodeOptions, engine: engine, inputDone: inputDone)
    }

    /// What grain and dust depend on besides the input: the recipe's look, not how it is exported.
    static func lookDigest(_ settings: ResolvedSettings) -> String {
        struct Look: Encodable { let filters: [String: ResolvedSettings.FilterSetting]; let film: String?; let strength: Double? }
        let data = (try? CanonicalJSON.encode(Look(filters: settings.filters, film: settings.film, strength: settings.strength))) ?? Data()
        return SHA256.hex(data)
    }

    /// Grain and dust seed: from the input's content and the look, never from time or thread order.
    static func seed(inputSHA256: String, settingsDigest: String) -> UInt64 {
        let digest = SHA256.hex(Data((inputSHA256 + settingsDigest).utf8))
        return UInt64(digest.prefix(16), radix: 16) ?? 0
    }

    /// One line for a Foundation or system error.
    static func describe(_ error: Error) -> String {
        let ns = error as NSError
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return ns.localizedDescription.replacingOccurrences(of: "\n", with: " ")
    }
}

/// Wall-clock seconds per pipeline stage.
final class StageClock {
    private let start = DispatchTime.now()
    private var last = DispatchTime.now()

    func lap() -> Double {
        let now = DispatchTime.now()
        defer { last = now }
        return Double(now.uptimeNanoseconds - last.uptimeNanoseconds) / 1e9
    }

    func total() -> Double { Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9 }
}

/// What a conversion hands its writer: a finished buffer, or rows rendered as a streaming writer writes them.
private enum OutputPixels {
    case finished(EncodedPixels)
    case streamed(RenderedRows, any StreamingImageWriter)

    /// The pixels' size and layout, whichever they are.
    var rows: any OutputRows {
        switch self {
        case .finished(let pixels): return pixels
        case .streamed(let rows, _): return rows
        }
    }
}
