#ifndef LW_SIMD_H
#define LW_SIMD_H
#include <stddef.h>
#include <stdint.h>

// Inner loops that need AVX2 gathers to run fast, chosen at run time (Swift cannot compile a function for a
// CPU feature it checks at run time). The portable path does the same IEEE operations in the same order,
// so results are bit-identical on every CPU.

/// Interpolates a curve tabulated on Float32 bit patterns (see FastCurve): for each value, the table index
/// is `(|bits| >> shift) - base`, the weight the low `shift` bits of |bits| over 2^shift, and the result
/// `t0 + (t1 - t0) * weight` with the value's sign. Every value must be zero (which maps to zero) or have a
/// magnitude inside the table.
void lw_curve_interpolate(float *values, size_t count, const float *table, uint32_t shift, uint32_t base);

/// Tetrahedral interpolation in a `size`³ lattice of RGB triplets (red fastest), exactly as LUT3D's own
/// tetrahedral path computes it: inputs mapped by `(v - domainMin) * scale`, clamped to the lattice (NaN to
/// its start), then the four corners of the tetrahedron picked by the order of the fractions. AVX2 only:
/// call it when `lw_simd_uses_avx2()` is 1.
void lw_lut3d_tetrahedral_avx2(const float *table, int size, const float domainMin[3], const float scale[3],
                               float *r, float *g, float *b, size_t count);

/// 1 when the AVX2 paths are in use.
int lw_simd_uses_avx2(void);

#endif
