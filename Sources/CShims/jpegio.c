// libjpeg error handling needs setjmp/longjmp (its default handler calls exit()), which Swift cannot do.
#include "lw_jpeg.h"
#include <stdio.h>  // jpeglib.h needs FILE
#include <jpeglib.h>
#include <jerror.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

struct lw_jpeg_error {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    char *msg;
    size_t msg_len;
};

static void on_error_exit(j_common_ptr c) {
    struct lw_jpeg_error *e = (struct lw_jpeg_error *)c->err;
    char text[JMSG_LENGTH_MAX];
    c->err->format_message(c, text);
    if (e->msg && e->msg_len) snprintf(e->msg, e->msg_len, "%s", text);
    longjmp(e->jump, 1);
}

static void on_output_message(j_common_ptr c) { (void)c; }  // warnings stay silent

// libjpeg only warns at a premature end of data and fills the rest with grey; a cut file is an error here.
static void on_emit_message(j_common_ptr c, int level) {
    if (level < 0 && c->err->msg_code == JWRN_JPEG_EOF) c->err->error_exit(c);
    if (level < 0) c->err->num_warnings++;
}

static void set_message(char *err, size_t err_len, const char *text) {
    if (err && err_len) snprintf(err, err_len, "%s", text);
}

static void install(struct lw_jpeg_error *e, char *err, size_t err_len) {
    jpeg_std_error(&e->pub);
    e->pub.error_exit = on_error_exit;
    e->pub.output_message = on_output_message;
    e->pub.emit_message = on_emit_message;
    e->msg = err;
    e->msg_len = err_len;
}

int lw_jpeg_encode(const lw_jpeg_encode_params *p, const uint8_t *pixels, size_t row_stride,
                   uint8_t **out, size_t *out_len, char *err, size_t err_len) {
    *out = NULL;
    *out_len = 0;
    if (p->components != 1 && p->components != 3) { set_message(err, err_len, "JPEG takes 1 or 3 components"); return -1; }
    if (p->exif && p->exif_len > 65533) { set_message(err, err_len, "EXIF block larger than one JPEG marker (65533 bytes)"); return -1; }
    if (p->xmp && p->xmp_len > 65533) { set_message(err, err_len, "XMP packet larger than one JPEG marker (65533 bytes with its header)"); return -1; }
    if (p->iptc && p->iptc_len > 65533) { set_message(err, err_len, "IPTC block larger than one JPEG marker (65533 bytes)"); return -1; }

    struct jpeg_compress_struct cinfo;
    struct lw_jpeg_error jerr;
    unsigned long size = 0;
    install(&jerr, err, err_len);
    cinfo.err = &jerr.pub;
    if (setjmp(jerr.jump)) {
        jpeg_destroy_compress(&cinfo);
        free(*out);
        *out = NULL;
        return -1;
    }
    jpeg_create_compress(&cinfo);
    jpeg_mem_dest(&cinfo, (unsigned char **)out, &size);
    cinfo.image_width = (JDIMENSION)p->width;
    cinfo.image_height = (JDIMENSION)p->height;
    cinfo.input_components = p->components;
    cinfo.in_color_space = p->components == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, p->quality, TRUE);
    cinfo.optimize_coding = p->optimize_coding ? TRUE : FALSE;
    cinfo.dct_method = JDCT_ISLOW;
    if (p->components == 3) {
        int f = p->subsample_444 ? 1 : 2;
        cinfo.comp_info[0].h_samp_factor = f;
        cinfo.comp_info[0].v_samp_factor = f;
    }
    // EXIF expects its APP1 right after SOI, so no JFIF APP0 when EXIF is written.
    if (p->exif) cinfo.write_JFIF_header = FALSE;
    jpeg_start_compress(&cinfo, TRUE);
    if (p->exif) jpeg_write_marker(&cinfo, JPEG_APP0 + 1, p->exif, (unsigned int)p->exif_len);
    if (p->xmp) jpeg_write_marker(&cinfo, JPEG_APP0 + 1, p->xmp, (unsigned int)p->xmp_len);
    if (p->icc) jpeg_write_icc_profile(&cinfo, p->icc, (unsigned int)p->icc_len);
    if (p->iptc) jpeg_write_marker(&cinfo, JPEG_APP0 + 13, p->iptc, (unsigned int)p->iptc_len);
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = (JSAMPROW)(pixels + (size_t)cinfo.next_scanline * row_stride);
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    *out_len = (size_t)size;
    return 0;
}

void lw_jpeg_free(void *p) { free(p); }
