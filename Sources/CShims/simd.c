// AVX2 inner loops with a portable fallback that performs the same operations in the same order.
#include "lw_simd.h"
#include "lw_cpu.h"
#include <string.h>
#include <immintrin.h>

// Separate multiply and add everywhere: a fused multiply-add on one path only would change results.
#pragma clang fp contract(off)

static inline float from_bits(uint32_t b) { float f; memcpy(&f, &b, 4); return f; }
static inline uint32_t to_bits(float f) { uint32_t b; memcpy(&b, &f, 4); return b; }

int lw_curve_in_range(const lw_curve *c, float x) {
    float a = from_bits(to_bits(x) & 0x7fffffffu);
    uint32_t e = to_bits(a * c->in_scale + c->in_offset) >> 23;       // biased exponent (NaN, ∞: 255)
    return a <= c->toe_end || (e >= 127 - 24 && e < 127 + 8);
}

float lw_curve_one(const lw_curve *c, float x) {
    uint32_t xb = to_bits(x);
    float a = from_bits(xb & 0x7fffffffu);
    uint32_t ub = to_bits(a * c->in_scale + c->in_offset);
    float t = from_bits((ub & 0x007fffffu) | 0x3f800000u) - 1.5f;
    const float *p = c->poly;
    float t2 = t * t, t4 = t2 * t2;
    float q = ((p[0] + p[1] * t) + (p[2] + p[3] * t) * t2) + ((p[4] + p[5] * t) + (p[6] + p[7] * t) * t2) * t4;
    float powered = q * c->scale[((ub >> 23) - (127 - 24)) & 31] * c->out_scale + c->out_offset;
    float magnitude = a <= c->toe_end ? a * c->toe_slope : powered;
    return from_bits(to_bits(magnitude) | (xb & 0x80000000u));
}

// The power's scale comes from a 32-entry table held in four registers (vpermps), not from memory gathers,
// which are slow on AMD cores; the mantissa's polynomial is in Estrin's form (short dependency chains).
typedef struct {
    __m256 inScale, inOffset, outScale, outOffset, toeEnd, toeSlope, p[8], s[4];
} curve_constants;

// m^p for the mantissa m of u (bits `ub`): the degree-7 polynomial in m − 1.5.
__attribute__((target("avx2"), always_inline))
static inline __m256 mantissa_power(const __m256 p[8], __m256i ub) {
    __m256 t = _mm256_sub_ps(_mm256_castsi256_ps(_mm256_or_si256(_mm256_and_si256(ub, _mm256_set1_epi32(0x007fffff)),
                                                                 _mm256_set1_epi32(0x3f800000))), _mm256_set1_ps(1.5f));
    __m256 t2 = _mm256_mul_ps(t, t), t4 = _mm256_mul_ps(t2, t2);
    __m256 q01 = _mm256_add_ps(p[0], _mm256_mul_ps(p[1], t)), q23 = _mm256_add_ps(p[2], _mm256_mul_ps(p[3], t));
    __m256 q45 = _mm256_add_ps(p[4], _mm256_mul_ps(p[5], t)), q67 = _mm256_add_ps(p[6], _mm256_mul_ps(p[7], t));
    return _mm256_add_ps(_mm256_add_ps(q01, _mm256_mul_ps(q23, t2)), _mm256_mul_ps(_mm256_add_ps(q45, _mm256_mul_ps(q67, t2)), t4));
}

// The curve's value from the power's parts, the toe where it applies, and the input's sign, stored in place.
__attribute__((target("avx2"), always_inline))
static inline void curve_store(float *v, __m256 x, __m256 a, __m256 q, __m256 scale, __m256 outScale, __m256 outOffset,
                               __m256 toeSlope, __m256 toe) {
    const __m256 absMask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    __m256 powered = _mm256_add_ps(_mm256_mul_ps(_mm256_mul_ps(q, scale), outScale), outOffset);
    __m256 magnitude = _mm256_blendv_ps(powered, _mm256_mul_ps(a, toeSlope), toe);
    _mm256_storeu_ps(v, _mm256_or_ps(magnitude, _mm256_andnot_ps(absMask, x)));
}

