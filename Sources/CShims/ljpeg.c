// Lossless JPEG (T.81 process 14) for DNG raw data, decoded the way LibRaw's lossless_dng_load_raw does
// (contract in lw_ljpeg.h). Every read is bounded by the stream's size: a fuzzed stream fails, never overreads.
#include "lw_ljpeg.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { FAST_BITS = 11, FULL_BITS = 12 };

typedef struct {
    int defined;
    uint16_t fast[1 << FAST_BITS];   // (code length << 8 | symbol) of the code the next FAST_BITS bits start; 0: longer
    // (difference << 8 | code and extra bits' length) where the next FULL_BITS bits hold a whole difference, so
    // most samples take one lookup and one shift; 0: decoded by parts (longer codes and categories). Built per
    // stream (`whole` set), and only for streams long enough to repay the build.
    int whole;
    int32_t maxcode[18];              // largest code of each length (-1: none), T.81 F.2.2.3
    int32_t valoff[18];               // symbols[valoff[l] + code] is the symbol of an l-bit code
    uint8_t symbols[256];
    int longest;
    int32_t full[1 << FULL_BITS];     // last: build() clears the fields before it only
} table;

typedef struct {
    const uint8_t *p, *end;
    uint64_t buffer;     // next bits at the top
    int count;           // valid bits in buffer
    int ended;           // a marker or the stream's end was reached: no more data bytes
} bits;

static int fail(lw_ljpeg_result *r, int status, const char *format, ...) {
    va_list a;
    va_start(a, format);
    vsnprintf(r->reason, sizeof r->reason, format, a);
    va_end(a);
    r->status = status;
    return status;
}

static unsigned be16(const uint8_t *p) { return (unsigned)p[0] << 8 | p[1]; }

// Canonical codes from the 16 counts and the symbols (T.81 Annex C); 0 when the counts oversubscribe the code space.
static int build(table *t, const uint8_t *counts, const uint8_t *symbols, int n) {
    memset(t, 0, offsetof(table, full));   // `full` is written whole by build_full, or never read
    memcpy(t->symbols, symbols, (size_t)n);
    int32_t code = 0;
    int k = 0;
    for (int len = 1; len <= 16; len++) {
        t->valoff[len] = k - code;
        t->maxcode[len] = counts[len - 1] ? code + counts[len - 1] - 1 : -1;
        for (int i = 0; i < counts[len - 1]; i++, k++, code++) {
            if (code >= (1 << len)) return 0;
            if (len <= FAST_BITS) {
                int shift = FAST_BITS - len;
                for (int j = 0; j < 1 << shift; j++) t->fast[(code << shift) | j] = (uint16_t)(len << 8 | symbols[k]);
            }
            if (len > t->longest) t->longest = len;
        }
        code <<= 1;
    }
    t->maxcode[17] = 0x7fffffff;
    t->defined = 1;
    return 1;
}

// The whole differences of `t` (its `full`), read as difference() reads them by parts.
static void build_full(table *t, int dng_1_1) {
    for (int idx = 0; idx < 1 << FULL_BITS; idx++) {
        unsigned e = t->fast[idx >> (FULL_BITS - FAST_BITS)];
        int32_t entry = 0;
        if (e) {
            int len = (int)(e >> 8), s = e & 0xFF;
            if (s == 0) entry = len;
            else if (s == 16) entry = dng_1_1 ? (int32_t)((uint32_t)-32768 << 8) | len : 0;
            else if (len + s <= FULL_BITS) {
                int32_t d = (int32_t)((unsigned)idx >> (FULL_BITS - len - s)) & ((1 << s) - 1);
                if ((d & (1 << (s - 1))) == 0) d -= (1 << s) - 1;
                entry = (int32_t)((uint32_t)d << 8) | (len + s);
            }
        }
        t->full[idx] = entry;
    }
    t->whole = 1;
}

