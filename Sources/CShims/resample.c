// Bicubic resampling (contract in lw_resample.h). The portable path keeps the 4 taps of a row in one vector
// (clang's vector types, any target); the AVX2 path takes 8 samples at once, one a lane, transposing their taps,
// with the same multiplies and adds in the same order for each sample, so the same bits.
#include "lw_resample.h"
#include "lw_cpu.h"
#include <immintrin.h>
#include <stddef.h>
#include <string.h>

#pragma clang fp contract(off)

typedef float v4 __attribute__((vector_size(16)));

static inline v4 load4(const float *p) { v4 v; memcpy(&v, p, sizeof v); return v; }

/// Keys' weights of taps −1, 0, 1, 2 at fraction t: each lane ((a·t + b)·t + c)·t + d.
static inline v4 keys_weights(float t) {
    const v4 a = {-0.5f, 1.5f, -1.5f, 0.5f}, b = {1.0f, -2.5f, 2.0f, -0.5f}, c = {-0.5f, 0.0f, 0.5f, 0.0f}, d = {0.0f, 1.0f, 0.0f, 0.0f};
    v4 tt = {t, t, t, t};
    return ((a * tt + b) * tt + c) * tt + d;
}

static inline int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

static inline float combine(v4 r0, v4 r1, v4 r2, v4 r3, v4 wx, v4 wy) {
    v4 column = ((wy[0] * r0 + wy[1] * r1) + wy[2] * r2) + wy[3] * r3;
    v4 v = column * wx;
    return (v[0] + v[1]) + (v[2] + v[3]);
}

// The sample whose top-left tap is (ix − 1, iy − 1), at fractions tx, ty past (ix, iy), into out[p][k].
static inline __attribute__((always_inline)) void sample(const float *const *planes, int count, int w, int h, int ix, int iy, float tx, float ty,
                          float *const *out, int k) {
    v4 wx = keys_weights(tx), wy = keys_weights(ty);
    if (ix >= 1 && iy >= 1 && ix + 2 < w && iy + 2 < h) {
        for (int p = 0; p < count; p++) {
            const float *s = planes[p] + (size_t)(iy - 1) * (size_t)w + (size_t)(ix - 1);
            out[p][k] = combine(load4(s), load4(s + w), load4(s + 2 * (size_t)w), load4(s + 3 * (size_t)w), wx, wy);
        }
    } else {
        int xi[4], yi[4];
        for (int i = 0; i < 4; i++) { xi[i] = clampi(ix - 1 + i, 0, w - 1); yi[i] = clampi(iy - 1 + i, 0, h - 1); }
        for (int p = 0; p < count; p++) {
            v4 r[4];
            for (int j = 0; j < 4; j++) {
                const float *row = planes[p] + (size_t)yi[j] * (size_t)w;
                r[j] = (v4){row[xi[0]], row[xi[1]], row[xi[2]], row[xi[3]]};
            }
            out[p][k] = combine(r[0], r[1], r[2], r[3], wx, wy);
        }
    }
}

// Keys' coefficients of taps −1…2, as keys_weights uses them.
static const float keys_a[4] = {-0.5f, 1.5f, -1.5f, 0.5f}, keys_b[4] = {1.0f, -2.5f, 2.0f, -0.5f},
                   keys_c[4] = {-0.5f, 0.0f, 0.5f, 0.0f}, keys_d[4] = {0.0f, 1.0f, 0.0f, 0.0f};

// Rows iy−1…iy+2 of 8 samples' 4 taps each (8 lanes, one sample a lane), the column sums of `combine` then its
// sum over the taps: tap i of row j for the 8 samples is a transpose of their 16-byte loads.
__attribute__((target("avx2")))
static void sample8_avx2(const float *const *planes, int count, int w, const int *ix, const int *iy, const float *tx, const float *ty,
                         float *const *out, int k) {
    __m256 t = _mm256_loadu_ps(tx), u = _mm256_loadu_ps(ty), wx[4], wy[4];
    for (int i = 0; i < 4; i++) {
        __m256 x = _mm256_add_ps(_mm256_mul_ps(_mm256_set1_ps(keys_a[i]), t), _mm256_set1_ps(keys_b[i]));
        x = _mm256_add_ps(_mm256_mul_ps(x, t), _mm256_set1_ps(keys_c[i]));
        wx[i] = _mm256_add_ps(_mm256_mul_ps(x, t), _mm256_set1_ps(keys_d[i]));
        __m256 y = _mm256_add_ps(_mm256_mul_ps(_mm256_set1_ps(keys_a[i]), u), _mm256_set1_ps(keys_b[i]));
        y = _mm256_add_ps(_mm256_mul_ps(y, u), _mm256_set1_ps(keys_c[i]));
        wy[i] = _mm256_add_ps(_mm256_mul_ps(y, u), _mm256_set1_ps(keys_d[i]));
    }
    size_t off[8];
    for (int q = 0; q < 8; q++) off[q] = (size_t)(iy[q] - 1) * (size_t)w + (size_t)(ix[q] - 1);
    for (int p = 0; p < count; p++) {
        const float *base = planes[p];
        __m256 col[4];
        for (int j = 0; j < 4; j++) {
            size_t r = (size_t)j * (size_t)w;
            // Lanes 0–3 of each: samples q, lanes 4–7: samples q + 4.
            __m256 a = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(base + off[0] + r)), _mm_loadu_ps(base + off[4] + r), 1);
            __m256 b = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(base + off[1] + r)), _mm_loadu_ps(base + off[5] + r), 1);
            __m256 c = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(base + off[2] + r)), _mm_loadu_ps(base + off[6] + r), 1);
            __m256 d = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(base + off[3] + r)), _mm_loadu_ps(base + off[7] + r), 1);
            __m256 ab0 = _mm256_unpacklo_ps(a, b), ab1 = _mm256_unpackhi_ps(a, b);
            __m256 cd0 = _mm256_unpacklo_ps(c, d), cd1 = _mm256_unpackhi_ps(c, d);
            // Tap i of the 8 samples, in the samples' order.
            __m256 tap[4] = {
                _mm256_castpd_ps(_mm256_unpacklo_pd(_mm256_castps_pd(ab0), _mm256_castps_pd(cd0))),
                _mm256_castpd_ps(_mm256_unpackhi_pd(_mm256_castps_pd(ab0), _mm256_castps_pd(cd0))),
                _mm256_castpd_ps(_mm256_unpacklo_pd(_mm256_castps_pd(ab1), _mm256_castps_pd(cd1))),
                _mm256_castpd_ps(_mm256_unpackhi_pd(_mm256_castps_pd(ab1), _mm256_castps_pd(cd1))),
            };
            for (int i = 0; i < 4; i++) {
                __m256 v = _mm256_mul_ps(wy[j], tap[i]);
                col[i] = j == 0 ? v : _mm256_add_ps(col[i], v);
            }
        }
        __m256 v = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(col[0], wx[0]), _mm256_mul_ps(col[1], wx[1])),
                                 _mm256_add_ps(_mm256_mul_ps(col[2], wx[2]), _mm256_mul_ps(col[3], wx[3])));
        _mm256_storeu_ps(out[p] + k, v);
    }
}

