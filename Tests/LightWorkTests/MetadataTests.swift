import Foundation
import XCTest
@testable import LightWork

/// Descriptive metadata (credit, rights, caption, keywords, rating, label, place) carried from real camera files and
/// generated XMP sidecars into every output format, read back by exiftool (an independent reader); sidecar
/// precedence; `--artist`/`--copyright`/`--keywords`; `--min-rating`/`--label`; `--strip-metadata`; orientation once.
final class MetadataTests: XCTestCase {
    /// A Canon EOS 7D JPEG whose EXIF, IPTC-IIM and XMP carry credit, caption, rating, label and place (what exiftool
    /// reads from the input itself is checked first, so the expectations below are the file's, not LightWork's).
    private func canonJPEG() throws -> URL {
        try TestPaths.sharedSamples("rgb").appendingPathComponent("adobe-rgb-canon-eos-7d.jpg")
    }

    private func canonCRW() throws -> URL {
        try TestPaths.sharedSamples("raw").appendingPathComponent("canon-eos-d30.crw")
    }

    // MARK: Every format

    func testEveryOutputFormatCarriesTheInputsCreditCaptionRatingLabelAndPlace() throws {
        let input = try canonJPEG()
        let source = try Self.exiftool(input)
        // The input as exiftool reads it: EXIF says "(C)", XMP and IIM say "©" (XMP wins).
        XCTAssertEqual(source["IFD0:Copyright"] as? String, "(C) Peter Bemmann")
        XCTAssertEqual(source["XMP-dc:Rights"] as? String, "© Peter Bemmann")
        XCTAssertEqual(source["IPTC:Sub-location"] as? String, "Fotostudio HS")
        let out = try TestPaths.temporaryDirectory(self)
        for format in CodecRegistry.outputFormats {
            var spec = ConvertSpec(outputDirectory: out)
            spec.export.format = format
            let entry = try convert(input, spec: spec, to: "canon-\(format.rawValue).\(format.fileExtension)")
            let url = out.appendingPathComponent(entry.output!.path)
            let tags = try Self.exiftool(url)
            let label = format.rawValue
            Self.assertTags(tags, Self.canonXMPAndEXIF, label)
            if ["jpeg", "tiff"].contains(format.codecName) { Self.assertTags(tags, Self.canonIIM, label) }
            XCTAssertEqual(Self.orientations(tags), [1], "\(label): orientation stated once, as 1")
            print("metadata \(label): \(tags.count) tags read back; XMP packet \(try Self.packetSize(url)) bytes")
        }
    }

    /// What every output of the Canon JPEG states, by exiftool's group and tag (XMP's "©" wins over EXIF's "(C)").
    static var canonXMPAndEXIF: [String: Any] { [
        "XMP-dc:Creator": "Peter Bemmann", "XMP-dc:Rights": "© Peter Bemmann", "XMP-dc:Description": "mit blauem Kleid",
        "XMP-xmp:Rating": 3, "XMP-xmp:Label": "blau", "XMP-photoshop:City": "Mainz", "XMP-photoshop:State": "Rheinland-Pfalz",
        "XMP-photoshop:Country": "Deutschland", "XMP-iptcCore:Location": "Fotostudio HS",
        "IFD0:Artist": "Peter Bemmann", "IFD0:Copyright": "© Peter Bemmann",
    ] }
    /// And what its JPEG and TIFF outputs state as IPTC-IIM.
    static var canonIIM: [String: Any] { [
        "IPTC:By-line": "Peter Bemmann", "IPTC:CopyrightNotice": "© Peter Bemmann", "IPTC:Caption-Abstract": "mit blauem Kleid",
        "IPTC:City": "Mainz", "IPTC:Province-State": "Rheinland-Pfalz", "IPTC:Country-PrimaryLocationName": "Deutschland",
        "IPTC:Sub-location": "Fotostudio HS",
    ] }

    // MARK: Sidecars

