import Foundation
import XCTest
@testable import LightWork

/// Planning a batch: globs, RAW+JPEG pairs, name templates and their tokens, slugs, collisions per policy.
final class BatchPlannerTests: XCTestCase {
    static func items(_ paths: [String], root: String = "/shoot") -> [InputItem] {
        paths.map { InputItem(url: URL(fileURLWithPath: root + "/" + $0), displayPath: root + "/" + $0, relativePath: $0) }
    }

    static func plan(_ paths: [String], rules: PlanRules, existing: Set<String> = [], owners: [String: String] = [:]) -> BatchPlan {
        BatchPlanner.plan(items: items(paths), rules: rules, owners: owners) { existing.contains($0) }
    }

    static func outputs(_ plan: BatchPlan) -> [String?] { plan.jobs.map(\.outputPath) }

    // MARK: globs

    func testGlobsMatchNamesAtAnyDepthAndPathsFromTheRoot() {
        XCTAssertTrue(InputFilter.matches("*.CR2", "a/b/IMG_1.cr2"), "names match at any depth, case ignored")
        XCTAssertFalse(InputFilter.matches("*.CR2", "a/b/IMG_1.JPG"))
        XCTAssertTrue(InputFilter.matches("rejects", "day1/rejects/IMG_1.CR2"), "a bare name matches a folder anywhere")
        XCTAssertFalse(InputFilter.matches("rejects", "day1/keep/rejects.CR2.txt"))
        XCTAssertTrue(InputFilter.matches("day1/*.cr2", "day1/IMG_1.CR2"))
        XCTAssertFalse(InputFilter.matches("day1/*.cr2", "day1/sub/IMG_1.CR2"), "* does not cross /")
        XCTAssertTrue(InputFilter.matches("day1/sub", "day1/sub/IMG_1.CR2"), "a folder path covers what is below it")
        XCTAssertFalse(InputFilter.matches("day1/sub", "day2/sub/IMG_1.CR2"), "paths are anchored at the root")
        XCTAssertTrue(InputFilter.matches("IMG_?.CR2", "IMG_7.CR2"))
        XCTAssertTrue(InputFilter.matches("IMG_[0-4]*", "x/IMG_3.CR2"))
        XCTAssertFalse(InputFilter.matches("IMG_[0-4]*", "x/IMG_5.CR2"))
    }

    func testIncludeThenExcludeWithExcludesWinning() throws {
        var rules = PlanRules(outputExtension: "tif")
        rules.filter = try InputFilter(include: ["*.cr2", "*.nef"], exclude: ["rejects", "./day2/IMG_9*"])
        let plan = Self.plan(["day1/IMG_1.CR2", "day1/IMG_2.JPG", "day1/rejects/IMG_3.CR2", "day2/IMG_4.NEF", "day2/IMG_9.CR2"], rules: rules)
        XCTAssertEqual(plan.jobs.map(\.item.relativePath), ["day1/IMG_1.CR2", "day2/IMG_4.NEF"])
        XCTAssertEqual(plan.excluded, 3)
        XCTAssertThrowsError(try InputFilter(include: [" "]))
    }

    // MARK: pairs

    func testPairsPreferRawByDefault() {
        let paths = ["IMG_1.CR2", "IMG_1.JPG", "IMG_2.JPG", "img_3.cr2", "IMG_3.jpeg", "other/IMG_1.JPG"]
        let plan = Self.plan(paths, rules: PlanRules(outputExtension: "tif"))
        XCTAssertEqual(Self.outputs(plan), ["IMG_1.tif", nil, "IMG_2.tif", "img_3.tif", nil, "other/IMG_1.tif"])
        for i in [1, 4] {
            guard case .skip(let reason) = plan.jobs[i].action else { return XCTFail("\(paths[i]) should be skipped") }
            XCTAssertTrue(reason.hasPrefix("RAW+JPEG pair: RAW preferred"), reason)
            XCTAssertEqual(plan.jobs[i].entry?.status, .skipped)
        }
        XCTAssertTrue(plan.jobs[1].entry?.reason?.contains("IMG_1.CR2") ?? false, "the reason names the partner")
    }

