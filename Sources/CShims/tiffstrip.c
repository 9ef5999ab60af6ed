// TIFF Deflate strips compressed outside libtiff, so that every core compresses one (libtiff compresses on
// the thread that writes); the bytes are those libtiff's ZIP codec with libdeflate makes for a whole strip.
#include "lw_tiffstrip.h"
#include <libdeflate.h>
#include <string.h>

size_t lw_deflate_tiff_strip_bound(size_t bytes) { return libdeflate_zlib_compress_bound(NULL, bytes); }

size_t lw_deflate_tiff_strip(const void *src, size_t rows, size_t width, int channels, int bytes_per_sample,
                             int level, void *scratch, void *out, size_t out_capacity) {
    size_t row_samples = width * (size_t)channels, bytes = rows * row_samples * (size_t)bytes_per_sample;
    memcpy(scratch, src, bytes);
    // Predictor 2: each sample minus the same channel of the pixel before it, modulo the sample size.
    for (size_t r = 0; r < rows; r++) {
        if (bytes_per_sample == 2) {
            uint16_t *s = (uint16_t *)scratch + r * row_samples;
            for (size_t i = row_samples; i-- > (size_t)channels;) s[i] = (uint16_t)(s[i] - s[i - channels]);
        } else {
            uint8_t *s = (uint8_t *)scratch + r * row_samples;
            for (size_t i = row_samples; i-- > (size_t)channels;) s[i] = (uint8_t)(s[i] - s[i - channels]);
        }
    }
    struct libdeflate_compressor *c = libdeflate_alloc_compressor(level);
    if (!c) return 0;
    size_t n = libdeflate_zlib_compress(c, scratch, bytes, out, out_capacity);
    libdeflate_free_compressor(c);
    return n;
}
