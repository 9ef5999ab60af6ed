// Lens correction's grid interpolation and colour mixing (contract in lw_lens.h); plain loops the compiler
// vectorises, separate multiplies and adds.
#include "lw_lens.h"
#include <stddef.h>

#pragma clang fp contract(off)

void lw_grid_row(const float *grid, int across, int fields, int spacing, int y, int width, float *const *out) {
    lw_grid_span(grid, across, fields, spacing, y, 0, width, out);
}

void lw_grid_span(const float *grid, int across, int fields, int spacing, int y, int from, int to, float *const *out) {
    int j = y / spacing;
    float fy = (float)(y - j * spacing) / (float)spacing;
    const float *top = grid + (size_t)j * (size_t)across * (size_t)fields, *bottom = top + (size_t)across * (size_t)fields;
    float inv = 1.0f / (float)spacing;
    for (int f = 0; f < fields; f++) {
        float *o = out[f];
        for (int i = from / spacing; i * spacing < to; i++) {
            float a = top[(size_t)i * fields + f], b = bottom[(size_t)i * fields + f];
            float c = top[(size_t)(i + 1) * fields + f], d = bottom[(size_t)(i + 1) * fields + f];
            float left = a + (b - a) * fy, right = c + (d - c) * fy, slope = right - left;
            int x0 = i * spacing, x1 = x0 + spacing < to ? x0 + spacing : to;
            for (int x = x0 > from ? x0 : from; x < x1; x++) o[x - from] = left + slope * ((float)(x - x0) * inv);
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
