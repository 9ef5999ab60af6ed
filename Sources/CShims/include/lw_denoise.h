#ifndef LW_DENOISE_H
#define LW_DENOISE_H
#include <stddef.h>
#include <stdint.h>

// Row kernels of the wavelet noise reduction (LightWork's Denoise module): an à-trous decomposition with the
// B3-spline [1 4 6 4 1] / 16, shrinking each detail band with a non-negative garrote whose threshold follows a
// Poisson-Gaussian noise model (variance a + b · level). Every function works on one row and reads only its
// arguments, so rows spread over any number of threads give the same bits; the AVX2 build of the same C (no FMA)
// gives the same bits as the baseline one. Planes are row-major, `width` floats a row.

/// One smoothing step at row y: `dst` = the B3 filter at spacing `step` down the columns of `src` (rows mirrored
/// about the first and last) and then along the row (mirrored the same way). `scratch` holds `width` floats.
void lw_atrous_row(const float *src, int width, int height, int y, int step, float *scratch, float *dst);

/// Shrinks the detail d = fine − coarse of one row and adds it to `acc` (or stores it when `accumulate` is 0):
/// d · max(0, 1 − T² / d²) with T² = k2 · (a + b · max(level, 0)), the non-negative garrote.
void lw_garrote_row(const float *fine, const float *coarse, const float *level, int width,
                    float a, float b, float k2, float *acc, int accumulate);

/// Noise statistics of the band fine − coarse over the row of square blocks whose top row is y0 (rows y0 to
/// y0 + block − 1, all inside the plane): for each of the width / block whole blocks, the mean |fine − coarse|
/// into mean_abs and the mean level into mean_level, summed in a fixed order.
void lw_dn_block_stats(const float *fine, const float *coarse, const float *level, int width, int y0, int block,
                       float *mean_abs, float *mean_level);

/// In place: linear R, G, B → Y = (R + G + B) / 3, U = (R − B) / 2, V = (R − 2G + B) / 4, and back.
void lw_rgb_to_opponent(float *r, float *g, float *b, int width);
void lw_opponent_to_rgb(float *y, float *u, float *v, int width);

/// Most detail bands `lw_dn_cascade` takes.
#define LW_DN_MAX_SCALES 6

/// Floats of scratch one `lw_dn_cascade` call needs (its rings of rows), for `scales` bands of a `width` plane.
size_t lw_dn_cascade_scratch(int width, int scales);

/// Every band of one channel plane `x` for rows y0 ≤ y < y1 in one pass, the smoothings at spacings 1, 2, 4, …
/// cascaded in rings of rows (each computed as `lw_atrous_row` computes it on the whole plane of the previous one,
/// rows outside y0…y1 included as far as the later ones read them), so the same bits as full-plane passes.
/// Without `out` it measures: for each band j and each whole block row of [y0, y1) (y0 and y1 multiples of
/// `block`, or y1 = height), `lw_dn_block_stats`'s figures into mean_abs[j] (+ band · (width / block)) and, when
/// `mean_level` is not NULL, the level's into it (the same for every band). With `out` it shrinks: row y of
/// `out` (not `x`) = the coarsest approximation + the garrotes of bands 0…scales−1 added in order, band j with
/// a[j], b[j], k2[j] as `lw_garrote_row` computes it. With `level_out` (then `level` is not read) the level is
/// x's first smoothing itself, and its rows y0…y1−1 are written there. `scratch` holds `lw_dn_cascade_scratch` floats.
void lw_dn_cascade(const float *x, const float *level, int width, int height, int y0, int y1, int scales, float *scratch,
                   int block, float *const *mean_abs, float *mean_level, float *level_out,
                   const float *a, const float *b, const float *k2, float *out);

/// `lw_opponent_to_rgb` from planes y, u, v into r, g, b (which may be any of them: each pixel is read before written).
void lw_opponent_to_rgb_into(const float *y, const float *u, const float *v, float *r, float *g, float *b, int width);

#endif
