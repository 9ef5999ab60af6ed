import Foundation
import XCTest
@testable import LightWork

/// LightWork with a DCP from Debian's rawtherapee-data against rawtherapee-cli with the same DCP and the same
/// profile steps, on generated ColorChecker DNGs whose camera names the DCP's model (docs/camera-profiles.md has
/// the table this prints). Both render to 16-bit sRGB TIFF with no other development (base tone linear, no
/// curves, sharpening or highlight recovery); each patch's centre is read as CIELAB through the file's own ICC
/// profile and the two files compared by CIEDE2000.
final class CameraProfileConformanceTests: XCTestCase {
    struct Case {
        let name: String
        let dcp: String
        /// MAKE:MODEL:UNIQUECAMERAMODEL for make-sample-dng --camera.
        let camera: String
        let illuminant: String
        /// Whether rawtherapee-cli is known to blend this profile's two HueSatMaps differently from the
        /// specification (it weights them by its own white-balance temperature, not by the white the ColorMatrices
        /// give, dcp.cc `makeHueSatMap`): the case is then held to `deviationLimit` and its control, the same DCP with
        /// HueSatMapData2 replaced by Data1 (so no weight matters), to the target.
        var rawTherapeeDeviates = false
        /// The mean limit of the case's own rows (its controls are held to `agreementMeanLimit`).
        var meanLimit = CameraProfileConformanceTests.agreementMeanLimit
        var maxLimit = CameraProfileConformanceTests.agreementMaxLimit
    }

    static let cases = [
        Case(name: "D300 D65", dcp: "NIKON D300.dcp", camera: "NIKON CORPORATION:NIKON D300:Nikon D300", illuminant: "D65"),
        Case(name: "D300 A", dcp: "NIKON D300.dcp", camera: "NIKON CORPORATION:NIKON D300:Nikon D300", illuminant: "A", rawTherapeeDeviates: true,
             meanLimit: deviationMeanLimit, maxLimit: targetMaxLimit),
        Case(name: "D300 D50", dcp: "NIKON D300.dcp", camera: "NIKON CORPORATION:NIKON D300:Nikon D300", illuminant: "D50", rawTherapeeDeviates: true,
             meanLimit: targetMeanLimit, maxLimit: 1.0),
        Case(name: "450D D55 (3-D HueSatMap)", dcp: "Canon EOS 450D.dcp", camera: "Canon:Canon EOS 450D:Canon EOS 450D", illuminant: "D55"),
        Case(name: "5D II D65 (no LookTable)", dcp: "Canon EOS 5D Mark II.dcp", camera: "Canon:Canon EOS 5D Mark II:Canon EOS 5D Mark II", illuminant: "D65"),
    ]

    /// The conformance target of issue #26 (the D50 rows' mean, where rawtherapee-cli's blend weight differs a
    /// little: measured mean 0.18, max 0.37, the max held to 1.0).
    static let targetMeanLimit = 0.5, targetMaxLimit = 2.0
    /// Where the two agree (no blend weight matters: D65, D55, 5D II and the controls): a few times the measured
    /// worst, mean 0.02 and max 0.08, which is the 16-bit output's rounding.
    static let agreementMeanLimit = 0.1, agreementMaxLimit = 0.3
    /// Where rawtherapee-cli deviates from the specification under light A (`Case.rawTherapeeDeviates`): twice the
    /// measured worst mean (0.62, look off and tone on); its max (1.41) is held to the target.
    static let deviationMeanLimit = 1.2

