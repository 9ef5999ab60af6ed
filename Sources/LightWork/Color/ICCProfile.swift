import CLCMS2
import CShims
import Foundation

/// ICC profiles built with LittleCMS, byte-identical on every run (the creation date is fixed) so that
/// outputs are deterministic, and an owned handle for transforms.
public final class ICCProfile: @unchecked Sendable {
    public let handle: cmsHPROFILE

    public init(handle: cmsHPROFILE) { self.handle = handle }

    /// Opens a profile from its bytes (embedded in a file); `nil` when LittleCMS rejects them.
    public convenience init?(data: Data) {
        lw_lcms_quiet()
        guard let h = data.withUnsafeBytes({ cmsOpenProfileFromMem($0.baseAddress, cmsUInt32Number($0.count)) }) else { return nil }
        self.init(handle: h)
    }

    deinit { cmsCloseProfile(handle) }

    /// The profile's description tag ("" when it has none).
    public var profileDescription: String {
        var buf = [CChar](repeating: 0, count: 256)
        let n = cmsGetProfileInfoASCII(handle, cmsInfoDescription, "en", "US", &buf, 256)
        guard n > 0 else { return "" }
        return String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The colour space signature (RGB, GRAY, CMYK…).
    public var colorSpace: cmsColorSpaceSignature { cmsGetColorSpace(handle) }

    /// Serialises the profile.
    public func data() -> Data {
        var size: cmsUInt32Number = 0
        guard cmsSaveProfileToMem(handle, nil, &size) != 0 else { return Data() }
        var bytes = [UInt8](repeating: 0, count: Int(size))
        guard cmsSaveProfileToMem(handle, &bytes, &size) != 0 else { return Data() }
        return Data(bytes)
    }

    /// A matrix/shaper RGB profile for `primaries` and `transfer`, with the given description.
    public static func rgb(primaries: RGBPrimaries, transfer: TransferFunction, description: String) -> ICCProfile {
        lw_lcms_quiet()
        let curve: OpaquePointer
        switch transfer {
        case .linear: curve = cmsBuildGamma(nil, 1.0)
        case .gamma(let g): curve = cmsBuildGamma(nil, g)
        case .sRGB:
            var p: [cmsFloat64Number] = [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045]
            curve = cmsBuildParametricToneCurve(nil, 4, &p)
        }
        defer { cmsFreeToneCurve(curve) }
        return rgb(primaries: primaries, curve: curve, description: description)
    }

    /// A matrix/shaper RGB profile for `primaries` with LittleCMS tone curve `curve` on every channel (the caller frees it).
    static func rgb(primaries: RGBPrimaries, curve: OpaquePointer, description: String) -> ICCProfile {
        lw_lcms_quiet()
        var white = cmsCIExyY(x: primaries.white.x, y: primaries.white.y, Y: 1)
        var prim = cmsCIExyYTRIPLE(
            Red: cmsCIExyY(x: primaries.red.x, y: primaries.red.y, Y: 1),
            Green: cmsCIExyY(x: primaries.green.x, y: primaries.green.y, Y: 1),
            Blue: cmsCIExyY(x: primaries.blue.x, y: primaries.blue.y, Y: 1))
        var curves: [OpaquePointer?] = [curve, curve, curve]
        let h = cmsCreateRGBProfile(&white, &prim, &curves)!
        setText(h, cmsSigProfileDescriptionTag, description)
        setText(h, cmsSigCopyrightTag, "No copyright, use freely")
        cmsSetProfileVersion(h, 4.3)
        return ICCProfile(handle: h)
    }

    /// The profile LightWork embeds for an output colour space: built once per process, with a fixed
    /// creation date and an MD5 profile ID, so every output of that space carries the same bytes.
    public static func embedded(for space: OutputColorSpace) -> Data {
        embeddedCache.withLock { cache in
            if let d = cache[space] { return d }
            let built = rgb(primaries: space.primaries, transfer: space.transfer, description: space.profileDescription)
            let d = deterministicBytes(built.data())
            cache[space] = d
            return d
        }
    }

    private static let embeddedCache = LockedBox<[OutputColorSpace: Data]>([:])

    /// Fixes the header date (LittleCMS stamps the current time) and recomputes the profile ID.
    static func deterministicBytes(_ raw: Data) -> Data {
        var bytes = [UInt8](raw)
        // Header bytes 24…35: dateTimeNumber (year, month, day, hours, minutes, seconds, big-endian UInt16).
        let date: [UInt16] = [2026, 1, 1, 0, 0, 0]
        for (i, v) in date.enumerated() { bytes[24 + 2 * i] = UInt8(v >> 8); bytes[25 + 2 * i] = UInt8(v & 0xff) }
        guard let reopened = ICCProfile(data: Data(bytes)) else { return Data(bytes) }
        cmsMD5computeID(reopened.handle)
        return reopened.data()
    }

    private static func setText(_ h: cmsHPROFILE, _ tag: cmsTagSignature, _ text: String) {
        guard let mlu = cmsMLUalloc(nil, 1) else { return }
        cmsMLUsetASCII(mlu, "en", "US", text)
        cmsWriteTag(h, tag, UnsafeRawPointer(mlu))
        cmsMLUfree(mlu)
    }
}
