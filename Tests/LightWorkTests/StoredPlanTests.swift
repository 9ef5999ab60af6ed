import Foundation
import XCTest
@testable import LightWork

/// The plan `convert` runs from (`BatchPlanner.store`): kept in a temporary database, walked without a list of the
/// whole tree, and the same jobs, order and names as the plan in memory.
final class StoredPlanTests: XCTestCase {
    /// Writes a one-byte file at each of `relativePaths` under `root`.
    static func touch(_ relativePaths: [String], under root: URL) throws {
        for rel in relativePaths {
            let url = root.appendingPathComponent(rel)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data([1]).write(to: url)
        }
    }

    /// The walk gives each argument's files sorted by relative path, although it sorts one folder at a time: a folder
    /// `a` sorts as `a/`, after `a.png`, `a-b` and `a b` (whose characters come before "/") and before `a0`.
    func testWalkOrderIsTheSortedRelativePaths() throws {
        let root = try TestPaths.temporaryDirectory(self).appendingPathComponent("in")
        let files = ["a/x.png", "a.png", "a-b/y.png", "a b.png", "a0.png", "a/b/c.png", "a/b.png", "a/b-c/d.png", "A/z.png", "b.png",
                     "a b/q.png", "a+/r.png", "Z.png", "a/.hidden.png", "a/notes.txt"]
        try Self.touch(files, under: root)
        let walked = InputWalker.items(for: [root.path]).map(\.relativePath)
        let expected = files.filter { !$0.contains("/.") && $0.hasSuffix(".png") }.sorted()
        XCTAssertEqual(walked, expected)
        XCTAssertEqual(walked.first, "A/z.png")
        XCTAssertEqual(Array(walked.prefix(6)), ["A/z.png", "Z.png", "a b.png", "a b/q.png", "a+/r.png", "a-b/y.png"])
    }

    /// 5,000 inputs with RAW+JPEG pairs, same-stem RAWs, names differing only in case and outputs already on disk (some
    /// this export's own): the stored plan is the in-memory plan, job for job, for two name templates.
    func testStoredPlanOf5000FilesIsTheInMemoryPlan() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let input = dir.appendingPathComponent("in"), out = dir.appendingPathComponent("out")
        var files: [String] = []
        for d in 0..<50 {
            for k in 0..<25 {
                files += ["d\(d)/IMG_\(k).CR2", "d\(d)/IMG_\(k).JPG", "d\(d)/IMG_\(k).DNG", "d\(d)/img_\(k).png"]
            }
        }
        try Self.touch(files, under: input)
        XCTAssertEqual(files.count, 5000)
        // Foreign files at planned names, and one output of this export's own.
        try Self.touch(["d0/IMG_0.tif", "d0/IMG_0-2.tif", "d1/img_3-3.tif", "d2/IMG_4.tif"], under: out)
        let owners = ["d2/IMG_4.tif": "d2/IMG_4.CR2"]

        for template in ["{stem}", "all/{index}_{stem}"] {
            var rules = PlanRules(outputExtension: "tif")
            rules.onExist = .suffix
            rules.name = try OutputNameTemplate(template)
            let memory = BatchPlanner.plan(paths: [input.path], rules: rules, outputDirectory: out, owners: owners)
            let stored = try BatchPlanner.store(paths: [input.path], rules: rules, outputDirectory: out, owner: { owners[$0] })
            XCTAssertNil(stored.failure)
            XCTAssertEqual(stored.count, memory.jobs.count)
            XCTAssertEqual(stored.convertingCount, memory.jobs.filter { $0.outputPath != nil }.count)
            for (i, expected) in memory.jobs.enumerated() {
                let job = stored[i]
                XCTAssertEqual(job.item.url.path, expected.item.url.path, "\(template) #\(i)")
                XCTAssertEqual(job.item.displayPath, expected.item.displayPath)
                XCTAssertEqual(job.item.relativePath, expected.item.relativePath)
                XCTAssertEqual(job.action, expected.action, "\(template) \(expected.item.relativePath)")
                XCTAssertEqual(job.notes, expected.notes)
                XCTAssertEqual(job.leftAlone, expected.leftAlone)
            }
            XCTAssertEqual((0..<stored.count).map { stored[$0].item.relativePath }, files.sorted(), "input order is the sorted relative paths")
        }

        // What the plan decided, spelled out for a few inputs under the {stem} template.
        var rules = PlanRules(outputExtension: "tif")
        rules.onExist = .suffix
        let stored = try BatchPlanner.store(paths: [input.path], rules: rules, outputDirectory: out, owner: { owners[$0] })
        let byPath = Dictionary(uniqueKeysWithValues: (0..<stored.count).map { (stored[$0].item.relativePath, stored[$0]) })
        XCTAssertEqual(byPath["d0/IMG_0.CR2"]?.outputPath, "d0/IMG_0-3.tif", "IMG_0.tif and IMG_0-2.tif are someone else's")
        XCTAssertEqual(byPath["d0/IMG_0.DNG"]?.outputPath, "d0/IMG_0-4.tif")
        XCTAssertEqual(byPath["d2/IMG_4.CR2"]?.outputPath, "d2/IMG_4.tif", "its own earlier output")
        XCTAssertEqual(byPath["d5/IMG_7.CR2"]?.outputPath, "d5/IMG_7.tif")
        XCTAssertEqual(byPath["d5/IMG_7.DNG"]?.outputPath, "d5/IMG_7-2.tif", "the second RAW of one stem gets a suffix")
        XCTAssertEqual(byPath["d5/img_7.png"]?.outputPath, "d5/img_7-3.tif", "names differing in case collide")
        XCTAssertEqual(byPath["d1/img_3.png"]?.outputPath, "d1/img_3-4.tif", "-2 is the DNG's (case ignored), img_3-3.tif someone else's")
        guard case .skip(let reason) = byPath["d5/IMG_7.JPG"]?.action else { return XCTFail("the JPEG of a pair is skipped") }
        XCTAssertTrue(reason.hasPrefix("RAW+JPEG pair: RAW preferred (IMG_7.CR2 is converted"), reason)
    }

    /// The stored plan holds no collection of its inputs: every array, dictionary or set reachable from it (three levels
    /// deep) is small, however many inputs it plans.
    func testStoredPlanHoldsNoListOfItsInputs() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let input = dir.appendingPathComponent("in")
        try Self.touch((0..<2000).map { "d\($0 / 500)/f\($0).png" }, under: input)
        let plan = try BatchPlanner.store(paths: [input.path], rules: PlanRules(outputExtension: "jpg"), outputDirectory: dir.appendingPathComponent("out"),
                                          owner: { _ in nil })
        XCTAssertEqual(plan.count, 2000)
        XCTAssertEqual(plan[1999].outputPath, "d3/f1999.jpg", "the last of d3 sorted by name")
        var largest = 0
        func visit(_ value: Any, depth: Int) {
            let mirror = Mirror(reflecting: value)
            if [.collection, .dictionary, .set].contains(mirror.displayStyle) { largest = max(largest, mirror.children.count) }
            guard depth < 3 else { return }
            for child in mirror.children { visit(child.value, depth: depth + 1) }
        }
        visit(plan, depth: 0)
        XCTAssertLessThan(largest, 16, "no array of jobs, items or names is kept")
    }
}
