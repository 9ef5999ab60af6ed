#ifndef LW_HALF_H
#define LW_HALF_H
#include <stddef.h>
#include <stdint.h>

/// Converts `count` IEEE half floats to float (F16C when the CPU has it, exact software path otherwise).
void lw_half_to_float(const uint16_t *src, float *dst, size_t count);
/// Converts `count` floats to IEEE half floats, round-to-nearest-even (F16C when available).
void lw_float_to_half(const float *src, uint16_t *dst, size_t count);
/// De-interleaves `count` RGBA half pixels into four float planes.
void lw_rgba_half_to_planar(const uint16_t *src, float *r, float *g, float *b, float *a, size_t count);
/// `lw_rgba_half_to_planar` with R, G and B mapped through `table` (65536 floats indexed by a half's bits), the
/// alpha converted as is: a curve applied while loading, one lookup a value.
void lw_rgba_half_to_planar_mapped(const uint16_t *src, const float *table, float *r, float *g, float *b, float *a, size_t count);
/// Interleaves four float planes into `count` RGBA half pixels.
void lw_planar_to_rgba_half(const float *r, const float *g, const float *b, const float *a, uint16_t *dst, size_t count);
/// Adds, for each cell of `factor` pixels along one RGBA half row (the last cell may be narrower), the
/// cell's R, G, B and A sums to `sums[4 * cell ...]`. The same bits with or without F16C.
void lw_rgba_half_add_cell_sums(const uint16_t *row, size_t width, size_t factor, float *sums);

#endif
