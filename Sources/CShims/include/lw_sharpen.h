#ifndef LW_SHARPEN_H
#define LW_SHARPEN_H

// Row kernels of LightWork's luminance unsharp mask (`LuminanceSharpener`: the `sharpen` and `outputSharpen`
// modules). Every function works on one row and reads only its arguments, so rows spread over any number of
// threads give the same bits; the AVX2 build of the same C (no FMA) gives the same bits as the baseline one.
// min(a, b) is `b < a ? b : a` and max(a, b) is `b >= a ? b : a` throughout.

/// Luminance of one row: l[x] = (kr · r[x] + kg · g[x]) + kb · b[x].
void lw_usm_luma_row(const float *r, const float *g, const float *b, int width, float kr, float kg, float kb, float *l);

/// Horizontal Gaussian of one row, the edge pixels replicated: out[x] = taps[0] · s(x − radius) + taps[1] ·
/// s(x − radius + 1) + … + taps[2·radius] · s(x + radius), summed in that order, s(i) = src[clamp(i, 0, width − 1)].
/// `padded` holds width + 2 · radius floats.
void lw_usm_hblur_row(const float *src, int width, const float *taps, int radius, float *padded, float *out);

/// One output row of the mask. `rows` are the 2 · radius + 1 horizontally blurred rows y − radius … y + radius
/// and `up`, `mid`, `down` the luminance rows y − 1, y, y + 1 (edge rows replicated by the caller):
///
///     blurred = taps[0] · rows[0][x] + … + taps[2·radius] · rows[2·radius][x]   (in that order)
///     s = mid[x] + amount · (mid[x] − blurred)
///     with `halo`: s clamped to [lo, hi], the min and max of up, mid, down over columns x − 1 … x + 1 (edge replicated)
///     r[x], g[x], b[x] += s − mid[x]
///
/// `scratch` holds 3 · width floats.
void lw_usm_apply_row(const float *const *rows, const float *taps, int radius, const float *up, const float *mid,
                      const float *down, int width, float amount, int halo, float *scratch, float *r, float *g, float *b);

#endif
