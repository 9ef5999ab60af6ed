// LibRaw_abstract_datastream over memory with a logical position that may pass the end: LibRaw's own buffer
// stream clamps seeks and reads, so a loader reading past the end gets short reads it mostly ignores and the
// result depends on what its buffers held. Here every request is recorded (the furthest byte asked for) and
// past-the-end bytes read as nothing, as from a file.
#include <stdarg.h>
#include <stdio.h>
#include <jpeglib.h>
#include <libraw/libraw.h>
#include <algorithm>
#include <atomic>
#include <mutex>
#include "lw_rawstream.h"
#include "lw_ljpeg.h"
#include <climits>
#include <string.h>
#include <cstdlib>
#include <vector>

namespace {

class TrackedStream : public LibRaw_abstract_datastream {
public:
    TrackedStream(const unsigned char *bytes, size_t count) : data(bytes), count(count) {}

    void reset() { furthest.store(0); shortRead.store(false); }
    uint64_t reached() const { return furthest.load(); }
    const unsigned char *bytes() const { return data; }
    uint64_t length() const { return count; }
    bool wasShort() const { return shortRead.load(); }
    /// The caller gave the bytes back: any later read is LightWork's bug, so it stops the process rather than read
    /// memory that is no longer the file's.
    void detach() { detached.store(true); }

    /// Records a read made outside the stream (LightWork's lossless-JPEG decoder reads the bytes in place).
    void noteRead(uint64_t start, uint64_t length) { note(start, length); }
    int valid() override { return 1; }
    INT64 size() override { return (INT64)count; }
    INT64 tell() override { return (INT64)pos; }
    int eof() override { return pos >= count; }
    void *make_jas_stream() override { return NULL; }
    const char *fname() override { return NULL; }
    int lock() override { mutex.lock(); return 1; }
    void unlock() override { mutex.unlock(); }

    int seek(INT64 offset, int whence) override {
        INT64 base = whence == SEEK_CUR ? (INT64)pos : whence == SEEK_END ? (INT64)count : 0;
        INT64 target = base + offset;
        pos = target < 0 ? 0 : (uint64_t)target;
        return 0;
    }

    // Like fread, but the position moves by the whole request (the next read asks for what really follows), and
    // the part past the end reads as zeros, not as whatever the loader's buffer held (deterministic output).
    int read(void *out, size_t size, size_t items) override {
        if (size == 0 || items == 0) return 0;
        uint64_t want = items > UINT64_MAX / size ? UINT64_MAX - pos : (uint64_t)size * items;
        uint64_t start = pos;
        note(start, want);
        uint64_t have = start < count ? std::min<uint64_t>(want, count - start) : 0;
        if (have > 0) memcpy(out, data + start, (size_t)have);
        if (have < want && want <= SIZE_MAX) memset((unsigned char *)out + have, 0, (size_t)(want - have));
        pos = want > UINT64_MAX - start ? UINT64_MAX : start + want;
        return (int)(have / size);
    }

    int get_char() override {
        note(pos, 1);
        int c = pos < count ? data[pos] : -1;
        pos++;
        return c;
    }

    char *gets(char *out, int space) override {
        if (space <= 0) return NULL;
        int n = 0;
        while (n < space - 1) {
            int c = get_char();
            if (c < 0) break;
            out[n++] = (char)c;
            if (c == '\n') break;
        }
        out[n] = 0;
        return n > 0 ? out : NULL;
    }

    // sscanf on a NUL-terminated copy of the next bytes (the file's bytes are not a C string), then skip
    // the token the way LibRaw's buffer stream does.
    int scanf_one(const char *format, void *value) override {
        if (pos >= count) { note(pos, 1); return EOF; }
        char text[64];
        size_t n = (size_t)std::min<uint64_t>(sizeof text - 1, count - pos);
        memcpy(text, data + pos, n);
        text[n] = 0;
        int result = sscanf(text, format, value);
        if (result > 0) {
            size_t skip = 0;
            while (skip < n && skip < 25) {
                skip++;
                char c = text[skip];
                if (c == 0 || c == ' ' || c == '\t' || c == '\n') break;
            }
            note(pos, skip);
            pos += skip;
        }
        return result;
    }

