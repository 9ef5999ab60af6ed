// Block means for the monitor's preview (lw_reduce.h). Rows of sums are built column-first so the inner loops run
// over contiguous samples; the arithmetic is the header's, in 64-bit integers.
#include "lw_reduce.h"
#include <stdlib.h>
#include <string.h>

// k = 1: the header's formula with k² = 1 (for 16 bits (v·255 + 32767) / 65535, which is (v + 128) / 257), with
// the channel counts constant in each loop so that it vectorises.
static inline __attribute__((always_inline))
void copy_rows_u8(const uint8_t *src, size_t stride, int in, int out_c, int width, int y0, int y1, uint8_t *dst) {
    for (int y = y0; y < y1; y++) {
        const uint8_t *row = src + (size_t)y * stride;
        uint8_t *o = dst + (size_t)y * width * out_c;
        if (in == out_c) { memcpy(o, row, (size_t)width * out_c); continue; }
        for (int x = 0; x < width; x++)
            for (int c = 0; c < out_c; c++) o[x * out_c + c] = row[(size_t)x * in + c];
    }
}
static inline __attribute__((always_inline))
void copy_rows_u16(const uint16_t *src, size_t stride, int in, int out_c, int width, int y0, int y1, uint8_t *dst) {
    for (int y = y0; y < y1; y++) {
        const uint16_t *row = src + (size_t)y * stride;
        uint8_t *o = dst + (size_t)y * width * out_c;
        if (in == out_c) {
            // Same layout: one flat run of samples, which vectorises.
            for (int i = 0; i < width * out_c; i++) o[i] = (uint8_t)(((uint32_t)row[i] + 128) / 257);
            continue;
        }
        for (int x = 0; x < width; x++)
            for (int c = 0; c < out_c; c++) o[x * out_c + c] = (uint8_t)(((uint32_t)row[(size_t)x * in + c] + 128) / 257);
    }
}
#define SAME_SIZE(T)                                                                                            \
static void same_size_##T(const T *src, size_t stride, int in, int out_c, int width, int y0, int y1, uint8_t *dst) { \
    if (in == 3 && out_c == 3) copy_rows_##T(src, stride, 3, 3, width, y0, y1, dst);                          \
    else if (in == 4 && out_c == 3) copy_rows_##T(src, stride, 4, 3, width, y0, y1, dst);                     \
    else if (in == 1 && out_c == 1) copy_rows_##T(src, stride, 1, 1, width, y0, y1, dst);                     \
    else copy_rows_##T(src, stride, in, out_c, width, y0, y1, dst);                                             \
}
#define copy_rows_uint8_t copy_rows_u8
#define copy_rows_uint16_t copy_rows_u16
SAME_SIZE(uint8_t)
SAME_SIZE(uint16_t)

#define BODY(T, SHIFT)                                                                                          \
    if (k == 1) { same_size_##T(src, src_stride, in_channels, out_channels, out_width, y0, y1, dst); return 1; }\
    const int wide = out_width * k;                                                                             \
    uint64_t *sums = malloc(sizeof(uint64_t) * (size_t)out_width * (size_t)out_channels);                       \
    uint64_t *line = malloc(sizeof(uint64_t) * (size_t)wide * (size_t)out_channels);                            \
    if (!sums || !line) { free(sums); free(line); return 0; }                                                   \
    const uint64_t area = (uint64_t)k * (uint64_t)k;                                                            \
    for (int y = y0; y < y1; y++) {                                                                             \
        for (int i = 0; i < wide * out_channels; i++) line[i] = 0;                                              \
        for (int dy = 0; dy < k; dy++) {                                                                        \
            const T *row = src + (size_t)(y * k + dy) * src_stride;                                             \
            for (int x = 0; x < wide; x++)                                                                      \
                for (int c = 0; c < out_channels; c++)                                                          \
                    line[x * out_channels + c] += row[(size_t)x * in_channels + c];                            \
        }                                                                                                       \
        for (int x = 0; x < out_width; x++)                                                                     \
            for (int c = 0; c < out_channels; c++) {                                                            \
                uint64_t s = 0;                                                                                 \
                for (int dx = 0; dx < k; dx++) s += line[(x * k + dx) * out_channels + c];                     \
                sums[x * out_channels + c] = s;                                                                 \
            }                                                                                                   \
        uint8_t *out = dst + (size_t)y * out_width * out_channels;                                              \
        for (int i = 0; i < out_width * out_channels; i++) {                                                    \
            uint64_t mean = (sums[i] + area / 2) / area;                                                        \
            if (SHIFT) { uint64_t v = (mean * 255 + 32767) / 65535; out[i] = (uint8_t)(v > 255 ? 255 : v); }    \
            else out[i] = (uint8_t)mean;                                                                        \
        }                                                                                                       \
    }                                                                                                           \
    free(sums);                                                                                                 \
    free(line);                                                                                                 \
    return 1;

int lw_block_mean_u8(const uint8_t *src, size_t src_stride, int in_channels, int out_channels, int k,
                      int out_width, int y0, int y1, uint8_t *dst) { BODY(uint8_t, 0) }

int lw_block_mean_u16(const uint16_t *src, size_t src_stride, int in_channels, int out_channels, int k,
                       int out_width, int y0, int y1, uint8_t *dst) { BODY(uint16_t, 1) }
