#ifndef LW_TONE_H
#define LW_TONE_H
#include <stddef.h>

// The base tone's per-pixel loop (LightWork's `Tone` module, `ToneTable`), one kernel for every row. The AVX2 path
// (gathers, no FMA) gives the same bits as the baseline: every step is one correctly rounded IEEE operation.

/// A tone curve y = (1 / (1 + (s / x)^c))^gamma sampled at n = limit · u², u = i / (entries − 1), i = 0 … entries − 1,
/// into table[i] (table[entries] is 1, a pad the interpolation may read).
typedef struct {
    const float *table;
    int entries;
    float limit;
    double s, c, gamma;
} lw_tone_curve;

/// In place over `count` pixels: n = max(r, max(g, b)) (max(a, b) = `b >= a ? b : a`); n > 0 scales r, g, b by
/// f(n) / n, where below `limit` f is the table linearly interpolated, u = sqrt(n · (1 / limit)) · (entries − 1),
/// i = ⌊u⌋, f = table[i] + (table[i + 1] − table[i]) · (u − i), and from `limit` up the curve itself in double
/// precision, rounded to float; n ≤ 0 makes the pixel black; NaN leaves it as it is.
void lw_tone_apply(const lw_tone_curve *curve, float *r, float *g, float *b, size_t count);

#endif
