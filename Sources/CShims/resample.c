// Bicubic resampling (contract in lw_resample.h). One path: clang's vector types keep the 4 taps of a row in one
// register on any target, which is what makes it fast; an AVX2 build of the same code measured no faster.
#include "lw_resample.h"
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

void lw_bicubic_row(const float *const *planes, int count, int width, int height,
                    const float *xs, const float *ys, int n, float *const *out) {
    const float maxx = (float)(width - 1), maxy = (float)(height - 1);
    for (int k = 0; k < n; k++) {
        float x = xs[k], y = ys[k];
        // NaN fails both tests and lands on 0: a position that could not be computed never reads outside.
        if (!(x >= 0.0f)) x = 0.0f;
        if (x > maxx) x = maxx;
        if (!(y >= 0.0f)) y = 0.0f;
        if (y > maxy) y = maxy;
        int ix = (int)x, iy = (int)y;
        sample(planes, count, width, height, ix, iy, x - (float)ix, y - (float)iy, out, k);
    }
}

void lw_bicubic_line(const float *const *planes, int count, int width, int height,
                     double x0, double y0, double dx, double dy, int n, float *const *out) {
    const double maxx = (double)(width - 1), maxy = (double)(height - 1);
    for (int k = 0; k < n; k++) {
        double x = x0 + (double)k * dx, y = y0 + (double)k * dy;
        if (!(x >= 0.0)) x = 0.0;
        if (x > maxx) x = maxx;
        if (!(y >= 0.0)) y = 0.0;
        if (y > maxy) y = maxy;
        // The fraction taken in double: a float position near 6000 keeps only 1/2000 px of it.
        int ix = (int)x, iy = (int)y;
        sample(planes, count, width, height, ix, iy, (float)(x - (double)ix), (float)(y - (double)iy), out, k);
    }
}
