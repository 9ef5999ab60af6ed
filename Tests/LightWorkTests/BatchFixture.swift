import Foundation
import XCTest
@testable import LightWork

/// A folder of real and generated inputs with one corrupt file, and the checks batch tests share.
enum BatchFixture {
    /// The corrupt input's relative path (a real CRW cut after 40 KB: LibRaw cannot identify it).
    static let corrupt = "broken.crw"

    /// Builds `dir/in`: three real camera files (unless `real` is false), the sample scene and its sRGB PNG,
    /// `generated` synthetic DNGs of different content (seeds 11, 12…; 400×300, every other one in a
    /// subfolder) and the corrupt file.
    static func inputs(in dir: URL, generated: Int = 2, real: Bool = true) throws -> URL {
        let raw = try TestPaths.sharedSamples("raw")
        let input = dir.appendingPathComponent("in")
        let sub = input.appendingPathComponent("sub")
        try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
        let fm = FileManager.default
        for name in ["kodak-dc50.kdc", "lg-g4-h815-lossy-linear.dng", "canon-powershot-g2.crw"] where real {
            try fm.copyItem(at: raw.appendingPathComponent(name), to: input.appendingPathComponent(name))
        }
        try fm.copyItem(at: SampleSceneTests.samples.appendingPathComponent("scene.dng"), to: input.appendingPathComponent("scene.dng"))
        try fm.copyItem(at: SampleSceneTests.samples.appendingPathComponent("scene-srgb.png"), to: sub.appendingPathComponent("scene-srgb.png"))
        let crw = try Data(contentsOf: raw.appendingPathComponent("canon-eos-d30.crw"))
        try crw.prefix(40_000).write(to: input.appendingPathComponent(corrupt))
        for i in 0..<generated {
            let folder = i % 2 == 0 ? input : sub
            try makeDNG(folder.appendingPathComponent("gen-\(i + 1).dng"), seed: 11 + i)
        }
        return input
    }

    /// A synthetic 400×300 DNG from `lightwork-tools make-sample-dng`.
    static func makeDNG(_ url: URL, seed: Int, width: Int = 400, height: Int = 300) throws {
        let tools = CLIRunner.binary.deletingLastPathComponent().appendingPathComponent("lightwork-tools")
        guard FileManager.default.isExecutableFile(atPath: tools.path) else { throw XCTSkip("lightwork-tools not built at \(tools.path)") }
        let p = Process()
        p.executableURL = tools
        p.arguments = ["make-sample-dng", "-o", url.path, "--seed", String(seed), "--width", String(width), "--height", String(height)]
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0, "make-sample-dng --seed \(seed)")
    }

    /// The image files a folder walk of `input` finds (what the batch converts).
    static func inputCount(_ input: URL) -> Int { InputWalker.items(for: [input.path]).count }

    static func manifest(_ url: URL) throws -> Manifest { try Manifest.decode(Data(contentsOf: url)) }

    /// The manifest without what legitimately differs between runs: timings, host, start and end times.
    static func normalized(_ m: Manifest) -> Manifest {
        var m = m
        m.host = ""
        m.startedAt = ""
        m.finishedAt = m.finishedAt == nil ? nil : ""
        m.entries = m.entries.map { e in
            var e = e
            e.timings = [:]
            // Which files a run found (inodes, mtimes) and how a re-run checked them are not what it produced.
            e.input.signature = nil
            e.output?.signature = nil
            e.resumeCheck = nil
            return e
        }
        return m
    }

    /// Every file under `dir` whose name marks it as an AtomicFile temporary.
    static func temporaries(under dir: URL) -> [String] {
        let e = FileManager.default.enumerator(atPath: dir.path)
        var out: [String] = []
        while let p = e?.nextObject() as? String {
            if (p as NSString).lastPathComponent.contains(".lwtmp-") { out.append(p) }
        }
        return out
    }

    /// Output files under `dir` (manifests and the ledger's folder excluded), relative path → SHA-256.
    static func outputDigests(under dir: URL) throws -> [String: String] {
        var out: [String: String] = [:]
        let e = FileManager.default.enumerator(atPath: dir.path)
        while let p = e?.nextObject() as? String {
            if p == ExportLedger.folderName { e?.skipDescendants(); continue }
            let url = dir.appendingPathComponent(p)
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDir), !isDir.boolValue,
                  !(p as NSString).lastPathComponent.hasPrefix("manifest"),
                  !(p as NSString).lastPathComponent.hasPrefix(".manifest"), !p.hasPrefix(OutputLock.folderName + "/") else { continue }
            out[p] = try SHA256.hex(fileAt: url)
        }
        return out
    }

    /// Every converted or skipped entry's output exists, decodes, has the recorded size and SHA-256.
    static func assertOutputsValid(_ m: Manifest, in dir: URL, file: StaticString = #filePath, line: UInt = #line) throws {
        for e in m.entries where e.status != .failed {
            let out = try XCTUnwrap(e.output, "\(e.input.relativePath) has no output record", file: file, line: line)
            let url = dir.appendingPathComponent(out.path)
            let image = try ImageFileReader.read(url)
            XCTAssertEqual(image.width, out.width, out.path, file: file, line: line)
            XCTAssertEqual(image.height, out.height, out.path, file: file, line: line)
            XCTAssertEqual(try SHA256.hex(fileAt: url), out.sha256, out.path, file: file, line: line)
        }
    }

    /// Modification times of the output files, relative path → time.
    static func modificationTimes(under dir: URL) throws -> [String: Date] {
        var out: [String: Date] = [:]
        for p in try outputDigests(under: dir).keys {
            out[p] = try FileManager.default.attributesOfItem(atPath: dir.appendingPathComponent(p).path)[.modificationDate] as? Date
        }
        return out
    }

    /// Polls until the manifest at `url` lists at least `entries` entries (or `seconds` pass).
    static func waitForManifest(_ url: URL, entries: Int, seconds: Double) -> Manifest? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let m = try? manifest(url), m.entries.count >= entries { return m }
            usleep(20_000)
        }
        return nil
    }
}
