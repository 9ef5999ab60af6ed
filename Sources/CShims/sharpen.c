// Row kernels of the luminance unsharp mask (contract in lw_sharpen.h). Loops are branch-free over whole rows so
// that they vectorise; the same C is built for AVX2 and for baseline x86-64 without FMA.
#include "lw_sharpen.h"
#include "lw_cpu.h"
#include <string.h>

#pragma clang fp contract(off)

static inline __attribute__((always_inline)) float mn(float a, float b) { return b < a ? b : a; }
static inline __attribute__((always_inline)) float mx(float a, float b) { return b >= a ? b : a; }

static inline __attribute__((always_inline))
void luma_body(const float *r, const float *g, const float *b, int w, float kr, float kg, float kb, float *restrict l) {
    for (int x = 0; x < w; x++) l[x] = (kr * r[x] + kg * g[x]) + kb * b[x];
}

static inline __attribute__((always_inline))
void hblur_body(const float *src, int w, const float *taps, int radius, float *restrict padded, float *restrict out) {
    for (int i = 0; i < radius; i++) { padded[i] = src[0]; padded[radius + w + i] = src[w - 1]; }
    memcpy(padded + radius, src, (size_t)w * sizeof(float));
    float k0 = taps[0];
    for (int x = 0; x < w; x++) out[x] = k0 * padded[x];
    for (int t = 1; t <= 2 * radius; t++) {
        float k = taps[t];
        const float *p = padded + t;
        for (int x = 0; x < w; x++) out[x] += k * p[x];
    }
}

static inline __attribute__((always_inline))
void apply_body(const float *const *rows, const float *taps, int radius, const float *up, const float *mid, const float *down,
                int w, float amount, int halo, float *restrict scratch, float *restrict r, float *restrict g, float *restrict b) {
    float *restrict blurred = scratch, *restrict colMin = scratch + w, *restrict colMax = scratch + 2 * w;
    float k0 = taps[0];
    const float *first = rows[0];
    for (int x = 0; x < w; x++) blurred[x] = k0 * first[x];
    for (int t = 1; t <= 2 * radius; t++) {
        float k = taps[t];
        const float *p = rows[t];
        for (int x = 0; x < w; x++) blurred[x] += k * p[x];
    }
    if (!halo) {
        for (int x = 0; x < w; x++) {
            float l = mid[x], d = (l + amount * (l - blurred[x])) - l;
            r[x] += d; g[x] += d; b[x] += d;
        }
        return;
    }
    for (int x = 0; x < w; x++) {
        colMin[x] = mn(up[x], mn(mid[x], down[x]));
        colMax[x] = mx(up[x], mx(mid[x], down[x]));
    }
    // The inner columns read x − 1 and x + 1 directly (so the loop vectorises); the two edge columns replicate.
    for (int x = 1; x < w - 1; x++) {
        float l = mid[x], s = l + amount * (l - blurred[x]);
        float lo = mn(colMin[x - 1], mn(colMin[x], colMin[x + 1])), hi = mx(colMax[x - 1], mx(colMax[x], colMax[x + 1]));
        float d = mn(hi, mx(lo, s)) - l;
        r[x] += d; g[x] += d; b[x] += d;
    }
    int edges[2] = {0, w - 1};
    for (int e = 0; e < (w > 1 ? 2 : 1); e++) {
        int x = edges[e], xl = x > 0 ? x - 1 : 0, xr = x + 1 < w ? x + 1 : w - 1;
        float l = mid[x], s = l + amount * (l - blurred[x]);
        float lo = mn(colMin[xl], mn(colMin[x], colMin[xr])), hi = mx(colMax[xl], mx(colMax[x], colMax[xr]));
        float d = mn(hi, mx(lo, s)) - l;
        r[x] += d; g[x] += d; b[x] += d;
    }
}

__attribute__((target("avx2")))
static void luma_avx2(const float *r, const float *g, const float *b, int w, float kr, float kg, float kb, float *l) { luma_body(r, g, b, w, kr, kg, kb, l); }
static void luma_base(const float *r, const float *g, const float *b, int w, float kr, float kg, float kb, float *l) { luma_body(r, g, b, w, kr, kg, kb, l); }

void lw_usm_luma_row(const float *r, const float *g, const float *b, int width, float kr, float kg, float kb, float *l) {
    if (lw_cpu_avx2()) luma_avx2(r, g, b, width, kr, kg, kb, l);
    else luma_base(r, g, b, width, kr, kg, kb, l);
}

__attribute__((target("avx2")))
static void hblur_avx2(const float *src, int w, const float *taps, int radius, float *padded, float *out) { hblur_body(src, w, taps, radius, padded, out); }
static void hblur_base(const float *src, int w, const float *taps, int radius, float *padded, float *out) { hblur_body(src, w, taps, radius, padded, out); }

void lw_usm_hblur_row(const float *src, int width, const float *taps, int radius, float *padded, float *out) {
    if (lw_cpu_avx2()) hblur_avx2(src, width, taps, radius, padded, out);
    else hblur_base(src, width, taps, radius, padded, out);
}

__attribute__((target("avx2")))
static void apply_avx2(const float *const *rows, const float *taps, int radius, const float *up, const float *mid, const float *down,
                       int w, float amount, int halo, float *scratch, float *r, float *g, float *b) {
    apply_body(rows, taps, radius, up, mid, down, w, amount, halo, scratch, r, g, b);
}
static void apply_base(const float *const *rows, const float *taps, int radius, const float *up, const float *mid, const float *down,
                       int w, float amount, int halo, float *scratch, float *r, float *g, float *b) {
    apply_body(rows, taps, radius, up, mid, down, w, amount, halo, scratch, r, g, b);
}

void lw_usm_apply_row(const float *const *rows, const float *taps, int radius, const float *up, const float *mid,
                      const float *down, int width, float amount, int halo, float *scratch, float *r, float *g, float *b) {
    if (lw_cpu_avx2()) apply_avx2(rows, taps, radius, up, mid, down, width, amount, halo, scratch, r, g, b);
    else apply_base(rows, taps, radius, up, mid, down, width, amount, halo, scratch, r, g, b);
}
