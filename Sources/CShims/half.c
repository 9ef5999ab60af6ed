// Half-float conversion kernels: the one place where Swift without F16C is ~40x slower than C with it.
#include "lw_half.h"
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

static int has_f16c = -1;
int lw_half_uses_f16c(void) {
    if (has_f16c < 0) {
        __builtin_cpu_init();
        has_f16c = __builtin_cpu_supports("f16c") && __builtin_cpu_supports("avx");
    }
    return has_f16c;
}

void lw_half_to_float(const uint16_t *src, float *dst, size_t n) {
    if (lw_half_uses_f16c()) { half_to_float_f16c(src, dst, n); return; }
    for (size_t i = 0; i < n; i++) dst[i] = half_to_float_sw(src[i]);
}

void lw_float_to_half(const float *src, uint16_t *dst, size_t n) {
    if (lw_half_uses_f16c()) { float_to_half_f16c(src, dst, n); return; }
    for (size_t i = 0; i < n; i++) dst[i] = float_to_half_sw(src[i]);
}

// Chunked through a stack buffer so both directions reuse the vector kernels above.
enum { CHUNK = 256 };

void lw_rgba_half_to_planar(const uint16_t *src, float *r, float *g, float *b, float *a, size_t count) {
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
