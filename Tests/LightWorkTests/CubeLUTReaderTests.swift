import XCTest
import LightWork

final class CubeLUTReaderTests: XCTestCase {
    /// A .cube text written from the format's definition (red fastest), independent of CubeLUTWriter.
    private func cubeText(size n: Int, header: String = "", _ f: (Double, Double, Double) -> (Double, Double, Double)) -> String {
        var s = header + "LUT_3D_SIZE \(n)\n"
        for b in 0..<n {
            for g in 0..<n {
                for r in 0..<n {
                    let (x, y, z) = f(Double(r) / Double(n - 1), Double(g) / Double(n - 1), Double(b) / Double(n - 1))
                    s += String(format: "%.7f %.7f %.7f\n", x, y, z)
                }
            }
        }
        return s
    }

    private func parse(_ text: String) throws -> LUT3D { try CubeLUTReader.parse(Data(text.utf8), file: "t.cube") }

    private func assertLine(_ text: String, _ line: Int, contains words: String, file: StaticString = #filePath, at: UInt = #line) {
        XCTAssertThrowsError(try parse(text), file: file, line: at) { error in
            guard case let LightWorkError.invalidDocument(name, path, reason) = error else { return XCTFail("\(error)", file: file, line: at) }
            XCTAssertEqual(name, "t.cube", file: file, line: at)
            XCTAssertEqual(path, "line \(line)", reason, file: file, line: at)
            XCTAssertTrue(reason.contains(words), reason, file: file, line: at)
        }
    }

    func testIdentityCubeReturnsItsInput() throws {
        let lut = try parse(cubeText(size: 17, header: "# identity\nTITLE \"Identity 17\"\n\n") { ($0, $1, $2) })
        XCTAssertEqual(lut.size, 17)
        XCTAssertEqual(lut.title, "Identity 17")
        let probes = LUTProbe.colours(3000)
        for mode in LUT3D.Interpolation.allCases {
            XCTAssertLessThan(LUTProbe.maxError(LUTProbe.apply(lut, probes, mode), probes), 1e-4)
        }
    }

    /// The 2³ inversion cube as other tools write it by hand: entry 2 (r = 1, g = 0, b = 0) holds "0 1 1".
    func testHandWrittenInvertCubeFixesTheOrder() throws {
        let lut = try parse("TITLE \"Invert\"\nLUT_3D_SIZE 2\nDOMAIN_MIN 0 0 0\nDOMAIN_MAX 1 1 1\n1 1 1\n0 1 1\n1 0 1\n0 0 1\n1 1 0\n0 1 0\n1 0 0\n0 0 0\n")
        let probes = LUTProbe.colours(500)
        XCTAssertLessThan(LUTProbe.maxError(LUTProbe.apply(lut, probes), probes.map { SIMD3(repeating: 1) - $0 }), 1e-5)
    }

    func testSwapRedBlueAtLatticePoints() throws {
        let n = 9
        let lut = try parse(cubeText(size: n) { ($2, $1, $0) })
        for b in 0..<n { for g in 0..<n { for r in 0..<n {
            let input = SIMD3(Float(r), Float(g), Float(b)) / Float(n - 1)
            XCTAssertLessThan(abs(lut.sample(input) - SIMD3(input.z, input.y, input.x)).max(), 1e-6)
        } } }
    }

    func testDomainCommentsCRLFAndOutOfRangeValues() throws {
        var text = "# made by hand\r\nTITLE \"wide\"\r\nDOMAIN_MIN -0.5 -0.5 -0.5\r\nDOMAIN_MAX 1.5 1.5 1.5\r\n\r\nLUT_3D_SIZE 2\r\n"
        // Identity over −0.5…1.5: corner values lie outside 0…1 and must be kept.
        for b in [-0.5, 1.5] { for g in [-0.5, 1.5] { for r in [-0.5, 1.5] { text += "\(r) \(g) \(b)  # corner\r\n" } } }
        let lut = try parse(text)
        XCTAssertEqual(lut.domainMin, SIMD3(repeating: -0.5))
        XCTAssertEqual(lut[r: 0, g: 0, b: 0], SIMD3(repeating: -0.5))
        XCTAssertLessThan(abs(lut.sample(SIMD3(1.25, -0.25, 0.5)) - SIMD3(1.25, -0.25, 0.5)).max(), 1e-6)
        let resolve = try parse("LUT_3D_INPUT_RANGE 0 2\n" + cubeText(size: 2) { ($0 * 2, $1 * 2, $2 * 2) })
        XCTAssertEqual(resolve.domainMax, SIMD3(repeating: 2))
    }

    func testStructuralErrorsNameTheirLine() {
        let good = cubeText(size: 2) { ($0, $1, $2) }   // line 1 size, lines 2–9 data
        var lines = good.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines[4] = "0.5 abc 0.5"
        assertLine(lines.joined(separator: "\n"), 5, contains: "\"abc\" is not a number")
        assertLine(good.replacingOccurrences(of: "1.0000000 1.0000000 1.0000000\n", with: "1 1\n"), 9, contains: "three numbers")
        assertLine(good + "0 0 0\n", 10, contains: "more than")
        assertLine(String(good.split(separator: "\n").dropLast().joined(separator: "\n")), 8, contains: "ends after 7 entries")
        assertLine("# no size\n0 0 0\n", 2, contains: "before LUT_3D_SIZE")
        assertLine("TITLE \"x\"\nLUT_1D_SIZE 1024\n0 0 0\n", 2, contains: "1D LUT")
        assertLine("LUT_3D_SIZE 300\n", 1, contains: "outside 2…256")
        assertLine("LUT_3D_SIZE 2\nLUT_3D_SIZE 2\n", 2, contains: "twice")
        assertLine("LUT_3D_SIZE 2\nGAMMA 2.2\n", 2, contains: "unknown keyword")
        assertLine(good + "TITLE \"late\"\n", 10, contains: "after the table")
        assertLine("DOMAIN_MIN 0 0\nLUT_3D_SIZE 2\n", 1, contains: "takes 3 numbers")
        assertLine("# empty\n\nTITLE \"nothing\"\n", 3, contains: "no LUT_3D_SIZE")
    }

    func testWriterRoundTrip() throws {
        let lut = LUT3D(size: 5, title: "round trip") { c in SIMD3(c.x * c.y, 1.2 * c.z - 0.1, c.x) }
        let dir = try TestPaths.temporaryDirectory(self)
        let url = dir.appendingPathComponent("rt.cube")
        try CubeLUTWriter.write(lut, to: url)
        let back = try CubeLUTReader.read(url: url)
        XCTAssertEqual(back.size, 5)
        XCTAssertEqual(back.title, "round trip")
        XCTAssertLessThan(zip(back.table, lut.table).map { abs($0 - $1) }.max()!, 1e-6)
        XCTAssertEqual(try LUTFile.load(url: url, decodeImage: nil).table, back.table)
    }
}
