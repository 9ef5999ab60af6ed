#ifndef LW_LENS_H
#define LW_LENS_H

/// Lens correction's maps (develop `lens`), evaluated by lensfun on a coarse grid and interpolated here.
/// The grid has nodes every `spacing` pixels (a power of two) of the output frame: node (i, j) at pixel
/// (i·spacing, j·spacing), `across` nodes a row, enough rows and columns to reach past the frame's last pixel, each node
/// `fields` floats. For output row y, field f of pixel x is bilinear between the four nodes around it:
///     down = top + (bottom − top)·fy, then value = left + (right − left)·fx   (fx, fy the exact fractions)
/// with the left and right `down` values of its span, computed for each row alone (same bits on any threads).
void lw_grid_row(const float *grid, int across, int fields, int spacing, int y, int width, float *const *out);

/// `lw_grid_row`'s pixels from ≤ x < to of row y alone (the same bits), pixel x into out[f][x − from].
void lw_grid_span(const float *grid, int across, int fields, int spacing, int y, int from, int to, float *const *out);

/// In place over n pixels: (r, g, b) ← m · (r, g, b) (row-major 3 × 3, each row ((m0·r + m1·g) + m2·b)) when m is
/// not NULL, then each multiplied by gain[k] when gain is not NULL.
void lw_mix_row(float *r, float *g, float *b, int n, const float *m, const float *gain);

#endif