    func testPairsPreferJPEGAndBoth() {
        let paths = ["IMG_1.CR2", "IMG_1.JPG", "IMG_2.NEF"]
        var rules = PlanRules(outputExtension: "tif")
        rules.prefer = .jpeg
        let jpeg = Self.plan(paths, rules: rules)
        XCTAssertEqual(Self.outputs(jpeg), [nil, "IMG_1.tif", "IMG_2.tif"])
        XCTAssertEqual(jpeg.jobs[0].entry?.reason?.hasPrefix("RAW+JPEG pair: JPEG preferred"), true)

        rules.prefer = .both
        XCTAssertEqual(Self.outputs(Self.plan(paths, rules: rules)), ["IMG_1.tif", "IMG_1-jpg.tif", "IMG_2.tif"],
                       "both: the RAW keeps the name, the JPEG gets its extension")
        rules.name = try! OutputNameTemplate("{stem}_{ext}")
        XCTAssertEqual(Self.outputs(Self.plan(paths, rules: rules)), ["IMG_1_CR2.tif", "IMG_1_JPG.tif", "IMG_2_NEF.tif"],
                       "a template with {ext} already tells them apart")
    }

    // MARK: names

    func testTokensIndexWidthAndFolders() throws {
        var rules = PlanRules(outputExtension: "jpg", filmName: "Kodak Portra 400", recipeName: "Wedding (warm)")
        rules.name = try OutputNameTemplate("{index}_{stem}_{ext}_{film}_{recipe}_{date}_{camera}")
        let paths = (1...12).map { "day\($0 % 2)/IMG_\($0).CR2" }
        let plan = BatchPlanner.plan(items: Self.items(paths.sorted()), rules: rules) { _ in false }
        let names = Self.outputs(plan).compactMap { $0 }
        XCTAssertEqual(names.count, 12)
        XCTAssertEqual(names[0], "day0/01_IMG_10_CR2_kodak-portra-400_wedding-warm_nodate_nocamera.jpg",
                       "index zero-padded to the count's width; files that cannot be read have no date or camera")
        XCTAssertEqual(names[11], "day1/12_IMG_9_CR2_kodak-portra-400_wedding-warm_nodate_nocamera.jpg")
        XCTAssertEqual(Set(names).count, 12)
    }

    func testIndexCountsOnlyConvertedFiles() throws {
        var rules = PlanRules(outputExtension: "tif")
        rules.name = try OutputNameTemplate("shoot_{index}")
        let plan = Self.plan(["A.CR2", "A.JPG", "B.CR2"], rules: rules)
        XCTAssertEqual(Self.outputs(plan), ["shoot_1.tif", nil, "shoot_2.tif"])
    }

    func testDateAndCameraComeFromTheFilesHeader() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let sources = [try TestPaths.sharedSamples("rgb").appendingPathComponent("large-exif-olympus-pen-e-p3.jpg"),
                       try TestPaths.sharedSamples("raw").appendingPathComponent("lg-g4-h815-lossy-linear.dng")]
        var items: [InputItem] = []
        for src in sources {
            let dst = dir.appendingPathComponent(src.lastPathComponent)
            try FileManager.default.copyItem(at: src, to: dst)
            items.append(InputItem(url: dst, displayPath: dst.path, relativePath: dst.lastPathComponent))
        }
        var rules = PlanRules(outputExtension: "tif")
        rules.name = try OutputNameTemplate("{date}_{camera}")
        let plan = BatchPlanner.plan(items: items, rules: rules) { _ in false }

