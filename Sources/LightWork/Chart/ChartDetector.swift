import Foundation

/// Finds a 24-patch ColorChecker in a picture (given as CIELAB D50 of a reduced copy) without being told where.
///
/// Method: (1) pixels are *flat* where every 4-neighbour is within a noise-scaled ΔE76 of them; flat pixels that
/// touch join into regions (union-find), which erodes each region by a pixel and keeps the dark gaps between
/// patches apart. (2) Patch-like regions are kept: square-ish (the ratio of the principal second moments at most
/// 3, and the area 0.75–1.25 of a parallelogram's with those moments), not tiny and not over 2.5 % of the frame.
/// (3) Regions of similar size whose centroids lie about one patch apart are neighbours; from each region the
/// neighbours are walked to give every reachable region integer grid coordinates in the seed's two directions.
/// (4) A homography from grid coordinates to centroids is fitted, the best-filled 6 × 4 (or 4 × 6) window of the
/// grid is taken, every cell of it is matched to the nearest patch-like region within 0.3 of a pitch, and the
/// homography is fitted again to the matches. (5) Of the window's four readings without a mirror (upright, turned
/// by 90°, 180°, 270°), the one whose bottom row reads as the grey row — lightness falling by at least 2 L* at
/// each step from white to black, its mean chroma under half the other rows' — gives the patch order.
///
/// Confidence: at least `minimumCells` of the 24 cells matched to a region, the matches within
/// `maximumResidual` of a pitch of the fitted grid (RMS), and exactly one reading with a grey row. Anything less
/// is refused (`ChartNotFound`), never guessed.
public enum ChartDetector {
    public static let minimumCells = 16
    public static let maximumResidual = 0.08

    /// What was found, in the reduced picture's pixels (origin at its top-left corner, x right, y down).
    public struct Detection: Sendable {
        /// Chart coordinates (column 0…5, row 0…3 of patch centres, in reading order) → reduced-picture pixels.
        public var homography: Homography
        public var cellsMatched: Int
        /// RMS distance of the matched regions' centroids from the fitted grid, in patch pitches.
        public var residual: Double
        /// The grey row's mean chroma over the other rows' (lower is surer).
        public var greyRowChromaRatio: Double
    }

    struct Region {
        var count = 0
        var sx = 0.0, sy = 0.0, sxx = 0.0, syy = 0.0, sxy = 0.0
        var centre: SIMD2<Double> { SIMD2(sx, sy) / Double(count) }
    }

