// Thin non-variadic wrappers: Swift cannot call C variadic functions such as TIFFSetField.
#include "lw_tiff.h"
#include <stdarg.h>
#include <stdio.h>

int lw_tiff_set_u16(TIFF *t, uint32_t tag, uint16_t v) { return TIFFSetField(t, tag, v); }
int lw_tiff_set_u32(TIFF *t, uint32_t tag, uint32_t v) { return TIFFSetField(t, tag, v); }
int lw_tiff_set_double(TIFF *t, uint32_t tag, double v) { return TIFFSetField(t, tag, v); }
int lw_tiff_set_string(TIFF *t, uint32_t tag, const char *v) { return TIFFSetField(t, tag, v); }
int lw_tiff_set_bytes(TIFF *t, uint32_t tag, uint32_t n, const void *b) { return TIFFSetField(t, tag, n, b); }
int lw_tiff_set_u16_array(TIFF *t, uint32_t tag, uint16_t n, const uint16_t *v) { return TIFFSetField(t, tag, n, v); }
int lw_tiff_set_u32_array(TIFF *t, uint32_t tag, uint16_t n, const uint32_t *v) { return TIFFSetField(t, tag, n, v); }
int lw_tiff_set_float_array(TIFF *t, uint32_t tag, uint16_t n, const float *v) { return TIFFSetField(t, tag, n, v); }
int lw_tiff_set_pointer(TIFF *t, uint32_t tag, const void *v) { return TIFFSetField(t, tag, v); }
int lw_tiff_set_extrasamples(TIFF *t, uint16_t n, const uint16_t *types) { return TIFFSetField(t, TIFFTAG_EXTRASAMPLES, n, types); }

int lw_tiff_get_u16(TIFF *t, uint32_t tag, uint16_t *v) { return TIFFGetField(t, tag, v); }
int lw_tiff_get_u32(TIFF *t, uint32_t tag, uint32_t *v) { return TIFFGetField(t, tag, v); }
int lw_tiff_get_bytes(TIFF *t, uint32_t tag, uint32_t *n, const void **b) { return TIFFGetField(t, tag, n, b); }
int lw_tiff_get_extrasamples(TIFF *t, uint16_t *n, const uint16_t **types) { return TIFFGetField(t, TIFFTAG_EXTRASAMPLES, n, types); }

static _Thread_local char last_error[512];

static void record(const char *module, const char *fmt, va_list ap) {
    int k = snprintf(last_error, sizeof last_error, "%s: ", module ? module : "libtiff");
    if (k < 0 || (size_t)k >= sizeof last_error) k = 0;
    vsnprintf(last_error + k, sizeof last_error - (size_t)k, fmt, ap);
}
static void on_error(const char *module, const char *fmt, va_list ap) { record(module, fmt, ap); }
static void on_warning(const char *module, const char *fmt, va_list ap) { (void)module; (void)fmt; (void)ap; }

void lw_tiff_quiet(void) { TIFFSetErrorHandler(on_error); TIFFSetWarningHandler(on_warning); }
const char *lw_tiff_last_error(void) { return last_error; }
void lw_tiff_clear_error(void) { last_error[0] = 0; }
