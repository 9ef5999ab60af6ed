import Foundation

/// Canon's CIFF container (CRW files), read only as far as the batch's name tokens need: the camera's make and
/// model (record 0x080A) and the capture time (record 0x180E), the same two records LibRaw reads for `info`.
///
/// Why Swift and not LibRaw: names are decided in the batch parent, where no decoder may run on untrusted input
/// (a crafted file must only fail itself, in a worker). LibRaw's identify walks the whole file's metadata with
/// unchecked reads, so it stays in the worker; this reader does the little the header probes need, every read
/// bounds-checked through `FileBytes`, with limits on depth and entries.
///
/// Layout: byte order ("II"/"MM"), header length, "HEAPCCDR"; the root heap runs from the header's end to the
/// file's end. A heap's last 4 bytes give its directory's offset (from the heap's start): a 2-byte count, then
/// 10-byte records (tag, size, offset). Bits 0x3800 of a tag are its type (0x2800/0x3000: a sub-heap); bit 0x4000
/// means the value is the record's own 8 bytes.
struct CIFFStructure {
    let file: FileBytes
    let littleEndian: Bool
    let rootStart: Int

    /// Heaps nest three deep in real files; a deeper or wider one is not a camera's.
    static let depthLimit = 8
    static let recordLimit = 1024

    init?(_ file: FileBytes) {
        guard let head = file.read(0, 14), head[6..<14].elementsEqual("HEAPCCDR".utf8) else { return nil }
        switch (head[0], head[1]) {
        case (0x49, 0x49): littleEndian = true
        case (0x4D, 0x4D): littleEndian = false
        default: return nil
        }
        self.file = file
        let start = CIFFStructure.integer(Array(head[2..<6]), littleEndian: littleEndian)
        guard start >= 14, start < file.size else { return nil }
        rootStart = start
    }

    static func integer(_ b: [UInt8], littleEndian: Bool) -> Int {
        (littleEndian ? b.reversed() : b).reduce(0) { $0 << 8 | Int($1) }
    }

    /// The value of the first record with `tag` (its low 14 bits) in any heap, or nil when there is none or it
    /// lies outside its heap.
    func value(tag: Int, limit: Int) -> [UInt8]? {
        find(tag: tag, start: rootStart, end: file.size, depth: 0, limit: limit)
    }

    private func find(tag: Int, start: Int, end: Int, depth: Int, limit: Int) -> [UInt8]? {
        guard depth < CIFFStructure.depthLimit, end - start >= 6, let tail = file.read(end - 4, 4) else { return nil }
        let directory = start + CIFFStructure.integer(tail, littleEndian: littleEndian)
        guard directory >= start, directory <= end - 6, let countBytes = file.read(directory, 2) else { return nil }
        let count = CIFFStructure.integer(countBytes, littleEndian: littleEndian)
        guard count <= CIFFStructure.recordLimit, directory + 2 + 10 * count <= end,
              let records = file.read(directory + 2, 10 * count) else { return nil }
        for k in 0..<count {
            let r = Array(records[(10 * k)..<(10 * k + 10)])
            let code = CIFFStructure.integer(Array(r[0..<2]), littleEndian: littleEndian)
            if code & 0x4000 != 0 {
                if code & 0x3FFF == tag { return Array(r[2..<10].prefix(limit)) }
                continue
            }
            let size = CIFFStructure.integer(Array(r[2..<6]), littleEndian: littleEndian)
            let offset = CIFFStructure.integer(Array(r[6..<10]), littleEndian: littleEndian)
            let (valueStart, overflow) = start.addingReportingOverflow(offset)
            guard !overflow, offset >= 0, size >= 0, valueStart <= end, size <= end - valueStart else { continue }
            if code & 0x3FFF == tag { return file.read(valueStart, min(size, limit)) }
            if [0x2800, 0x3000].contains(code & 0x3800),
               let found = find(tag: tag, start: valueStart, end: valueStart + size, depth: depth + 1, limit: limit) {
                return found
            }
        }
        return nil
    }

    /// Make and model from record 0x080A ("Canon\0Canon EOS D30\0"), and DateTimeOriginal from record 0x180E
    /// (seconds since 1970 in the camera's clock, shown as UTC, as LibRaw's timestamp is).
    func captureInfo() -> ImageMetadata? {
        var m = ImageMetadata()
        if let makeModel = value(tag: 0x080A, limit: 256) {
            let strings = makeModel.split(separator: 0, omittingEmptySubsequences: false).prefix(2)
                .map { String(decoding: $0, as: UTF8.self).trimmingCharacters(in: .whitespaces) }
            m.make = strings.first.flatMap { $0.isEmpty ? nil : $0 }
            m.model = strings.dropFirst().first.flatMap { $0.isEmpty ? nil : $0 }
        }
        if let time = value(tag: 0x180E, limit: 4), time.count == 4 {
            m.dateTimeOriginal = ImageMetadata.exifDateTime(utcSeconds: CIFFStructure.integer(time, littleEndian: littleEndian))
        }
        return m.make == nil && m.model == nil && m.dateTimeOriginal == nil ? nil : m
    }
}

extension ImageMetadata {
    /// "YYYY:MM:DD HH:MM:SS" of a timestamp in the camera's clock kept as seconds since 1970 (LibRaw's and CIFF's),
    /// read as UTC so the camera's wall time comes back; nil for zero or negative.
    static func exifDateTime(utcSeconds: Int) -> String? {
        var t = time_t(utcSeconds)
        var parts = tm()
        guard t > 0, gmtime_r(&t, &parts) != nil else { return nil }
        return String(format: "%04d:%02d:%02d %02d:%02d:%02d", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
                      parts.tm_hour, parts.tm_min, parts.tm_sec)
    }
}
