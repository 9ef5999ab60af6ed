// AVX2 inner loops with a portable fallback that performs the same operations in the same order.
#include "lw_simd.h"
#include <string.h>
#include <immintrin.h>

// Separate multiply and add everywhere: a fused multiply-add on one path only would change results.
#pragma clang fp contract(off)

static int has_avx2 = -1;
int lw_simd_uses_avx2(void) {
    if (has_avx2 < 0) {
        __builtin_cpu_init();
        has_avx2 = __builtin_cpu_supports("avx2");
    }
    return has_avx2;
}

static inline float curve_one(float x, const float *t, uint32_t shift, uint32_t base) {
    uint32_t bits; memcpy(&bits, &x, 4);
    uint32_t magnitude = bits & 0x7fffffffu;
    uint32_t index = ((magnitude >> shift) - base) & 0x7fffu;     // zero lands on a harmless entry, masked below
    float weight = (float)(int32_t)(magnitude & ((1u << shift) - 1)) * (1.0f / (float)(1u << shift));
    float t0 = t[index], t1 = t[index + 1];
    float y = t0 + (t1 - t0) * weight;
    uint32_t out; memcpy(&out, &y, 4);
    out = (magnitude == 0 ? 0 : out) | (bits & 0x80000000u);
    memcpy(&y, &out, 4);
    return y;
}

__attribute__((target("avx2")))
static void curve_avx2(float *v, size_t n, const float *t, uint32_t shift, uint32_t base) {
    const __m256i absMask = _mm256_set1_epi32(0x7fffffff), indexMask = _mm256_set1_epi32(0x7fff);
    const __m256i fracMask = _mm256_set1_epi32((int)((1u << shift) - 1)), vbase = _mm256_set1_epi32((int)base);
    const __m256 scale = _mm256_set1_ps(1.0f / (float)(1u << shift));
    const __m128i count = _mm_cvtsi32_si128((int)shift);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256i bits = _mm256_castps_si256(_mm256_loadu_ps(v + i));
        __m256i magnitude = _mm256_and_si256(bits, absMask);
        __m256i index = _mm256_and_si256(_mm256_sub_epi32(_mm256_srl_epi32(magnitude, count), vbase), indexMask);
        __m256 weight = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_and_si256(magnitude, fracMask)), scale);
        __m256 t0 = _mm256_i32gather_ps(t, index, 4), t1 = _mm256_i32gather_ps(t + 1, index, 4);
        __m256 y = _mm256_add_ps(t0, _mm256_mul_ps(_mm256_sub_ps(t1, t0), weight));
        __m256i zero = _mm256_cmpeq_epi32(magnitude, _mm256_setzero_si256());
        __m256i out = _mm256_or_si256(_mm256_andnot_si256(zero, _mm256_castps_si256(y)), _mm256_andnot_si256(absMask, bits));
        _mm256_storeu_ps(v + i, _mm256_castsi256_ps(out));
    }
    for (; i < n; i++) v[i] = curve_one(v[i], t, shift, base);
}

void lw_curve_interpolate(float *v, size_t n, const float *t, uint32_t shift, uint32_t base) {
    if (lw_simd_uses_avx2()) { curve_avx2(v, n, t, shift, base); return; }
    for (size_t i = 0; i < n; i++) v[i] = curve_one(v[i], t, shift, base);
}

// Lattice coordinate of one channel: clamped to 0…last (NaN to 0), the cell index (the last cell takes the
// top) and the fraction inside it. Truncation is the floor here since the coordinate is not negative.
__attribute__((target("avx2")))
static inline void lut_axis(__m256 v, __m256 minimum, __m256 scale, __m256 last, __m256 lastCell, __m256i *cell, __m256 *fraction) {
    __m256 x = _mm256_mul_ps(_mm256_sub_ps(v, minimum), scale);
    x = _mm256_max_ps(x, _mm256_setzero_ps());       // max returns the second operand for NaN
    x = _mm256_min_ps(x, last);
    __m256 c = _mm256_min_ps(_mm256_cvtepi32_ps(_mm256_cvttps_epi32(x)), lastCell);
    *cell = _mm256_cvttps_epi32(c);
    *fraction = _mm256_sub_ps(x, c);
}

// One pixel's blend: each corner's R, G, B read with one 8-byte and one 4-byte load (never past the
// table's end) instead of a gather lane per channel; per channel the same ((w0·c0 + w1·c1) + w2·c2) + w3·c3.
__attribute__((target("avx2")))
static inline __m128 lut_corner(const float *p) {
    return _mm_movelh_ps(_mm_castpd_ps(_mm_load_sd((const double *)p)), _mm_load_ss(p + 2));
}

