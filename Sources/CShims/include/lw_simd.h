#ifndef LW_SIMD_H
#define LW_SIMD_H
#include <stddef.h>
#include <stdint.h>

// Inner loops that need AVX2 to run fast, chosen at run time (Swift cannot compile a function for a CPU
// feature it checks at run time). The portable path does the same IEEE operations in the same order, so
// results are bit-identical on every CPU.

/// A transfer curve in the form every TransferFunction takes (see FastCurve): `toe_slope · a` for magnitudes
/// a ≤ `toe_end`, else `out_scale · u^p + out_offset` with `u = in_scale · a + in_offset`, where u^p is
/// `scale[e + 24] · poly(m − 1.5)` for u = 2^e · m, m in [1, 2); the sign of the input is kept.
typedef struct {
    float poly[8];          // degree-7 coefficients, constant term first
    float scale[32];        // 2^(e·p) for e = −24 … 7
    float in_scale, in_offset, out_scale, out_offset, toe_end, toe_slope;
} lw_curve;

/// 1 when `lw_curve_one` is defined at x: in the toe, or u within [2^-24, 2^8). NaN and ±∞ are not.
int lw_curve_in_range(const lw_curve *curve, float x);

/// The curve at one value in range.
float lw_curve_one(const lw_curve *curve, float x);

/// Applies the curve in place from the start and returns how many values it did: it stops before a value out
/// of range (the AVX2 path at the start of its group of 8), leaving the rest untouched.
size_t lw_curve_apply(const lw_curve *curve, float *values, size_t count);

/// Tetrahedral interpolation in a `size`³ lattice of RGB triplets (red fastest), exactly as LUT3D's own
/// tetrahedral path computes it: inputs mapped by `(v - domainMin) * scale`, clamped to the lattice (NaN to
/// its start), then the four corners of the tetrahedron picked by the order of the fractions. With `padded`
/// each entry is four floats (R, G, B and a pad), which the kernel reads with one load; otherwise three.
/// AVX2 only: call it when `lw_cpu_avx2()` is 1.
void lw_lut3d_tetrahedral_avx2(const float *table, int size, int padded, const float domainMin[3], const float scale[3],
                               float *r, float *g, float *b, size_t count);

/// `FilmLook`'s blend through a padded table (four floats an entry) in one pass: each plane value v becomes
/// v + strength · (lookup(clamp(v, 0, 1)) − v), the lookup as `lw_lut3d_tetrahedral_avx2` computes it.
/// AVX2 only.
void lw_lut3d_mix_avx2(const float *paddedTable, int size, const float domainMin[3], const float scale[3], float strength,
                       float *r, float *g, float *b, size_t count);

#endif
