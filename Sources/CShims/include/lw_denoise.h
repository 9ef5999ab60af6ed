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

#endif