// Tops the buffer up to at least 57 bits, or to what is left: 0xFF 0x00 is a data 0xFF; 0xFF then anything
// else (a marker, or the stream's end) ends the data, as LibRaw's bit reader stops there. Eight bytes without
// an 0xFF among them are taken at once (the same bytes as one at a time).
static void fill(bits *b) {
    if (b->count <= 56 && !b->ended && b->end - b->p >= 8) {
        uint64_t x;
        memcpy(&x, b->p, 8);
        uint64_t n = ~x;   // an 0xFF byte of x is a zero byte of n
        if (((n - 0x0101010101010101ull) & ~n & 0x8080808080808080ull) == 0) {
            int k = (64 - b->count) >> 3;   // whole bytes that fit: the byte loop would take as many
            uint64_t be = __builtin_bswap64(x);
            if (k < 8) be &= ~0ull << (64 - 8 * k);
            b->buffer |= be >> b->count;
            b->count += 8 * k;
            b->p += k;
            return;
        }
    }
    while (b->count <= 56 && !b->ended) {
        if (b->p >= b->end) { b->ended = 1; break; }
        uint8_t c = *b->p;
        if (c == 0xFF) {
            if (b->p + 1 >= b->end || b->p[1] != 0) { b->ended = 1; break; }
            b->p += 2;
        } else {
            b->p++;
        }
        b->buffer |= (uint64_t)c << (56 - b->count);
        b->count += 8;
    }
}

// The next n (≤ 16) bits, zeros past the end of the data.
static inline unsigned peek(bits *b, int n) {
    if (b->count < n) fill(b);
    return (unsigned)(b->buffer >> (64 - n));
}

// Consumes n bits; 0 when the data has fewer (LibRaw then reports a data error).
static inline int skip(bits *b, int n) {
    if (b->count < n) { fill(b); if (b->count < n) return 0; }
    b->buffer <<= n;
    b->count -= n;
    return 1;
}

// The next difference, or 0x7fffffff when the data ends or holds a code the table lacks.
static inline int32_t difference(bits *b, const table *t, int dng_1_1) {
    if (t->whole) {
        if (b->count < FULL_BITS) fill(b);
        int32_t whole = t->full[b->buffer >> (64 - FULL_BITS)];
        int total = whole & 0xFF;
        if (total != 0 && total <= b->count) {
            b->buffer <<= total;
            b->count -= total;
            return whole >> 8;
        }
    }
    unsigned look = peek(b, 16);
    unsigned e = t->fast[look >> (16 - FAST_BITS)];
    int len, s;
    if (e) {
        len = (int)(e >> 8);
        s = e & 0xFF;
    } else {
        len = FAST_BITS + 1;
        while (len <= 16 && (int32_t)(look >> (16 - len)) > t->maxcode[len]) len++;
        if (len > 16) return 0x7fffffff;
        s = t->symbols[t->valoff[len] + (int32_t)(look >> (16 - len))];
    }
    if (!skip(b, len)) return 0x7fffffff;
    if (s == 0) return 0;
    if (s == 16 && dng_1_1) return -32768;
    unsigned v = peek(b, s);
    if (!skip(b, s)) return 0x7fffffff;
    int32_t d = (int32_t)v;
    if ((d & (1 << (s - 1))) == 0) d -= (1 << s) - 1;
    return d;
}