    // libjpeg reads the rest of the stream in place; it asks for more only when the JPEG runs past the end.
    int jpeg_src(void *decompress) override {
        if (!decompress) return -1;
        if (detached.load()) abort();
        j_decompress_ptr cinfo = (j_decompress_ptr)decompress;
        JPEGSource *src = (JPEGSource *)(*cinfo->mem->alloc_small)((j_common_ptr)cinfo, JPOOL_PERMANENT, sizeof(JPEGSource));
        src->owner = this;
        src->end = count;
        src->pastEnd = false;
        src->pub.init_source = [](j_decompress_ptr) {};
        src->pub.fill_input_buffer = fillPastEnd;
        src->pub.skip_input_data = skip;
        src->pub.resync_to_restart = jpeg_resync_to_restart;
        src->pub.term_source = finished;
        uint64_t start = std::min<uint64_t>(pos, count);
        src->start = data + start;
        src->pub.next_input_byte = data + start;
        src->pub.bytes_in_buffer = (size_t)(count - start);
        cinfo->src = &src->pub;
        return 0;
    }

private:
    struct JPEGSource {
        struct jpeg_source_mgr pub;
        TrackedStream *owner;
        uint64_t end;
        const JOCTET *start;
        bool pastEnd;
    };

    // The bytes libjpeg consumed count as read (once it ran past the end, that was recorded already).
    static void finished(j_decompress_ptr cinfo) {
        JPEGSource *src = (JPEGSource *)cinfo->src;
        if (!src->pastEnd) {
            const JOCTET *base = src->owner->data;
            src->owner->note((uint64_t)(src->start - base), (uint64_t)(src->pub.next_input_byte - src->start));
        }
    }
    static const JOCTET endOfImage[2];

    static boolean fillPastEnd(j_decompress_ptr cinfo) {
        JPEGSource *src = (JPEGSource *)cinfo->src;
        src->owner->note(src->end, 2);
        src->pastEnd = true;
        src->pub.next_input_byte = endOfImage;      // as libjpeg's own sources do: end the image
        src->pub.bytes_in_buffer = 2;
        return TRUE;
    }

    static void skip(j_decompress_ptr cinfo, long bytes) {
        JPEGSource *src = (JPEGSource *)cinfo->src;
        if (bytes <= 0) return;
        if ((size_t)bytes > src->pub.bytes_in_buffer) {
            src->owner->note(src->end, (uint64_t)bytes - src->pub.bytes_in_buffer);
            src->pastEnd = true;
            src->pub.next_input_byte += src->pub.bytes_in_buffer;
            src->pub.bytes_in_buffer = 0;
        } else {
            src->pub.next_input_byte += bytes;
            src->pub.bytes_in_buffer -= (size_t)bytes;
        }
    }

    void note(uint64_t start, uint64_t length) {
        if (detached.load()) abort();
        uint64_t end = length > UINT64_MAX - start ? UINT64_MAX : start + length;
        uint64_t seen = furthest.load();
        while (end > seen && !furthest.compare_exchange_weak(seen, end)) {}
        if (end > count) shortRead.store(true);
    }

    const unsigned char *data;
    uint64_t count;
    uint64_t pos = 0;
    std::atomic<uint64_t> furthest{0};
    std::atomic<bool> detached{false};
    std::atomic<bool> shortRead{false};
    std::mutex mutex;
};

const JOCTET TrackedStream::endOfImage[2] = {0xFF, JPEG_EOI};

// A LibRaw whose lossless-DNG loader LightWork can take over for one unpack: the swap happens inside LibRaw's
// unpack, so everything around the loader (allocation, masked-pixel black, sizes) stays LibRaw's own.
class OwnUnpackRaw : public LibRaw {
public:
    OwnUnpackRaw() : LibRaw(LIBRAW_OPTIONS_NONE) {}

