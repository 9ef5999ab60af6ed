#ifndef LW_RESAMPLE_H
#define LW_RESAMPLE_H

/// Bicubic resampling of float planes (develop `lens` and `rotate`): Keys' cubic convolution (a = -1/2, Catmull-Rom)
/// of the 4 × 4 neighbours of a source position. Planes are row-major, `width` floats a row; pixel centres are at
/// integer positions; a position outside the frame (or not finite) is clamped into it, and taps outside the frame
/// read the nearest edge pixel. Each value is computed, with separate multiplies and adds, as
///     wx, wy = the weights of the fractions, each ((a·t + b)·t + c)·t + d with Keys' coefficients;
///     column[i] = ((wy0·row0[i] + wy1·row1[i]) + wy2·row2[i]) + wy3·row3[i]   (i = 0…3, rows iy−1…iy+2);
///     value = (column[0]·wx0 + column[1]·wx1) + (column[2]·wx2 + column[3]·wx3)
/// for each pixel alone, so the bits do not depend on how rows are shared among threads.

/// n samples of `count` planes (1…4) at the positions (xs[k], ys[k]), into out[p][k].
void lw_bicubic_row(const float *const *planes, int count, int width, int height,
                    const float *xs, const float *ys, int n, float *const *out);

/// n samples of `count` planes (1…4) along a straight line, at (x0 + k·dx, y0 + k·dy) computed in double.
void lw_bicubic_line(const float *const *planes, int count, int width, int height,
                     double x0, double y0, double dx, double dy, int n, float *const *out);

/// `lw_bicubic_line`'s samples k = first…first+n−1 alone (the same positions, so the same bits), into out[p][k]:
/// a row done in spans, so that a tile of rows reads a source footprint that stays in cache.
void lw_bicubic_span(const float *const *planes, int count, int width, int height,
                     double x0, double y0, double dx, double dy, int first, int n, float *const *out);

#endif