// One group of eight: 0 when a value is out of range (nothing written), else 1.
__attribute__((target("avx2"), always_inline))
static inline int curve8(const curve_constants *k, float *v) {
    const __m256 absMask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    __m256 x = _mm256_loadu_ps(v);
    __m256 a = _mm256_and_ps(x, absMask);
    __m256i ub = _mm256_castps_si256(_mm256_add_ps(_mm256_mul_ps(a, k->inScale), k->inOffset));
    __m256i index = _mm256_sub_epi32(_mm256_srli_epi32(ub, 23), _mm256_set1_epi32(127 - 24));
    __m256i inTable = _mm256_and_si256(_mm256_cmpgt_epi32(index, _mm256_set1_epi32(-1)), _mm256_cmpgt_epi32(_mm256_set1_epi32(32), index));
    __m256 toe = _mm256_cmp_ps(a, k->toeEnd, _CMP_LE_OQ);
    if (_mm256_movemask_ps(_mm256_or_ps(toe, _mm256_castsi256_ps(inTable))) != 0xff) return 0;
    __m256 q = mantissa_power(k->p, ub);
    // scale[index]: each register answers for its eight entries; bits 3 and 4 of the index pick one.
    __m256 bit3 = _mm256_castsi256_ps(_mm256_slli_epi32(index, 28)), bit4 = _mm256_castsi256_ps(_mm256_slli_epi32(index, 27));
    __m256 low = _mm256_blendv_ps(_mm256_permutevar8x32_ps(k->s[0], index), _mm256_permutevar8x32_ps(k->s[1], index), bit3);
    __m256 high = _mm256_blendv_ps(_mm256_permutevar8x32_ps(k->s[2], index), _mm256_permutevar8x32_ps(k->s[3], index), bit3);
    __m256 scale = _mm256_blendv_ps(low, high, bit4);
    curve_store(v, x, a, q, scale, k->outScale, k->outOffset, k->toeSlope, toe);
    return 1;
}

// From value i on, one value at a time, up to the first value out of range.
static size_t curve_portable(const lw_curve *c, float *v, size_t i, size_t n) {
    for (; i < n; i++) {
        if (!lw_curve_in_range(c, v[i])) return i;
        v[i] = lw_curve_one(c, v[i]);
    }
    return n;
}

// The common case in fewer operations (the vector unit's pipes are what the curve is bound by): above a toe,
// u cannot fall below the toe's own exponent, so sixteen table entries from there (two registers, one blend)
// cover u up to 2^7 or more, and an encoder's u = a skips the input's multiply and add (a·1 + 0 = a exactly).
// Same operations on every value it accepts, so the same bits; a group it refuses goes to `curve8`.
typedef struct {
    __m256 s[2];        // scale entries first … first + 15
    __m256i base;       // biased exponent of entry `first`
} curve_window;

__attribute__((target("avx2"), always_inline))
static inline int curve8_window(const curve_constants *k, const curve_window *w, float *v, int affine) {
    const __m256 absMask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    __m256 x = _mm256_loadu_ps(v);
    __m256 a = _mm256_and_ps(x, absMask);
    __m256i ub = _mm256_castps_si256(affine ? _mm256_add_ps(_mm256_mul_ps(a, k->inScale), k->inOffset) : a);
    __m256i index = _mm256_sub_epi32(_mm256_srli_epi32(ub, 23), w->base);
    __m256i inWindow = _mm256_cmpeq_epi32(_mm256_min_epu32(index, _mm256_set1_epi32(15)), index);
    __m256 toe = _mm256_cmp_ps(a, k->toeEnd, _CMP_LE_OQ);
    if (_mm256_movemask_ps(_mm256_or_ps(toe, _mm256_castsi256_ps(inWindow))) != 0xff) return 0;
    __m256 q = mantissa_power(k->p, ub);
    __m256 scale = _mm256_blendv_ps(_mm256_permutevar8x32_ps(w->s[0], index), _mm256_permutevar8x32_ps(w->s[1], index),
                                    _mm256_castsi256_ps(_mm256_slli_epi32(index, 28)));
    curve_store(v, x, a, q, scale, k->outScale, k->outOffset, k->toeSlope, toe);
    return 1;
}