    func testSidecarNamingTheFileWinsOverTheStemOneAndOverEmbeddedFieldByField() throws {
        let folder = try TestPaths.temporaryDirectory(self)
        let input = folder.appendingPathComponent("IMG_1.jpg")
        try FileManager.default.copyItem(at: try canonJPEG(), to: input)
        try Self.sidecar(creator: "Full Name Sidecar", rating: 5, keywords: ["harbour", "night"], usageTerms: "Editorial use only")
            .write(to: folder.appendingPathComponent("IMG_1.jpg.xmp"))
        try Self.sidecar(creator: "Stem Sidecar", rating: 1).write(to: folder.appendingPathComponent("IMG_1.xmp"))
        let out = folder.appendingPathComponent("out")
        var spec = ConvertSpec(outputDirectory: out)
        spec.export.format = OutputFormat(rawValue: "jpeg")!
        var entry = try convert(input, spec: spec, to: "full.jpg")
        XCTAssertEqual(entry.input.decisions?["sidecar"], "IMG_1.jpg.xmp")
        XCTAssertTrue(entry.notes.contains { $0.contains("IMG_1.xmp not read") }, "\(entry.notes)")
        var tags = try Self.exiftool(out.appendingPathComponent("full.jpg"))
        XCTAssertEqual(Self.strings(tags["XMP-dc:Creator"]), ["Full Name Sidecar"])
        XCTAssertEqual(tags["XMP-xmp:Rating"] as? Int, 5)
        XCTAssertEqual(Self.strings(tags["XMP-dc:Subject"]), ["harbour", "night"])
        XCTAssertEqual(Self.strings(tags["IPTC:Keywords"]), ["harbour", "night"])
        XCTAssertEqual(tags["XMP-xmpRights:UsageTerms"] as? String, "Editorial use only")
        // What the sidecar does not state stays the file's own.
        XCTAssertEqual(tags["XMP-photoshop:City"] as? String, "Mainz")
        XCTAssertEqual(tags["XMP-xmp:Label"] as? String, "blau")
        XCTAssertEqual(tags["IFD0:Artist"] as? String, "Full Name Sidecar")

        try FileManager.default.removeItem(at: folder.appendingPathComponent("IMG_1.jpg.xmp"))
        entry = try convert(input, spec: spec, to: "stem.jpg")
        XCTAssertEqual(entry.input.decisions?["sidecar"], "IMG_1.xmp")
        tags = try Self.exiftool(out.appendingPathComponent("stem.jpg"))
        XCTAssertEqual(Self.strings(tags["XMP-dc:Creator"]), ["Stem Sidecar"])
        XCTAssertEqual(tags["XMP-xmp:Rating"] as? Int, 1)
    }

    func testRawSidecarIsCarriedAndItsOrientationNeverContradictsEXIF() throws {
        let folder = try TestPaths.temporaryDirectory(self)
        let input = folder.appendingPathComponent("IMG_9.CRW")
        try FileManager.default.copyItem(at: try canonCRW(), to: input)
        try Self.sidecar(creator: "Åse Nordmann", rating: 4, label: "Red", keywords: ["fjord"], city: "Oslo", orientation: 6)
            .write(to: folder.appendingPathComponent("IMG_9.CRW.xmp"))
        let out = folder.appendingPathComponent("out")
        for format in ["tiff16", "jpeg", "png"] {
            var spec = ConvertSpec(outputDirectory: out)
            spec.export.format = OutputFormat(rawValue: format)!
            let entry = try convert(input, spec: spec, to: "IMG_9-\(format).\(spec.export.format.fileExtension)")
            let tags = try Self.exiftool(out.appendingPathComponent(entry.output!.path))
            XCTAssertEqual(Self.strings(tags["XMP-dc:Creator"]), ["Åse Nordmann"], format)
            XCTAssertEqual(tags["XMP-xmp:Rating"] as? Int, 4, format)
            XCTAssertEqual(tags["XMP-xmp:Label"] as? String, "Red", format)
            XCTAssertEqual(Self.strings(tags["XMP-dc:Subject"]), ["fjord"], format)
            XCTAssertEqual(tags["XMP-photoshop:City"] as? String, "Oslo", format)
            XCTAssertEqual(Self.orientations(tags), [1], "\(format): the sidecar's tiff:Orientation 6 is not carried")
        }
    }

    // MARK: Credit options

