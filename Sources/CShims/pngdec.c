// libpng calls under setjmp, so a corrupt PNG becomes an error code instead of abort().
#include "lw_pngdec.h"
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

struct lw_pngdec {
    png_structp png;
    png_infop info;
    const uint8_t *data;
    size_t size, offset;
    jmp_buf jump;
    char message[256];
};

static void on_error(png_structp png, png_const_charp text) {
    lw_pngdec *d = png_get_error_ptr(png);
    snprintf(d->message, sizeof d->message, "%s", text ? text : "libpng error");
    longjmp(d->jump, 1);
}

static void on_warning(png_structp png, png_const_charp text) { (void)png; (void)text; }

static void read_memory(png_structp png, png_bytep out, size_t length) {
    lw_pngdec *d = png_get_io_ptr(png);
    if (length > d->size - d->offset) png_error(png, "the file is truncated");
    memcpy(out, d->data + d->offset, length);
    d->offset += length;
}

lw_pngdec *lw_pngdec_create(const uint8_t *data, size_t size) {
    lw_pngdec *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    d->data = data; d->size = data ? size : 0;
    d->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, d, on_error, on_warning);
    if (d->png) d->info = png_create_info_struct(d->png);
    if (!d->png || !d->info) { lw_pngdec_destroy(d); return NULL; }
    png_set_read_fn(d->png, d, read_memory);
    return d;
}

void lw_pngdec_destroy(lw_pngdec *d) {
    if (!d) return;
    if (d->png) png_destroy_read_struct(&d->png, d->info ? &d->info : NULL, NULL);
    free(d);
}

png_structp lw_pngdec_png(lw_pngdec *d) { return d->png; }
png_infop lw_pngdec_info(lw_pngdec *d) { return d->info; }
const char *lw_pngdec_message(const lw_pngdec *d) { return d->message; }

int lw_pngdec_read_info(lw_pngdec *d) {
    if (setjmp(d->jump)) return -1;
    if (d->size < 8 || png_sig_cmp(d->data, 0, 8) != 0) png_error(d->png, "not a PNG signature");
    png_read_info(d->png, d->info);
    return 0;
}

int lw_pngdec_expand(lw_pngdec *d, int *passes) {
    if (setjmp(d->jump)) return -1;
    int type = png_get_color_type(d->png, d->info), depth = png_get_bit_depth(d->png, d->info);
    if (type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(d->png);
    if (type == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(d->png);
    if (png_get_valid(d->png, d->info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(d->png);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (depth == 16) png_set_swap(d->png);
#endif
    *passes = png_set_interlace_handling(d->png);
    png_read_update_info(d->png, d->info);
    return 0;
}

int lw_pngdec_read_rows(lw_pngdec *d, uint8_t **rows, uint32_t count) {
    if (setjmp(d->jump)) return -1;
    png_read_rows(d->png, rows, NULL, count);
    return 0;
}

int lw_pngdec_read_end(lw_pngdec *d) {
    if (setjmp(d->jump)) return -1;
    png_read_end(d->png, d->info);
    return 0;
}
