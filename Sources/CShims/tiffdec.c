// libtiff reading from memory: the input is read whole once (it is hashed from the same bytes).
#include "lw_tiffdec.h"
#include <stdlib.h>
#include <string.h>

typedef struct { const uint8_t *data; toff_t size, pos; } memory;

static tmsize_t mem_read(thandle_t h, void *buf, tmsize_t n) {
    memory *m = (memory *)h;
    if (n < 0 || m->pos >= m->size) return 0;
    toff_t left = m->size - m->pos;
    if ((toff_t)n > left) n = (tmsize_t)left;
    memcpy(buf, m->data + m->pos, (size_t)n);
    m->pos += (toff_t)n;
    return n;
}
static tmsize_t mem_write(thandle_t h, void *buf, tmsize_t n) { (void)h; (void)buf; (void)n; return -1; }
static toff_t mem_seek(thandle_t h, toff_t off, int whence) {
    memory *m = (memory *)h;
    toff_t base = whence == SEEK_CUR ? m->pos : whence == SEEK_END ? m->size : 0;
    // An offset past the end is allowed (reads there return nothing); a wrap-around is not.
    if (off > UINT64_MAX - base) return (toff_t)-1;
    m->pos = base + off;
    return m->pos;
}
static int mem_close(thandle_t h) { free(h); return 0; }
static toff_t mem_size(thandle_t h) { return ((memory *)h)->size; }
static int mem_map(thandle_t h, void **base, toff_t *size) {
    memory *m = (memory *)h;
    *base = (void *)m->data;
    *size = m->size;
    return 1;
}
static void mem_unmap(thandle_t h, void *base, toff_t size) { (void)h; (void)base; (void)size; }

TIFF *lw_tiff_open_memory(const uint8_t *data, size_t size, const char *name) {
    memory *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->data = data; m->size = data ? size : 0;
    TIFF *t = TIFFClientOpen(name, "r", (thandle_t)m, mem_read, mem_write, mem_seek, mem_close, mem_size, mem_map, mem_unmap);
    if (!t) free(m);   // libtiff calls no close proc when the open fails
    return t;
}

int lw_tiff_get_colormap(TIFF *tif, const uint16_t **red, const uint16_t **green, const uint16_t **blue) {
    return TIFFGetField(tif, TIFFTAG_COLORMAP, red, green, blue);
}

int lw_tiff_jpeg_as_rgb(TIFF *tif) { return TIFFSetField(tif, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB); }

int lw_tiff_set_colormap(TIFF *tif, const uint16_t *red, const uint16_t *green, const uint16_t *blue) {
    return TIFFSetField(tif, TIFFTAG_COLORMAP, red, green, blue);
}
