#ifndef LW_LENS_H
#define LW_LENS_H

/// Lens-correction resampling (develop `lens`): one output row of a float plane (width × height, row-major)
/// sampled at the n source positions lensfun computed for it. `coords` holds (x, y) pairs, `stride` floats from one
/// pixel's pair to the next (6 for lensfun's subpixel results R x,y · G x,y · B x,y: offset the pointer by 0, 2 or 4
/// to pick a channel). Pixel centres are at integer positions. Each value is the Keys bicubic (a = -1/2) of the
/// 4 × 4 neighbours; positions outside the frame (or not finite) are clamped to it, edge pixels replicated.
/// Per-pixel arithmetic in a fixed order only, so the bits do not depend on how rows are shared among threads.
void lw_lens_resample_row(const float *plane, int width, int height, const float *coords, int stride, int n, float *out);

#endif
