// Shared by the Bayer demosaic kernels (demosaic.c, rcd.c); not part of the module's interface.
#ifndef LW_BAYER_TILE_H
#define LW_BAYER_TILE_H
#include "lw_demosaic.h"
#include "mirror.h"

// The normalised mosaic of the e × e tile whose pixel (0, 0) is image pixel (x0 - m, y0 - m), mirrored at the image
// edges (x0, y0 and m are even: parity is the image's), clipped to 0…1. black and scale hold each row parity's
// e values (black[py * e + i]). Inlined into each kernel's AVX2 and baseline bodies, so it vectorises in both.
static inline __attribute__((always_inline))
void lw_bayer_load(const lw_bayer *b, int x0, int y0, int m, int e, const float *black, const float *scale, float *restrict cfa) {
    const int W = b->width, H = b->height;
    const int inside = x0 - m >= 0 && x0 - m + e <= W;
    for (int j = 0; j < e; j++) {
        int y = lw_mirror(y0 - m + j, H), py = j & 1;
        const uint16_t *row = b->raw + (size_t)y * b->pitch;
        const float *bl = black + py * e, *sc = scale + py * e;
        float *restrict dst = cfa + j * e;
#define LW_NORMALISE(v) ({ float n_ = ((float)(v) - bl[i]) * sc[i]; n_ < 0 ? 0 : (n_ > 1 ? 1 : n_); })
        if (inside) {
            const uint16_t *src = row + x0 - m;
            for (int i = 0; i < e; i++) dst[i] = LW_NORMALISE(src[i]);
        } else {
            for (int i = 0; i < e; i++) dst[i] = LW_NORMALISE(row[lw_mirror(x0 - m + i, W)]);
        }
#undef LW_NORMALISE
    }
}

#endif