// Groups through the window, the rest through the whole table; stops at a group neither takes.
__attribute__((target("avx2"), always_inline))
static inline size_t curve_window_loop(const curve_constants *k, const curve_window *w, float *v, size_t n, int affine) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        if (!curve8_window(k, w, v + i, affine) && !curve8(k, v + i)) return i;
    return i;
}

__attribute__((target("avx2")))
static size_t curve_avx2(const lw_curve *c, float *v, size_t n) {
    curve_constants k;
    k.inScale = _mm256_set1_ps(c->in_scale); k.inOffset = _mm256_set1_ps(c->in_offset);
    k.outScale = _mm256_set1_ps(c->out_scale); k.outOffset = _mm256_set1_ps(c->out_offset);
    k.toeEnd = _mm256_set1_ps(c->toe_end); k.toeSlope = _mm256_set1_ps(c->toe_slope);
    for (int j = 0; j < 8; j++) k.p[j] = _mm256_set1_ps(c->poly[j]);
    for (int j = 0; j < 4; j++) k.s[j] = _mm256_loadu_ps(c->scale + 8 * j);
    size_t i = 0;
    if (c->toe_end > 0) {
        // The window starts at the exponent of u at the toe's end, and no later than 16 entries before the table ends.
        int first = (int)(to_bits(c->toe_end * c->in_scale + c->in_offset) >> 23) - (127 - 24);
        if (first < 0) first = 0;
        if (first > 16) first = 16;
        curve_window w;
        for (int j = 0; j < 2; j++) w.s[j] = _mm256_loadu_ps(c->scale + first + 8 * j);
        w.base = _mm256_set1_epi32(127 - 24 + first);
        i = c->in_scale == 1 && c->in_offset == 0 ? curve_window_loop(&k, &w, v, n, 0) : curve_window_loop(&k, &w, v, n, 1);
        if (i + 8 <= n) return i;
    }
    for (; i + 8 <= n; i += 8)
        if (!curve8(&k, v + i)) return i;
    return curve_portable(c, v, i, n);
}

size_t lw_curve_apply(const lw_curve *c, float *v, size_t n) {
    return lw_cpu_avx2() ? curve_avx2(c, v, n) : curve_portable(c, v, 0, n);
}

// Lattice coordinate of one channel: clamped to 0…last (NaN to 0), the cell (the last cell takes the top) as
// a whole float, and the fraction inside it. Flooring is truncation here since the coordinate is not negative.
__attribute__((target("avx2")))
static inline void lut_axis(__m256 v, __m256 minimum, __m256 scale, __m256 last, __m256 lastCell, __m256 *cell, __m256 *fraction) {
    __m256 x = _mm256_mul_ps(_mm256_sub_ps(v, minimum), scale);
    x = _mm256_max_ps(x, _mm256_setzero_ps());       // max returns the second operand for NaN
    x = _mm256_min_ps(x, last);
    __m256 c = _mm256_min_ps(_mm256_round_ps(x, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC), lastCell);
    *cell = c;
    *fraction = _mm256_sub_ps(x, c);
}

// The tetrahedra of eight pixels: corner entries (in lattice entries, red fastest) and weights. Corner 3 is
// corner 0 plus `far`, the cell's opposite corner.
typedef struct {
    int c0[8], c1[8], c2[8];
    __m256 w0, w1, w2, w3;
} tetrahedra;

// With `unit`, each value is first clamped to 0…1 (NaN to 0), as `FilmLook` hands the lookup its pixels.
__attribute__((target("avx2")))
static inline __m256 unit_clamp(__m256 v) {
    return _mm256_min_ps(_mm256_max_ps(v, _mm256_setzero_ps()), _mm256_set1_ps(1.0f));   // max: NaN → 0
}

