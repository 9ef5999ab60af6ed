#ifndef LW_LENS_H
#define LW_LENS_H

/// Lens correction's maps (develop `lens`), evaluated by lensfun on a coarse grid and interpolated here.
/// The grid has nodes every `spacing` pixels (a power of two) of the lens-corrected frame: node (i, j) at pixel
/// (i·spacing, j·spacing), `across` × `down` nodes reaching past the frame's last pixel, each node `fields` floats.
/// At a position (u, v) of that frame, field f is bilinear between the four nodes around it:
///     fx, fy = the fractions of (u, v) past node (i, j)   (from the whole pixel plus, in float, the part past it)
///     left = top + (bottom − top)·fy on node column i (right: on i + 1), then value = left + (right − left)·fx
/// n positions along a line, (u0 + k·du, v0 + k·dv) computed in double, clamped into the grid (NaN to 0), into
/// out[f][k]; each position alone, so the bits do not depend on how rows are shared among threads.
void lw_grid_line(const float *grid, int across, int down, int fields, int spacing,
                  double u0, double v0, double du, double dv, int n, float *const *out);

/// In place over n pixels: (r, g, b) ← m · (r, g, b) (row-major 3 × 3, each row ((m0·r + m1·g) + m2·b)) when m is
/// not NULL, then each multiplied by gain[k] when gain is not NULL.
void lw_mix_row(float *r, float *g, float *b, int n, const float *m, const float *gain);

#endif
