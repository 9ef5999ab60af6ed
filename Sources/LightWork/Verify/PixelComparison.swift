import Foundation

/// A golden and a candidate image compared pixel by pixel: each pixel of each file is read as CIELAB through its
/// own embedded profile (`ProfileLab`) and the two are compared by CIEDE2000 (`CIE.deltaE2000`, checked against
/// Sharma, Wu & Dalal's published data in the tests).
public struct PixelComparison: Sendable {
    public let width: Int
    public let height: Int
    /// ΔE00 per pixel, row-major.
    public let deltaE: [Double]
    public let statistics: DeltaEStatistics
    /// True when every sample (alpha included) is the same number in both files.
    public let identicalSamples: Bool
    /// The largest difference of one sample, in the candidate's code values (0 when identical).
    public let maxSampleDifference: Int
    /// Pixels whose alpha differs (ΔE ignores alpha; a changed alpha is a failure of its own).
    public let alphaDifferences: Int
    /// Facts worth saying (an assumed profile, a changed bit depth…).
    public let notes: [String]

    /// Thrown when the two images cannot be compared pixel for pixel (size or layout differs).
    public struct Mismatch: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    /// Compares `candidate` with `golden`; `threshold` is the level the statistics count pixels above.
    public init(golden: ImageFile, candidate: ImageFile, threshold: Double, engine: EngineConfiguration = .detected) throws {
        guard golden.width == candidate.width, golden.height == candidate.height else {
            throw Mismatch(description: "size differs: golden \(golden.width)×\(golden.height), candidate \(candidate.width)×\(candidate.height)")
        }
        let goldenColours = golden.channels <= 2 ? 1 : 3, candidateColours = candidate.channels <= 2 ? 1 : 3
        guard goldenColours == candidateColours else {
            throw Mismatch(description: "channels differ: golden \(golden.channels), candidate \(candidate.channels)")
        }
        width = golden.width
        height = golden.height
        var notes: [String] = []
        if golden.bitDepth != candidate.bitDepth { notes.append("bit depth differs: golden \(golden.bitDepth), candidate \(candidate.bitDepth)") }
        if golden.channels != candidate.channels { notes.append("alpha differs: golden \(golden.channels) channels, candidate \(candidate.channels)") }
        let goldenLab = try ProfileLab(golden), candidateLab = try ProfileLab(candidate)
        if goldenLab.assumedSRGB { notes.append("golden has no embedded profile: read as sRGB") }
        if candidateLab.assumedSRGB { notes.append("candidate has no embedded profile: read as sRGB") }
        if goldenLab.profileDescription != candidateLab.profileDescription {
            notes.append("profiles differ: golden \"\(goldenLab.profileDescription)\", candidate \"\(candidateLab.profileDescription)\"")
        }
        let a = goldenLab.labPixels(golden, engine: engine), b = candidateLab.labPixels(candidate, engine: engine)
        let (w, h) = (golden.width, golden.height)
        let count = w * h
        var values = [Double](repeating: 0, count: count)
        values.withUnsafeMutableBufferPointer { d in
            let out = UncheckedSendable(d.baseAddress!)
            a.withUnsafeBufferPointer { a in b.withUnsafeBufferPointer { b in
                let lab = UncheckedSendable((a.baseAddress!, b.baseAddress!))
                let rows = 64
                Parallel.forEach((h + rows - 1) / rows, on: engine) { band in
                    for i in (band * rows * w)..<min(count, (band + 1) * rows * w) {
                        let p = lab.value.0 + 3 * i, q = lab.value.1 + 3 * i
                        out.value[i] = CIE.deltaE2000(SIMD3(p[0], p[1], p[2]), SIMD3(q[0], q[1], q[2]))
                    }
                }
            } }
        }
        deltaE = values
        statistics = DeltaEStatistics(values, threshold: threshold)

        var identical = golden.channels == candidate.channels && golden.bitDepth == candidate.bitDepth
        var maxDiff = 0, alpha = 0
        if golden.channels == candidate.channels {
            let c = golden.channels
            let scale = golden.bitDepth == candidate.bitDepth ? 1 : (golden.bitDepth == 8 ? 257 : 1)
            let candidateScale = golden.bitDepth == candidate.bitDepth ? 1 : (candidate.bitDepth == 8 ? 257 : 1)
            for i in 0..<count {
                for k in 0..<c {
                    let g = Int(golden.samples[i * c + k]) * scale, v = Int(candidate.samples[i * c + k]) * candidateScale
                    let d = abs(g - v)
                    if d > maxDiff { maxDiff = d }
                    if d != 0, c % 2 == 0, k == c - 1 { alpha += 1 }
                }
            }
            if maxDiff != 0 { identical = false }
        }
        identicalSamples = identical
        maxSampleDifference = maxDiff
        alphaDifferences = alpha
        self.notes = notes
    }
}
