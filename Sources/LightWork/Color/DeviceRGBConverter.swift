import CLCMS2
import CShims
import Dispatch
import Foundation

/// Converts a decoder's interleaved integer samples (8 or 16 bits, grey/RGB/CMYK, with or without alpha)
/// into rows of the device-RGB working space (RGBA half floats, sRGB-encoded, unassociated alpha).
///
/// With an ICC source, LittleCMS converts integer to 16-bit integer samples (its float paths are slow),
/// which are then turned into half floats by table; 8-bit samples are never narrowed and 16-bit samples
/// never pass through 8 bits. An sRGB source is not transformed at all.
public final class DeviceRGBConverter: @unchecked Sendable {
    /// Channel order of the source samples, as libjpeg and libpng deliver them.
    public enum Layout: Sendable, Equatable {
        case gray, grayAlpha, rgb, rgba
        /// `inverted` for Adobe CMYK JPEGs, which store 255 − ink.
        case cmyk(inverted: Bool)

        public var channels: Int {
            switch self {
            case .gray: return 1
            case .grayAlpha: return 2
            case .rgb: return 3
            case .rgba, .cmyk: return 4
            }
        }

        public var hasAlpha: Bool { self == .grayAlpha || self == .rgba }
    }

    /// Where the source values get their colour meaning.
    public enum Source: @unchecked Sendable {
        /// Already device RGB (sRGB or equivalent, or sRGB assumed): values are used as they are.
        case deviceRGB
        /// An ICC profile, converted into device RGB with LittleCMS.
        case profile(ICCProfile)
        /// CMYK with no profile: R = (1 − C)(1 − K), G = (1 − M)(1 − K), B = (1 − Y)(1 − K), read as sRGB.
        case naiveCMYK
    }

    public let layout: Layout
    public let sixteenBit: Bool
    /// Where the values get their colour meaning.
    public let source: Source
    private let transform: cmsHTRANSFORM?

    /// Builds the conversion; throws `.colour` when LittleCMS cannot link the profile to device RGB.
    public init(layout: Layout, sixteenBit: Bool, source: Source, intent: DecodeOptions.RenderingIntent) throws {
        self.layout = layout
        self.sixteenBit = sixteenBit
        self.source = source
        if case .cmyk = layout, case .deviceRGB = source {
            throw LightWorkError.colour("CMYK samples need a CMYK profile or the naive conversion")
        }
        if case .naiveCMYK = source, layout != .cmyk(inverted: false) && layout != .cmyk(inverted: true) {
            throw LightWorkError.colour("the naive CMYK conversion takes CMYK samples only")
        }
        guard case .profile(let profile) = source else { transform = nil; return }
        lw_lcms_quiet()
        let input = DeviceRGBConverter.lcmsFormat(layout, sixteenBit: sixteenBit)
        // LUT-based profiles (CMYK, some RGB) are resampled onto a grid by LittleCMS; its default grid is off by
        // more than 1/255 for 2.4% of the SWOP sample's values against an exact evaluation, the high-resolution
        // grid with pre/post-linearisation curves for 0.08% (at gamut edges). Matrix-shaper profiles are exact either way.
        let flags = UInt32(cmsFLAGS_BLACKPOINTCOMPENSATION | cmsFLAGS_HIGHRESPRECALC
                           | cmsFLAGS_CLUT_PRE_LINEARIZATION | cmsFLAGS_CLUT_POST_LINEARIZATION)
        guard let t = cmsCreateTransform(profile.handle, input, ICCProfile.deviceRGB.handle, LW_TYPE_RGB_16, intent.lcms, flags) else {
            throw LightWorkError.colour("LittleCMS cannot convert the embedded profile to sRGB")
        }
        transform = t
    }

    deinit { if let transform { cmsDeleteTransform(transform) } }

    private static func lcmsFormat(_ layout: Layout, sixteenBit: Bool) -> cmsUInt32Number {
        switch layout {
        case .gray: return sixteenBit ? LW_TYPE_GRAY_16 : LW_TYPE_GRAY_8
        case .grayAlpha: return sixteenBit ? LW_TYPE_GRAYA_16 : LW_TYPE_GRAYA_8
        case .rgb: return sixteenBit ? LW_TYPE_RGB_16 : LW_TYPE_RGB_8
        case .rgba: return sixteenBit ? LW_TYPE_RGBA_16 : LW_TYPE_RGBA_8
        case .cmyk(let inverted): return sixteenBit ? LW_TYPE_CMYK_16 : (inverted ? LW_TYPE_CMYK_8_REV : LW_TYPE_CMYK_8)
        }
    }