    /// Finds the chart in a `width × height` picture of interleaved L, a, b; throws `ChartNotFound` saying which
    /// test failed.
    public static func detect(lab: [Double], width: Int, height: Int) throws -> Detection {
        let n = width * height
        func d(_ i: Int, _ j: Int) -> Double {
            let a = lab[3 * i] - lab[3 * j], b = lab[3 * i + 1] - lab[3 * j + 1], c = lab[3 * i + 2] - lab[3 * j + 2]
            return (a * a + b * b + c * c).squareRoot()
        }
        // The noise level: the median horizontal neighbour difference (most of any picture is smooth).
        var diffs: [Double] = []
        diffs.reserveCapacity(n / 3)
        for y in stride(from: 0, to: height, by: 3) { for x in 0..<(width - 1) { diffs.append(d(y * width + x, y * width + x + 1)) } }
        diffs.sort()
        let threshold = min(max(2.5 * (diffs.isEmpty ? 1 : diffs[diffs.count / 2]), 2), 6)

        var flat = [Bool](repeating: false, count: n)
        for y in 1..<(height - 1) {
            for x in 1..<(width - 1) {
                let i = y * width + x
                flat[i] = d(i, i - 1) < threshold && d(i, i + 1) < threshold && d(i, i - width) < threshold && d(i, i + width) < threshold
            }
        }
        var parent = Array(0..<n)
        func find(_ i: Int) -> Int {
            var r = i
            while parent[r] != r { r = parent[r] }
            var k = i
            while parent[k] != r { let next = parent[k]; parent[k] = r; k = next }
            return r
        }
        for y in 1..<(height - 1) {
            for x in 1..<(width - 1) {
                let i = y * width + x
                guard flat[i] else { continue }
                if flat[i + 1] { let a = find(i), b = find(i + 1); if a != b { parent[max(a, b)] = min(a, b) } }
                if flat[i + width] { let a = find(i), b = find(i + width); if a != b { parent[max(a, b)] = min(a, b) } }
            }
        }
        var regions: [Int: Region] = [:]
        for i in 0..<n where flat[i] {
            let x = Double(i % width) + 0.5, y = Double(i / width) + 0.5
            regions[find(i), default: Region()].count += 1
            let r = find(i)
            regions[r]!.sx += x; regions[r]!.sy += y
            regions[r]!.sxx += x * x; regions[r]!.syy += y * y; regions[r]!.sxy += x * y
        }
        // Patch-like regions, in a fixed order (by their first pixel) so the result never depends on hashing.
        let minimumArea = max(12.0, 0.00004 * Double(n)), maximumArea = 0.025 * Double(n)
        var patches: [(centre: SIMD2<Double>, area: Double)] = []
        for key in regions.keys.sorted() {
            let r = regions[key]!
            let a = Double(r.count)
            guard a >= minimumArea, a <= maximumArea else { continue }
            let c = r.centre
            let vxx = r.sxx / a - c.x * c.x, vyy = r.syy / a - c.y * c.y, vxy = r.sxy / a - c.x * c.y
            let mean = (vxx + vyy) / 2, spread = (((vxx - vyy) / 2) * ((vxx - vyy) / 2) + vxy * vxy).squareRoot()
            let l1 = mean + spread, l2 = mean - spread
            guard l2 > 0, l1 / l2 <= 3 else { continue }
            let fill = a / (12 * (l1 * l2).squareRoot())
            guard fill >= 0.75, fill <= 1.25 else { continue }
            patches.append((c, a))
        }
        guard patches.count >= minimumCells else {
            throw ChartNotFound(reason: "only \(patches.count) patch-like flat regions in the picture (a chart gives about 24)")
        }
        // Neighbours: similar size, about one patch apart.
        var neighbours = [[Int]](repeating: [], count: patches.count)
        for i in patches.indices {
            for j in patches.indices where j > i {
                let ratio = patches[i].area / patches[j].area
                guard ratio < 2, ratio > 0.5 else { continue }
                let side = ((patches[i].area + patches[j].area) / 2).squareRoot()
                let dist = ((patches[i].centre - patches[j].centre) * (patches[i].centre - patches[j].centre)).sum().squareRoot()
                guard dist >= 1.0 * side, dist <= 2.2 * side else { continue }
                neighbours[i].append(j)
                neighbours[j].append(i)
            }
        }

        var best: (cells: [Int: Int], h: Homography, residual: Double, window: (a: Int, b: Int, wide: Bool))?
        var tried = Set<Int>()
        for seed in patches.indices where !neighbours[seed].isEmpty && !tried.contains(seed) {
            guard let grid = walk(from: seed, patches.map(\.centre), neighbours) else { continue }
            tried.formUnion(grid.values)
            guard grid.count >= minimumCells / 2, let fitted = fitWindow(grid, patches) else { continue }
            if best == nil || fitted.cells.count > best!.cells.count
                || (fitted.cells.count == best!.cells.count && fitted.residual < best!.residual) {
                best = fitted
            }
        }
        guard let found = best, found.cells.count >= minimumCells else {
            throw ChartNotFound(reason: "no 6 × 4 grid of patches: at best \(best?.cells.count ?? 0) of 24 cells matched (at least \(minimumCells) needed)")
        }
        guard found.residual <= maximumResidual else {
            throw ChartNotFound(reason: String(format: "the patches found do not lie on one chart's grid (RMS %.2f of a pitch, at most %.2f)", found.residual, maximumResidual))
        }

        // The four readings without a mirror; the grey row decides.
        let (a0, b0, wide) = (Double(found.window.a), Double(found.window.b), found.window.wide)
        let maps: [(Double, Double) -> SIMD2<Double>] = wide
            ? [{ c, r in SIMD2(a0 + c, b0 + r) }, { c, r in SIMD2(a0 + 5 - c, b0 + 3 - r) },
               { c, r in SIMD2(a0 + 5 - c, b0 + r) }, { c, r in SIMD2(a0 + c, b0 + 3 - r) }]
            : [{ c, r in SIMD2(a0 + r, b0 + c) }, { c, r in SIMD2(a0 + 3 - r, b0 + 5 - c) },
               { c, r in SIMD2(a0 + 3 - r, b0 + c) }, { c, r in SIMD2(a0 + r, b0 + 5 - c) }]
        var readings: [(Homography, Double)] = []
        for map in maps {
            var from: [SIMD2<Double>] = [], to: [SIMD2<Double>] = []
            for r in 0..<4 { for c in 0..<6 { from.append(SIMD2(Double(c), Double(r))); to.append(found.h.apply(map(Double(c), Double(r)))) } }
            guard let g = Homography.fit(from: from, to: to) else { continue }
            let o = g.apply(SIMD2(0, 0)), right = g.apply(SIMD2(1, 0)) - o, down = g.apply(SIMD2(0, 1)) - o
            // Reading order seen from the front turns clockwise on screen (y down): no mirror.
            guard right.x * down.y - right.y * down.x > 0 else { continue }
            let means = (0..<24).map { k in meanLab(lab, width, height, g.apply(SIMD2(Double(k % 6), Double(k / 6))), radius: 0.2 * (right * right).sum().squareRoot()) }
            let chroma = means.map { ($0.y * $0.y + $0.z * $0.z).squareRoot() }
            let grey = chroma[18...].reduce(0, +) / 6, colour = chroma[..<18].reduce(0, +) / 18
            let falling = (18..<23).allSatisfy { means[$0].x - means[$0 + 1].x >= 2 }
            if falling && grey < 0.5 * colour { readings.append((g, grey / max(colour, 1e-9))) }
        }
        guard readings.count == 1 else {
            throw ChartNotFound(reason: readings.isEmpty ? "no side of the grid reads as the grey row (white to black, neutral)"
                                                         : "two sides of the grid read as a grey row: the patch order is ambiguous")
        }
        return Detection(homography: readings[0].0, cellsMatched: found.cells.count, residual: found.residual, greyRowChromaRatio: readings[0].1)
    }

