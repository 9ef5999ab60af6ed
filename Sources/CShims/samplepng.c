// The Samples tool's PNG writer: libpng signals errors by longjmp, so the setjmp has to live in C.
#include "lw_samplepng.h"
#include <errno.h>
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    jmp_buf jump;
    char message[256];
} failure;

static void on_error(png_structp png, png_const_charp msg) {
    failure *f = (failure *)png_get_error_ptr(png);
    snprintf(f->message, sizeof f->message, "%s", msg);
    longjmp(f->jump, 1);
}
static void on_warning(png_structp png, png_const_charp msg) { (void)png; (void)msg; }

int lw_samplepng_write_srgb8(const char *path, const uint8_t *rgb, uint32_t width, uint32_t height,
                             char *error, size_t error_size) {
    FILE *file = fopen(path, "wb");
    if (!file) {
        snprintf(error, error_size, "%s", strerror(errno));
        return -1;
    }
    failure f;
    f.message[0] = 0;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &f, on_error, on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info) {
        snprintf(error, error_size, "libpng: out of memory");
        png_destroy_write_struct(&png, NULL);
        fclose(file);
        return -1;
    }
    if (setjmp(f.jump)) {
        snprintf(error, error_size, "libpng: %s", f.message);
        png_destroy_write_struct(&png, &info);
        fclose(file);
        return -1;
    }
    png_init_io(png, file);
    png_set_IHDR(png, info, width, height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_sRGB_gAMA_and_cHRM(png, info, PNG_sRGB_INTENT_PERCEPTUAL);
    png_write_info(png, info);
    for (uint32_t y = 0; y < height; y++) png_write_row(png, rgb + (size_t)y * width * 3);
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    if (fclose(file) != 0) {
        snprintf(error, error_size, "%s", strerror(errno));
        return -1;
    }
    return 0;
}
