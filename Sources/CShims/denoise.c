// Row kernels of the à-trous wavelet noise reduction (contract in lw_denoise.h). Loops are branch-free over
// whole rows so that they vectorise; the same C is built for AVX2 and for baseline x86-64 without FMA.
#include "lw_denoise.h"
#include "lw_cpu.h"
#include "mirror.h"

#pragma clang fp contract(off)

static inline __attribute__((always_inline))
void atrous_body(const float *src, int w, int h, int y, int s, float *restrict t, float *restrict dst) {
    const float *r0 = src + (size_t)lw_mirror(y - 2 * s, h) * w, *r1 = src + (size_t)lw_mirror(y - s, h) * w;
    const float *r2 = src + (size_t)y * w;
    const float *r3 = src + (size_t)lw_mirror(y + s, h) * w, *r4 = src + (size_t)lw_mirror(y + 2 * s, h) * w;
    for (int x = 0; x < w; x++)
        t[x] = ((r0[x] + r4[x]) + 4.0f * (r1[x] + r3[x]) + 6.0f * r2[x]) * (1.0f / 16.0f);
    int lo = 2 * s < w ? 2 * s : w, hi = w - 2 * s > lo ? w - 2 * s : lo;
    for (int x = 0; x < lo; x++)
        dst[x] = ((t[lw_mirror(x - 2 * s, w)] + t[lw_mirror(x + 2 * s, w)]) + 4.0f * (t[lw_mirror(x - s, w)] + t[lw_mirror(x + s, w)])
                  + 6.0f * t[x]) * (1.0f / 16.0f);
    for (int x = lo; x < hi; x++)
        dst[x] = ((t[x - 2 * s] + t[x + 2 * s]) + 4.0f * (t[x - s] + t[x + s]) + 6.0f * t[x]) * (1.0f / 16.0f);
    for (int x = hi; x < w; x++)
        dst[x] = ((t[lw_mirror(x - 2 * s, w)] + t[lw_mirror(x + 2 * s, w)]) + 4.0f * (t[lw_mirror(x - s, w)] + t[lw_mirror(x + s, w)])
                  + 6.0f * t[x]) * (1.0f / 16.0f);
}

static inline __attribute__((always_inline))
void garrote_body(const float *fine, const float *coarse, const float *level, int w,
                  float a, float b, float k2, float *restrict acc, int accumulate) {
    for (int x = 0; x < w; x++) {
        float d = fine[x] - coarse[x];
        float l = level[x] > 0.0f ? level[x] : 0.0f;
        float t2 = k2 * (a + b * l);
        float d2 = d * d;
        float keep = d2 > t2 ? 1.0f - t2 / d2 : 0.0f;
        float v = d * keep;
        acc[x] = accumulate ? acc[x] + v : v;
    }
}

__attribute__((target("avx2")))
static void atrous_avx2(const float *src, int w, int h, int y, int s, float *t, float *dst) { atrous_body(src, w, h, y, s, t, dst); }
static void atrous_base(const float *src, int w, int h, int y, int s, float *t, float *dst) { atrous_body(src, w, h, y, s, t, dst); }

void lw_atrous_row(const float *src, int width, int height, int y, int step, float *scratch, float *dst) {
    if (lw_cpu_avx2()) atrous_avx2(src, width, height, y, step, scratch, dst);
    else atrous_base(src, width, height, y, step, scratch, dst);
}

__attribute__((target("avx2")))
static void garrote_avx2(const float *f, const float *c, const float *l, int w, float a, float b, float k2, float *acc, int accumulate) {
    garrote_body(f, c, l, w, a, b, k2, acc, accumulate);
}
static void garrote_base(const float *f, const float *c, const float *l, int w, float a, float b, float k2, float *acc, int accumulate) {
    garrote_body(f, c, l, w, a, b, k2, acc, accumulate);
}

void lw_garrote_row(const float *fine, const float *coarse, const float *level, int width,
                    float a, float b, float k2, float *acc, int accumulate) {
    if (lw_cpu_avx2()) garrote_avx2(fine, coarse, level, width, a, b, k2, acc, accumulate);
    else garrote_base(fine, coarse, level, width, a, b, k2, acc, accumulate);
}

void lw_dn_block_stats(const float *fine, const float *coarse, const float *level, int width, int y0, int block,
                       float *mean_abs, float *mean_level) {
    int across = width / block;
    for (int k = 0; k < across; k++) {
        float sa = 0, sl = 0;
        for (int y = y0; y < y0 + block; y++) {
            size_t o = (size_t)y * width + (size_t)k * block;
            for (int x = 0; x < block; x++) {
                float d = fine[o + x] - coarse[o + x];
                sa += d < 0 ? -d : d;
                sl += level[o + x];
            }
        }
        mean_abs[k] = sa / (float)(block * block);
        mean_level[k] = sl / (float)(block * block);
    }
}

void lw_rgb_to_opponent(float *r, float *g, float *b, int width) {
    for (int x = 0; x < width; x++) {
        float R = r[x], G = g[x], B = b[x];
        r[x] = (R + G + B) * (1.0f / 3.0f);
        g[x] = (R - B) * 0.5f;
        b[x] = (R - 2.0f * G + B) * 0.25f;
    }
}

void lw_opponent_to_rgb(float *y, float *u, float *v, int width) {
    for (int x = 0; x < width; x++) {
        float Y = y[x], U = u[x], V = v[x];
        float s = Y + V * (2.0f / 3.0f);
        y[x] = s + U;
        u[x] = Y - V * (4.0f / 3.0f);
        v[x] = s - U;
    }
}