    /// Integer grid coordinates for every region reachable from `seed` by one-pitch steps along its two directions.
    static func walk(from seed: Int, _ centres: [SIMD2<Double>], _ neighbours: [[Int]]) -> [Int: Int]? {
        let vectors = neighbours[seed].map { centres[$0] - centres[seed] }
        func length(_ v: SIMD2<Double>) -> Double { (v * v).sum().squareRoot() }
        guard let e1 = vectors.min(by: { length($0) < length($1) }) else { return nil }
        guard let e2 = vectors.filter({ abs(($0 * e1).sum()) / (length($0) * length(e1)) < 0.5 }).min(by: { length($0) < length($1) }) else { return nil }
        let det = e1.x * e2.y - e1.y * e2.x
        guard abs(det) > 1e-9 else { return nil }
        var cellOf: [Int: SIMD2<Int>] = [seed: SIMD2(0, 0)]
        var taken: [SIMD2<Int>: Int] = [SIMD2(0, 0): seed]
        var queue = [seed], head = 0
        while head < queue.count {
            let k = queue[head]; head += 1
            for m in neighbours[k] where cellOf[m] == nil {
                let v = centres[m] - centres[k]
                let alpha = (v.x * e2.y - v.y * e2.x) / det, beta = (e1.x * v.y - e1.y * v.x) / det
                let ra = alpha.rounded(), rb = beta.rounded()
                guard abs(alpha - ra) < 0.3, abs(beta - rb) < 0.3, abs(ra) + abs(rb) == 1 else { continue }
                let cell = cellOf[k]! &+ SIMD2(Int(ra), Int(rb))
                guard taken[cell] == nil else { continue }
                cellOf[m] = cell
                taken[cell] = m
                queue.append(m)
            }
        }
        // Keyed by a packed cell (column offset by 64) for a deterministic order.
        var out: [Int: Int] = [:]
        for (cell, region) in taken { out[(cell.y + 64) * 128 + cell.x + 64] = region }
        return out
    }

