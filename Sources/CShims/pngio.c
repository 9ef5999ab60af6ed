// libpng reports errors by longjmp to a setjmp point, which Swift cannot set: the whole encode runs here, and
// failures come back as -1 plus libpng's message. Decoding goes through lw_pngdec.h.
#include "lw_png.h"
#include <errno.h>
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LW_PNG_BUFFER (1u << 20)

struct lw_png_context {
    // Error reporting.
    char *msg;
    size_t msg_len;
    // Writing: a 1 MiB buffer in front of write(2); the first failing errno is kept.
    int fd;
    int io_errno;
    uint8_t *buf;
    size_t used;
};

static void on_png_error(png_structp png, png_const_charp text) {
    struct lw_png_context *c = png_get_error_ptr(png);
    if (c->msg && c->msg_len) snprintf(c->msg, c->msg_len, "%s", text);
    png_longjmp(png, 1);
}

static void on_png_warning(png_structp png, png_const_charp text) { (void)png; (void)text; }

static int write_all(struct lw_png_context *c, const uint8_t *p, size_t n) {
    while (n > 0) {
        ssize_t k = write(c->fd, p, n);
        if (k < 0) {
            if (errno == EINTR) continue;
            c->io_errno = errno;
            return -1;
        }
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

static void on_write(png_structp png, png_bytep data, size_t len) {
    struct lw_png_context *c = png_get_io_ptr(png);
    if (c->used + len > LW_PNG_BUFFER) {
        if (write_all(c, c->buf, c->used) != 0) png_error(png, strerror(c->io_errno));
        c->used = 0;
    }
    if (len >= LW_PNG_BUFFER) {
        if (write_all(c, data, len) != 0) png_error(png, strerror(c->io_errno));
        return;
    }
    memcpy(c->buf + c->used, data, len);
    c->used += len;
}

static void on_flush(png_structp png) { (void)png; }  // flushed once at the end

int lw_png_encode_fd(int fd, const lw_png_encode_params *p, const void *pixels, size_t row_bytes,
                     int *io_errno, char *err, size_t err_len) {
    *io_errno = 0;
    struct lw_png_context *c = calloc(1, sizeof *c);
    if (!c) { snprintf(err, err_len, "out of memory"); return -1; }
    c->msg = err;
    c->msg_len = err_len;
    c->fd = fd;
    c->buf = malloc(LW_PNG_BUFFER);
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, c, on_png_error, on_png_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!c->buf || !png || !info) {
        snprintf(err, err_len, "out of memory");
        if (png) png_destroy_write_struct(&png, info ? &info : NULL);
        free(c->buf);
        free(c);
        return -1;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        *io_errno = c->io_errno;
        free(c->buf);
        free(c);
        return -1;
    }
    png_set_write_fn(png, c, on_write, on_flush);
    int color_type = p->channels == 1 ? PNG_COLOR_TYPE_GRAY
                   : p->channels == 2 ? PNG_COLOR_TYPE_GRAY_ALPHA
                   : p->channels == 3 ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_RGB_ALPHA;
    png_set_IHDR(png, info, (png_uint_32)p->width, (png_uint_32)p->height, p->bit_depth, color_type,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_BASE, PNG_FILTER_TYPE_BASE);
    png_set_compression_level(png, p->compression_level);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, p->filters);
    png_set_compression_buffer_size(png, 256 * 1024);
    if (p->icc) png_set_iCCP(png, info, p->icc_name ? p->icc_name : "ICC profile", PNG_COMPRESSION_TYPE_BASE,
                             p->icc, (png_uint_32)p->icc_len);
    // XMP before IDAT, uncompressed (XMP specification part 3: readers scan for the packet), from a NUL-ended copy.
    if (p->xmp) {
        char *xmp = malloc(p->xmp_len + 1);
        if (!xmp) png_error(png, "out of memory");
        memcpy(xmp, p->xmp, p->xmp_len);
        xmp[p->xmp_len] = 0;
        png_text text;
        memset(&text, 0, sizeof text);
        text.compression = PNG_ITXT_COMPRESSION_NONE;
        text.key = "XML:com.adobe.xmp";
        text.text = xmp;
        text.itxt_length = p->xmp_len;
        text.lang = "";
        text.lang_key = "";
        png_set_text(png, info, &text, 1);  // copies the text
        free(xmp);
    }
    png_write_info(png, info);
    // eXIf goes before IDAT, where readers look for it: libpng 1.6.39 would write a png_set_eXIf_1 block
    // after the image data, in png_write_end.
    if (p->exif) png_write_chunk(png, (png_const_bytep)"eXIf", (png_const_bytep)p->exif, p->exif_len);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (p->bit_depth == 16) png_set_swap(png);
#endif
    for (int y = 0; y < p->height; y++) png_write_row(png, (png_const_bytep)pixels + (size_t)y * row_bytes);
    png_write_end(png, info);
    if (c->used && write_all(c, c->buf, c->used) != 0) png_error(png, strerror(c->io_errno));
    png_destroy_write_struct(&png, &info);
    free(c->buf);
    free(c);
    return 0;
}
