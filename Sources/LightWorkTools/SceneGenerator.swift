import Foundation

/// Every material's colour in some linear RGB (camera raw units or linear sRGB), planar for the row loops.
struct ScenePalette: Sendable {
    let r: [Float]
    let g: [Float]
    let b: [Float]

    init(_ colours: [SIMD3<Double>]) {
        r = colours.map { Float($0.x) }
        g = colours.map { Float($0.y) }
        b = colours.map { Float($0.z) }
    }
}

/// A scene of flat materials (CIELAB D50 each) painted one row at a time into planar Float rows, in the colours of a
/// palette made from `materials`. Mixing happens in linear light, so the same code paints raw camera values (for the
/// DNG) and linear sRGB (for the reference PNG).
protocol ScenePainter: Sendable {
    var width: Int { get }
    var height: Int { get }
    /// Every material's CIELAB D50 colour, indexed as the palette.
    var materials: [SIMD3<Double>] { get }
    /// Fills `r`, `g`, `b` (each `width` long) with row `y` in the colours of `palette`.
    func renderRow(_ y: Int, palette: ScenePalette, r: UnsafeMutablePointer<Float>, g: UnsafeMutablePointer<Float>, b: UnsafeMutablePointer<Float>)
}

/// The test chart: ColorChecker, grey ramp, zone plate and lines (`SceneLayout`).
struct SceneGenerator: ScenePainter {
    let layout: SceneLayout
    var width: Int { layout.width }
    var height: Int { layout.height }
    var materials: [SIMD3<Double>] { layout.materials }

    /// Fills `r`, `g`, `b` (each `layout.width` long) with row `y` in the colours of `palette`.
    func renderRow(_ y: Int, palette: ScenePalette, r: UnsafeMutablePointer<Float>, g: UnsafeMutablePointer<Float>, b: UnsafeMutablePointer<Float>) {
        let w = layout.width
        fill(r, g, b, 0..<w, SceneLayout.background, palette)
        for (i, p) in layout.patches.enumerated() where y >= p.y && y < p.maxY {
            fill(r, g, b, p.x..<p.maxX, SceneLayout.patchMaterial(i), palette)
        }
        for (j, p) in layout.ramp.enumerated() where y >= p.y && y < p.maxY {
            fill(r, g, b, p.x..<p.maxX, SceneLayout.rampMaterial(j), palette)
        }
        let zone = layout.zonePlate
        if y >= zone.rect.y && y < zone.rect.maxY {
            paintZonePlate(y, zone, palette, r, g, b)
        }
        for group in layout.lineGroups where y >= group.rect.y && y < group.rect.maxY {
            paintLines(y, group, palette, r, g, b)
        }
    }

    private func fill(_ r: UnsafeMutablePointer<Float>, _ g: UnsafeMutablePointer<Float>, _ b: UnsafeMutablePointer<Float>,
                      _ span: Range<Int>, _ material: Int, _ palette: ScenePalette) {
        let vr = palette.r[material], vg = palette.g[material], vb = palette.b[material]
        for x in span {
            r[x] = vr
            g[x] = vg
            b[x] = vb
        }
    }

    private func paintZonePlate(_ y: Int, _ zone: ZonePlate, _ palette: ScenePalette,
                                _ r: UnsafeMutablePointer<Float>, _ g: UnsafeMutablePointer<Float>, _ b: UnsafeMutablePointer<Float>) {
        let dr = palette.r[zone.dark], dg = palette.g[zone.dark], db = palette.b[zone.dark]
        let sr = palette.r[zone.light] - dr, sg = palette.g[zone.light] - dg, sb = palette.b[zone.light] - db
        let dy = Double(y) + 0.5 - zone.centreY
        let dy2 = dy * dy
        for x in zone.rect.x..<zone.rect.maxX {
            let dx = Double(x) + 0.5 - zone.centreX
            let t = Float(0.5 + 0.5 * cos(zone.k * (dx * dx + dy2)))
            r[x] = dr + sr * t
            g[x] = dg + sg * t
            b[x] = db + sb * t
        }
    }

    private func paintLines(_ y: Int, _ group: LineGroup, _ palette: ScenePalette,
                            _ r: UnsafeMutablePointer<Float>, _ g: UnsafeMutablePointer<Float>, _ b: UnsafeMutablePointer<Float>) {
        let p = group.period
        for x in group.rect.x..<group.rect.maxX {
            let u: Int
            switch group.direction {
            case .vertical: u = x
            case .horizontal: u = y
            case .diagonal: u = x + y
            }
            let m = 2 * ((u + group.phase) % p) < p ? group.materialA : group.materialB
            r[x] = palette.r[m]
            g[x] = palette.g[m]
            b[x] = palette.b[m]
        }
    }
}
