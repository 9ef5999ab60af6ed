import Foundation
import XCTest
@testable import LightWork

/// Joining shard manifests: order, summary, missing shards, and refusing runs made with other settings.
final class ManifestMergeTests: XCTestCase {
    private func manifest(shard: Int?, of count: Int = 3, indices: [Int], failed: Set<Int> = [], contrast: Double? = nil, host: String = "node",
                          finished: Bool = true) -> Manifest {
        var settings = ConvertSpec(outputDirectory: URL(fileURLWithPath: "/tmp")).settings
        if let contrast { settings.filters["contrast"] = ResolvedSettings.FilterSetting(ui: contrast, value: contrast / 100, useLeftRange: false) }
        var m = Manifest(tool: Manifest.ToolInfo(version: "1.0", libraries: [:]), settings: settings, host: host, startedAt: Date(timeIntervalSince1970: 1000))
        m.shard = shard.map { Manifest.ShardInfo(index: $0, count: count) }
        m.finishedAt = finished ? Manifest.timestamp(Date(timeIntervalSince1970: 2000)) : nil
        for i in indices {
            var input = Manifest.Input(path: "in/\(i).dng", relativePath: "\(i).dng")
            input.index = i
            m.entries.append(Manifest.Entry(input: input, status: failed.contains(i) ? .failed : .converted))
        }
        m.updateSummary()
        return m
    }

    func testMergesShardsInInputOrder() throws {
        let r = try ManifestMerge.merge([("b", manifest(shard: 1, indices: [2, 5], host: "b")),
                                         ("a", manifest(shard: 0, indices: [1, 4], host: "a")),
                                         ("c", manifest(shard: 2, indices: [3], failed: [3], host: "c"))])
        XCTAssertEqual(r.manifest.entries.map(\.input.index), [1, 2, 3, 4, 5])
        XCTAssertEqual(r.manifest.summary.total, 5)
        XCTAssertEqual(r.manifest.summary.failed, 1)
        XCTAssertNil(r.manifest.shard)
        XCTAssertEqual(r.manifest.host, "a, b, c")
        XCTAssertEqual(r.missingShards, [])
        XCTAssertEqual(r.failed.map(\.input.relativePath), ["3.dng"])
        XCTAssertFalse(r.isComplete)
        XCTAssertNotNil(r.manifest.finishedAt)
    }

    func testReportsMissingShards() throws {
        let r = try ManifestMerge.merge([("a", manifest(shard: 0, of: 4, indices: [1])), ("c", manifest(shard: 2, of: 4, indices: [2]))])
        XCTAssertEqual(r.missingShards, [1, 3])
        XCTAssertEqual(r.shardCount, 4)
        XCTAssertFalse(r.isComplete)
        XCTAssertNil(r.manifest.finishedAt)
        XCTAssertEqual(r.manifest.interrupted, true)
    }

    func testRefusesOtherSettingsMixedCountsAndDuplicates() {
        XCTAssertThrowsError(try ManifestMerge.merge([("a", manifest(shard: 0, indices: [1])), ("b", manifest(shard: 1, indices: [2], contrast: 30))])) { e in
            XCTAssertTrue("\(e)".contains("other settings"), "\(e)")
        }
        XCTAssertThrowsError(try ManifestMerge.merge([("a", manifest(shard: 0, of: 2, indices: [1])), ("b", manifest(shard: 1, of: 3, indices: [2]))]))
        XCTAssertThrowsError(try ManifestMerge.merge([("a", manifest(shard: 0, indices: [1])), ("b", manifest(shard: 0, indices: [1]))]))
    }

    /// A shard killed mid-run (kill -9, a dead node) leaves a manifest with neither finishedAt nor interrupted:
    /// the merge says so and is not complete; an interrupted one is reported as interrupted.
    func testReportsUnfinishedAndInterruptedShards() throws {
        var stopped = manifest(shard: 2, indices: [3])
        stopped.finishedAt = nil
        stopped.interrupted = true
        let r = try ManifestMerge.merge([("a", manifest(shard: 0, indices: [1])), ("b", manifest(shard: 1, indices: [2], finished: false)), ("c", stopped)])
        XCTAssertEqual(r.unfinished, ["b"])
        XCTAssertEqual(r.interrupted, ["c"])
        XCTAssertEqual(r.missingShards, [])
        XCTAssertEqual(r.failed.count, 0)
        XCTAssertFalse(r.isComplete)
        XCTAssertNil(r.manifest.finishedAt)
        XCTAssertEqual(r.manifest.interrupted, true)

        let whole = try ManifestMerge.merge([("a", manifest(shard: 0, of: 2, indices: [1])), ("b", manifest(shard: 1, of: 2, indices: [2]))])
        XCTAssertTrue(whole.isComplete)
        XCTAssertNil(whole.manifest.interrupted)
        XCTAssertEqual(whole.manifest.finishedAt, Manifest.timestamp(Date(timeIntervalSince1970: 2000)))
    }

    /// --shards N: the manifests must be shard manifests of N.
    func testExpectedShardCount() throws {
        let r = try ManifestMerge.merge([("a", manifest(shard: 0, of: 4, indices: [1]))], expectedShardCount: 4)
        XCTAssertEqual(r.missingShards, [1, 2, 3])
        XCTAssertThrowsError(try ManifestMerge.merge([("a", manifest(shard: 0, of: 4, indices: [1]))], expectedShardCount: 3)) { e in
            XCTAssertTrue("\(e)".contains("not of 3"), "\(e)")
        }
        XCTAssertThrowsError(try ManifestMerge.merge([("a", manifest(shard: nil, indices: [1]))], expectedShardCount: 2))
    }
}
