// Row kernels of the à-trous wavelet noise reduction (contract in lw_denoise.h). Loops are branch-free over
// whole rows so that they vectorise; the same C is built for AVX2 and for baseline x86-64 without FMA.
#include "lw_denoise.h"
#include "lw_cpu.h"
#include "mirror.h"
#include <string.h>

#pragma clang fp contract(off)

// The vertical-then-horizontal B3-spline smoothing of one row from five row pointers (so the cascade's rings and
// the whole-plane rows share one arithmetic, and so the same bits).
static inline __attribute__((always_inline))
void atrous5_body(const float *r0, const float *r1, const float *r2, const float *r3, const float *r4, int w, int s,
                  float *restrict t, float *restrict dst) {
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

// One row of the smoothing at scale `s` of a whole plane: its five rows, mirrored at the edges.
static inline __attribute__((always_inline))
void atrous_body(const float *src, int w, int h, int y, int s, float *restrict t, float *restrict dst) {
    atrous5_body(src + (size_t)lw_mirror(y - 2 * s, h) * w, src + (size_t)lw_mirror(y - s, h) * w, src + (size_t)y * w,
                 src + (size_t)lw_mirror(y + s, h) * w, src + (size_t)lw_mirror(y + 2 * s, h) * w, w, s, t, dst);
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

// ---- The cascade in ring buffers (lw_dn_cascade) ----

__attribute__((target("avx2")))
static void atrous5_avx2(const float *r0, const float *r1, const float *r2, const float *r3, const float *r4, int w, int s, float *t, float *dst) {
    atrous5_body(r0, r1, r2, r3, r4, w, s, t, dst);
}
static void atrous5_base(const float *r0, const float *r1, const float *r2, const float *r3, const float *r4, int w, int s, float *t, float *dst) {
    atrous5_body(r0, r1, r2, r3, r4, w, s, t, dst);
}

// Every band's garrote (as garrote_body: the first stored, the others added in order) into `acc`, and the
// coarsest approximation plus their sum into `out`.
static inline __attribute__((always_inline))
void emit_body(const float *const *rows, const float *level, int w, int scales, const float *a, const float *b,
               const float *k2, float *restrict acc, float *restrict out) {
    for (int j = 0; j < scales; j++) garrote_body(rows[j], rows[j + 1], level, w, a[j], b[j], k2[j], acc, j > 0);
    const float *last = rows[scales];
    for (int x = 0; x < w; x++) out[x] = last[x] + acc[x];
}

__attribute__((target("avx2")))
static void emit_avx2(const float *const *rows, const float *level, int w, int scales, const float *a, const float *b, const float *k2, float *acc, float *out) {
    emit_body(rows, level, w, scales, a, b, k2, acc, out);
}
static void emit_base(const float *const *rows, const float *level, int w, int scales, const float *a, const float *b, const float *k2, float *acc, float *out) {
    emit_body(rows, level, w, scales, a, b, k2, acc, out);
}

// One row of the block sums of |fine − coarse| (and of level when `sl` is not NULL), added to each block's running
// sums in lw_dn_block_stats's order; eight blocks at a time so that their sums do not wait on each other.
static void stats_row(const float *fine, const float *coarse, const float *level, int across, int block, float *sa, float *sl) {
    int k = 0;
    for (; k + 8 <= across; k += 8) {
        float a[8], l[8];
        for (int q = 0; q < 8; q++) { a[q] = sa[k + q]; l[q] = sl ? sl[k + q] : 0.0f; }
        for (int x = 0; x < block; x++)
            for (int q = 0; q < 8; q++) {
                size_t o = (size_t)(k + q) * block + x;
                float d = fine[o] - coarse[o];
                a[q] += d < 0 ? -d : d;
                l[q] += level[o];
            }
        for (int q = 0; q < 8; q++) { sa[k + q] = a[q]; if (sl) sl[k + q] = l[q]; }
    }
    for (; k < across; k++) {
        float a = sa[k], l = sl ? sl[k] : 0.0f;
        for (int x = 0; x < block; x++) {
            size_t o = (size_t)k * block + x;
            float d = fine[o] - coarse[o];
            a += d < 0 ? -d : d;
            l += level[o];
        }
        sa[k] = a;
        if (sl) sl[k] = l;
    }
}

size_t lw_dn_cascade_scratch(int width, int scales) {
    int m[LW_DN_MAX_SCALES + 1];
    size_t rows = 2;   // the smoothing's own row and the garrotes' sum
    m[scales - 1] = 0;
    for (int j = scales - 1; j > 0; j--) m[j - 1] = m[j] + 2 * (1 << j);
    for (int j = 0; j < scales; j++) {
        int below = j + 1 < scales ? m[j + 1] - 2 * (1 << (j + 1)) : 0;
        rows += (size_t)(m[j] - (below < 0 ? below : 0) + 1);
    }
    return rows * (size_t)width;
}

void lw_dn_cascade(const float *x, const float *level, int w, int h, int y0, int y1, int scales, float *scratch,
                   int block, float *const *mean_abs, float *mean_level, float *level_out,
                   const float *a, const float *b, const float *k2, float *out) {
    int avx2 = lw_cpu_avx2();
    int m[LW_DN_MAX_SCALES], ring[LW_DN_MAX_SCALES], lo[LW_DN_MAX_SCALES];
    float *base[LW_DN_MAX_SCALES];
    // Level j is computed `m[j]` rows ahead of the row emitted, and its ring holds every row still read.
    m[scales - 1] = 0;
    for (int j = scales - 1; j > 0; j--) m[j - 1] = m[j] + 2 * (1 << j);
    float *t = scratch, *acc = scratch + w, *next = scratch + 2 * (size_t)w;
    for (int j = 0; j < scales; j++) {
        int below = j + 1 < scales ? m[j + 1] - 2 * (1 << (j + 1)) : 0;
        ring[j] = m[j] - (below < 0 ? below : 0) + 1;
        base[j] = next;
        next += (size_t)ring[j] * w;
        lo[j] = y0 - m[j] > 0 ? y0 - m[j] : 0;
    }
#define ROW(j, y) (base[j] + (size_t)((y) % ring[j]) * w)
    int across = w / block, down = h / block;
    for (int i = y0 - 2 * m[0]; i < y1; i++) {
        for (int j = 0; j < scales; j++) {
            int y = i + m[j], s = 1 << j;
            if (y < lo[j] || y >= h) continue;
            const float *r[5];
            for (int q = 0; q < 5; q++) {
                int v = lw_mirror(y + (q - 2) * s, h);
                r[q] = j == 0 ? x + (size_t)v * w : ROW(j - 1, v);
            }
            if (avx2) atrous5_avx2(r[0], r[1], r[2], r[3], r[4], w, s, t, ROW(j, y));
            else atrous5_base(r[0], r[1], r[2], r[3], r[4], w, s, t, ROW(j, y));
        }
        if (i < y0) continue;
        const float *rows[LW_DN_MAX_SCALES + 1];
        rows[0] = x + (size_t)i * w;
        for (int j = 0; j < scales; j++) rows[j + 1] = ROW(j, i);
        const float *lv = level_out ? rows[1] : level + (size_t)i * w;
        if (level_out) memcpy(level_out + (size_t)i * w, lv, (size_t)w * sizeof(float));
        if (out) {
            if (avx2) emit_avx2(rows, lv, w, scales, a, b, k2, acc, out + (size_t)i * w);
            else emit_base(rows, lv, w, scales, a, b, k2, acc, out + (size_t)i * w);
        } else if (i / block < down) {
            int band = i / block, first = i % block == 0, last = i % block == block - 1;
            for (int j = 0; j < scales; j++) {
                float *sa = mean_abs[j] + (size_t)band * across, *sl = j == 0 && mean_level ? mean_level + (size_t)band * across : NULL;
                if (first) for (int k = 0; k < across; k++) { sa[k] = 0.0f; if (sl) sl[k] = 0.0f; }
                stats_row(rows[j], rows[j + 1], lv, across, block, sa, sl);
                if (last) for (int k = 0; k < across; k++) {
                    sa[k] = sa[k] / (float)(block * block);
                    if (sl) sl[k] = sl[k] / (float)(block * block);
                }
            }
        }
    }
#undef ROW
}

void lw_opponent_to_rgb_into(const float *y, const float *u, const float *v, float *r, float *g, float *b, int width) {
    for (int x = 0; x < width; x++) {
        float Y = y[x], U = u[x], V = v[x];
        float s = Y + V * (2.0f / 3.0f);
        r[x] = s + U;
        g[x] = Y - V * (4.0f / 3.0f);
        b[x] = s - U;
    }
}