__attribute__((target("avx2")))
static inline void lut3d_tetrahedra(int size, const float *mn, const float *sc, const float *r, const float *g, const float *b,
                                    int unit, tetrahedra *q) {
    const __m256 last = _mm256_set1_ps((float)(size - 1)), lastCell = _mm256_set1_ps((float)(size - 2));
    const int dy = size, dz = size * size, far = 1 + dy + dz;
    __m256 xc, yc, zc, fx, fy, fz, vr = _mm256_loadu_ps(r), vg = _mm256_loadu_ps(g), vb = _mm256_loadu_ps(b);
    if (unit) { vr = unit_clamp(vr); vg = unit_clamp(vg); vb = unit_clamp(vb); }
    lut_axis(vr, _mm256_set1_ps(mn[0]), _mm256_set1_ps(sc[0]), last, lastCell, &xc, &fx);
    lut_axis(vg, _mm256_set1_ps(mn[1]), _mm256_set1_ps(sc[1]), last, lastCell, &yc, &fy);
    lut_axis(vb, _mm256_set1_ps(mn[2]), _mm256_set1_ps(sc[2]), last, lastCell, &zc, &fz);
    // The cell's entry in floats: whole numbers below 2^24 for any size up to 256, so exact.
    __m256i cell = _mm256_cvttps_epi32(_mm256_add_ps(_mm256_add_ps(xc, _mm256_mul_ps(yc, _mm256_set1_ps((float)dy))),
                                                     _mm256_mul_ps(zc, _mm256_set1_ps((float)dz))));
    // The largest fraction (ties: x before y before z), the smallest, and which axes hold them.
    __m256 mxy = _mm256_max_ps(fx, fy), nxy = _mm256_min_ps(fx, fy);
    __m256 fMax = _mm256_max_ps(mxy, fz), fMin = _mm256_min_ps(nxy, fz);
    __m256 xMax = _mm256_cmp_ps(fx, fMax, _CMP_EQ_OQ);
    __m256 yMax = _mm256_andnot_ps(xMax, _mm256_cmp_ps(fy, fz, _CMP_GE_OQ));
    __m256 zMin = _mm256_cmp_ps(fz, fMin, _CMP_EQ_OQ);
    __m256 yMin = _mm256_andnot_ps(zMin, _mm256_cmp_ps(fy, fx, _CMP_LE_OQ));
    const __m256i sx = _mm256_set1_epi32(1), sy = _mm256_set1_epi32(dy), sz = _mm256_set1_epi32(dz);
    __m256i o1 = _mm256_castps_si256(_mm256_blendv_ps(_mm256_blendv_ps(_mm256_castsi256_ps(sz), _mm256_castsi256_ps(sy), yMax),
                                                      _mm256_castsi256_ps(sx), xMax));
    __m256i o2 = _mm256_sub_epi32(_mm256_set1_epi32(far),
                                  _mm256_castps_si256(_mm256_blendv_ps(_mm256_blendv_ps(_mm256_castsi256_ps(sx), _mm256_castsi256_ps(sy), yMin),
                                                                       _mm256_castsi256_ps(sz), zMin)));
    __m256 fMid = _mm256_sub_ps(_mm256_sub_ps(_mm256_add_ps(_mm256_add_ps(fx, fy), fz), fMax), fMin);
    _mm256_storeu_si256((__m256i *)q->c0, cell);
    _mm256_storeu_si256((__m256i *)q->c1, _mm256_add_epi32(cell, o1));
    _mm256_storeu_si256((__m256i *)q->c2, _mm256_add_epi32(cell, o2));
    q->w0 = _mm256_sub_ps(_mm256_set1_ps(1.0f), fMax);
    q->w1 = _mm256_sub_ps(fMax, fMid);
    q->w2 = _mm256_sub_ps(fMid, fMin);
    q->w3 = fMin;
}

