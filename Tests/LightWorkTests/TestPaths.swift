import Foundation
import XCTest

/// Where tests find the repository and the shared real-camera samples.
enum TestPaths {
    /// The package root (two levels above this file's folder).
    static let repoRoot: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `../shared/samples` beside the checkout; tests that need it skip with a clear message where it is absent.
    static func sharedSamples(_ sub: String = "") throws -> URL {
        let dir = repoRoot.deletingLastPathComponent().appendingPathComponent("shared/samples").appendingPathComponent(sub)
        guard FileManager.default.fileExists(atPath: dir.path) else {
            throw XCTSkip("shared samples not found at \(dir.path): real-camera tests skipped")
        }
        return dir
    }

    /// Files directly inside a shared samples subfolder, sorted, excluding licences and notes.
    static func sharedFiles(_ sub: String) throws -> [URL] {
        let dir = try sharedSamples(sub)
        return try FileManager.default.contentsOfDirectory(at: dir, includingPropertiesForKeys: nil)
            .filter { !$0.lastPathComponent.hasPrefix("LICENSE") && !$0.lastPathComponent.hasSuffix(".md") }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    /// A fresh temporary folder, removed when the test ends.
    static func temporaryDirectory(_ test: XCTestCase) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("lightwork-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        test.addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        return dir
    }
}