        // The references: the JPEG's EXIF as libjpeg's marker reader hands it over, the DNG's as LibRaw reads it.
        let jpeg = try RGBDecoder.decode(data: Data(contentsOf: items[0].url), options: DecodeOptions()).metadata
        let raw = try RawDecoder.inspect(url: items[1].url).metadata
        for (job, m) in zip(plan.jobs, [jpeg, raw]) {
            let date = try XCTUnwrap(CaptureInfoProbe.isoDate(m.dateTimeOriginal))
            let camera = FileNameSafety.cameraSlug(make: m.make, model: m.model, fallback: "nocamera")
            XCTAssertNotEqual(camera, "nocamera")
            XCTAssertEqual(job.outputPath, "\(date)_\(camera).tif", job.item.relativePath)
        }
    }

    /// Canon CRW (CIFF): the name tokens are what `info` reports through LibRaw, and what exiftool reads
    /// (2018:01:01 13:03:32, "Canon EOS D30"; 2022:01:20 08:13:24, "Canon PowerShot G2").
    func testCRWDateAndCameraAreWhatLibRawReads() throws {
        let raw = try TestPaths.sharedSamples("raw")
        let files = ["canon-eos-d30.crw", "canon-powershot-g2.crw"].map { raw.appendingPathComponent($0) }
        let items = files.map { InputItem(url: $0, displayPath: $0.path, relativePath: $0.lastPathComponent) }
        var rules = PlanRules(outputExtension: "tif")
        rules.name = try OutputNameTemplate("{date}_{camera}")
        let plan = BatchPlanner.plan(items: items, rules: rules) { _ in false }
        XCTAssertEqual(Self.outputs(plan), ["2018-01-01_canon-eos-d30.tif", "2022-01-20_canon-powershot-g2.tif"])
        for (file, job) in zip(files, plan.jobs) {
            let libraw = try RawDecoder.inspect(url: file).metadata
            let probed = try XCTUnwrap(CaptureInfoProbe.read(file))
            XCTAssertEqual(probed.dateTimeOriginal, libraw.dateTimeOriginal, file.lastPathComponent)
            XCTAssertEqual(FileNameSafety.cameraSlug(make: probed.make, model: probed.model, fallback: "nocamera"),
                           FileNameSafety.cameraSlug(make: libraw.make, model: libraw.model, fallback: "nocamera"))
            print("CRW tokens: \(file.lastPathComponent) → \(job.outputPath ?? "-") (LibRaw: \(libraw.make ?? "-") / \(libraw.model ?? "-") / \(libraw.dateTimeOriginal ?? "-"))")
        }
    }

    /// A CRW cut short, or with random bytes of its heap directories overwritten, gives some name tokens or none,
    /// never a crash or a read outside the file.
    func testDamagedCIFFHeapsAreReadSafely() throws {
        let bytes = [UInt8](try Data(contentsOf: try TestPaths.sharedSamples("raw").appendingPathComponent("canon-eos-d30.crw")))
        for cut in [14, 26, 100, 4096, bytes.count - 5, bytes.count - 1] {
            _ = CIFFStructure(FileBytes(Data(bytes.prefix(cut))))?.captureInfo()
        }
        var bad = bytes
        for k in stride(from: bytes.count - 4, to: bytes.count, by: 1) { bad[k] = 0xFF }   // the root directory's offset
        XCTAssertNil(CIFFStructure(FileBytes(Data(bad)))?.captureInfo())
        let directory = bytes.count - 5000 ..< bytes.count   // the root and ImageProps directories lie at the end
        var seed = SeededRandom(seed: 21)
        for _ in 0..<300 {
            var b = bytes
            let k = directory.lowerBound + Int(seed.next() % UInt64(directory.count))
            b[k] = UInt8(truncatingIfNeeded: seed.next())
            if let m = CIFFStructure(FileBytes(Data(b)))?.captureInfo() { _ = m.make }
        }
    }

    func testSlugsAndSanitising() {
        XCTAssertEqual(FileNameSafety.slug("Agfa Präzisa 100", fallback: "none"), "agfa-prazisa-100")
        XCTAssertEqual(FileNameSafety.slug("  --Ilford HP5+ (push 2)  ", fallback: "none"), "ilford-hp5-push-2")
        XCTAssertEqual(FileNameSafety.slug("日本", fallback: "none"), "none")
        XCTAssertEqual(FileNameSafety.sanitized("a:b\\c*d?e\"f<g>h|i"), "a_b_c_d_e_f_g_h_i")
        XCTAssertEqual(FileNameSafety.sanitized("Été 2024 #1"), "Été 2024 #1", "a file's own stem keeps its case, spaces and letters")
        XCTAssertEqual(FileNameSafety.sanitized("tab\there"), "tab_here")
        XCTAssertEqual(FileNameSafety.cameraSlug(make: "Canon", model: "Canon EOS R5", fallback: "x"), "canon-eos-r5")
        XCTAssertEqual(FileNameSafety.cameraSlug(make: "NIKON CORPORATION", model: "NIKON D850", fallback: "x"), "nikon-d850")
        XCTAssertEqual(FileNameSafety.cameraSlug(make: "SONY", model: "ILCE-7M3", fallback: "x"), "sony-ilce-7m3")
        XCTAssertEqual(FileNameSafety.cameraSlug(make: "OLYMPUS IMAGING CORP.", model: "E-P3", fallback: "x"), "olympus-e-p3")
        XCTAssertEqual(FileNameSafety.cameraSlug(make: nil, model: nil, fallback: "nocamera"), "nocamera")
        XCTAssertEqual(CaptureInfoProbe.isoDate("2013:08:27 19:45:23"), "2013-08-27")
        XCTAssertNil(CaptureInfoProbe.isoDate("0000:00:00 00:00:00"))
        XCTAssertNil(CaptureInfoProbe.isoDate("    :  :     :  :  "))
        XCTAssertNil(CaptureInfoProbe.isoDate(nil))
    }

    func testUnsafeStemsAreSanitisedInNames() {
        let plan = Self.plan(["a/we:ird*name.CR2"], rules: PlanRules(outputExtension: "tif"))
        XCTAssertEqual(Self.outputs(plan), ["a/we_ird_name.tif"])
    }

    func testBadTemplatesAreRefused() {
        for bad in ["", "../{stem}", "{foo}", "{stem", "stem}", "..", ".", ".{stem}", "a\tb{stem}", "{stem}:{film}",
                    "/{stem}", "{stem}/", "{camera}//{stem}", "{camera}/.{stem}", "./{stem}", "{camera}/../{stem}", "x/.hidden/{stem}"] {
            XCTAssertThrowsError(try OutputNameTemplate(bad), "'\(bad)' should be refused") { error in
                guard case LightWorkError.usage = error else { return XCTFail("\(error) is not a usage error") }
            }
        }
        for good in ["{stem}", "{date}_{stem}_{film}", "export", "{index} - {camera}", "x.{stem}", "{stem}/{film}", "{camera}/{date}/{stem}"] {
            XCTAssertNoThrow(try OutputNameTemplate(good), good)
        }
        XCTAssertTrue(try OutputNameTemplate("{date}-{stem}").needsMetadata)
        XCTAssertFalse(try OutputNameTemplate("{index}-{stem}").needsMetadata)
    }

    /// '/' in a template makes subfolders below the mirrored input folder; a token that leaves a folder empty
    /// gives "_", never a climb or a collapsed path; names still collide (and suffix) across inputs.
    func testTemplateSubfoldersGoBelowTheMirroredFolder() throws {
        var rules = PlanRules(outputExtension: "tif")
        rules.name = try OutputNameTemplate("{ext}/{film}/{stem}")
        rules.filmName = "Harbour Negative 160"
        let plan = Self.plan(["day1/IMG_1.CR2", "IMG_2.nef", "noext"], rules: rules)
        XCTAssertEqual(Self.outputs(plan), ["day1/CR2/harbour-negative-160/IMG_1.tif", "nef/harbour-negative-160/IMG_2.tif",
                                            "_/harbour-negative-160/noext.tif"])
        rules.name = try OutputNameTemplate("all/{index}")
        rules.onExist = .suffix
        let numbered = Self.plan(["a/x.CR2", "b/y.CR2"], rules: rules, existing: ["a/all/1.tif"])
        XCTAssertEqual(Self.outputs(numbered), ["a/all/1-2.tif", "b/all/2.tif"])
    }

    // MARK: collisions

    func testTwoInputsOneNameInOneRun() throws {
        let paths = ["IMG_1.CR2", "IMG_1.NEF", "IMG_1.DNG"]
        for policy in [CollisionPolicy.skip, .overwrite] {
            var rules = PlanRules(outputExtension: "tif")
            rules.onExist = policy
            let plan = Self.plan(paths, rules: rules)
            XCTAssertEqual(Self.outputs(plan), ["IMG_1.tif", nil, nil], "\(policy)")
            guard case .fail(let reason, _) = plan.jobs[1].action else { return XCTFail("the later input fails") }
            XCTAssertTrue(reason.contains("IMG_1.tif") && reason.contains("/shoot/IMG_1.CR2"), reason)
            XCTAssertEqual(plan.jobs[1].entry?.failureKind, .outputNameRefused)
        }
        var rules = PlanRules(outputExtension: "tif")
        rules.onExist = .suffix
        let plan = Self.plan(paths, rules: rules)
        XCTAssertEqual(Self.outputs(plan), ["IMG_1.tif", "IMG_1-2.tif", "IMG_1-3.tif"])
        XCTAssertTrue(plan.jobs[1].notes.first?.contains("written as IMG_1-2.tif") ?? false)
    }

    func testNamesCollideRegardlessOfCase() {
        let plan = Self.plan(["a/IMG_5.CR2", "a/img_5.cr2"], rules: PlanRules(outputExtension: "tif"))
        XCTAssertEqual(Self.outputs(plan), ["a/IMG_5.tif", nil])
    }

    func testExistingFilesPerPolicy() {
        let existing: Set<String> = ["IMG_2.tif", "IMG_2-2.tif", "IMG_3.tif"]
        let paths = ["IMG_1.CR2", "IMG_2.CR2", "IMG_3.CR2"]
        var rules = PlanRules(outputExtension: "tif")

        rules.onExist = .skip
        let skip = Self.plan(paths, rules: rules, existing: existing)
        XCTAssertEqual(Self.outputs(skip), ["IMG_1.tif", nil, nil])
        XCTAssertEqual(skip.jobs[1].entry?.status, .skipped)
        XCTAssertTrue(skip.jobs[1].entry?.reason?.contains("IMG_2.tif already exists") ?? false)

        rules.onExist = .overwrite
        let overwrite = Self.plan(paths, rules: rules, existing: existing)
        XCTAssertEqual(Self.outputs(overwrite), ["IMG_1.tif", "IMG_2.tif", "IMG_3.tif"])
        XCTAssertEqual(overwrite.jobs[1].notes, ["replaced the existing IMG_2.tif (--on-exist overwrite)"])

        rules.onExist = .suffix
        XCTAssertEqual(Self.outputs(Self.plan(paths, rules: rules, existing: existing)), ["IMG_1.tif", "IMG_2-3.tif", "IMG_3-2.tif"])
    }

    /// Outputs the previous manifest records for the same input are this export's own: not a collision.
    func testOwnOutputsOfAnEarlierRunAreNotCollisions() {
        let existing: Set<String> = ["IMG_1.tif", "IMG_2.tif", "IMG_2-2.tif"]
        let owners = ["IMG_1.tif": "IMG_1.CR2", "IMG_2-2.tif": "IMG_2.CR2"]
        var rules = PlanRules(outputExtension: "tif")
        XCTAssertEqual(Self.outputs(Self.plan(["IMG_1.CR2", "IMG_2.CR2"], rules: rules, existing: existing, owners: owners)),
                       ["IMG_1.tif", nil], "skip: IMG_2.tif is not ours")
        rules.onExist = .suffix
        XCTAssertEqual(Self.outputs(Self.plan(["IMG_1.CR2", "IMG_2.CR2"], rules: rules, existing: existing, owners: owners)),
                       ["IMG_1.tif", "IMG_2-2.tif"], "a re-run with suffix reuses its own IMG_2-2.tif rather than making IMG_2-3.tif")
        XCTAssertEqual(Self.outputs(Self.plan(["IMG_3.CR2"], rules: PlanRules(outputExtension: "tif"), existing: ["IMG_3.tif"],
                                              owners: ["IMG_3.tif": "other/IMG_3.CR2"])), [nil],
                       "an output another input wrote is not this input's")
    }

    func testPlanningFromPathsTouchesNothing() throws {
        let dir = try TestPaths.temporaryDirectory(self)
        let input = dir.appendingPathComponent("in/sub")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        for name in ["A.CR2", "A.JPG", "B.png", ".hidden.CR2", "notes.txt"] {
            FileManager.default.createFile(atPath: input.appendingPathComponent(name).path, contents: Data([1]))
        }
        let out = dir.appendingPathComponent("out")
        let plan = BatchPlanner.plan(paths: [dir.appendingPathComponent("in").path], rules: PlanRules(outputExtension: "png"), outputDirectory: out)
        XCTAssertEqual(plan.jobs.map(\.item.relativePath), ["sub/A.CR2", "sub/A.JPG", "sub/B.png"])
        XCTAssertEqual(Self.outputs(plan), ["sub/A.png", nil, "sub/B.png"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path), "planning creates nothing")
    }

    // MARK: outputs a killed run left unrecorded

    /// A file at a planned name that no manifest records is someone else's (skipped, however recent), unless an
    /// interrupted run announced it in its intents journal (this run's, or another shard split's whose manifest
    /// was never saved): then it is that run's unrecorded output, converted again.
    func testOutputAnnouncedByAnInterruptedShardIsConvertedAgainOthersLeftAlone() throws {
        let rules = PlanRules(outputExtension: "tif")
        let dir = try TestPaths.temporaryDirectory(self)
        let input = dir.appendingPathComponent("in"), out = dir.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        for name in ["a.dng", "b.dng"] { try Data("planning reads no pixels".utf8).write(to: input.appendingPathComponent(name)) }
        for name in ["a.tif", "b.tif"] { try Data("x".utf8).write(to: out.appendingPathComponent(name)) }
        let shard = try Shard(index: 1, count: 2)
        OutputIntents(manifestURL: out.appendingPathComponent(shard.manifestFileName)).record(output: "a.tif", input: "a.dng")
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.appendingPathComponent(shard.manifestFileName).path), "the shard saved no manifest")

        let intents = OutputIntents.all(first: out.appendingPathComponent("manifest.json"), in: out)
        XCTAssertEqual(intents, ["a.tif": "a.dng"])
        let plan = BatchPlanner.plan(paths: [input.path], rules: rules, outputDirectory: out, previous: [], intents: intents)
        XCTAssertEqual(plan.jobs.map(\.item.relativePath), ["a.dng", "b.dng"])
        XCTAssertEqual(Self.outputs(plan), ["a.tif", nil], "b.tif was written a moment ago, but by no run of this export")
        XCTAssertTrue(plan.jobs[1].entry?.reason?.contains("already exists") == true)

        // This run's own journal wins over another split's where they disagree.
        OutputIntents(manifestURL: out.appendingPathComponent("manifest.json")).record(output: "a.tif", input: "b.dng")
        XCTAssertEqual(OutputIntents.all(first: out.appendingPathComponent("manifest.json"), in: out), ["a.tif": "b.dng"])
    }
}
