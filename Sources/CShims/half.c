// Half-float conversion kernels: the one place where Swift without F16C is ~40x slower than C with it.
#include "lw_half.h"
#include "lw_cpu.h"
#include <string.h>
#include <immintrin.h>

static uint32_t as_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float as_float(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

static float half_to_float_sw(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
    if (exp == 0) {            // zero or subnormal: man * 2^-24
        float f = (float)man * (1.0f / 16777216.0f);
        return sign ? -f : f;
    }
    if (exp == 31) return as_float(sign | 0x7f800000u | (man << 13));
    return as_float(sign | ((exp + 112) << 23) | (man << 13));
}

static uint16_t float_to_half_sw(float f) {
    uint32_t x = as_bits(f), sign = (x >> 16) & 0x8000;
    uint32_t ax = x & 0x7fffffffu;
    if (ax >= 0x7f800000u) return (uint16_t)(sign | 0x7c00 | (ax > 0x7f800000u ? 0x200 : 0));
    if (ax >= 0x477ff000u) return (uint16_t)(sign | 0x7c00);           // overflow to infinity
    if (ax < 0x38800000u) {                                            // subnormal or zero
        float v = as_float(ax) * 16777216.0f;                          // scale to units of 2^-24
        uint32_t m = (uint32_t)v; float rem = v - (float)m;
        if (rem > 0.5f || (rem == 0.5f && (m & 1))) m++;
        return (uint16_t)(sign | m);
    }
    uint32_t e = ((ax >> 23) - 112) << 10, m = (ax >> 13) & 0x3ff, rest = ax & 0x1fff;
    uint32_t h = e | m;
    if (rest > 0x1000 || (rest == 0x1000 && (h & 1))) h++;
    return (uint16_t)(sign | h);
}

__attribute__((target("f16c,avx")))
static void half_to_float_f16c(const uint16_t *src, float *dst, size_t n) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m128i h = _mm_loadu_si128((const __m128i *)(src + i));
        _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(h));
    }
    for (; i < n; i++) dst[i] = half_to_float_sw(src[i]);
}

__attribute__((target("f16c,avx")))
static void float_to_half_f16c(const float *src, uint16_t *dst, size_t n) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT);
        _mm_storeu_si128((__m128i *)(dst + i), h);
    }
    for (; i < n; i++) dst[i] = float_to_half_sw(src[i]);
}

void lw_half_to_float(const uint16_t *src, float *dst, size_t n) {
    if (lw_cpu_f16c()) { half_to_float_f16c(src, dst, n); return; }
    for (size_t i = 0; i < n; i++) dst[i] = half_to_float_sw(src[i]);
}

void lw_float_to_half(const float *src, uint16_t *dst, size_t n) {
    if (lw_cpu_f16c()) { float_to_half_f16c(src, dst, n); return; }
    for (size_t i = 0; i < n; i++) dst[i] = float_to_half_sw(src[i]);
}

// The eight-pixel paths convert with F16C and move with AVX2: both are needed.
static int uses_avx2(void) { return lw_cpu_f16c() && lw_cpu_avx2(); }