    static func unpack(_ key: Int) -> SIMD2<Double> { SIMD2(Double(key % 128 - 64), Double(key / 128 - 64)) }

    /// The best-filled 6 × 4 or 4 × 6 window of a walked grid, its cells re-matched to the nearest patch-like
    /// regions and the homography fitted to them.
    static func fitWindow(_ grid: [Int: Int], _ patches: [(centre: SIMD2<Double>, area: Double)])
        -> (cells: [Int: Int], h: Homography, residual: Double, window: (a: Int, b: Int, wide: Bool))? {
        let keys = grid.keys.sorted()
        let cells = keys.map(unpack)
        guard var h = Homography.fit(from: cells, to: keys.map { patches[grid[$0]!].centre }) else { return nil }
        let minA = Int(cells.map(\.x).min()!), maxA = Int(cells.map(\.x).max()!)
        let minB = Int(cells.map(\.y).min()!), maxB = Int(cells.map(\.y).max()!)
        var window = (a: 0, b: 0, wide: true), bestCount = -1
        for wide in [true, false] {
            let (w, hgt) = wide ? (6, 4) : (4, 6)
            for a in (minA - w + 1)...maxA {
                for b in (minB - hgt + 1)...maxB {
                    let count = cells.filter { Int($0.x) >= a && Int($0.x) < a + w && Int($0.y) >= b && Int($0.y) < b + hgt }.count
                    if count > bestCount { bestCount = count; window = (a, b, wide) }
                }
            }
        }
        let (w, hgt) = window.wide ? (6, 4) : (4, 6)
        let areas = keys.map { patches[grid[$0]!].area }.sorted()
        let typical = areas[areas.count / 2]
        var matched: [Int: Int] = [:]
        var residual = 0.0
        for _ in 0..<2 {
            matched = [:]
            for b in window.b..<(window.b + hgt) {
                for a in window.a..<(window.a + w) {
                    let p = SIMD2(Double(a), Double(b))
                    let at = h.apply(p)
                    let pitch = (h.apply(p + SIMD2(1, 0)) - at), pitchLength = (pitch * pitch).sum().squareRoot()
                    var nearest: (Int, Double)?
                    for (i, q) in patches.enumerated() where q.area > typical / 2 && q.area < typical * 2 {
                        let dist = ((q.centre - at) * (q.centre - at)).sum().squareRoot()
                        if dist < 0.3 * pitchLength, dist < (nearest?.1 ?? .infinity) { nearest = (i, dist) }
                    }
                    if let nearest { matched[(b + 64) * 128 + a + 64] = nearest.0 }
                }
            }
            let mk = matched.keys.sorted()
            guard mk.count >= 4, let refit = Homography.fit(from: mk.map(unpack), to: mk.map { patches[matched[$0]!].centre }) else { return nil }
            h = refit
            var sum = 0.0
            for k in mk {
                let p = unpack(k), at = h.apply(p)
                let pitch = h.apply(p + SIMD2(1, 0)) - at
                let e = patches[matched[k]!].centre - at
                sum += (e * e).sum() / max((pitch * pitch).sum(), 1e-9)
            }
            residual = (sum / Double(mk.count)).squareRoot()
        }
        return (matched, h, residual, window)
    }

    /// Mean Lab of the reduced picture in a square of half-side `radius` around `p` (black when outside).
    static func meanLab(_ lab: [Double], _ width: Int, _ height: Int, _ p: SIMD2<Double>, radius: Double) -> SIMD3<Double> {
        let r = max(0.5, radius)
        var sum = SIMD3<Double>(0, 0, 0), count = 0
        for y in max(0, Int(p.y - r))..<min(height, Int(p.y + r) + 1) {
            for x in max(0, Int(p.x - r))..<min(width, Int(p.x + r) + 1) {
                let i = 3 * (y * width + x)
                sum += SIMD3(lab[i], lab[i + 1], lab[i + 2])
                count += 1
            }
        }
        return count > 0 ? sum / Double(count) : SIMD3(0, 0, 0)
    }
}

/// The chart could not be found with confidence, or not measured (its white patch clipped); `reason` names the test that failed.
public struct ChartNotFound: Error, CustomStringConvertible, Sendable {
    public let reason: String
    public var description: String { reason }
}