    // LibRaw's unpack asks this for the loader's flags (and unpack_function_name for its name): answer for
    // LibRaw's loader while LightWork's stands in for it.
    int get_decoder_info(libraw_decoder_info_t *info) override {
        if (!libRawLoader) return LibRaw::get_decoder_info(info);
        void (LibRaw::*mine)() = load_raw;
        load_raw = libRawLoader;
        int rc = LibRaw::get_decoder_info(info);
        load_raw = mine;
        return rc;
    }

    int unpackOwn(lw_parallel_for parallel, void *context, lw_raw_unpack_report *out) {
        report = out;
        memset(report, 0, sizeof *report);
        const char *name = unpack_function_name();
        // "packed_tiled_dng_load_raw" does not contain "packed_dng_load_raw": tiled uncompressed files stay LibRaw's.
        lw_raw_loader which = !parallel || !name ? LW_RAW_LOADER_NONE
            : strstr(name, "lossless_dng_load_raw") ? LW_RAW_LOADER_LOSSLESS_JPEG
            : strstr(name, "packed_dng_load_raw") ? LW_RAW_LOADER_UNCOMPRESSED : LW_RAW_LOADER_NONE;
        if (which != LW_RAW_LOADER_NONE) {
            report->handled = 1;
            report->loader = which;
            this->parallel = parallel;
            this->context = context;
            libRawLoader = load_raw;
            load_raw = which == LW_RAW_LOADER_LOSSLESS_JPEG ? static_cast<void (LibRaw::*)()>(&OwnUnpackRaw::ownLoad)
                                                            : static_cast<void (LibRaw::*)()>(&OwnUnpackRaw::ownUncompressedLoad);
        }
        int rc;
        try { rc = unpack(); } catch (...) { rc = LIBRAW_UNSPECIFIED_ERROR; }
        if (libRawLoader) { load_raw = libRawLoader; libRawLoader = nullptr; }   // unpack failed before loading
        report = nullptr;
        return rc;
    }

private:
    struct Job {
        const unsigned char *bytes;
        uint64_t size;
        std::vector<uint64_t> offsets;
        std::vector<lw_ljpeg_target> targets;
        std::vector<lw_ljpeg_result> results;
    };

    static void decodeOne(void *job, int i) {
        Job *j = (Job *)job;
        uint64_t at = j->offsets[(size_t)i];
        lw_ljpeg_decode(j->bytes + at, (size_t)(j->size - at), &j->targets[(size_t)i], &j->results[(size_t)i]);
    }

    void fallBack(const char *format, ...) __attribute__((format(printf, 2, 3))) {
        va_list a;
        va_start(a, format);
        vsnprintf(report->reason, sizeof report->reason, format, a);
        va_end(a);
        report->own = 0;
        // LibRaw's loader starts where unpack left the stream (the tile offsets, or the one stream): put it back.
        libraw_internal_data.internal_data.input->seek(libraw_internal_data.unpacker_data.data_offset, SEEK_SET);
        (this->*load_raw)();
    }

    // What both stand-ins check first: LibRaw's loader is put back (its name and pointer comparisons from here on),
    // and the file is an in-memory stream into LibRaw's flat mosaic of one sample a pixel, some size and no
    // linearization table. The stream, or nullptr once LibRaw's loader has run instead (`fallBack`).
    TrackedStream *standIn() {
        load_raw = libRawLoader;
        libRawLoader = nullptr;
        TrackedStream *stream = dynamic_cast<TrackedStream *>(libraw_internal_data.internal_data.input);
        const char *reason = !stream ? "not an in-memory stream"
            : !imgdata.rawdata.raw_image ? "no flat raw buffer"
            : libraw_internal_data.unpacker_data.tiff_samples != 1 ? "more than one sample per pixel"
            : imgdata.sizes.raw_width == 0 || imgdata.sizes.raw_height == 0 ? "no raw size" : nullptr;
        for (unsigned v = 0; !reason && v < 0x10000; v++)
            if (imgdata.color.curve[v] != v) reason = "a linearization table";
        if (!reason) return stream;
        fallBack("%s", reason);
        return nullptr;
    }

