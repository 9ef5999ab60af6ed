import Foundation
import LightWork

/// `lightwork verify --against-libraw RAW...`: LightWork's decode of each file against LibRaw's `dcraw_emu`.
extension VerifyCommand {
    /// Options that belong to the suite modes only.
    static let suiteOnlyOptions = ["output", "junit", "html", "update", "case", "decode-hashes", "record-decode-hashes", "optional", "jobs"]

    /// Checks every file (one line each, then a summary); returns the exit status. Throws usage and setup errors.
    static func againstLibRaw(_ parsed: ParsedArguments) throws -> Int32 {
        if let other = suiteOnlyOptions.first(where: { parsed.has($0) || parsed.value($0) != nil }) {
            throw LightWorkError.usage("--\(other) does not go with --against-libraw")
        }
        guard !parsed.positionals.isEmpty else { throw LightWorkError.usage("--against-libraw needs the RAW files to check") }
        var decode = LibRawCrossCheck.decodeOptions
        if let d = parsed.value("demosaic") {
            guard let v = DecodeOptions.Demosaic(rawValue: d) else {
                throw LightWorkError.usage("--demosaic takes one of \(DecodeOptions.Demosaic.allCases.map(\.rawValue).joined(separator: ", ")), not '\(d)'")
            }
            decode.demosaic = v
        }
        if let m = parsed.value("color-model") {
            guard let v = DecodeOptions.ColorModel(rawValue: m) else {
                throw LightWorkError.usage("--color-model takes one of \(DecodeOptions.ColorModel.allCases.map(\.rawValue).joined(separator: ", ")), not '\(m)'")
            }
            decode.colorModel = v
        }
        let settings = LibRawCrossCheck.Settings(decode: decode)
        let engine = try EngineArguments.configuration(parsed)
        let json = parsed.value("json").map { URL(fileURLWithPath: $0) }
        let quiet = parsed.has("quiet")
        let tool = try LibRawCrossCheck.findDcrawEmu()
        let start = Date()
        var results: [LibRawCrossCheck.Result] = []
        for path in parsed.positionals {
            let t0 = Date()
            let result = try LibRawCrossCheck.check(URL(fileURLWithPath: path), settings: settings, dcrawEmu: tool, engine: engine)
            results.append(result)
            if !quiet || result.verdict != .agreed {
                print(line(result, path: path, seconds: Date().timeIntervalSince(t0)))
            }
        }
        let agreed = results.filter { $0.verdict == .agreed }.count
        let disagreed = results.filter { $0.verdict == .disagreed }.count
        let notCompared = results.count - agreed - disagreed
        print("\(results.count) file(s): \(agreed) agreed, \(disagreed) disagreed, \(notCompared) not compared"
              + " (LibRaw \(RawDecoder.libraryVersion): dcraw_emu \(LibRawCrossCheck.dcrawEmuArguments(for: settings.decode).joined(separator: " "));"
              + String(format: " %.1f s)", Date().timeIntervalSince(start)))
        if let json {
            let report = LibRawCrossCheckReport(libRawVersion: RawDecoder.libraryVersion, dcrawEmu: tool.path, settings: settings,
                                                agreed: agreed, disagreed: disagreed, notCompared: notCompared, results: results)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            do {
                try prepare(json)
                try AtomicFile.write(data: try encoder.encode(report), to: json)
            } catch {
                throw LightWorkError.writeFailed("\(json.path): \(error)")
            }
            print("results: \(json.path)")
        }
        return agreed == results.count ? 0 : 1
    }

    /// One file's verdict and figures on a line, each reason on a line below.
    static func line(_ r: LibRawCrossCheck.Result, path: String, seconds: Double) -> String {
        let tag = r.verdict == .agreed ? "AGREED" : r.verdict == .disagreed ? "DISAGREED" : "NOT-COMPARED"
        var s = "\(tag.padding(toLength: 12, withPad: " ", startingAt: 0)) \(path)"
        if let f = r.figures {
            s += "  \(f.lightWorkSize)" + (f.lightWorkSize == f.libRawSize ? "" : " (LibRaw \(f.libRawSize))")
            s += "  level " + zip(["R", "G", "B"], f.levelPercent).map { "\($0) " + String(format: "%+.2f %%", $1) }.joined(separator: " ")
            s += String(format: "  regions ΔL* mean %.2f max %.2f, ΔE00 mean %.2f max %.2f", f.regions.lightness.mean, f.regions.lightness.max,
                        f.regions.colour.mean, f.regions.colour.max)
            s += String(format: "  (other orientations ΔL* ≥ %.1f)", f.nearestOtherTransform.lightness.mean)
            if f.baselineExposure != 0 { s += String(format: "  BaselineExposure %+.2f EV taken out", f.baselineExposure) }
        }
        s += String(format: "  %.1f s", seconds)
        for m in r.messages { s += "\n             \(m)" }
        return s
    }
}

/// What `verify --against-libraw --json FILE` writes.
struct LibRawCrossCheckReport: Codable {
    var libRawVersion: String
    var dcrawEmu: String
    var settings: LibRawCrossCheck.Settings
    var agreed: Int
    var disagreed: Int
    var notCompared: Int
    var results: [LibRawCrossCheck.Result]
}