// Three floats an entry: each corner's R, G, B read with one 8-byte and one 4-byte load (never past the
// table's end); per channel the same ((w0·c0 + w1·c1) + w2·c2) + w3·c3.
__attribute__((target("avx2")))
static inline __m128 lut_corner(const float *p) {
    return _mm_movelh_ps(_mm_castpd_ps(_mm_load_sd((const double *)p)), _mm_load_ss(p + 2));
}

__attribute__((target("avx2")))
static void lut3d_block(const float *t, int size, const float *mn, const float *sc, float *r, float *g, float *b) {
    tetrahedra q;
    lut3d_tetrahedra(size, mn, sc, r, g, b, 0, &q);
    const int far = 3 * (1 + size + size * size);
    float w0[8], w1[8], w2[8], w3[8];
    _mm256_storeu_ps(w0, q.w0); _mm256_storeu_ps(w1, q.w1); _mm256_storeu_ps(w2, q.w2); _mm256_storeu_ps(w3, q.w3);
    __m128 out[8];
    for (int k = 0; k < 8; k++) {
        const float *p0 = t + 3 * q.c0[k];
        __m128 s = _mm_add_ps(_mm_mul_ps(_mm_set1_ps(w0[k]), lut_corner(p0)), _mm_mul_ps(_mm_set1_ps(w1[k]), lut_corner(t + 3 * q.c1[k])));
        s = _mm_add_ps(s, _mm_mul_ps(_mm_set1_ps(w2[k]), lut_corner(t + 3 * q.c2[k])));
        out[k] = _mm_add_ps(s, _mm_mul_ps(_mm_set1_ps(w3[k]), lut_corner(p0 + far)));
    }
    for (int h = 0; h < 8; h += 4) {
        __m128 p0 = out[h], p1 = out[h + 1], p2 = out[h + 2], p3 = out[h + 3];
        _MM_TRANSPOSE4_PS(p0, p1, p2, p3);
        _mm_storeu_ps(r + h, p0);
        _mm_storeu_ps(g + h, p1);
        _mm_storeu_ps(b + h, p2);
    }
}

// Four floats an entry, in two stages over up to 256 pixels: first every pixel's tetrahedron (eight at a time,
// into small arrays), then per pixel one 16-byte load per corner, each scaled by its weight broadcast from
// memory; four pixels' [R G B pad] results are transposed into the planes. Splitting the stages keeps each
// loop short, so the core overlaps many pixels' table reads (30 % faster than one stage in cache); the
// per-channel operations are the same as above. With `mix`, the planes receive v + strength · (lookup − v)
// instead of the lookup (and the lookup sees each value clamped to 0…1): `FilmLook`'s blend, in the same pass.
enum { lut_stage_pixels = 256 };