    // Stands in for lossless_dng_load_raw: the same tiles in the same places, decoded in parallel, or
    // LibRaw's loader when anything is outside what lw_ljpeg_decode reads as LibRaw does.
    void ownLoad() {
        TrackedStream *stream = standIn();
        if (!stream) return;
        unpacker_data_t &u = libraw_internal_data.unpacker_data;
        unsigned rw = imgdata.sizes.raw_width, rh = imgdata.sizes.raw_height;
        if (!imgdata.idata.filters) return fallBack("not a CFA image");
        if (imgdata.idata.raw_count < 1) return fallBack("no raw image counted");
        unsigned tw = u.tile_width, tl = u.tile_length;
        if (tw == 0 || tl == 0) return fallBack("tile size %ux%u", tw, tl);
        bool tiled = tl < INT_MAX;
        uint64_t across = tiled ? ((uint64_t)rw + tw - 1) / tw : 1, down = tiled ? ((uint64_t)rh + tl - 1) / tl : 1;
        if (across * down > 1u << 20) return fallBack("%llu tiles", (unsigned long long)(across * down));
        Job job;
        job.bytes = stream->bytes();
        job.size = stream->length();
        INT64 start = u.data_offset;
        if (start < 0 || (uint64_t)start >= job.size) return fallBack("data offset outside the file");
        int dng11 = imgdata.idata.dng_version == 0 || imgdata.idata.dng_version >= 0x1010000;
        for (uint64_t t = 0; t < across * down; t++) {
            uint64_t offset = (uint64_t)start;
            if (tiled) {
                stream->seek(start + (INT64)(4 * t), SEEK_SET);
                offset = get4();
            }
            if (offset >= job.size) return fallBack("stream %llu starts past the end of the file", (unsigned long long)t);
            lw_ljpeg_target target;
            target.raw = imgdata.rawdata.raw_image;
            target.pitch = rw;
            target.width = (int)rw;
            target.x0 = tiled ? (int)((t % across) * tw) : 0;
            target.y0 = tiled ? (int)((t / across) * tl) : 0;
            target.wrap = (int)std::min(tw, rw);
            target.rows = (int)std::min<uint64_t>(tl, rh - (unsigned)target.y0);
            target.reaches_bottom = (unsigned)(target.y0 + target.rows) == rh;
            target.dng_1_1 = dng11;
            job.offsets.push_back(offset);
            job.targets.push_back(target);
        }
        job.results.resize(job.offsets.size());
        report->streams = (int)job.offsets.size();
        parallel(context, (int)job.offsets.size(), decodeOne, &job);
        for (size_t t = 0; t < job.results.size(); t++) {
            const lw_ljpeg_result &r = job.results[t];
            if (r.status == LW_LJPEG_REJECT) {
                report->rejected = 1;
                snprintf(report->reason, sizeof report->reason, "lossless-JPEG stream %zu: %s", t, r.reason);
                return;
            }
            if (r.status != LW_LJPEG_OK) return fallBack("stream %zu: %s", t, r.reason);
        }
        for (size_t t = 0; t < job.results.size(); t++) stream->noteRead(job.offsets[t], job.results[t].end);
        const lw_ljpeg_result &r0 = job.results[0];
        report->own = 1;
        report->precision = r0.precision;
        report->predictor = r0.predictor;
        report->components = r0.components;
        report->point_transform = r0.point_transform;
    }

    // One band of rows of an uncompressed mosaic: the file's little-endian samples are the host's, so a copy.
    struct CopyJob {
        const unsigned char *from;
        ushort *to;
        uint64_t rowBytes;
        unsigned rows, bandRows;
    };

    static void copyBand(void *job, int i) {
        CopyJob *j = (CopyJob *)job;
        uint64_t first = (uint64_t)i * j->bandRows, count = std::min<uint64_t>(j->bandRows, j->rows - first);
        memcpy((unsigned char *)j->to + first * j->rowBytes, j->from + first * j->rowBytes, count * j->rowBytes);
    }