int lw_ljpeg_decode(const uint8_t *data, size_t size, const lw_ljpeg_target *tg, lw_ljpeg_result *r) {
    memset(r, 0, sizeof *r);
    if (!data || !tg || !tg->raw || tg->wrap <= 0 || tg->rows <= 0) return fail(r, LW_LJPEG_UNSUPPORTED, "no target");
    if (size < 4 || data[0] != 0xFF || data[1] != 0xD8) return fail(r, LW_LJPEG_CORRUPT, "no start-of-image marker");
    table tables[4];
    for (int i = 0; i < 4; i++) tables[i].defined = 0;
    int precision = 0, height = 0, width = 0, ncomp = 0, frames = 0;
    int predictor = 0, pt = 0;
    uint8_t ids[4] = {0};
    int selector[4] = {0};
    size_t at = 2;
    // Segments up to the scan, as LibRaw's ljpeg_start reads them (at most 1024 markers).
    for (int markers = 0;; markers++) {
        if (markers > 1024) return fail(r, LW_LJPEG_CORRUPT, "more than 1024 markers");
        if (at + 4 > size) return fail(r, LW_LJPEG_CORRUPT, "the stream ends before its scan");
        unsigned tag = be16(data + at), length = be16(data + at + 2);
        if (tag <= 0xFF00) return fail(r, LW_LJPEG_CORRUPT, "no marker at byte %zu", at);
        if (length < 2 || at + 2 + length > size) return fail(r, LW_LJPEG_CORRUPT, "marker 0x%04X's segment runs past the stream", tag);
        const uint8_t *s = data + at + 4;
        unsigned len = length - 2;
        at += 2 + length;
        switch (tag) {
        case 0xFFC3:
            if (frames++) return fail(r, LW_LJPEG_UNSUPPORTED, "more than one frame header");
            if (len < 6) return fail(r, LW_LJPEG_CORRUPT, "short frame header");
            precision = s[0];
            height = (int)be16(s + 1);
            width = (int)be16(s + 3);
            ncomp = s[5];
            if (ncomp < 1 || ncomp > 4) return fail(r, LW_LJPEG_UNSUPPORTED, "%d components", ncomp);
            if (len != 6 + 3u * (unsigned)ncomp) return fail(r, LW_LJPEG_UNSUPPORTED, "frame header of %u bytes for %d components", len, ncomp);
            for (int c = 0; c < ncomp; c++) {
                ids[c] = s[6 + 3 * c];
                if (s[7 + 3 * c] != 0x11) return fail(r, LW_LJPEG_UNSUPPORTED, "sampling factors 0x%02X", s[7 + 3 * c]);
            }
            break;
        case 0xFFC0: case 0xFFC1: case 0xFFC2: case 0xFFC5: case 0xFFC6: case 0xFFC7:
        case 0xFFC9: case 0xFFCA: case 0xFFCB: case 0xFFCD: case 0xFFCE: case 0xFFCF:
            return fail(r, LW_LJPEG_UNSUPPORTED, "frame type 0x%04X is not lossless Huffman (SOF3)", tag);
        case 0xFFC4: {
            unsigned k = 0;
            while (k < len) {
                unsigned id = s[k++];
                // LibRaw keeps DC (class 0) tables 0…3 by their id and stops at an id outside 0…3 and 16…19.
                if (id > 3) return fail(r, LW_LJPEG_UNSUPPORTED, "Huffman table id 0x%02X", id);
                if (k + 16 > len) return fail(r, LW_LJPEG_CORRUPT, "short Huffman table");
                const uint8_t *counts = s + k;
                int n = 0;
                for (int i = 0; i < 16; i++) n += counts[i];
                k += 16;
                if (n > 256 || k + (unsigned)n > len) return fail(r, LW_LJPEG_CORRUPT, "Huffman table of %d codes runs past its segment", n);
                if (tables[id].defined) return fail(r, LW_LJPEG_UNSUPPORTED, "Huffman table %u defined twice", id);
                for (int i = 0; i < n; i++)
                    if (s[k + i] > 16) return fail(r, LW_LJPEG_UNSUPPORTED, "difference category %d", s[k + i]);
                if (n == 0 || !build(&tables[id], counts, s + k, n)) return fail(r, LW_LJPEG_CORRUPT, "Huffman table %u has no valid code set", id);
                k += (unsigned)n;
            }
            break;
        }
        case 0xFFDD:
            if (len < 2) return fail(r, LW_LJPEG_CORRUPT, "short restart interval");
            if (be16(s) == 0) return fail(r, LW_LJPEG_REJECT, "restart interval 0 (LibRaw's lossless-JPEG reader divides by it)");
            return fail(r, LW_LJPEG_UNSUPPORTED, "restart interval %u", be16(s));
        case 0xFFDA: {
            if (!frames) return fail(r, LW_LJPEG_UNSUPPORTED, "scan before the frame header");
            if (len < 1) return fail(r, LW_LJPEG_CORRUPT, "short scan header");
            int ns = s[0];
            if (ns != ncomp || len != 4u + 2u * (unsigned)ns) return fail(r, LW_LJPEG_UNSUPPORTED, "scan of %d components in a frame of %d", ns, ncomp);
            for (int c = 0; c < ns; c++) {
                if (s[1 + 2 * c] != ids[c]) return fail(r, LW_LJPEG_UNSUPPORTED, "scan components out of frame order");
                selector[c] = s[2 + 2 * c] >> 4;
            }
            predictor = s[1 + 2 * ns];
            pt = s[3 + 2 * ns] & 15;
            goto scan;
        }
        case 0xFFD8: case 0xFFD9:
            return fail(r, LW_LJPEG_CORRUPT, "marker 0x%04X before the scan", tag);
        default:
            break;   // APPn, COM, DQT…: skipped by their length, as LibRaw does
        }
    }
scan:
    r->precision = precision;
    r->point_transform = pt;
    r->predictor = predictor;
    r->components = ncomp;
    r->frame_width = width;
    r->frame_height = height;
    int bitsOut = precision - pt;     // LibRaw's precision: the point transform lowers it, values stay unshifted
    if (precision < 1 || precision > 16 || bitsOut < 1) return fail(r, LW_LJPEG_UNSUPPORTED, "precision %d, point transform %d", precision, pt);
    if (predictor < 1 || predictor > 7) return fail(r, LW_LJPEG_UNSUPPORTED, "predictor %d", predictor);
    if (width < 1 || height < 1) return fail(r, LW_LJPEG_CORRUPT, "frame of %dx%d", width, height);
    // Component c takes the table LibRaw gives it: the defined table with the largest id up to c.
    table *use[4];
    for (int c = 0; c < ncomp; c++) {
        int id = c;
        while (id >= 0 && !tables[id].defined) id--;
        if (id < 0) return fail(r, LW_LJPEG_CORRUPT, "no Huffman table for component %d", c);
        if (id != selector[c]) return fail(r, LW_LJPEG_UNSUPPORTED, "component %d selects table %d where LibRaw uses %d", c, selector[c], id);
        use[c] = &tables[id];
    }
    // The samples must fill the target's rows and may pass them only off the image's bottom.
    uint64_t line = (uint64_t)width * (uint64_t)ncomp;
    uint64_t samples = line * (uint64_t)height, needed = (uint64_t)tg->wrap * (uint64_t)tg->rows;
    if ((uint64_t)width * (uint64_t)height >= 0x7fffffffu) return fail(r, LW_LJPEG_UNSUPPORTED, "frame of %dx%d", width, height);
    if (samples < needed) return fail(r, LW_LJPEG_UNSUPPORTED, "%llu samples for a tile of %llu", (unsigned long long)samples, (unsigned long long)needed);
    if (samples > needed && !tg->reaches_bottom) return fail(r, LW_LJPEG_UNSUPPORTED, "%llu samples overrun a tile of %llu", (unsigned long long)samples, (unsigned long long)needed);
    // The components' tables get their whole-difference lookup (once each: equal ones are adjacent, in id order)
    // when the stream has at least as many samples per table as the lookup has entries; a small tile (16 × 16
    // tiles of 256 samples exist) would spend more on the build than it saves.
    int distinct = 0;
    for (int c = 0; c < ncomp; c++) distinct += c == 0 || use[c] != use[c - 1];
    if (samples >= (uint64_t)distinct << FULL_BITS)
        for (int c = 0; c < ncomp; c++)
            if (c == 0 || use[c] != use[c - 1]) build_full(use[c], tg->dng_1_1);

    uint16_t stack[2][2 * 4 * 256];
    uint16_t *heap = NULL;
    uint16_t *lines[2];
    if (line <= 2 * 4 * 256) {
        lines[0] = stack[0];
        lines[1] = stack[1];
    } else {
        heap = (uint16_t *)malloc(2 * (size_t)line * sizeof *heap);
        if (!heap) return fail(r, LW_LJPEG_UNSUPPORTED, "out of memory");
        lines[0] = heap;
        lines[1] = heap + line;
    }
    bits b = {data + at, data + size, 0, 0, 0};
    const int n = (int)line, nc = ncomp, limit = bitsOut;
    uint16_t first[4];
    for (int c = 0; c < 4; c++) first[c] = (uint16_t)(1u << (bitsOut - 1));
    int status = LW_LJPEG_OK;
    int row = 0, col = 0;
    const int dng_1_1 = tg->dng_1_1;
    for (int y = 0; y < height && status == LW_LJPEG_OK; y++) {
        uint16_t *cur = lines[y & 1], *up = lines[(y + 1) & 1];
        int i = 0;
        // A line's first samples predict from the first ones of the line above (the first line: 2^(bits - 1)).
        for (int c = 0; c < nc && i < n; c++, i++) {
            int32_t d = difference(&b, use[c], dng_1_1);
            if (d == 0x7fffffff) { status = fail(r, LW_LJPEG_CORRUPT, "the entropy data ends or breaks at line %d", y); break; }
            uint16_t v = (uint16_t)(first[c] + d);
            if (v >> limit) { status = fail(r, LW_LJPEG_CORRUPT, "sample %u exceeds %d bits at line %d", v, limit, y); break; }
            cur[i] = v;
            first[c] = v;
        }
        if (status != LW_LJPEG_OK) break;
        if (y == 0 || predictor == 1) {
            // The sample to the left: predictor 1, and every predictor on the first line.
            for (int c = 0; i < n; i++, c = c + 1 == nc ? 0 : c + 1) {
                int32_t d = difference(&b, use[c], dng_1_1);
                if (d == 0x7fffffff) { status = fail(r, LW_LJPEG_CORRUPT, "the entropy data ends or breaks at line %d", y); break; }
                uint16_t v = (uint16_t)(cur[i - nc] + d);
                if (v >> limit) { status = fail(r, LW_LJPEG_CORRUPT, "sample %u exceeds %d bits at line %d", v, limit, y); break; }
                cur[i] = v;
            }
        } else {
            for (int c = 0; i < n; i++, c = c + 1 == nc ? 0 : c + 1) {
                int32_t d = difference(&b, use[c], dng_1_1);
                if (d == 0x7fffffff) { status = fail(r, LW_LJPEG_CORRUPT, "the entropy data ends or breaks at line %d", y); break; }
                int a = cur[i - nc], bb = up[i], cc = up[i - nc], pred;
                switch (predictor) {
                case 2: pred = bb; break;
                case 3: pred = cc; break;
                case 4: pred = a + bb - cc; break;
                case 5: pred = a + ((bb - cc) >> 1); break;
                case 6: pred = bb + ((a - cc) >> 1); break;
                default: pred = (a + bb) >> 1; break;
                }
                uint16_t v = (uint16_t)(pred + d);
                if (v >> limit) { status = fail(r, LW_LJPEG_CORRUPT, "sample %u exceeds %d bits at line %d", v, limit, y); break; }
                cur[i] = v;
            }
        }
        if (status != LW_LJPEG_OK) break;
        // Emit the line: `wrap` samples per mosaic row, dropped right of the mosaic and below the target's rows
        // (a line that is exactly one whole mosaic row inside the target is copied at once).
        if (col == 0 && n == tg->wrap && row < tg->rows && tg->x0 + n <= tg->width) {
            memcpy(tg->raw + (size_t)(tg->y0 + row) * tg->pitch + (size_t)tg->x0, cur, (size_t)n * sizeof *cur);
            row++;
            continue;
        }
        for (int k = 0; k < n; k++) {
            if (row < tg->rows && tg->x0 + col < tg->width) tg->raw[(size_t)(tg->y0 + row) * tg->pitch + (size_t)(tg->x0 + col)] = cur[k];
            if (++col >= tg->wrap) { col = 0; row++; }
        }
    }
    free(heap);
    r->end = (size_t)(b.p - data);
    return status;
}