    func testArtistAndCopyrightReplaceAndKeywordsAddWithoutChangingTheDigestWhenAbsent() throws {
        let out = try TestPaths.temporaryDirectory(self)
        var spec = ConvertSpec(outputDirectory: out)
        spec.export.format = OutputFormat(rawValue: "jpeg")!
        let plain = spec.settingsDigest()
        let record = String(decoding: try CanonicalJSON.encode(spec.settings), as: UTF8.self)
        XCTAssertFalse(record.contains("metadata"), record)
        spec.export = ConvertSpec.Export(format: spec.export.format, metadata: MetadataOverrides())
        XCTAssertEqual(spec.settingsDigest(), plain, "an empty credit is no credit")
        spec.export = ConvertSpec.Export(format: spec.export.format,
                                         metadata: MetadataOverrides(artist: "Ann Example", copyright: "© 2026 Ann Example", keywords: ["studio", "blue"]))
        XCTAssertNotEqual(spec.settingsDigest(), plain)
        let entry = try convert(try canonJPEG(), spec: spec, to: "credit.jpg")
        let tags = try Self.exiftool(out.appendingPathComponent(entry.output!.path))
        XCTAssertEqual(Self.strings(tags["XMP-dc:Creator"]), ["Ann Example"])
        XCTAssertEqual(tags["XMP-dc:Rights"] as? String, "© 2026 Ann Example")
        XCTAssertEqual(tags["IFD0:Artist"] as? String, "Ann Example")
        XCTAssertEqual(tags["IFD0:Copyright"] as? String, "© 2026 Ann Example")
        XCTAssertEqual(Self.strings(tags["IPTC:By-line"]), ["Ann Example"])
        XCTAssertEqual(Self.strings(tags["XMP-dc:Subject"]), ["studio", "blue"])
        XCTAssertEqual(tags["XMP-dc:Description"] as? String, "mit blauem Kleid", "the rest is still carried")
        let again = try convert(try canonJPEG(), spec: spec, to: "credit-again.jpg")
        XCTAssertEqual(again.output?.sha256, entry.output?.sha256, "the same input and credit give the same bytes")
    }