    /// Converts `rows` source rows (`rowBytes` apart, `width` pixels each) into `image` rows from
    /// `firstRow` on, splitting the band across cores; the samples are also stored in `kept` when given.
    public func convert(_ samples: UnsafeRawPointer, rowBytes: Int, rows: Int, width: Int, into image: WorkingImage, firstRow: Int,
                        keeping kept: SourceSamples? = nil) {
        precondition(width == image.width && firstRow + rows <= image.height)
        let src = SendableRaw(samples)
        let chunks = min(rows, 4 * ProcessInfo.activeCores)
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            let start = rows * chunk / chunks, end = rows * (chunk + 1) / chunks
            let scratch = UnsafeMutablePointer<UInt16>.allocate(capacity: 3 * width)
            defer { scratch.deallocate() }
            for y in start..<end {
                convertRow(src.pointer + y * rowBytes, width: width, into: image.row(firstRow + y), scratch: scratch)
                kept?.store(row: firstRow + y, from: src.pointer + y * rowBytes)
            }
        }
    }

    private func convertRow(_ src: UnsafeRawPointer, width: Int, into dst: UnsafeMutablePointer<UInt16>, scratch: UnsafeMutablePointer<UInt16>) {
        let ch = layout.channels
        HalfTables.shared.withTables { h8, h16 in
            if let transform {
                cmsDoTransform(transform, src, scratch, cmsUInt32Number(width))
                for x in 0..<width {
                    dst[4 * x] = h16[Int(scratch[3 * x])]
                    dst[4 * x + 1] = h16[Int(scratch[3 * x + 1])]
                    dst[4 * x + 2] = h16[Int(scratch[3 * x + 2])]
                    dst[4 * x + 3] = HalfTables.one
                }
            } else if case .naiveCMYK = source {
                naiveCMYKRow(src, width: width, into: dst, h16: h16)
            } else if sixteenBit {
                let s = src.assumingMemoryBound(to: UInt16.self)
                let grey = ch <= 2
                for x in 0..<width {
                    let p = s + ch * x
                    dst[4 * x] = h16[Int(p[0])]
                    dst[4 * x + 1] = h16[Int(p[grey ? 0 : 1])]
                    dst[4 * x + 2] = h16[Int(p[grey ? 0 : 2])]
                    dst[4 * x + 3] = HalfTables.one
                }
            } else {
                let s = src.assumingMemoryBound(to: UInt8.self)
                let grey = ch <= 2
                for x in 0..<width {
                    let p = s + ch * x
                    dst[4 * x] = h8[Int(p[0])]
                    dst[4 * x + 1] = h8[Int(p[grey ? 0 : 1])]
                    dst[4 * x + 2] = h8[Int(p[grey ? 0 : 2])]
                    dst[4 * x + 3] = HalfTables.one
                }
            }
            guard layout.hasAlpha else { return }
            if sixteenBit {
                let s = src.assumingMemoryBound(to: UInt16.self)
                for x in 0..<width { dst[4 * x + 3] = h16[Int(s[ch * x + ch - 1])] }
            } else {
                let s = src.assumingMemoryBound(to: UInt8.self)
                for x in 0..<width { dst[4 * x + 3] = h8[Int(s[ch * x + ch - 1])] }
            }
        }
    }

    /// The documented fallback for CMYK without a profile (exact in 16-bit integers, then to half by table).
    private func naiveCMYKRow(_ src: UnsafeRawPointer, width: Int, into dst: UnsafeMutablePointer<UInt16>, h16: UnsafePointer<UInt16>) {
        guard case .cmyk(let inverted) = layout else { return }
        if sixteenBit {
            // The same in 16 bits: light × black's light / 65535, rounded.
            let s = src.assumingMemoryBound(to: UInt16.self)
            @inline(__always) func light16(_ v: UInt16) -> UInt64 { inverted ? UInt64(v) : 65535 - UInt64(v) }
            for x in 0..<width {
                let p = s + 4 * x
                let k = light16(p[3])
                dst[4 * x] = h16[Int((light16(p[0]) * k + 32767) / 65535)]
                dst[4 * x + 1] = h16[Int((light16(p[1]) * k + 32767) / 65535)]
                dst[4 * x + 2] = h16[Int((light16(p[2]) * k + 32767) / 65535)]
                dst[4 * x + 3] = HalfTables.one
            }
            return
        }
        let s = src.assumingMemoryBound(to: UInt8.self)
        @inline(__always) func light(_ v: UInt8) -> UInt32 { inverted ? UInt32(v) : 255 - UInt32(v) }
        for x in 0..<width {
            // Remaining light per channel (255 = no ink) times the black's, scaled from 255² to 65535, rounded.
            let p = s + 4 * x
            let k = light(p[3])
            dst[4 * x] = h16[Int((light(p[0]) * k * 65535 + 65025 / 2) / 65025)]
            dst[4 * x + 1] = h16[Int((light(p[1]) * k * 65535 + 65025 / 2) / 65025)]
            dst[4 * x + 2] = h16[Int((light(p[2]) * k * 65535 + 65025 / 2) / 65025)]
            dst[4 * x + 3] = HalfTables.one
        }
    }
}

/// Half-float bits of every 8-bit (v/255) and 16-bit (v/65535) sample value, built once.
final class HalfTables: Sendable {
    static let shared = HalfTables()
    /// Half-float 1.0 (opaque alpha).
    static let one: UInt16 = 0x3C00
    private let h8: [UInt16]
    private let h16: [UInt16]

    private init() {
        let f8 = (0..<256).map { Float($0) / 255 }
        let f16 = (0..<65536).map { Float($0) / 65535 }
        var a = [UInt16](repeating: 0, count: 256), b = [UInt16](repeating: 0, count: 65536)
        lw_float_to_half(f8, &a, 256)
        lw_float_to_half(f16, &b, 65536)
        h8 = a
        h16 = b
    }

    func withTables<R>(_ body: (UnsafePointer<UInt16>, UnsafePointer<UInt16>) -> R) -> R {
        h8.withUnsafeBufferPointer { a in h16.withUnsafeBufferPointer { b in body(a.baseAddress!, b.baseAddress!) } }
    }
}

/// A raw pointer handed to `concurrentPerform` workers, which write disjoint rows.
struct SendableRaw: @unchecked Sendable {
    let pointer: UnsafeRawPointer
    init(_ p: UnsafeRawPointer) { pointer = p }
}

extension ProcessInfo {
    /// Cores available to this process (at least 1).
    static var activeCores: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }
}