// Eight pixels at a time: four registers of two RGBA pixels each, transposed within the 128-bit lanes, then
// the lanes' halves put in pixel order. Pure data movement around exact conversions: same values as the
// chunked path below. With a `table`, R, G and B are looked up by their bits instead (one 8-byte load a
// pixel, three lookups) and only alpha is converted.
__attribute__((target("f16c,avx2")))
static void rgba_to_planar_avx2(const uint16_t *src, const float *table, float *r, float *g, float *b, float *a, size_t count) {
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        const __m128i *p = (const __m128i *)(src + 4 * i);
        __m256 p01 = _mm256_cvtph_ps(_mm_loadu_si128(p)), p23 = _mm256_cvtph_ps(_mm_loadu_si128(p + 1));
        __m256 p45 = _mm256_cvtph_ps(_mm_loadu_si128(p + 2)), p67 = _mm256_cvtph_ps(_mm_loadu_si128(p + 3));
        __m256 t0 = _mm256_unpacklo_ps(p01, p23), t1 = _mm256_unpackhi_ps(p01, p23);
        __m256 t2 = _mm256_unpacklo_ps(p45, p67), t3 = _mm256_unpackhi_ps(p45, p67);
        _mm256_storeu_ps(a + i, _mm256_permutevar8x32_ps(_mm256_shuffle_ps(t1, t3, 0xEE), order));
        if (table) {
            for (size_t k = 0; k < 8; k++) {
                uint64_t px;
                memcpy(&px, src + 4 * (i + k), 8);
                r[i + k] = table[px & 0xffff];
                g[i + k] = table[(px >> 16) & 0xffff];
                b[i + k] = table[(px >> 32) & 0xffff];
            }
            continue;
        }
        _mm256_storeu_ps(r + i, _mm256_permutevar8x32_ps(_mm256_shuffle_ps(t0, t2, 0x44), order));
        _mm256_storeu_ps(g + i, _mm256_permutevar8x32_ps(_mm256_shuffle_ps(t0, t2, 0xEE), order));
        _mm256_storeu_ps(b + i, _mm256_permutevar8x32_ps(_mm256_shuffle_ps(t1, t3, 0x44), order));
    }
    if (table) {
        for (; i < count; i++) {
            const uint16_t *q = src + 4 * i;
            r[i] = table[q[0]]; g[i] = table[q[1]]; b[i] = table[q[2]]; a[i] = half_to_float_sw(q[3]);
        }
        return;
    }
    for (; i < count; i++) {
        float px[4];
        for (int c = 0; c < 4; c++) px[c] = half_to_float_sw(src[4 * i + c]);
        r[i] = px[0]; g[i] = px[1]; b[i] = px[2]; a[i] = px[3];
    }
}

__attribute__((target("f16c,avx2")))
static void planar_to_rgba_avx2(const float *r, const float *g, const float *b, const float *a, uint16_t *dst, size_t count) {
    size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        __m256 vr = _mm256_loadu_ps(r + i), vg = _mm256_loadu_ps(g + i), vb = _mm256_loadu_ps(b + i), va = _mm256_loadu_ps(a + i);
        __m256 rg0 = _mm256_unpacklo_ps(vr, vg), rg1 = _mm256_unpackhi_ps(vr, vg);   // r0 g0 r1 g1 | r4 g4 r5 g5 ; r2 g2 r3 g3 | r6 g6 r7 g7
        __m256 ba0 = _mm256_unpacklo_ps(vb, va), ba1 = _mm256_unpackhi_ps(vb, va);
        __m256 q0 = _mm256_shuffle_ps(rg0, ba0, 0x44), q1 = _mm256_shuffle_ps(rg0, ba0, 0xEE);  // p0 | p4 ; p1 | p5
        __m256 q2 = _mm256_shuffle_ps(rg1, ba1, 0x44), q3 = _mm256_shuffle_ps(rg1, ba1, 0xEE);  // p2 | p6 ; p3 | p7
        __m256 p01 = _mm256_permute2f128_ps(q0, q1, 0x20), p23 = _mm256_permute2f128_ps(q2, q3, 0x20);
        __m256 p45 = _mm256_permute2f128_ps(q0, q1, 0x31), p67 = _mm256_permute2f128_ps(q2, q3, 0x31);
        __m128i *d = (__m128i *)(dst + 4 * i);
        _mm_storeu_si128(d, _mm256_cvtps_ph(p01, _MM_FROUND_TO_NEAREST_INT));
        _mm_storeu_si128(d + 1, _mm256_cvtps_ph(p23, _MM_FROUND_TO_NEAREST_INT));
        _mm_storeu_si128(d + 2, _mm256_cvtps_ph(p45, _MM_FROUND_TO_NEAREST_INT));
        _mm_storeu_si128(d + 3, _mm256_cvtps_ph(p67, _MM_FROUND_TO_NEAREST_INT));
    }
    if (i < count) {
        // The last pixels through the same conversion (F16C and the software path differ in NaN payloads).
        float tmp[32];
        for (size_t k = 0; k < 8; k++) {
            size_t j = i + k < count ? i + k : i;
            tmp[4 * k] = r[j]; tmp[4 * k + 1] = g[j]; tmp[4 * k + 2] = b[j]; tmp[4 * k + 3] = a[j];
        }
        uint16_t out[32];
        for (int k = 0; k < 4; k++)
            _mm_storeu_si128((__m128i *)(out + 8 * k), _mm256_cvtps_ph(_mm256_loadu_ps(tmp + 8 * k), _MM_FROUND_TO_NEAREST_INT));
        memcpy(dst + 4 * i, out, 8 * (count - i));
    }
}

