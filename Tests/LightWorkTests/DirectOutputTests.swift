import CShims
import Foundation
import XCTest
@testable import LightWork

/// Large TIFFs written past the page cache (`lw_direct_writer`, `TIFFFileSink(directIO:)`) and hashed by reading
/// them back the same way (`SHA256.hex(fileDescriptor:direct:)`): the file's bytes are those of an ordinary write
/// for every layout, the recorded digest is coreutils' `sha256sum` of the file, and the pages really are not
/// left in the page cache where the file system takes O_DIRECT (or are, where it falls back).
final class DirectOutputTests: XCTestCase {
    /// Whether files in `dir` take O_DIRECT at all.
    private func directIOWorks(in dir: URL) throws -> Bool {
        let probe = dir.appendingPathComponent("probe")
        let fd = open(probe.path, O_RDWR | O_CREAT | O_TRUNC, 0o644)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd); unlink(probe.path) }
        return lw_set_direct_io(fd, 1) == 0
    }

    /// The share of `url`'s pages in the page cache (mincore of a mapping of it).
    private func residentShare(_ url: URL) throws -> Double {
        let fd = open(url.path, O_RDONLY)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        var st = stat()
        XCTAssertEqual(fstat(fd, &st), 0)
        let size = Int(st.st_size), page = Int(sysconf(Int32(_SC_PAGESIZE)))
        guard let map = mmap(nil, size, PROT_READ, MAP_SHARED, fd, 0), map != MAP_FAILED else {
            XCTFail("cannot map \(url.path)"); return 1
        }
        defer { munmap(map, size) }
        var vector = [UInt8](repeating: 0, count: (size + page - 1) / page)
        XCTAssertEqual(mincore(map, size, &vector), 0)
        return Double(vector.filter { $0 & 1 != 0 }.count) / Double(vector.count)
    }

    /// coreutils' digest of a file: a reference that shares no code with LightWork's.
    private func sha256sum(_ url: URL) throws -> String {
        let p = Process(), pipe = Pipe()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        p.arguments = [url.path]
        p.standardOutput = pipe
        try p.run()
        let out = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: out, as: UTF8.self).split(separator: " ").first.map(String.init) ?? ""
    }

    /// A 2000 × 1500 16-bit TIFF is 18 MB (two full 8 MiB windows and a tail), 8-bit 9 MB (one and a tail); with
    /// EXIF the sub-directories are written at an offset before the strips. Every compression, direct and not.
    func testDirectTIFFIsTheOrdinaryTIFFAndItsDigestIsTheFiles() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let direct = try directIOWorks(in: dir)
        let image = FilterTestSupport.scene(width: 2000, height: 1500)
        let renderer = Renderer(chain: [], engine: EngineConfiguration(threads: 2))
        let context = RenderContext(width: image.width, height: image.height, seed: 4)
        let exif = EXIFWriter.blob(for: EXIFWriterTests.full)
        for depth in [EncodedPixels.Depth.eight, .sixteen] {
            let output = OutputSpec(space: .srgb, depth: depth, keepAlpha: false)
            for compression in TIFFCompression.allCases {
                var settings = EncodeSettings(format: depth == .eight ? .tiff8 : .tiff16)
                settings.tiffCompression = compression
                settings.iccProfile = ICCProfile.embedded(for: .srgb)
                settings.exif = exif
                let label = "\(depth), \(compression)"
                let a = dir.appendingPathComponent("cached-\(depth)-\(compression).tif")
                let b = dir.appendingPathComponent("direct-\(depth)-\(compression).tif")
                let cached = try TIFFWriter(directIO: false).write(rows: renderer.rows(image, context: context, output: output), settings: settings, to: a)
                var hashedAsWritten: AtomicFile.Written?
                let written = try AtomicFile.write(to: b) { out in
                    try TIFFWriter(directIO: true).encode(rows: renderer.rows(image, context: context, output: output), settings: settings, to: out)
                    hashedAsWritten = out.written.withLock { $0.hashed }
                }
                // Uncompressed, libtiff's directory offset is known before the strips: the writer hashes the file as
                // it writes it and nothing reads it back. Compressed, only a file within one window is (the header
                // patched before any of it was hashed); the others are read back. Either way the digest is the file's.
                if compression == .none { XCTAssertNotNil(hashedAsWritten, "\(label): hashed as written") }
                if let hashedAsWritten { XCTAssertEqual(hashedAsWritten, written, label) }
                if compression == .none {
                    // Before anything here reads the files: all but the header block and the tail of the direct one
                    // bypassed the cache, write and read-back alike.
                    let share = try residentShare(b)
                    if direct { XCTAssertLessThan(share, 0.1, "\(label): \(Int(share * 100)) % of the direct file is cached") }
                    else { XCTAssertGreaterThan(share, 0.9, "\(label): the fallback writes through the cache") }
                    XCTAssertGreaterThan(try residentShare(a), 0.9, "\(label): an ordinary write leaves the file cached")
                }
                XCTAssertEqual(try Data(contentsOf: a), try Data(contentsOf: b), label)
                XCTAssertEqual(written.sha256, try sha256sum(b), label)
                XCTAssertEqual(cached.sha256, written.sha256, label)
            }
        }
    }

    /// The writer against a model of the file, with a window of three blocks: appends and header patches alone (as
    /// libtiff writes), then also writes inside the window, patches before it, a write straddling its start, a read, a gap past the end, and a file that
    /// begins mid-block (written normally from the start); then appends and gaps with a promised header patch, kept
    /// and broken. Where the writer has a digest it is coreutils' of the file.
    func testWriterKeepsTheBytesOfEveryWriteOrder() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let block = Int(LW_DIRECT_ALIGN)
        var seed: UInt64 = 0x5eed
        func next(_ n: Int) -> Int { seed = seed &* 6364136223846793005 &+ 1442695040888963407; return Int((seed >> 33) % UInt64(n)) }
        for scenario in 0..<6 {
            let url = dir.appendingPathComponent("model-\(scenario).bin")
            let fd = open(url.path, O_RDWR | O_CREAT | O_TRUNC, 0o644)
            XCTAssertGreaterThanOrEqual(fd, 0)
            defer { close(fd) }
            var model = [UInt8]()
            if scenario == 3 {
                model = [UInt8](repeating: 7, count: 100)
                XCTAssertEqual(model.withUnsafeBytes { pwrite(fd, $0.baseAddress, 100, 0) }, 100)
            }
            guard let w = lw_direct_writer_new(fd, 3 * block) else { return XCTFail("no writer") }
            defer { lw_direct_writer_free(w) }
            // Scenarios 4 and 5 write as libtiff does with a promised header patch: 4 keeps the promise, 5 breaks it.
            let promised: [UInt8] = [1, 2, 3, 4]
            if scenario >= 4 { promised.withUnsafeBytes { lw_direct_writer_expect(w, 4, $0.baseAddress, 4) } }
            func put(_ bytes: [UInt8], at offset: Int) {
                XCTAssertEqual(bytes.withUnsafeBytes { lw_direct_writer_pwrite(w, $0.baseAddress, bytes.count, Int64(offset)) }, 0)
                if model.count < offset + bytes.count { model += [UInt8](repeating: 0, count: offset + bytes.count - model.count) }
                model.replaceSubrange(offset..<(offset + bytes.count), with: bytes)
            }
            func bytes(_ n: Int) -> [UInt8] { (0..<n).map { _ in UInt8(truncatingIfNeeded: next(256)) } }
            for step in 0..<60 {
                let end = model.count
                switch (scenario, step % 6) {
                case (4, 4) where step == 58: put(promised, at: 4)                                  // the promise kept
                case (5, 4) where step == 58: put([9, 9, 9, 9], at: 4)                              // the promise broken
                case (4, 3), (5, 3): put(bytes(10), at: end + next(3 * block))                        // a gap in or past the window
                case (4, _), (5, _): put(bytes(1 + next(2 * block)), at: end)                         // appends
                case (0, 4): put(bytes(4), at: 4)                                                     // libtiff's order:
                case (0, _), (_, 0), (_, 1), (_, 2): put(bytes(1 + next(2 * block)), at: end)               // appends
                case (_, 3): put(bytes(8), at: next(max(1, end - 8)))                                  // anywhere before the end
                case (1, 4) where step == 40:                                                          // a read drains
                    var back = [UInt8](repeating: 0, count: 16)
                    XCTAssertEqual(back.withUnsafeMutableBytes { lw_direct_writer_pread(w, $0.baseAddress, 16, 0) }, 16)
                    XCTAssertEqual(back, Array(model[0..<16]))
                case (2, 4) where step == 34: put(bytes(10), at: end + 5000)                          // a gap past the end
                case (_, 4): put(bytes(4), at: 4)                                                     // the header patch
                default: put(bytes(block + next(block)), at: max(0, end - block / 2))                 // straddling the end
                }
                XCTAssertEqual(lw_direct_writer_size(w), Int64(model.count))
            }
            XCTAssertEqual(lw_direct_writer_finish(w), 0)
            XCTAssertEqual([UInt8](try Data(contentsOf: url)), model, "scenario \(scenario)")
            // A digest of the writer's, where it has one, is the file's; with every write in order it has one.
            var digest = [UInt8](repeating: 0, count: 32)
            var length: Int64 = 0
            if lw_direct_writer_digest(w, &digest, &length) == 1 {
                XCTAssertEqual(SHA256.hex(digest: digest), try sha256sum(url), "scenario \(scenario)")
                XCTAssertEqual(length, Int64(model.count), "scenario \(scenario)")
            } else {
                XCTAssertNotEqual(scenario, 4, "appends, gaps and the promised patch keep the digest")
            }
            if scenario == 5 { XCTAssertEqual(lw_direct_writer_digest(w, &digest, &length), 0, "a broken promise leaves no digest") }
            if scenario == 3 { XCTAssertEqual(lw_direct_writer_wrote_direct(w), 0, "a file that starts mid-block is written normally") }
            if scenario == 0, try directIOWorks(in: dir) { XCTAssertEqual(lw_direct_writer_wrote_direct(w), 1) }
        }
    }

    /// A writer's digest stands only for a file of the size it hashed: here it claims two bytes of a three-byte file,
    /// and the file is read back and hashed instead.
    func testWritersDigestOfAnotherSizeIsNotTrusted() throws {
        let url = try TestPaths.temporaryDirectory(self).appendingPathComponent("abc.bin")
        let written = try AtomicFile.write(to: url) { out in
            try out.write(Data("abc".utf8))
            out.markWritten(direct: false, hashed: AtomicFile.Written(size: 2, sha256: String(repeating: "0", count: 64)))
        }
        XCTAssertEqual(written, AtomicFile.Written(size: 3, sha256: try sha256sum(url)))
    }

    /// Nor after a write through the output that follows it, even one that keeps the size: here "abc" is hashed as
    /// written, then overwritten with "xyz", and the digest is the file's.
    func testWritersDigestIsDroppedByALaterWrite() throws {
        let url = try TestPaths.temporaryDirectory(self).appendingPathComponent("xyz.bin")
        let written = try AtomicFile.write(to: url) { out in
            try out.write(Data("abc".utf8))
            out.markWritten(direct: false, hashed: AtomicFile.Written(size: 3, sha256: SHA256.hex(Data("abc".utf8))))
            XCTAssertEqual(lseek(out.fileDescriptor, 0, SEEK_SET), 0)
            try out.write(Data("xyz".utf8))
        }
        XCTAssertEqual(try Data(contentsOf: url), Data("xyz".utf8))
        XCTAssertEqual(written, AtomicFile.Written(size: 3, sha256: try sha256sum(url)))
    }

    /// The direct read-back's digest is coreutils' for sizes around its 8 MiB chunks and the block size.
    func testDirectDigestOfEverySizeIsTheFiles() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let chunk = 8 << 20
        for size in [0, 1, 4095, 4096, 4097, chunk - 1, chunk, chunk + 1, 2 * chunk + 12_345] {
            let url = dir.appendingPathComponent("f-\(size).bin")
            let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }
            try Data(bytes).write(to: url)
            let fd = open(url.path, O_RDONLY)
            XCTAssertGreaterThanOrEqual(fd, 0)
            defer { close(fd) }
            let direct = try SHA256.hex(fileDescriptor: fd, direct: true)
            XCTAssertEqual(direct.size, size)
            XCTAssertEqual(direct.hex, try sha256sum(url), "size \(size)")
            XCTAssertEqual(fcntl(fd, F_GETFL) & 0o40000, 0, "the descriptor is left without O_DIRECT")
        }
    }
}
