import Foundation
import XCTest
@testable import LightWork

/// Shard selection: a partition of any input set, stable by relative path, and scheduler variables.
final class ShardTests: XCTestCase {
    func testShardsPartitionTheInputsAndAgreeWithTheHash() throws {
        let paths = (0..<500).map { "day\($0 % 7)/IMG_\(String(format: "%04d", $0)).CR2" }
        for n in [1, 2, 3, 7] {
            var owners = [Int](repeating: 0, count: paths.count)
            for k in 0..<n {
                let shard = try Shard(index: k, count: n)
                for (i, p) in paths.enumerated() where shard.contains(relativePath: p) { owners[i] += 1 }
            }
            XCTAssertEqual(Set(owners), [1], "every input in exactly one of \(n) shards")
        }
        // The slot is the first 64 bits of SHA-256(relative path) modulo N: recompute from the digest.
        let digest = SHA256.hex(Data("day3/IMG_0010.CR2".utf8))
        XCTAssertEqual(Shard.slot(of: "day3/IMG_0010.CR2", count: 5), Int(UInt64(digest.prefix(16), radix: 16)! % 5))
        // Roughly even for many files.
        let sizes = (0..<4).map { k in paths.filter { Shard.slot(of: $0, count: 4) == k }.count }
        XCTAssertTrue(sizes.allSatisfy { (90...160).contains($0) }, "\(sizes)")
    }

    func testParseAndBounds() throws {
        XCTAssertEqual(try Shard.parse("2/5"), try Shard(index: 2, count: 5))
        XCTAssertEqual(try Shard.parse("2/5").manifestFileName, "manifest.shard-2-of-5.json")
        for bad in ["5/5", "-1/3", "1", "a/b", "1/0", "1/3/4"] {
            XCTAssertThrowsError(try Shard.parse(bad), bad)
        }
    }

    func testSchedulerEnvironments() throws {
        XCTAssertEqual(try Shard.fromEnvironment(["SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "4"], count: nil), try Shard(index: 3, count: 4))
        // An array 1-8: task 5 is the fifth of eight (index 4), from MIN/MAX alone or with COUNT.
        XCTAssertEqual(try Shard.fromEnvironment(["SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "8"], count: nil),
                       try Shard(index: 4, count: 8))
        XCTAssertEqual(try Shard.fromEnvironment(["SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_COUNT": "3"], count: nil),
                       try Shard(index: 0, count: 3))
        XCTAssertEqual(try Shard.fromEnvironment(["JOB_COMPLETION_INDEX": "2"], count: 3), try Shard(index: 2, count: 3))
        XCTAssertEqual(try Shard.fromEnvironment(["AWS_BATCH_JOB_ARRAY_INDEX": "0"], count: 10), try Shard(index: 0, count: 10))
        XCTAssertEqual(try Shard.fromEnvironment(["AWS_BATCH_JOB_ARRAY_INDEX": "9"], count: 10), try Shard(index: 9, count: 10))
        for name in ["JOB_COMPLETION_INDEX", "AWS_BATCH_JOB_ARRAY_INDEX"] {
            XCTAssertThrowsError(try Shard.fromEnvironment([name: "2"], count: nil), name) { e in
                XCTAssertTrue("\(e)".contains("--shard-count"), "\(e)")
            }
            XCTAssertThrowsError(try Shard.fromEnvironment([name: "3"], count: 3), name) { e in
                XCTAssertTrue("\(e)".contains("\(name)=3"), "\(e)")
            }
            XCTAssertThrowsError(try Shard.fromEnvironment([name: "x"], count: 3), name)
        }
        XCTAssertThrowsError(try Shard.fromEnvironment(["SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_COUNT": "4"], count: nil))
        XCTAssertThrowsError(try Shard.fromEnvironment(["SLURM_ARRAY_TASK_ID": "2"], count: nil)) { e in
            XCTAssertTrue("\(e)".contains("--shard-count"), "\(e)")
        }
        // A stepped array (0-6:2) has 4 tasks but task IDs 0, 2, 4, 6: not contiguous.
        XCTAssertThrowsError(try Shard.fromEnvironment(["SLURM_ARRAY_TASK_ID": "6", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "6",
                                                        "SLURM_ARRAY_TASK_COUNT": "4"], count: nil)) { e in
            XCTAssertTrue("\(e)".contains("contiguous"), "\(e)")
        }
        XCTAssertThrowsError(try Shard.fromEnvironment([:], count: 4)) { e in
            XCTAssertTrue("\(e)".contains("SLURM_ARRAY_TASK_ID"), "\(e)")
        }
        XCTAssertThrowsError(try Shard.fromEnvironment(["SLURM_ARRAY_TASK_ID": "", "JOB_COMPLETION_INDEX": ""], count: 4), "empty is unset")
    }

    /// With --shard-count, Slurm task IDs are the shard indices: a resubmitted subset keeps its index, and an
    /// array that does not fit the count is refused instead of converting the wrong slice.
    func testSlurmWithShardCountTakesTaskIDsAsIndices() throws {
        let whole = ["SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "3", "SLURM_ARRAY_TASK_COUNT": "4"]
        XCTAssertEqual(try Shard.fromEnvironment(whole, count: 4), try Shard(index: 2, count: 4))
        // `sbatch --array=2 …` after task 2 failed: an array of one task, still shard 2 of 4.
        let resubmitted = ["SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_MIN": "2", "SLURM_ARRAY_TASK_MAX": "2", "SLURM_ARRAY_TASK_COUNT": "1"]
        XCTAssertEqual(try Shard.fromEnvironment(resubmitted, count: 4), try Shard(index: 2, count: 4))
        XCTAssertEqual(try Shard.fromEnvironment(resubmitted, count: nil), try Shard(index: 0, count: 1), "without the count, the array is the split")
        // An array of four tasks with --shard-count 3, or one counting from 1, is refused in every task.
        XCTAssertThrowsError(try Shard.fromEnvironment(["SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "4"], count: 3)) { e in
            XCTAssertTrue("\(e)".contains("--array=0-2"), "\(e)")
        }
        XCTAssertThrowsError(try Shard.fromEnvironment(["SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "4"], count: 4))
        XCTAssertThrowsError(try Shard.fromEnvironment(["SLURM_ARRAY_TASK_ID": "5"], count: 4)) { e in
            XCTAssertTrue("\(e)".contains("not a shard index"), "\(e)")
        }
        XCTAssertThrowsError(try Shard.fromEnvironment(["SLURM_ARRAY_TASK_ID": "0"], count: 0))
    }
}