// Chunked through a stack buffer so both directions reuse the vector kernels above.
enum { CHUNK = 256 };

void lw_rgba_half_to_planar(const uint16_t *src, float *r, float *g, float *b, float *a, size_t count) {
    if (uses_avx2()) { rgba_to_planar_avx2(src, NULL, r, g, b, a, count); return; }
    float tmp[CHUNK * 4];
    for (size_t base = 0; base < count; base += CHUNK) {
        size_t n = count - base < CHUNK ? count - base : CHUNK;
        lw_half_to_float(src + base * 4, tmp, n * 4);
        for (size_t i = 0; i < n; i++) {
            r[base + i] = tmp[4 * i]; g[base + i] = tmp[4 * i + 1];
            b[base + i] = tmp[4 * i + 2]; a[base + i] = tmp[4 * i + 3];
        }
    }
}

void lw_planar_to_rgba_half(const float *r, const float *g, const float *b, const float *a, uint16_t *dst, size_t count) {
    if (uses_avx2()) { planar_to_rgba_avx2(r, g, b, a, dst, count); return; }
    float tmp[CHUNK * 4];
    for (size_t base = 0; base < count; base += CHUNK) {
        size_t n = count - base < CHUNK ? count - base : CHUNK;
        for (size_t i = 0; i < n; i++) {
            tmp[4 * i] = r[base + i]; tmp[4 * i + 1] = g[base + i];
            tmp[4 * i + 2] = b[base + i]; tmp[4 * i + 3] = a[base + i];
        }
        lw_float_to_half(tmp, dst + base * 4, n * 4);
    }
}

// Cell sums along one row. Both paths add in the same order: a cell's even and odd pixels apart (the two
// halves of an AVX register), then the two sums, then an odd last pixel, so they give the same bits.
__attribute__((target("f16c,avx")))
static void cell_sums_f16c(const uint16_t *row, size_t width, size_t factor, float *sums) {
    for (size_t x0 = 0; x0 < width; x0 += factor, sums += 4) {
        size_t n = width - x0 < factor ? width - x0 : factor, k = 0;
        const uint16_t *p = row + 4 * x0;
        __m256 acc = _mm256_setzero_ps();
        for (; k + 2 <= n; k += 2) acc = _mm256_add_ps(acc, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(p + 4 * k))));
        __m128 s = _mm_add_ps(_mm256_castps256_ps128(acc), _mm256_extractf128_ps(acc, 1));
        if (k < n) s = _mm_add_ps(s, _mm_cvtph_ps(_mm_loadl_epi64((const __m128i *)(p + 4 * k))));
        _mm_storeu_ps(sums, _mm_add_ps(_mm_loadu_ps(sums), s));
    }
}

static void cell_sums_sw(const uint16_t *row, size_t width, size_t factor, float *sums) {
    for (size_t x0 = 0; x0 < width; x0 += factor, sums += 4) {
        size_t n = width - x0 < factor ? width - x0 : factor, k = 0;
        const uint16_t *p = row + 4 * x0;
        float even[4] = {0, 0, 0, 0}, odd[4] = {0, 0, 0, 0};
        for (; k + 2 <= n; k += 2)
            for (int c = 0; c < 4; c++) {
                even[c] += half_to_float_sw(p[4 * k + c]);
                odd[c] += half_to_float_sw(p[4 * k + 4 + c]);
            }
        for (int c = 0; c < 4; c++) {
            float s = even[c] + odd[c];
            if (k < n) s += half_to_float_sw(p[4 * k + c]);
            sums[c] += s;
        }
    }
}

void lw_rgba_half_add_cell_sums(const uint16_t *row, size_t width, size_t factor, float *sums) {
    if (lw_cpu_f16c()) cell_sums_f16c(row, width, factor, sums);
    else cell_sums_sw(row, width, factor, sums);
}

void lw_rgba_half_to_planar_mapped(const uint16_t *src, const float *table, float *r, float *g, float *b, float *a, size_t count) {
    if (uses_avx2()) { rgba_to_planar_avx2(src, table, r, g, b, a, count); return; }
    for (size_t i = 0; i < count; i++) {
        const uint16_t *q = src + 4 * i;
        r[i] = table[q[0]]; g[i] = table[q[1]]; b[i] = table[q[2]]; a[i] = half_to_float_sw(q[3]);
    }
}
