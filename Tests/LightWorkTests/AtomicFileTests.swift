import Foundation
import XCTest
@testable import LightWork
#if canImport(Glibc)
import Glibc
#endif

final class AtomicFileTests: XCTestCase {
    private struct Boom: Error {}

    private func names(_ dir: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
    }

    func testWritesTheDataAndLeavesNothingElse() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let url = dir.appendingPathComponent("out.bin")
        try AtomicFile.write(data: Data("first".utf8), to: url)
        try AtomicFile.write(data: Data("second".utf8), to: url)
        XCTAssertEqual(try Data(contentsOf: url), Data("second".utf8))
        XCTAssertEqual(try names(dir), ["out.bin"])
    }

    func testTemporaryFileIsAHiddenSiblingUntilTheRename() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let url = dir.appendingPathComponent("photo.tif")
        try AtomicFile.write(to: url) { out in
            XCTAssertFalse(FileManager.default.fileExists(atPath: url.path), "nothing under the final name while writing")
            let name = URL(fileURLWithPath: out.temporaryPath).lastPathComponent
            XCTAssertTrue(name.hasPrefix(".photo.tif.lwtmp-\(getpid())-"), name)
            XCTAssertEqual(URL(fileURLWithPath: out.temporaryPath).deletingLastPathComponent().path, dir.path)
            try out.write(Data("x".utf8))
        }
        XCTAssertEqual(try names(dir), ["photo.tif"])
    }

    func testBodyFailureMidWriteKeepsTheEarlierFileAndRemovesTheTemporary() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let url = dir.appendingPathComponent("out.bin")
        try AtomicFile.write(data: Data("complete old file".utf8), to: url)
        XCTAssertThrowsError(try AtomicFile.write(to: url) { out in
            try out.write(Data(repeating: 7, count: 100_000))   // half the new content…
            throw Boom()                                          // …then the encoder fails
        }) { XCTAssertTrue($0 is Boom, "the body's error passes through: \($0)") }
        XCTAssertEqual(try Data(contentsOf: url), Data("complete old file".utf8))
        XCTAssertEqual(try names(dir), ["out.bin"])
    }

    func testBodyFailureWithoutEarlierFileLeavesNothing() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        XCTAssertThrowsError(try AtomicFile.write(to: dir.appendingPathComponent("a.jpg")) { out in
            try out.write(Data([1, 2, 3]))
            throw Boom()
        })
        XCTAssertEqual(try names(dir), [])
    }

    /// A writer failing inside the library (libjpeg refusing an oversized EXIF) leaves nothing either.
    func testEncoderFailureLeavesNothing() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let pixels = TestImages.gradient8(width: 16, height: 16, channels: 3)
        XCTAssertThrowsError(try AtomicFile.write(to: dir.appendingPathComponent("a.jpg")) { out in
            try out.write(Data([0xff, 0xd8]))
            try JPEGWriter().encode(pixels, settings: EncodeSettings(format: .jpeg, exif: Data(count: 70_000)), to: out)
        })
        XCTAssertEqual(try names(dir), [])
    }

    func testUnwritableFolderIsRefusedClearly() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let locked = dir.appendingPathComponent("locked")
        try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: false)
        XCTAssertEqual(chmod(locked.path, 0o555), 0)
        defer { chmod(locked.path, 0o755) }
        // Root ignores permission bits: act as "nobody" for the attempt.
        let asRoot = geteuid() == 0
        if asRoot { guard seteuid(65534) == 0 else { throw XCTSkip("running as root and cannot drop to nobody") } }
        var caught: Error?
        do { try AtomicFile.write(data: Data("x".utf8), to: locked.appendingPathComponent("out.png")) } catch { caught = error }
        if asRoot { XCTAssertEqual(seteuid(0), 0) }
        guard case LightWorkError.writeFailed(let message)? = caught as? LightWorkError else {
            return XCTFail("expected writeFailed, got \(String(describing: caught))")
        }
        XCTAssertTrue(message.contains("cannot create a file in \(locked.path)"), message)
        XCTAssertTrue(message.contains("Permission denied"), message)
        XCTAssertEqual(try names(locked), [])
    }

    func testMissingFolderIsRefusedClearly() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let url = dir.appendingPathComponent("no/such/folder/out.tif")
        XCTAssertThrowsError(try AtomicFile.write(data: Data("x".utf8), to: url)) { error in
            guard case LightWorkError.writeFailed(let m)? = error as? LightWorkError else { return XCTFail("\(error)") }
            XCTAssertTrue(m.contains("No such file or directory"), m)
        }
    }

    func testSymlinkAtTheFinalNameIsRefusedAndItsTargetUntouched() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let outside = try TestPaths.temporaryDirectory(self).appendingPathComponent("precious.txt")
        try Data("keep me".utf8).write(to: outside)
        let link = dir.appendingPathComponent("out.tif")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: outside)
        XCTAssertThrowsError(try AtomicFile.write(data: Data("x".utf8), to: link)) { error in
            guard case LightWorkError.writeFailed(let m)? = error as? LightWorkError else { return XCTFail("\(error)") }
            XCTAssertTrue(m.contains("symbolic link"), m)
        }
        XCTAssertEqual(try Data(contentsOf: outside), Data("keep me".utf8))
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: link.path), outside.path)
        XCTAssertEqual(try names(dir), ["out.tif"])
    }

    func testNewFilesFollowTheUmask() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let old = umask(0o027)
        defer { umask(old) }
        let url = dir.appendingPathComponent("a.bin")
        try AtomicFile.write(data: Data([1]), to: url)
        let mode = try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o640)
    }

    func testLongNamesStillGetATemporaryName() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let name = String(repeating: "é", count: 120) + ".tif"   // 244 bytes: the temporary name must be shortened
        let url = dir.appendingPathComponent(name)
        try AtomicFile.write(data: Data([1, 2]), to: url)
        XCTAssertEqual(try names(dir), [name])
    }

    /// A full disk (writes to /dev/full fail with ENOSPC) is reported as `.diskFull` by every writer,
    /// and the temporary file is removed.
    func testFullDiskIsReportedAsDiskFull() throws {
        guard FileManager.default.fileExists(atPath: "/dev/full") else { throw XCTSkip("/dev/full is not available") }
        let dir = try TestPaths.temporaryDirectory(self)
        let openFull: (String) -> Int32 = { path in
            let real = open(path, O_RDWR | O_CREAT | O_EXCL, 0o666)   // the temporary exists, as in a real run…
            if real >= 0 { close(real) }
            return open("/dev/full", O_RDWR)                          // …but every write hits a full disk
        }
        let rgb16 = TestImages.pattern(width: 300, height: 200, channels: 3, depth: .sixteen)
        let rgb8 = TestImages.gradient8(width: 300, height: 200, channels: 3)
        let cases: [(String, (AtomicFile.Output) throws -> Void)] = [
            ("data", { try $0.write(Data(count: 10)) }),
            ("tiff", { try TIFFWriter().encode(rgb16, settings: EncodeSettings(), to: $0) }),
            ("tiff deflate", { try TIFFWriter().encode(rgb16, settings: EncodeSettings(tiffCompression: .deflate), to: $0) }),
            ("jpeg", { try JPEGWriter().encode(rgb8, settings: EncodeSettings(format: .jpeg), to: $0) }),
            ("png", { try PNGWriter().encode(rgb8, settings: EncodeSettings(format: .png), to: $0) }),
        ]
        for (label, body) in cases {
            let url = dir.appendingPathComponent("out-\(label)")
            XCTAssertThrowsError(try AtomicFile.write(to: url, openingTemporary: openFull, body), label) { error in
                guard case LightWorkError.diskFull(let m)? = error as? LightWorkError else { return XCTFail("\(label): \(error)") }
                XCTAssertTrue(m.contains(url.path) && m.contains("No space left on device"), m)
            }
        }
        XCTAssertEqual(try names(dir), [])
    }
}
