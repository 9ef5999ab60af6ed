// Shared by the C kernels that read neighbours across an image's border (not part of the module's interface).
#ifndef LW_MIRROR_H
#define LW_MIRROR_H

// Reflection about the first and last pixel, repeated for images narrower than the margin. The period
// 2 (n - 1) is even, so on a mosaic the colour at the result is the colour at v.
static inline int lw_mirror(int v, int n) {
    if (v >= 0 && v < n) return v;
    if (n < 2) return 0;
    int p = 2 * (n - 1);
    v %= p;
    if (v < 0) v += p;
    return v >= n ? p - v : v;
}

#endif