    func testRecipeMetadataSectionAndFlagsOverIt() throws {
        let folder = try TestPaths.temporaryDirectory(self)
        let recipe = folder.appendingPathComponent("credit.json")
        try Data(#"{"version": 1, "name": "credit", "metadata": {"artist": "Recipe Artist", "copyright": "© Recipe", "keywords": "one, two"}}"#.utf8)
            .write(to: recipe)
        let parsed = try Recipe.load(from: recipe, ranges: .standard)
        XCTAssertEqual(parsed.metadata, MetadataOverrides(artist: "Recipe Artist", copyright: "© Recipe", keywords: ["one", "two"]))
        XCTAssertThrowsError(try Recipe.parse(Data(#"{"version": 1, "name": "x", "metadata": {"author": "A"}}"#.utf8), file: "r.json", ranges: .standard))
        let input = folder.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: try canonJPEG(), to: input.appendingPathComponent("a.jpg"))
        let out = folder.appendingPathComponent("out")
        let r = try CLIRunner.run(["convert", input.path, "-o", out.path, "--format", "png", "--recipe", recipe.path, "--artist", "Flag Artist", "-q"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let tags = try Self.exiftool(out.appendingPathComponent("a.png"))
        XCTAssertEqual(Self.strings(tags["XMP-dc:Creator"]), ["Flag Artist"])
        XCTAssertEqual(tags["XMP-dc:Rights"] as? String, "© Recipe")
        XCTAssertEqual(Self.strings(tags["XMP-dc:Subject"]), ["one", "two"])
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("manifest.json"))) as! [String: Any]
        let credit = (manifest["settings"] as? [String: Any])?["metadata"] as? [String: Any]
        XCTAssertEqual(credit?["artist"] as? String, "Flag Artist")
        XCTAssertEqual(credit?["copyright"] as? String, "© Recipe")
        XCTAssertEqual(credit?["keywords"] as? [String], ["one", "two"])
    }

    // MARK: Selection

    func testMinRatingAndLabelSelectInputsBySidecarInThePlanner() throws {
        let folder = try TestPaths.temporaryDirectory(self)
        var items: [InputItem] = []
        for n in 1...5 {
            let url = folder.appendingPathComponent("IMG_\(n).CRW")
            try Data("not read by the planner".utf8).write(to: url)
            items.append(InputItem(url: url, displayPath: url.lastPathComponent, relativePath: url.lastPathComponent))
        }
        try Self.sidecar(creator: "A", rating: 4, label: "Red").write(to: folder.appendingPathComponent("IMG_1.CRW.xmp"))
        try Self.sidecar(creator: "A", rating: 2, label: "Green").write(to: folder.appendingPathComponent("IMG_2.xmp"))
        // IMG_3 has no sidecar; IMG_4's is not XMP; IMG_5 is rejected (-1).
        try Data("<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF><unclosed".utf8).write(to: folder.appendingPathComponent("IMG_4.xmp"))
        try Self.sidecar(creator: "A", rating: -1, label: "red").write(to: folder.appendingPathComponent("IMG_5.xmp"))

        func plan(_ selection: InputSelection) -> BatchPlan {
            var rules = PlanRules(outputExtension: "tif")
            rules.selection = selection
            return BatchPlanner.plan(items: items, rules: rules, exists: { _ in false })
        }
        var p = plan(try InputSelection(minRating: 3))
        XCTAssertEqual(p.jobs.map(\.item.displayPath), ["IMG_1.CRW", "IMG_4.CRW"])
        XCTAssertEqual(p.jobs[0].outputPath, "IMG_1.tif")
        guard case let .fail(reason, kind) = p.jobs[1].action else { return XCTFail("IMG_4 should fail: \(p.jobs[1].action)") }
        XCTAssertEqual(kind, .invalidDocument)
        XCTAssertTrue(reason.contains("IMG_4.xmp") && reason.contains("malformed XMP sidecar"), reason)
        XCTAssertEqual(p.filteredOut.map(\.path), ["IMG_2.CRW", "IMG_3.CRW", "IMG_5.CRW"])
        XCTAssertEqual(p.filteredOut[1].reason, "no XMP sidecar: rated 0, below --min-rating 3")

        p = plan(try InputSelection(labels: ["RED", "blue"]))
        XCTAssertEqual(p.jobs.map(\.item.displayPath), ["IMG_1.CRW", "IMG_4.CRW", "IMG_5.CRW"])
        p = plan(try InputSelection(minRating: 0, labels: ["red"]))
        XCTAssertEqual(p.jobs.map(\.item.displayPath), ["IMG_1.CRW", "IMG_4.CRW"], "rejected (-1) is below 0 stars")
        XCTAssertThrowsError(try InputSelection(minRating: 6))
        XCTAssertEqual(plan(try InputSelection()).jobs.count, 5, "no selection: every input, no sidecar read")
    }

    func testSelectionIsCountedAndAMalformedSidecarFailsItsFileAloneWithOneLine() throws {
        let folder = try TestPaths.temporaryDirectory(self)
        let input = folder.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        for n in 1...3 { try FileManager.default.copyItem(at: try canonCRW(), to: input.appendingPathComponent("IMG_\(n).CRW")) }
        try Self.sidecar(creator: "A", rating: 4).write(to: input.appendingPathComponent("IMG_1.CRW.xmp"))
        try Data("<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF><broken".utf8).write(to: input.appendingPathComponent("IMG_2.xmp"))
        // IMG_3: no sidecar, unrated.
        let out = folder.appendingPathComponent("out")
        var r = try CLIRunner.run(["convert", input.path, "-o", out.path, "--format", "jpeg", "--min-rating", "3"])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stdout.contains("1 converted, 0 skipped, 1 failed, 1 filtered out by --min-rating/--label"), r.stdout)
        var errors = r.stderr.split(separator: "\n").filter { $0.contains("IMG_2") }
        XCTAssertEqual(errors.count, 1, r.stderr)
        XCTAssertTrue(errors.first?.contains("IMG_2.xmp") == true && errors.first?.contains("malformed XMP sidecar") == true, r.stderr)

        // Without a selection the worker meets the same sidecar: the file fails alone, the others convert.
        let all = folder.appendingPathComponent("all")
        r = try CLIRunner.run(["convert", input.path, "-o", all.path, "--format", "jpeg"])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stdout.contains("2 converted, 0 skipped, 1 failed"), r.stdout)
        errors = r.stderr.split(separator: "\n").filter { $0.contains("IMG_2") }
        XCTAssertEqual(errors.count, 1, r.stderr)
        let manifest = try JSONDecoder().decode(Manifest.self, from: Data(contentsOf: all.appendingPathComponent("manifest.json")))
        let failed = manifest.entries.filter { $0.status == .failed }
        XCTAssertEqual(failed.map(\.input.relativePath), ["IMG_2.CRW"])
        XCTAssertEqual(failed.first?.failureKind, .invalidDocument)
        XCTAssertEqual(manifest.entries.first { $0.input.relativePath == "IMG_1.CRW" }?.input.decisions?["sidecar"], "IMG_1.CRW.xmp")
    }

    // MARK: Strip

    func testStripMetadataWritesNoXMPIPTCOrCredit() throws {
        let out = try TestPaths.temporaryDirectory(self)
        for format in CodecRegistry.outputFormats {
            var spec = ConvertSpec(outputDirectory: out)
            spec.export.format = format
            spec.export.stripMetadata = true
            let entry = try convert(try canonJPEG(), spec: spec, to: "strip-\(format.rawValue).\(format.fileExtension)")
            let tags = try Self.exiftool(out.appendingPathComponent(entry.output!.path))
            let kept = tags.keys.filter { $0.hasPrefix("XMP") || $0.hasPrefix("IPTC") || $0.hasSuffix(":Artist") || $0.hasSuffix(":Copyright") }
            XCTAssertEqual(kept, [], format.rawValue)
        }
        let r = try CLIRunner.run(["convert", try canonJPEG().path, "-o", out.appendingPathComponent("cli").path, "--strip-metadata", "--artist", "A"])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("--strip-metadata writes no metadata"), r.stderr)
    }