    // Stands in for packed_dng_load_raw where it reads 16-bit samples: raw_height rows of raw_width samples from
    // data_offset on, each RAW(row, col) = curve[sample] (read_shorts, then adobe_copy_pixel with one sample a pixel).
    // Copied in bands in parallel when the curve is the identity and the file's byte order is the host's; LibRaw's
    // loader for anything else, and for samples that run past the end (its short read flags the data error).
    void ownUncompressedLoad() {
        TrackedStream *stream = standIn();
        if (!stream) return;
        unpacker_data_t &u = libraw_internal_data.unpacker_data;
        unsigned rw = imgdata.sizes.raw_width, rh = imgdata.sizes.raw_height;
        if (u.tile_length < INT_MAX) return fallBack("tiles");
        if (u.tiff_bps != 16) return fallBack("%u-bit samples", (unsigned)u.tiff_bps);
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
        return fallBack("a big-endian host");
#endif
        if (u.order != 0x4949) return fallBack("big-endian samples");
        if ((size_t)imgdata.sizes.raw_pitch != (size_t)rw * 2) return fallBack("a raw pitch of %u bytes", imgdata.sizes.raw_pitch);
        uint64_t rowBytes = (uint64_t)rw * 2, bytes = rowBytes * rh;
        INT64 start = u.data_offset;
        if (start < 0 || (uint64_t)start > stream->length() || stream->length() - (uint64_t)start < bytes)
            return fallBack("the samples run past the end of the file");
        CopyJob job = {stream->bytes() + start, imgdata.rawdata.raw_image, rowBytes, rh, 64};
        parallel(context, (int)((rh + job.bandRows - 1) / job.bandRows), copyBand, &job);
        stream->noteRead((uint64_t)start, bytes);
        report->own = 1;
        report->streams = 1;
        report->precision = 16;
    }

    lw_parallel_for parallel = nullptr;
    void *context = nullptr;
    lw_raw_unpack_report *report = nullptr;
    void (LibRaw::*libRawLoader)() = nullptr;
};

} // namespace

struct lw_raw_stream {
    TrackedStream stream;
    lw_raw_stream(const unsigned char *bytes, size_t count) : stream(bytes, count) {}
};

extern "C" lw_raw_stream *lw_raw_stream_create(const void *bytes, size_t count) {
    try { return new lw_raw_stream((const unsigned char *)bytes, count); } catch (...) { return NULL; }
}

extern "C" int lw_raw_stream_open(void *libraw_data, lw_raw_stream *s) {
    libraw_data_t *lr = (libraw_data_t *)libraw_data;
    if (!lr || !lr->parent_class || !s) return LIBRAW_UNSPECIFIED_ERROR;
    try { return ((LibRaw *)lr->parent_class)->open_datastream(&s->stream); } catch (...) { return LIBRAW_UNSPECIFIED_ERROR; }
}

extern "C" void lw_raw_stream_reset(lw_raw_stream *s) { s->stream.reset(); }
extern "C" uint64_t lw_raw_stream_furthest(const lw_raw_stream *s) { return s->stream.reached(); }
extern "C" int lw_raw_stream_short(const lw_raw_stream *s) { return s->stream.wasShort() ? 1 : 0; }
extern "C" void lw_raw_stream_detach(lw_raw_stream *s) { s->stream.detach(); }
extern "C" void lw_raw_stream_free(lw_raw_stream *s) { delete s; }

extern "C" void *lw_raw_init(void) {
    try { return &(new OwnUnpackRaw())->imgdata; } catch (...) { return NULL; }
}

extern "C" int lw_raw_unpack(void *libraw_data, lw_parallel_for parallel, void *context, lw_raw_unpack_report *report) {
    libraw_data_t *lr = (libraw_data_t *)libraw_data;
    lw_raw_unpack_report none;
    if (!report) report = &none;
    memset(report, 0, sizeof *report);
    if (!lr || !lr->parent_class) return LIBRAW_UNSPECIFIED_ERROR;
    OwnUnpackRaw *own = dynamic_cast<OwnUnpackRaw *>((LibRaw *)lr->parent_class);
    if (!own) {
        try { return ((LibRaw *)lr->parent_class)->unpack(); } catch (...) { return LIBRAW_UNSPECIFIED_ERROR; }
    }
    return own->unpackOwn(parallel, context, report);
}