__attribute__((target("avx2")))
static void lut3d_block(const float *t, int size, const float *mn, const float *sc, float *r, float *g, float *b) {
    const __m256 last = _mm256_set1_ps((float)(size - 1)), lastCell = _mm256_set1_ps((float)(size - 2));
    const int dy = 3 * size, dz = 3 * size * size, far = 3 + dy + dz;
    __m256i xi, yi, zi;
    __m256 fx, fy, fz;
    lut_axis(_mm256_loadu_ps(r), _mm256_set1_ps(mn[0]), _mm256_set1_ps(sc[0]), last, lastCell, &xi, &fx);
    lut_axis(_mm256_loadu_ps(g), _mm256_set1_ps(mn[1]), _mm256_set1_ps(sc[1]), last, lastCell, &yi, &fy);
    lut_axis(_mm256_loadu_ps(b), _mm256_set1_ps(mn[2]), _mm256_set1_ps(sc[2]), last, lastCell, &zi, &fz);
    __m256i cell = _mm256_add_epi32(_mm256_add_epi32(_mm256_mullo_epi32(xi, _mm256_set1_epi32(3)),
                                                     _mm256_mullo_epi32(yi, _mm256_set1_epi32(dy))),
                                    _mm256_mullo_epi32(zi, _mm256_set1_epi32(dz)));
    // The axis with the largest fraction (ties: x before y before z) and a different one with the smallest.
    __m256 xMax = _mm256_and_ps(_mm256_cmp_ps(fx, fy, _CMP_GE_OQ), _mm256_cmp_ps(fx, fz, _CMP_GE_OQ));
    __m256 yMax = _mm256_andnot_ps(xMax, _mm256_cmp_ps(fy, fz, _CMP_GE_OQ));
    __m256 zMin = _mm256_and_ps(_mm256_cmp_ps(fz, fx, _CMP_LE_OQ), _mm256_cmp_ps(fz, fy, _CMP_LE_OQ));
    __m256 yMin = _mm256_andnot_ps(zMin, _mm256_cmp_ps(fy, fx, _CMP_LE_OQ));
    const __m256i sx = _mm256_set1_epi32(3), sy = _mm256_set1_epi32(dy), sz = _mm256_set1_epi32(dz);
    __m256i o1 = _mm256_castps_si256(_mm256_blendv_ps(_mm256_blendv_ps(_mm256_castsi256_ps(sz), _mm256_castsi256_ps(sy), yMax),
                                                      _mm256_castsi256_ps(sx), xMax));
    __m256i o2 = _mm256_sub_epi32(_mm256_set1_epi32(far),
                                  _mm256_castps_si256(_mm256_blendv_ps(_mm256_blendv_ps(_mm256_castsi256_ps(sx), _mm256_castsi256_ps(sy), yMin),
                                                                       _mm256_castsi256_ps(sz), zMin)));
    __m256 mxy = _mm256_blendv_ps(fy, fx, _mm256_cmp_ps(fx, fy, _CMP_GT_OQ));
    __m256 nxy = _mm256_blendv_ps(fy, fx, _mm256_cmp_ps(fx, fy, _CMP_LT_OQ));
    __m256 fMax = _mm256_blendv_ps(fz, mxy, _mm256_cmp_ps(mxy, fz, _CMP_GT_OQ));
    __m256 fMin = _mm256_blendv_ps(fz, nxy, _mm256_cmp_ps(nxy, fz, _CMP_LT_OQ));
    __m256 fMid = _mm256_sub_ps(_mm256_sub_ps(_mm256_add_ps(_mm256_add_ps(fx, fy), fz), fMax), fMin);
    int c0[8], c1[8], c2[8];
    float w0[8], w1[8], w2[8], w3[8];
    _mm256_storeu_si256((__m256i *)c0, cell);
    _mm256_storeu_si256((__m256i *)c1, _mm256_add_epi32(cell, o1));
    _mm256_storeu_si256((__m256i *)c2, _mm256_add_epi32(cell, o2));
    _mm256_storeu_ps(w0, _mm256_sub_ps(_mm256_set1_ps(1.0f), fMax));
    _mm256_storeu_ps(w1, _mm256_sub_ps(fMax, fMid));
    _mm256_storeu_ps(w2, _mm256_sub_ps(fMid, fMin));
    _mm256_storeu_ps(w3, fMin);
    __m128 out[8];
    for (int k = 0; k < 8; k++) {
        __m128 s = _mm_add_ps(_mm_mul_ps(_mm_set1_ps(w0[k]), lut_corner(t + c0[k])), _mm_mul_ps(_mm_set1_ps(w1[k]), lut_corner(t + c1[k])));
        s = _mm_add_ps(s, _mm_mul_ps(_mm_set1_ps(w2[k]), lut_corner(t + c2[k])));
        out[k] = _mm_add_ps(s, _mm_mul_ps(_mm_set1_ps(w3[k]), lut_corner(t + c0[k] + far)));
    }
    for (int h = 0; h < 8; h += 4) {
        __m128 p0 = out[h], p1 = out[h + 1], p2 = out[h + 2], p3 = out[h + 3];
        _MM_TRANSPOSE4_PS(p0, p1, p2, p3);
        _mm_storeu_ps(r + h, p0);
        _mm_storeu_ps(g + h, p1);
        _mm_storeu_ps(b + h, p2);
    }
}

void lw_lut3d_tetrahedral_avx2(const float *t, int size, const float mn[3], const float sc[3],
                               float *r, float *g, float *b, size_t count) {
    size_t i = 0;
    for (; i + 8 <= count; i += 8) lut3d_block(t, size, mn, sc, r + i, g + i, b + i);
    if (i < count) {
        // The last few pixels through the same block, padded with copies of the first.
        float pr[8], pg[8], pb[8];
        for (size_t k = 0; k < 8; k++) {
            size_t j = i + k < count ? i + k : i;
            pr[k] = r[j]; pg[k] = g[j]; pb[k] = b[j];
        }
        lut3d_block(t, size, mn, sc, pr, pg, pb);
        for (size_t k = 0; i + k < count; k++) { r[i + k] = pr[k]; g[i + k] = pg[k]; b[i + k] = pb[k]; }
    }
}