    // MARK: Helpers

    private func convert(_ input: URL, spec: ConvertSpec, to relative: String) throws -> Manifest.Entry {
        let converter = try FileConverter(spec: spec)
        let item = InputItem(url: input, displayPath: input.path, relativePath: input.lastPathComponent)
        let entry = converter.convert(item, to: relative)
        XCTAssertEqual(entry.status, .converted, entry.reason ?? "")
        guard entry.status == .converted else { throw MetadataTestFailure(reason: "conversion failed: \(entry.reason ?? "")") }
        return entry
    }

    /// A generated sidecar, as Lightroom and darktable write them (attributes for simple values, RDF containers for
    /// arrays).
    static func sidecar(creator: String, rating: Int, label: String? = nil, keywords: [String] = [], usageTerms: String? = nil,
                        city: String? = nil, orientation: Int? = nil) -> Data {
        var attributes = "xmp:Rating=\"\(rating)\""
        if let label { attributes += " xmp:Label=\"\(label)\"" }
        if let city { attributes += " photoshop:City=\"\(city)\"" }
        if let orientation { attributes += " tiff:Orientation=\"\(orientation)\"" }
        var body = "<dc:creator><rdf:Seq><rdf:li>\(creator)</rdf:li></rdf:Seq></dc:creator>"
        if !keywords.isEmpty { body += "<dc:subject><rdf:Bag>" + keywords.map { "<rdf:li>\($0)</rdf:li>" }.joined() + "</rdf:Bag></dc:subject>" }
        if let usageTerms { body += "<xmpRights:UsageTerms><rdf:Alt><rdf:li xml:lang=\"x-default\">\(usageTerms)</rdf:li></rdf:Alt></xmpRights:UsageTerms>" }
        return Data("""
        <?xml version="1.0" encoding="UTF-8"?>
        <x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="Adobe XMP Core 7.0-c000">
         <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
          <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/"
            xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/" xmlns:tiff="http://ns.adobe.com/tiff/1.0/"
            xmlns:xmpRights="http://ns.adobe.com/xap/1.0/rights/" \(attributes)>
           \(body)
          </rdf:Description>
         </rdf:RDF>
        </x:xmpmeta>
        """.utf8)
    }

    /// exiftool's reading of `url`: every tag of every group (`-a -G1`), numbers as numbers (`-n`).
    static func exiftool(_ url: URL) throws -> [String: Any] {
        guard let tool = ["/usr/bin/exiftool", "/usr/local/bin/exiftool"].first(where: FileManager.default.isExecutableFile) else {
            throw MetadataTestFailure(reason: "exiftool is missing: scripts/ensure-deps.sh --test installs it (libimage-exiftool-perl)")
        }
        let r = try CLIRunner.capture(URL(fileURLWithPath: tool), ["-j", "-a", "-G1", "-n", url.path])
        XCTAssertEqual(r.status, 0, String(decoding: r.stderr, as: UTF8.self))
        let list = try JSONSerialization.jsonObject(with: r.stdout) as? [[String: Any]]
        return list?.first ?? [:]
    }

    /// Each of `expected`'s tags has its value in `tags` (one value or a list, compared as text).
    static func assertTags(_ tags: [String: Any], _ expected: [String: Any], _ label: String, file: StaticString = #filePath, line: UInt = #line) {
        for (tag, value) in expected.sorted(by: { $0.key < $1.key }) {
            XCTAssertEqual(strings(tags[tag]), strings(value), "\(label): \(tag)", file: file, line: line)
        }
    }

    /// A tag that holds one value or a list, as a list of text.
    static func strings(_ value: Any?) -> [String] {
        if let s = value as? String { return [s] }
        if let n = value as? Int { return [String(n)] }
        return (value as? [Any])?.map { "\($0)" } ?? []
    }

    /// Every Orientation exiftool found, in any group (EXIF's, and XMP's tiff:Orientation if one were written).
    static func orientations(_ tags: [String: Any]) -> [Int] {
        tags.filter { $0.key.hasSuffix(":Orientation") }.compactMap { $0.value as? Int }
    }

    /// The size of the XMP packet exiftool finds (its `-XMP` block).
    static func packetSize(_ url: URL) throws -> Int {
        let r = try CLIRunner.capture(URL(fileURLWithPath: "/usr/bin/exiftool"), ["-b", "-XMP", url.path])
        return r.stdout.count
    }
}

/// A test precondition that did not hold (reported as the test's error, never as a skip).
struct MetadataTestFailure: Error, CustomStringConvertible {
    let reason: String
    var description: String { reason }
}
