import Foundation
import XCTest
@testable import LightWork

/// Geometry as LibRaw defines it (issue 19, item 1): all eight EXIF orientations on LightWork's own AHD and on
/// LibRaw's demosaics, non-square pixels stretched to `dcraw_emu`'s size and picture, and every 2×2 CFA layout.
/// The files are generated (`lightwork-tools make-sample-dng`, tags edited by exiftool), so their truth is known.
final class RawGeometryTests: XCTestCase {
    /// The two decode paths every geometry must hold on: LightWork's AHD (`BayerDemosaic`) and a LibRaw demosaic.
    static let paths: [DecodeOptions.Demosaic] = [.ahd, .vng]

    static func options(_ demosaic: DecodeOptions.Demosaic, colorModel: DecodeOptions.ColorModel = .dng) -> DecodeOptions {
        var o = DecodeOptions()
        o.demosaic = demosaic
        o.colorModel = colorModel
        return o
    }

    // MARK: orientation

    /// Where the stored image's first row and first column lie in the upright picture, as the EXIF specification
    /// words each orientation (independent of `Orientation.sourceCoordinate`, which it checks).
    enum Side { case top, bottom, left, right }
    static let exifSides: [Int: (row0: Side, column0: Side)] = [
        1: (.top, .left), 2: (.top, .right), 3: (.bottom, .right), 4: (.bottom, .left),
        5: (.left, .top), 6: (.right, .top), 7: (.right, .bottom), 8: (.left, .bottom),
    ]

    /// The upright position of stored pixel (column c, row r) of a stored `w × h` image under EXIF orientation `o`.
    static func uprightPosition(c: Int, r: Int, w: Int, h: Int, orientation o: Int) -> (x: Int, y: Int) {
        let (row0, column0) = exifSides[o]!
        switch row0 {
        case .top, .bottom:     // rows stay rows
            return (column0 == .left ? c : w - 1 - c, row0 == .top ? r : h - 1 - r)
        case .left, .right:     // rows become columns
            return (row0 == .left ? r : h - 1 - r, column0 == .top ? c : w - 1 - c)
        }
    }

    /// A DNG in each of the eight orientations (the same stored data, only the tag differs) decodes to exactly the
    /// upright render turned as EXIF says: every half-float of every pixel equal, on both decode paths.
    func testEveryOrientationIsAnExactPermutationOfTheUprightRender() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let base = dir.appendingPathComponent("o1.dng")
        try Self.makeSample(base, ["--width", "360", "--height", "240", "--seed", "5"])
        for demosaic in Self.paths {
            let upright = try RawDecoder.decode(url: base, options: Self.options(demosaic))
            XCTAssertEqual(upright.metadata.orientation, 1)
            let (w, h) = (upright.image.width, upright.image.height)
            XCTAssertEqual([w, h], [360, 240])
            var failed: [Int] = []
            for o in 1...8 {
                let file = dir.appendingPathComponent("o\(o)-\(demosaic.rawValue).dng")
                try? FileManager.default.removeItem(at: file)
                try FileManager.default.copyItem(at: base, to: file)
                try Self.exiftool(["-n", "-IFD0:Orientation=\(o)", "-overwrite_original", file.path])
                let decoded = try RawDecoder.decode(url: file, options: Self.options(demosaic))
                XCTAssertEqual(decoded.metadata.orientation, o, "\(demosaic) orientation \(o): decoded metadata")
                let img = decoded.image
                let swapped = o >= 5
                XCTAssertEqual([img.width, img.height], swapped ? [h, w] : [w, h], "\(demosaic) orientation \(o): size")
                guard [img.width, img.height] == (swapped ? [h, w] : [w, h]) else { failed.append(o); continue }
                var mismatches = 0
                for r in 0..<h {
                    for c in 0..<w {
                        let (x, y) = Self.uprightPosition(c: c, r: r, w: w, h: h, orientation: o)
                        let a = upright.image.storage + 4 * (r * w + c), b = img.storage + 4 * (y * img.width + x)
                        if a[0] != b[0] || a[1] != b[1] || a[2] != b[2] || a[3] != b[3] { mismatches += 1 }
                    }
                }
                print("orientation \(o) (\(demosaic.rawValue)): \(img.width)x\(img.height), \(mismatches) of \(w * h) pixels differ from the upright render turned")
                XCTAssertEqual(mismatches, 0, "\(demosaic) orientation \(o): the decode is not the upright render turned")
                if mismatches != 0 { failed.append(o) }
            }
            print("\(demosaic.rawValue): orientations wrong: \(failed)")
        }
    }

    // MARK: helpers

    /// Runs `lightwork-tools make-sample-dng -o url` with `arguments`.
    static func makeSample(_ url: URL, _ arguments: [String]) throws {
        let tools = CLIRunner.binary.deletingLastPathComponent().appendingPathComponent("lightwork-tools")
        let r = try run(tools.path, ["make-sample-dng", "-o", url.path] + arguments)
        XCTAssertEqual(r.status, 0, "make-sample-dng \(arguments.joined(separator: " ")): \(r.stderr)")
    }

    /// Runs exiftool (installed by `scripts/ensure-deps.sh --test`); fails loudly when it is missing.
    static func exiftool(_ arguments: [String]) throws {
        let r = try run("/usr/bin/exiftool", arguments)
        XCTAssertEqual(r.status, 0, "exiftool \(arguments.joined(separator: " ")): \(r.stderr)")
    }

    static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, stdout: Data, stderr: String) {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            XCTFail("\(executable) is missing: run scripts/ensure-deps.sh --test")
            throw LightWorkError.usage("\(executable) missing")
        }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let errBox = LockedBox(Data())
        let group = DispatchGroup()
        group.enter()
        let reader = err.fileHandleForReading
        DispatchQueue.global().async { let d = reader.readDataToEndOfFile(); errBox.withLock { $0 = d }; group.leave() }
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        p.waitUntilExit()
        return (p.terminationStatus, stdout, String(decoding: errBox.withLock { $0 }, as: UTF8.self))
    }
}
