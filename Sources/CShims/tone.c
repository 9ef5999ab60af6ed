// The base tone's per-pixel loop (contract in lw_tone.h).
#include "lw_tone.h"
#include "lw_cpu.h"
#include <immintrin.h>
#include <math.h>

#pragma clang fp contract(off)

// f(n) / n for one pixel's norm, or −1 when the pixel goes black, or NaN when it stays.
static float tone_gain(const lw_tone_curve *c, float n) {
    if (!(n > 0.0f)) return n <= 0.0f ? -1.0f : NAN;
    float f;
    if (n >= c->limit) {
        double x = (double)n;
        f = (float)pow(1.0 / (1.0 + pow(c->s / x, c->c)), c->gamma);
    } else {
        float u = sqrtf(n * (1.0f / c->limit)) * (float)(c->entries - 1);
        int i = (int)u;
        float t = u - (float)i;
        f = c->table[i] + (c->table[i + 1] - c->table[i]) * t;
    }
    return f / n;
}

static inline void tone_one(const lw_tone_curve *c, float *r, float *g, float *b, size_t x) {
    float gm = b[x] >= g[x] ? b[x] : g[x];
    float n = gm >= r[x] ? gm : r[x];
    float k = tone_gain(c, n);
    if (k == -1.0f) { r[x] = 0.0f; g[x] = 0.0f; b[x] = 0.0f; }
    else if (k == k) { r[x] *= k; g[x] *= k; b[x] *= k; }
}

static void tone_base(const lw_tone_curve *c, float *r, float *g, float *b, size_t count) {
    for (size_t x = 0; x < count; x++) tone_one(c, r, g, b, x);
}

__attribute__((target("avx2")))
static void tone_avx2(const lw_tone_curve *c, float *r, float *g, float *b, size_t count) {
    const __m256 zero = _mm256_setzero_ps(), limit = _mm256_set1_ps(c->limit), inv = _mm256_set1_ps(1.0f / c->limit);
    const __m256 last = _mm256_set1_ps((float)(c->entries - 1));
    size_t x = 0;
    for (; x + 8 <= count; x += 8) {
        __m256 vr = _mm256_loadu_ps(r + x), vg = _mm256_loadu_ps(g + x), vb = _mm256_loadu_ps(b + x);
        __m256 gm = _mm256_blendv_ps(vg, vb, _mm256_cmp_ps(vb, vg, _CMP_GE_OQ));
        __m256 n = _mm256_blendv_ps(vr, gm, _mm256_cmp_ps(gm, vr, _CMP_GE_OQ));
        __m256 big = _mm256_cmp_ps(n, limit, _CMP_GE_OQ);
        __m256 lit = _mm256_andnot_ps(big, _mm256_cmp_ps(n, zero, _CMP_GT_OQ));
        __m256 dark = _mm256_cmp_ps(n, zero, _CMP_LE_OQ);
        // Lanes outside the table read entry 0 (their gain is not used).
        __m256 ns = _mm256_and_ps(n, lit);
        __m256 u = _mm256_mul_ps(_mm256_sqrt_ps(_mm256_mul_ps(ns, inv)), last);
        __m256i i = _mm256_cvttps_epi32(u);
        __m256 t = _mm256_sub_ps(u, _mm256_cvtepi32_ps(i));
        __m256 t0 = _mm256_i32gather_ps(c->table, i, 4), t1 = _mm256_i32gather_ps(c->table + 1, i, 4);
        __m256 f = _mm256_add_ps(t0, _mm256_mul_ps(_mm256_sub_ps(t1, t0), t));
        __m256 k = _mm256_div_ps(f, _mm256_blendv_ps(_mm256_set1_ps(1.0f), n, lit));
        // Lit lanes scaled, dark lanes +0 (as the baseline stores), the rest (NaN, at or above the limit) untouched here.
        _mm256_storeu_ps(r + x, _mm256_andnot_ps(dark, _mm256_blendv_ps(vr, _mm256_mul_ps(vr, k), lit)));
        _mm256_storeu_ps(g + x, _mm256_andnot_ps(dark, _mm256_blendv_ps(vg, _mm256_mul_ps(vg, k), lit)));
        _mm256_storeu_ps(b + x, _mm256_andnot_ps(dark, _mm256_blendv_ps(vb, _mm256_mul_ps(vb, k), lit)));
        int m = _mm256_movemask_ps(big);
        while (m) {
            int lane = __builtin_ctz(m);
            m &= m - 1;
            tone_one(c, r, g, b, x + (size_t)lane);
        }
    }
    for (; x < count; x++) tone_one(c, r, g, b, x);
}

void lw_tone_apply(const lw_tone_curve *curve, float *r, float *g, float *b, size_t count) {
    if (lw_cpu_avx2()) tone_avx2(curve, r, g, b, count);
    else tone_base(curve, r, g, b, count);
}
