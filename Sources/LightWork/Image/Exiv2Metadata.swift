import CExiv2Shim
import Foundation

/// exiv2 (through CExiv2Shim) for descriptive metadata: reading an image's EXIF, IPTC-IIM and XMP or an XMP text, and
/// writing the XMP packet and IPTC-IIM of an output. exiv2 serialises the XMP; LightWork never writes XML itself.
public enum Exiv2Metadata {
    /// The fields exiv2 found in an image file, by the source they came from.
    public struct Embedded: Sendable, Equatable {
        public var exif = DescriptiveMetadata()
        public var iptc = DescriptiveMetadata()
        public var xmp = DescriptiveMetadata()

        /// One set: XMP over IPTC-IIM over EXIF, field by field (the Metadata Working Group's order; XMP is what
        /// editors keep current, IIM and EXIF Artist/Copyright are older copies of it).
        public var merged: DescriptiveMetadata { exif.overlaid(by: iptc).overlaid(by: xmp) }
    }

    /// The fields of the image in `data`; nil when exiv2 does not know the format. Throws `decodeFailed` with exiv2's
    /// reason when it knows the format but cannot read the file's metadata.
    public static func embedded(in data: Data) throws -> Embedded? {
        var buffer = lw_exiv2_buffer()
        var message = [CChar](repeating: 0, count: 512)
        let rc = data.withUnsafeBytes { lw_exiv2_read_image($0.baseAddress, $0.count, &buffer, &message, message.count) }
        defer { lw_exiv2_free(&buffer) }
        if rc == 1 { return nil }
        guard rc == 0 else { throw LightWorkError.decodeFailed("exiv2: \(String(cString: message))") }
        let fields = fieldList(buffer)
        return Embedded(exif: DescriptiveMetadata(fields: fields, source: "exif"), iptc: DescriptiveMetadata(fields: fields, source: "iptc"),
                        xmp: DescriptiveMetadata(fields: fields, source: "xmp"))
    }

    /// The fields of an XMP packet or sidecar's text. Throws `invalidDocument` (naming `file`) when it is not XMP.
    /// Only exiv2's XMP parser (Adobe's XMP toolkit over expat) reads the bytes: safe to call in the batch parent.
    public static func xmp(_ text: Data, file: String) throws -> DescriptiveMetadata {
        var buffer = lw_exiv2_buffer()
        var message = [CChar](repeating: 0, count: 512)
        let rc = text.withUnsafeBytes { lw_exiv2_read_xmp($0.baseAddress, $0.count, &buffer, &message, message.count) }
        defer { lw_exiv2_free(&buffer) }
        guard rc == 0 else { throw LightWorkError.invalidDocument(file: file, path: "$", reason: "malformed XMP sidecar: \(String(cString: message))") }
        return DescriptiveMetadata(fields: fieldList(buffer), source: "xmp")
    }

    /// The XMP packet (UTF-8, xpacket-wrapped) stating `metadata`; nil when it states nothing.
    public static func xmpPacket(for metadata: DescriptiveMetadata) throws -> Data? {
        try write(metadata, lw_exiv2_xmp_packet)
    }

    /// The IPTC-IIM datasets for `metadata` (IIM's maximum lengths applied; XMP keeps the whole text); nil when IIM
    /// holds none of its fields (rating, label and usage terms are XMP only).
    public static func iptc(for metadata: DescriptiveMetadata) throws -> Data? {
        try write(metadata, lw_exiv2_iptc)
    }

    /// IIM datasets as the Photoshop image resource block JPEG's APP13 carries (after "Photoshop 3.0\0").
    static func photoshopResource(iim: Data) throws -> Data {
        var buffer = lw_exiv2_buffer()
        var message = [CChar](repeating: 0, count: 512)
        let rc = iim.withUnsafeBytes { lw_exiv2_photoshop_irb($0.baseAddress, $0.count, &buffer, &message, message.count) }
        defer { lw_exiv2_free(&buffer) }
        guard rc == 0 else { throw LightWorkError.writeFailed("exiv2: \(String(cString: message))") }
        return buffer.count == 0 ? Data() : Data(bytes: buffer.bytes, count: buffer.count)
    }

    private typealias Writer = (UnsafeRawPointer?, Int, UnsafeMutablePointer<lw_exiv2_buffer>?, UnsafeMutablePointer<CChar>?, Int) -> Int32

    private static func write(_ metadata: DescriptiveMetadata, _ writer: Writer) throws -> Data? {
        guard !metadata.isEmpty else { return nil }
        var list = Data()
        for (key, value) in metadata.fieldList {
            list.append(contentsOf: Array(key.utf8) + [0])
            list.append(contentsOf: Array(value.utf8) + [0])
        }
        var buffer = lw_exiv2_buffer()
        var message = [CChar](repeating: 0, count: 512)
        let rc = list.withUnsafeBytes { writer($0.baseAddress, $0.count, &buffer, &message, message.count) }
        defer { lw_exiv2_free(&buffer) }
        guard rc == 0 else { throw LightWorkError.writeFailed("exiv2: \(String(cString: message))") }
        return buffer.count == 0 ? nil : Data(bytes: buffer.bytes, count: buffer.count)
    }

    /// A field list's `key\0value\0` pairs.
    private static func fieldList(_ buffer: lw_exiv2_buffer) -> [(key: String, value: String)] {
        guard let bytes = buffer.bytes, buffer.count > 0 else { return [] }
        let strings = UnsafeBufferPointer(start: bytes, count: buffer.count).split(separator: 0, omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
        return stride(from: 0, to: strings.count - 1, by: 2).map { (strings[$0], strings[$0 + 1]) }
    }
}
