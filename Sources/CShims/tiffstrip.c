// TIFF Deflate strips compressed outside libtiff, so that every core compresses one (libtiff compresses on
// the thread that writes); the bytes are those libtiff's ZIP codec with libdeflate makes for a whole strip.
#include "lw_tiffstrip.h"
#include <libdeflate.h>
#include <pthread.h>

// One compressor per thread, kept between strips and files (allocating one sets up its tables each time);
// freed when the thread ends.
static pthread_key_t compressor_key;
static pthread_once_t compressor_once = PTHREAD_ONCE_INIT;
static __thread struct libdeflate_compressor *compressor;
static __thread int compressor_level = -1;

static void free_compressor(void *z) { libdeflate_free_compressor(z); }
static void make_key(void) { pthread_key_create(&compressor_key, free_compressor); }

static struct libdeflate_compressor *thread_compressor(int level) {
    if (compressor && compressor_level == level) return compressor;
    pthread_once(&compressor_once, make_key);
    if (compressor) libdeflate_free_compressor(compressor);
    compressor = libdeflate_alloc_compressor(level);
    compressor_level = compressor ? level : -1;
    pthread_setspecific(compressor_key, compressor);
    return compressor;
}

size_t lw_deflate_tiff_strip_bound(size_t bytes) { return libdeflate_zlib_compress_bound(NULL, bytes); }

size_t lw_deflate_tiff_strip(const void *src, size_t rows, size_t width, int channels, int bytes_per_sample,
                             int level, void *scratch, void *out, size_t out_capacity) {
    size_t row_samples = width * (size_t)channels, bytes = rows * row_samples * (size_t)bytes_per_sample;
    size_t c = (size_t)channels;
    // Predictor 2, read from src and written to scratch in one pass: each sample minus the same channel of the
    // pixel before it, modulo the sample size; a row's first pixel as it is.
    for (size_t r = 0; r < rows; r++) {
        if (bytes_per_sample == 2) {
            const uint16_t *in = (const uint16_t *)src + r * row_samples;
            uint16_t *d = (uint16_t *)scratch + r * row_samples;
            for (size_t i = 0; i < c && i < row_samples; i++) d[i] = in[i];
            for (size_t i = c; i < row_samples; i++) d[i] = (uint16_t)(in[i] - in[i - c]);
        } else {
            const uint8_t *in = (const uint8_t *)src + r * row_samples;
            uint8_t *d = (uint8_t *)scratch + r * row_samples;
            for (size_t i = 0; i < c && i < row_samples; i++) d[i] = in[i];
            for (size_t i = c; i < row_samples; i++) d[i] = (uint8_t)(in[i] - in[i - c]);
        }
    }
    struct libdeflate_compressor *z = thread_compressor(level);
    if (!z) return 0;
    return libdeflate_zlib_compress(z, scratch, bytes, out, out_capacity);
}
