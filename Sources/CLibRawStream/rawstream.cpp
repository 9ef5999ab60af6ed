// LibRaw_abstract_datastream over memory with a logical position that may pass the end: LibRaw's own buffer
// stream clamps seeks and reads, so a loader reading past the end gets short reads it mostly ignores and the
// result depends on what its buffers held. Here every request is recorded (the furthest byte asked for) and
// past-the-end bytes read as nothing, as from a file.
#include <stdio.h>
#include <jpeglib.h>
#include <libraw/libraw.h>
#include <algorithm>
#include <atomic>
#include <mutex>
#include "lw_rawstream.h"

namespace {

class TrackedStream : public LibRaw_abstract_datastream {
public:
    TrackedStream(const unsigned char *bytes, size_t count) : data(bytes), count(count) {}

    void reset() { furthest.store(0); shortRead.store(false); }
    uint64_t reached() const { return furthest.load(); }
    bool wasShort() const { return shortRead.load(); }

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
        uint64_t end = length > UINT64_MAX - start ? UINT64_MAX : start + length;
        uint64_t seen = furthest.load();
        while (end > seen && !furthest.compare_exchange_weak(seen, end)) {}
        if (end > count) shortRead.store(true);
    }

    const unsigned char *data;
    uint64_t count;
    uint64_t pos = 0;
    std::atomic<uint64_t> furthest{0};
    std::atomic<bool> shortRead{false};
    std::mutex mutex;
};

const JOCTET TrackedStream::endOfImage[2] = {0xFF, JPEG_EOI};

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
extern "C" void lw_raw_stream_free(lw_raw_stream *s) { delete s; }