// The samples k…k+7 whose integer positions and fractions are given: 8 at once when all are inside.
static inline void sample8(int avx2, const float *const *planes, int count, int w, int h, const int *ix, const int *iy,
                           const float *tx, const float *ty, float *const *out, int k) {
    int inside = avx2;
    for (int q = 0; q < 8 && inside; q++) inside = ix[q] >= 1 && iy[q] >= 1 && ix[q] + 2 < w && iy[q] + 2 < h;
    if (inside) { sample8_avx2(planes, count, w, ix, iy, tx, ty, out, k); return; }
    for (int q = 0; q < 8; q++) sample(planes, count, w, h, ix[q], iy[q], tx[q], ty[q], out, k + q);
}

void lw_bicubic_row(const float *const *planes, int count, int width, int height,
                    const float *xs, const float *ys, int n, float *const *out) {
    const float maxx = (float)(width - 1), maxy = (float)(height - 1);
    int avx2 = lw_cpu_avx2();
    int ix[8], iy[8];
    float tx[8], ty[8];
    for (int k = 0; k < n; k += 8) {
        int m = n - k < 8 ? n - k : 8;
        for (int q = 0; q < m; q++) {
            float x = xs[k + q], y = ys[k + q];
            // NaN fails both tests and lands on 0: a position that could not be computed never reads outside.
            if (!(x >= 0.0f)) x = 0.0f;
            if (x > maxx) x = maxx;
            if (!(y >= 0.0f)) y = 0.0f;
            if (y > maxy) y = maxy;
            ix[q] = (int)x; iy[q] = (int)y;
            tx[q] = x - (float)ix[q]; ty[q] = y - (float)iy[q];
        }
        if (m == 8) sample8(avx2, planes, count, width, height, ix, iy, tx, ty, out, k);
        else for (int q = 0; q < m; q++) sample(planes, count, width, height, ix[q], iy[q], tx[q], ty[q], out, k + q);
    }
}

void lw_bicubic_line(const float *const *planes, int count, int width, int height,
                     double x0, double y0, double dx, double dy, int n, float *const *out) {
    lw_bicubic_span(planes, count, width, height, x0, y0, dx, dy, 0, n, out);
}

void lw_bicubic_span(const float *const *planes, int count, int width, int height,
                     double x0, double y0, double dx, double dy, int first, int n, float *const *out) {
    const double maxx = (double)(width - 1), maxy = (double)(height - 1);
    int avx2 = lw_cpu_avx2();
    int ix[8], iy[8];
    float tx[8], ty[8];
    for (int k = first; k < first + n; k += 8) {
        int m = first + n - k < 8 ? first + n - k : 8;
        for (int q = 0; q < m; q++) {
            double x = x0 + (double)(k + q) * dx, y = y0 + (double)(k + q) * dy;
            if (!(x >= 0.0)) x = 0.0;
            if (x > maxx) x = maxx;
            if (!(y >= 0.0)) y = 0.0;
            if (y > maxy) y = maxy;
            // The fraction taken in double: a float position near 6000 keeps only 1/2000 px of it.
            ix[q] = (int)x; iy[q] = (int)y;
            tx[q] = (float)(x - (double)ix[q]); ty[q] = (float)(y - (double)iy[q]);
        }
        if (m == 8) sample8(avx2, planes, count, width, height, ix, iy, tx, ty, out, k);
        else for (int q = 0; q < m; q++) sample(planes, count, width, height, ix[q], iy[q], tx[q], ty[q], out, k + q);
    }
}
