// libjpeg calls under setjmp, so a corrupt JPEG becomes an error code instead of exit().
#include "lw_jpegdec.h"
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <jerror.h>

struct lw_jpegdec {
    struct jpeg_decompress_struct cinfo;   // first: the error handlers cast cinfo back to lw_jpegdec
    struct jpeg_error_mgr err;
    jmp_buf jump;
    int created;
    int warnings;
    char message[JMSG_LENGTH_MAX];
    char first_warning[JMSG_LENGTH_MAX];
};

static void on_error(j_common_ptr cinfo) {
    lw_jpegdec *d = (lw_jpegdec *)cinfo;
    cinfo->err->format_message(cinfo, d->message);
    longjmp(d->jump, 1);
}

// Warnings are recoverable damage, except running out of data: libjpeg would pad a truncated file with grey.
static void on_message(j_common_ptr cinfo, int level) {
    lw_jpegdec *d = (lw_jpegdec *)cinfo;
    if (level >= 0) return;                                  // trace messages
    if (cinfo->err->msg_code == JWRN_JPEG_EOF) {
        cinfo->err->format_message(cinfo, d->message);
        strncat(d->message, " (the file is truncated)", sizeof d->message - strlen(d->message) - 1);
        longjmp(d->jump, 1);
    }
    if (d->warnings++ == 0) cinfo->err->format_message(cinfo, d->first_warning);
}

lw_jpegdec *lw_jpegdec_create(const uint8_t *data, size_t size) {
    if (!data || size == 0) return NULL;
    lw_jpegdec *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    d->cinfo.err = jpeg_std_error(&d->err);
    d->err.error_exit = on_error;
    d->err.emit_message = on_message;
    if (setjmp(d->jump)) { jpeg_destroy_decompress(&d->cinfo); free(d); return NULL; }
    jpeg_create_decompress(&d->cinfo);
    d->created = 1;
    jpeg_mem_src(&d->cinfo, data, (unsigned long)size);
    return d;
}

void lw_jpegdec_destroy(lw_jpegdec *d) {
    if (!d) return;
    if (d->created) jpeg_destroy_decompress(&d->cinfo);
    free(d);
}

struct jpeg_decompress_struct *lw_jpegdec_info(lw_jpegdec *d) { return &d->cinfo; }
const char *lw_jpegdec_message(const lw_jpegdec *d) { return d->message; }
int lw_jpegdec_warning_count(const lw_jpegdec *d) { return d->warnings; }
const char *lw_jpegdec_first_warning(const lw_jpegdec *d) { return d->first_warning; }

int lw_jpegdec_read_header(lw_jpegdec *d) {
    if (setjmp(d->jump)) return -1;
    jpeg_save_markers(&d->cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_save_markers(&d->cinfo, JPEG_APP0 + 2, 0xFFFF);
    return jpeg_read_header(&d->cinfo, TRUE) == JPEG_HEADER_OK ? 0 : -1;
}

int lw_jpegdec_read_icc(lw_jpegdec *d, uint8_t **profile, unsigned *length) {
    *profile = NULL; *length = 0;
    if (setjmp(d->jump)) return -1;
    JOCTET *p = NULL; unsigned n = 0;
    if (!jpeg_read_icc_profile(&d->cinfo, &p, &n)) return 0;
    *profile = p; *length = n;
    return 1;
}

int lw_jpegdec_start(lw_jpegdec *d) {
    if (setjmp(d->jump)) return -1;
    return jpeg_start_decompress(&d->cinfo) ? 0 : -1;
}

int lw_jpegdec_read_rows(lw_jpegdec *d, uint8_t **rows, unsigned count, unsigned *read) {
    *read = 0;
    if (setjmp(d->jump)) return -1;
    unsigned total = 0;
    while (total < count && d->cinfo.output_scanline < d->cinfo.output_height) {
        JDIMENSION got = jpeg_read_scanlines(&d->cinfo, rows + total, count - total);
        if (got == 0) break;
        total += got;
    }
    *read = total;
    return 0;
}

int lw_jpegdec_finish(lw_jpegdec *d) {
    if (setjmp(d->jump)) return -1;
    jpeg_finish_decompress(&d->cinfo);
    return 0;
}