__attribute__((target("avx2")))
static void lut3d_stages_padded(const float *t, int size, const float *mn, const float *sc, int mix, float strength,
                                float *r, float *g, float *b, int n) {
    int32_t c0[lut_stage_pixels], c1[lut_stage_pixels], c2[lut_stage_pixels];
    float w0[lut_stage_pixels], w1[lut_stage_pixels], w2[lut_stage_pixels], w3[lut_stage_pixels];
    for (int i = 0; i < n; i += 8) {
        tetrahedra q;
        lut3d_tetrahedra(size, mn, sc, r + i, g + i, b + i, mix, &q);
        memcpy(c0 + i, q.c0, sizeof q.c0); memcpy(c1 + i, q.c1, sizeof q.c1); memcpy(c2 + i, q.c2, sizeof q.c2);
        _mm256_storeu_ps(w0 + i, q.w0); _mm256_storeu_ps(w1 + i, q.w1);
        _mm256_storeu_ps(w2 + i, q.w2); _mm256_storeu_ps(w3 + i, q.w3);
    }
    const int far = 4 * (1 + size + size * size);
    const __m128 s4 = _mm_set1_ps(strength);
    for (int i = 0; i < n; i += 4) {
        __m128 o[4];
        for (int k = 0; k < 4; k++) {
            const int j = i + k;
            const float *p0 = t + 4 * c0[j];
            __m128 s = _mm_add_ps(_mm_mul_ps(_mm_broadcast_ss(w0 + j), _mm_loadu_ps(p0)),
                                  _mm_mul_ps(_mm_broadcast_ss(w1 + j), _mm_loadu_ps(t + 4 * c1[j])));
            s = _mm_add_ps(s, _mm_mul_ps(_mm_broadcast_ss(w2 + j), _mm_loadu_ps(t + 4 * c2[j])));
            o[k] = _mm_add_ps(s, _mm_mul_ps(_mm_broadcast_ss(w3 + j), _mm_loadu_ps(p0 + far)));
        }
        _MM_TRANSPOSE4_PS(o[0], o[1], o[2], o[3]);
        if (mix) {
            const __m128 vr = _mm_loadu_ps(r + i), vg = _mm_loadu_ps(g + i), vb = _mm_loadu_ps(b + i);
            o[0] = _mm_add_ps(vr, _mm_mul_ps(s4, _mm_sub_ps(o[0], vr)));
            o[1] = _mm_add_ps(vg, _mm_mul_ps(s4, _mm_sub_ps(o[1], vg)));
            o[2] = _mm_add_ps(vb, _mm_mul_ps(s4, _mm_sub_ps(o[2], vb)));
        }
        _mm_storeu_ps(r + i, o[0]); _mm_storeu_ps(g + i, o[1]); _mm_storeu_ps(b + i, o[2]);
    }
}

// One lookup call's table and settings, so one runner serves both tables and both entry points (`mix` is
// only ever set with a padded table; the three-float block has no blend).
typedef struct {
    const float *t;
    int size, padded, mix;
    const float *mn, *sc;
    float strength;
} lut_job;

__attribute__((target("avx2")))
static void lut_job_eight(const lut_job *j, float *r, float *g, float *b) {
    if (j->padded) lut3d_stages_padded(j->t, j->size, j->mn, j->sc, j->mix, j->strength, r, g, b, 8);
    else lut3d_block(j->t, j->size, j->mn, j->sc, r, g, b);
}

__attribute__((target("avx2")))
static void lut_job_run(const lut_job *j, float *r, float *g, float *b, size_t count) {
    size_t i = 0;
    while (j->padded && count - i >= 8) {
        size_t n = count - i < lut_stage_pixels ? (count - i) & ~(size_t)7 : lut_stage_pixels;
        lut3d_stages_padded(j->t, j->size, j->mn, j->sc, j->mix, j->strength, r + i, g + i, b + i, (int)n);
        i += n;
    }
    for (; i + 8 <= count; i += 8) lut_job_eight(j, r + i, g + i, b + i);
    if (i < count) {
        // The last few pixels through the same code, padded with copies of the first.
        float pr[8], pg[8], pb[8];
        for (size_t k = 0; k < 8; k++) {
            size_t m = i + k < count ? i + k : i;
            pr[k] = r[m]; pg[k] = g[m]; pb[k] = b[m];
        }
        lut_job_eight(j, pr, pg, pb);
        for (size_t k = 0; i + k < count; k++) { r[i + k] = pr[k]; g[i + k] = pg[k]; b[i + k] = pb[k]; }
    }
}

void lw_lut3d_tetrahedral_avx2(const float *t, int size, int padded, const float mn[3], const float sc[3],
                               float *r, float *g, float *b, size_t count) {
    const lut_job job = {t, size, padded, 0, mn, sc, 0};
    lut_job_run(&job, r, g, b, count);
}

void lw_lut3d_mix_avx2(const float *t, int size, const float mn[3], const float sc[3], float strength,
                       float *r, float *g, float *b, size_t count) {
    const lut_job job = {t, size, 1, 1, mn, sc, strength};
    lut_job_run(&job, r, g, b, count);
}
