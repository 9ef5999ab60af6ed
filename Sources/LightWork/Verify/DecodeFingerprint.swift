import CLibRaw
import Foundation

/// What the decode stage makes of one RAW file, bit for bit (like rawspeed's `rstest`): the decoder's view of the
/// file (camera, sizes, CFA, levels, white balance, matrix, LibRaw's decoder), a hash of LibRaw's unpacked sensor
/// data and a hash of the decoded image exactly as the engine receives it (half-float RGBA in the RAW working
/// space). A LibRaw update that changes decoding changes one of these before any colour is compared.
public struct DecodeFingerprint: Sendable, Codable, Equatable {
    /// The file, relative to the hash file (or absolute).
    public var file: String
    /// True for files that may be absent on a machine (shared samples): skipped, with a note, when missing.
    public var optional: Bool?
    public var size: Int
    public var fileSHA256: String
    public var make: String?
    public var model: String?
    /// LibRaw's view: rawSize, imageSize, cfa, blackLevel, whiteLevel, asShotWB, rgbCam, decoder, colors, flip; and
    /// which demosaic ran (LightWork's AHD or LibRaw's).
    public var decoder: [String: String]
    /// The decoded image's size, upright.
    public var decodedSize: String
    /// SHA-256 of LibRaw's unpacked sensor data (raw_image, or the 3/4-colour or float buffer), row by row.
    public var rawSHA256: String
    /// SHA-256 of the decoded half-float RGBA pixels, row by row.
    public var decodedSHA256: String

    /// The fields of `decoder` that are recorded (stable facts; no paths, no timings).
    static let decoderKeys = ["rawSize", "imageSize", "flip", "colors", "cfa", "blackLevel", "whiteLevel", "asShotWB", "rgbCam",
                              "dngVersion", "decoder", "demosaic", "colorModel", "cameraToWorking", "baselineExposure", "whitePoint"]

    /// Decodes `url` with the default decode options and records what came out; `name` is what `file` says.
    public static func measure(_ url: URL, name: String, optional: Bool? = nil, engine: EngineConfiguration = .detected) throws -> DecodeFingerprint {
        let input = try InputBytes(contentsOf: url)
        defer { input.release() }
        let data = input.data
        return try data.withUnsafeBytes { bytes in
            let session = try RawDecoder.Session(url: url, data: bytes, options: DecodeOptions(), engine: engine)
            let decoded = try session.decode()
            var details = session.details()
            for (k, v) in decoded.details { details[k] = v }
            let image = decoded.image
            var hash = SHA256()
            for y in 0..<image.height {
                hash.update(UnsafeRawBufferPointer(start: image.row(y), count: 8 * image.width))
            }
            return DecodeFingerprint(file: name, optional: optional, size: data.count, fileSHA256: SHA256.hex(data),
                                     make: decoded.metadata.make, model: decoded.metadata.model,
                                     decoder: details.filter { decoderKeys.contains($0.key) },
                                     decodedSize: "\(image.width)x\(image.height)",
                                     rawSHA256: try rawHash(session.lr), decodedSHA256: hash.finalizeHex())
        }
    }

    /// SHA-256 of whichever unpacked buffer LibRaw filled, `raw_width × raw_height` samples per plane, row by row.
    static func rawHash(_ lr: UnsafeMutablePointer<libraw_data_t>) throws -> String {
        let raw = lr.pointee.rawdata
        let width = Int(raw.sizes.raw_width), height = Int(raw.sizes.raw_height), pitch = Int(raw.sizes.raw_pitch)
        let rowBytes: Int
        let base: UnsafeRawPointer
        if let p = raw.raw_image { base = UnsafeRawPointer(p); rowBytes = 2 * width }
        else if let p = raw.color3_image { base = UnsafeRawPointer(p); rowBytes = 6 * width }
        else if let p = raw.color4_image { base = UnsafeRawPointer(p); rowBytes = 8 * width }
        else if let p = raw.float_image { base = UnsafeRawPointer(p); rowBytes = 4 * width }
        else if let p = raw.float3_image { base = UnsafeRawPointer(p); rowBytes = 12 * width }
        else if let p = raw.float4_image { base = UnsafeRawPointer(p); rowBytes = 16 * width }
        else { throw LightWorkError.decodeFailed("LibRaw kept no unpacked sensor data to hash") }
        let stride = pitch >= rowBytes ? pitch : rowBytes
        var hash = SHA256()
        for y in 0..<height { hash.update(UnsafeRawBufferPointer(start: base + y * stride, count: rowBytes)) }
        return hash.finalizeHex()
    }

    /// How `current` differs from this recorded fingerprint, one line per field; empty when identical.
    public func differences(from current: DecodeFingerprint) -> [String] {
        var out: [String] = []
        func check(_ name: String, _ recorded: String?, _ now: String?) {
            if recorded != now { out.append("\(name): recorded \(recorded ?? "-"), now \(now ?? "-")") }
        }
        check("size", String(size), String(current.size))
        check("file SHA-256", fileSHA256, current.fileSHA256)
        check("make", make, current.make)
        check("model", model, current.model)
        for key in Set(decoder.keys).union(current.decoder.keys).sorted() { check(key, decoder[key], current.decoder[key]) }
        check("decoded size", decodedSize, current.decodedSize)
        if rawSHA256 != current.rawSHA256 {
            out.append("raw data hash differs (LibRaw unpacks this file differently): recorded \(rawSHA256.prefix(16))…, now \(current.rawSHA256.prefix(16))…")
        }
        if decodedSHA256 != current.decodedSHA256 {
            out.append("decoded image hash differs (demosaic or colour conversion changed): recorded \(decodedSHA256.prefix(16))…, now \(current.decodedSHA256.prefix(16))…")
        }
        return out
    }
}
