// Lens correction's grid interpolation and colour mixing (contract in lw_lens.h); plain loops the compiler
// vectorises, separate multiplies and adds.
#include "lw_lens.h"
#include <stddef.h>

#pragma clang fp contract(off)

void lw_grid_line(const float *grid, int across, int down, int fields, int spacing,
                  double u0, double v0, double du, double dv, int n, float *const *out) {
    const double maxu = (double)((across - 1) * spacing) - 1e-3, maxv = (double)((down - 1) * spacing) - 1e-3;
    const float inv = 1.0f / (float)spacing;
    for (int k = 0; k < n; k++) {
        double u = u0 + (double)k * du, v = v0 + (double)k * dv;
        // NaN fails the first test and lands on 0, like the resampler's positions.
        if (!(u >= 0.0)) u = 0.0;
        if (u > maxu) u = maxu;
        if (!(v >= 0.0)) v = 0.0;
        if (v > maxv) v = maxv;
        int i = (int)u / spacing, j = (int)v / spacing;
        // The fractions from the whole pixel and its sub-pixel part: a whole-pixel position gives lw_grid_row's bits.
        int iu = (int)u, iv = (int)v;
        float fx = ((float)(iu - i * spacing) + (float)(u - (double)iu)) * inv;
        float fy = ((float)(iv - j * spacing) + (float)(v - (double)iv)) * inv;
        const float *top = grid + ((size_t)j * (size_t)across + (size_t)i) * (size_t)fields, *bottom = top + (size_t)across * (size_t)fields;
        for (int f = 0; f < fields; f++) {
            float a = top[f], b = bottom[f], c = top[fields + f], d = bottom[fields + f];
            float left = a + (b - a) * fy, right = c + (d - c) * fy;
            out[f][k] = left + (right - left) * fx;
        }
    }
}

void lw_mix_row(float *r, float *g, float *b, int n, const float *m, const float *gain) {
    if (m) {
        const float m0 = m[0], m1 = m[1], m2 = m[2], m3 = m[3], m4 = m[4], m5 = m[5], m6 = m[6], m7 = m[7], m8 = m[8];
        for (int k = 0; k < n; k++) {
            float u = r[k], v = g[k], t = b[k];
            r[k] = (m0 * u + m1 * v) + m2 * t;
            g[k] = (m3 * u + m4 * v) + m5 * t;
            b[k] = (m6 * u + m7 * v) + m8 * t;
        }
    }
    if (gain) {
        for (int k = 0; k < n; k++) { r[k] *= gain[k]; g[k] *= gain[k]; b[k] *= gain[k]; }
    }
}