    func testAgreesWithRawTherapeeUsingTheSameDCP() throws {
        let rawTherapee = try CodecTools.path("rawtherapee-cli")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("lw-dcp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let tools = CLIRunner.binary.deletingLastPathComponent().appendingPathComponent("lightwork-tools")
        var table = ["| case | look | tone | ΔE00 mean | ΔE00 max | worst patch |", "|---|---|---|---|---|---|"]
        for c in Self.cases {
          let shipped = try CameraProfileTests.shippedDCP(c.dcp)
          let stem = c.name.filter { $0.isLetter || $0.isNumber }
          let dng = dir.appendingPathComponent("\(stem).dng"), truthURL = dir.appendingPathComponent("\(stem).truth.json")
          let made = try CLIRunner.capture(tools, ["make-sample-dng", "-o", dng.path, "--width", "768", "--height", "512", "--seed", "3",
                                                   "--illuminant", c.illuminant, "--camera", c.camera, "--truth", truthURL.path])
          XCTAssertEqual(made.status, 0, String(decoding: made.stderr, as: UTF8.self))
          let truth = try ChartTruth.load(from: truthURL)
          let baseline = try RawDecoder.baselineExposure(url: dng, options: DecodeOptions())
          for control in c.rawTherapeeDeviates ? [false, true] : [false] {
            let dcp = control ? try Self.withFirstHueSatMapTwice(shipped, in: dir) : shipped
            let profile = try CameraProfile.read([UInt8](try Data(contentsOf: dcp)), file: c.dcp)
            let caseName = c.name + (control ? ", control: HueSatMap 1 twice" : "")
            if !control, profile.hueSatMaps.count == 2, let neutral = try Self.asShotNeutral(truthURL) {
                let white = profile.colorModel(analogBalance: SIMD3(1, 1, 1)).whitePoint(neutral: SIMD3(neutral[0], neutral[1], neutral[2]))
                print(String(format: "%@: white %.0f K by the DCP's ColorMatrices, HueSatMap 1 weight %.3f", c.name,
                             ColorTemperature(xy: white).kelvin, profile.weightOfFirst(at: white)))
            }
            let (meanLimit, maxLimit) = control ? (Self.agreementMeanLimit, Self.agreementMaxLimit) : (c.meanLimit, c.maxLimit)
            for look in profile.lookTable == nil ? [false] : [false, true] {
                for tone in profile.toneCurve == nil ? [false] : [false, true] {
                    let steps = "\(stem)\(control ? "-control" : "")-\(look ? "look" : "nolook")-\(tone ? "tone" : "notone")"
                    let ours = dir.appendingPathComponent("lw-\(steps)")
                    let run = try CLIRunner.run(["convert", dng.path, "-o", ours.path, "--format", "tiff16", "--tone", "linear",
                                                 "--camera-profile", dcp.path, "--profile-look", look ? "on" : "off",
                                                 "--profile-tone", tone ? "on" : "off", "--jobs", "1"])
                    XCTAssertEqual(run.status, 0, run.stderr)
                    let theirs = dir.appendingPathComponent("rt-\(steps).tif")
                    try Self.renderWithRawTherapee(rawTherapee, dng: dng, dcp: dcp, look: look, tone: tone, exposure: baseline, to: theirs, scratch: dir)
                    let lw = try Self.patchLab(ImageFileReader.read(ours.appendingPathComponent("\(stem).tif")), truth: truth)
                    let rt = try Self.patchLab(ImageFileReader.read(theirs), truth: truth)
                    let deltas = zip(lw, rt).map { CIE.deltaE2000($0, $1) }
                    let mean = deltas.reduce(0, +) / Double(deltas.count), worst = deltas.indices.max { deltas[$0] < deltas[$1] }!
                    table.append(String(format: "| %@ | %@ | %@ | %.2f | %.2f | %@ |", caseName, look ? "on" : "off", tone ? "on" : "off",
                                        mean, deltas[worst], truth.patches[worst].name))
                    XCTAssertLessThanOrEqual(mean, meanLimit, "\(caseName) look \(look) tone \(tone)")
                    XCTAssertLessThanOrEqual(deltas[worst], maxLimit, "\(caseName) look \(look) tone \(tone): \(truth.patches[worst].name)")
                }
            }
          }
        }
        print("camera-profile conformance against rawtherapee-cli \(try Self.rawTherapeeVersion(rawTherapee)):\n" + table.joined(separator: "\n"))
    }

    /// rawtherapee-cli with nothing but the DCP (its steps as asked), camera white balance and `exposure` EV (the
    /// DNG's BaselineExposure, which RawTherapee does not apply itself), to 16-bit sRGB TIFF.
    static func renderWithRawTherapee(_ tool: URL, dng: URL, dcp: URL, look: Bool, tone: Bool, exposure: Double, to output: URL, scratch: URL) throws {
        let pp3 = """
            [Exposure]
            Auto=false
            Compensation=\(String(format: "%.6f", exposure))
            Brightness=0
            Contrast=0
            Saturation=0
            Black=0
            HighlightCompr=0
            CurveMode=Standard
            Curve=0;
            Curve2=0;

            [HLRecovery]
            Enabled=false

            [White Balance]
            Enabled=true
            Setting=Camera

            [Sharpening]
            Enabled=false

            [Color Management]
            InputProfile=file:\(dcp.path)
            ToneCurve=\(tone)
            ApplyLookTable=\(look)
            ApplyBaselineExposureOffset=true
            ApplyHueSatMap=true
            DCPIlluminant=0
            WorkingProfile=ProPhoto
            WorkingTRC=none
            OutputProfile=RTv4_sRGB
            OutputProfileIntent=Relative
            OutputBPC=true

            [RAW]
            CA=false
            HotPixelFilter=false
            DeadPixelFilter=false

            [RAW Bayer]
            Method=amaze

            """
        let profile = scratch.appendingPathComponent(output.deletingPathExtension().lastPathComponent + ".pp3")
        try pp3.write(to: profile, atomically: true, encoding: .utf8)
        // Its own configuration folder, so nothing of the user's or another run's reaches the render.
        let home = scratch.appendingPathComponent("rt-home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let run = try CLIRunner.capture(tool, ["-o", output.path, "-p", profile.path, "-t", "-b16", "-Y", "-c", dng.path],
                                        environment: ["HOME": home.path, "XDG_CONFIG_HOME": home.path + "/.config"])
        guard run.status == 0, FileManager.default.fileExists(atPath: output.path) else {
            XCTFail("rawtherapee-cli failed: \(String(decoding: run.stderr, as: UTF8.self))")
            throw LightWorkError.missingTool("rawtherapee-cli")
        }
    }

    /// A copy of the DCP at `url` whose ProfileHueSatMapData2 holds Data1's values (same size), so a reader's choice
    /// of weight between the two maps changes nothing.
    static func withFirstHueSatMapTwice(_ url: URL, in dir: URL) throws -> URL {
        var bytes = [UInt8](try Data(contentsOf: url))
        let tiff = try XCTUnwrap(TIFFStructure(magic: .withCameraProfile, bytes))
        let ifd = try XCTUnwrap(tiff.directory(at: tiff.firstDirectory))
        let first = try XCTUnwrap(ifd[CameraProfile.Tag.hueSatData1]), second = try XCTUnwrap(ifd[CameraProfile.Tag.hueSatData2])
        XCTAssertEqual(first.count, second.count)
        let values = try XCTUnwrap(tiff.valueBytes(first))
        bytes.replaceSubrange(second.valueOffset..<(second.valueOffset + values.count), with: values)
        let copy = dir.appendingPathComponent("control-" + url.lastPathComponent)
        try Data(bytes).write(to: copy)
        return copy
    }

    /// The generator's AsShotNeutral, from the truth file's `camera` block.
    static func asShotNeutral(_ truth: URL) throws -> [Double]? {
        let root = try JSONSerialization.jsonObject(with: Data(contentsOf: truth)) as? [String: Any]
        let n = (root?["camera"] as? [String: Any])?["asShotNeutral"] as? [Double]
        return n?.count == 3 ? n : nil
    }

    static func rawTherapeeVersion(_ tool: URL) throws -> String {
        let out = try CLIRunner.capture(tool, ["-v"])
        return String(decoding: out.stdout, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? "?"
    }

    /// Each patch's centre area averaged in code values and read as CIELAB D50 through the file's profile. A file
    /// smaller by the same even border on every side (RawTherapee crops 4 pixels of a DNG's edge) is read inset.
    static func patchLab(_ file: ImageFile, truth: ChartTruth) throws -> [SIMD3<Double>] {
        let border = (truth.width - file.width) / 2
        guard border >= 0, border <= 8, file.width + 2 * border == truth.width, file.height + 2 * border == truth.height else {
            throw PixelComparison.Mismatch(description: "\(file.width)×\(file.height), the chart is \(truth.width)×\(truth.height)")
        }
        let reader = try ProfileLab(file)
        return truth.patches.map { p in
            let r = ChartTruth.Rect(x: p.centre.x - border, y: p.centre.y - border, w: p.centre.w, h: p.centre.h)
            var sum = SIMD3<Double>(0, 0, 0)
            for y in r.y..<(r.y + r.h) {
                for x in r.x..<(r.x + r.w) {
                    let i = (y * file.width + x) * file.channels
                    sum += SIMD3(Double(file.samples[i]), Double(file.samples[i + 1]), Double(file.samples[i + 2]))
                }
            }
            return reader.lab(sum / Double(r.w * r.h))
        }
    }
}
